@testable import ObjectGraph
@testable import ObjectGraphSQLite
import ObjectGraphSQL
import Foundation
import Testing

/// Random and mutated predicate strings: nothing may crash or hang, every accepted string
/// must print to text that parses back to the same tree, and every predicate that checks
/// against the model must select the same recipes in memory and in SQL.
///
/// Runs 50,000 inputs by default; set `PREDICATE_FUZZ_COUNT` (and optionally
/// `PREDICATE_FUZZ_SEED`) for a longer run, e.g. one million inputs in release mode:
/// ```sh
/// PREDICATE_FUZZ_COUNT=1000000 swift test -c release -Xswiftc -enable-testing \
///     --scratch-path .build-pred-release --filter PredicateFuzzTests
/// ```
@Suite("Predicate fuzzing")
struct PredicateFuzzTests {
    static let fragments = [
        "(", ")", "{", "}", "[c]", "[cd]", "[n]", "[", "]", ",", ".", " AND ", " OR ", "NOT ", "!", "&&", "||",
        "==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", " BETWEEN ", " BEGINSWITH ", " ENDSWITH ",
        " CONTAINS ", " LIKE ", " MATCHES ", " IN ", "ANY ", "ALL ", "NONE ", "SOME ", "SUBQUERY(", "$x", "$x.",
        "%@", "%K", "%d", "%f", "%%", "%", "\"", "'", "\\", "\\u{", "\\u00e9", "@count", "@sum", "@avg", ".@max.",
        "CAST(", "\"NSDate\"", "\"UUID\"", "-", "+", "*", "/", "#", "0x", "0b", "0o", "1e", "1e999", ".5", "9223372036854775808",
        "name", "rating", "chef", "chef.name", "ingredients", "ingredients.quantity", "tags.name", "prepMinutes",
        "SELF", "nil", "YES", "NO", "TRUEPREDICATE", "FALSEPREDICATE", "\u{0}", "\u{301}", "é", "ß", "İ", "ǅ", "🙂",
        "\n", "\t", " ", "  ", "\r\n", "[FIRST]", "[LAST]", "[SIZE]", "[0]", "[2]", "ingredients[FIRST].name",
        "chef.recipes[LAST]", "FUNCTION(", "'uppercase'", "'length'", "'abs:'", "'modulus:by:'",
        "chef.recipes.ingredients.name",
    ]

    /// Arguments for format specifiers (several are key paths for `%K`).
    static let arguments: [any Sendable] = [
        3, "x", 2.5, true, Date(timeIntervalSince1970: 0), ["a", "b"], Optional<Int>.none as any Sendable,
        "chef.name", "@count", "ingredients.@sum.quantity", "a b", "rating", Int64.min, Double.nan,
    ]

    struct Statistics {
        var inputs = 0, parsed = 0, checked = 0, compared = 0
    }

    @Test("Random and mutated inputs never crash, and accepted ones round-trip and agree")
    func fuzz() throws {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["PREDICATE_FUZZ_COUNT"].flatMap(Int.init) ?? 50_000
        let seed = environment["PREDICATE_FUZZ_SEED"].flatMap(UInt64.init) ?? 20_261_122
        var rng = SeededGenerator(seed: seed)
        var generator = RandomPredicates(rng: SeededGenerator(seed: seed ^ 0xABCDEF))
        let graph = RecipeDataset.make()
        let backEnds = try BothBackEnds(graph)
        let recipe = graph.model.entity(named: "Recipe")!
        var corpus = ConformanceCases.recipes.map(\.0)
        var statistics = Statistics()
        let clock = ContinuousClock()
        let start = clock.now

        for index in 0..<count {
            let input: String
            switch index % 4 {
            case 0: input = Self.randomString(&rng)
            case 1: input = generator.predicate(3)
            default: input = Self.mutate(corpus[Int.random(in: 0..<corpus.count, using: &rng)], &rng)
            }
            statistics.inputs += 1
            let argumentCount = input.contains("%") ? Int.random(in: 0...3, using: &rng) : 0
            let arguments: [any Sendable] = (0..<argumentCount).map { _ in
                Self.arguments[Int.random(in: 0..<Self.arguments.count, using: &rng)]
            }
            guard let predicate = try? FetchPredicate(format: input, argumentArray: arguments) else { continue }
            statistics.parsed += 1
            if corpus.count < 5_000, Int.random(in: 0..<8, using: &rng) == 0 { corpus.append(input) }
            let printed = predicate.description
            let reparsed = try? FetchPredicate(printed)
            #expect(reparsed == predicate, "input \(input.debugDescription) printed as \(printed.debugDescription)")
            guard let checked = try? predicate.checked(for: recipe) else { continue }
            statistics.checked += 1
            _ = PredicateSQLCompiler.compile(checked, alias: "t0", dialect: .sqlite)
            // Regular expressions from random text can backtrack for a very long time.
            // (SQL runs for every fifth checked predicate, to keep the default run fast.)
            guard !printed.contains("MATCHES"), statistics.checked % 5 == 0 else { continue }
            statistics.compared += 1
            let result = try backEnds.run(predicate, on: "Recipe")
            #expect(result.memory == result.sql, "input \(input.debugDescription)\n\(result.sqlText)")
        }
        if environment["PREDICATE_FUZZ_COUNT"] != nil {
            print("predicate fuzz: seed \(seed), \(statistics.inputs) inputs, \(statistics.parsed) parsed, "
                  + "\(statistics.checked) checked, \(statistics.compared) compared in both back ends, "
                  + "\(clock.now - start)")
        }
        #expect(statistics.parsed > count / 4)
        #expect(statistics.compared > count / 25)
    }

    static func randomString(_ rng: inout SeededGenerator) -> String {
        var text = ""
        for _ in 0..<Int.random(in: 0...12, using: &rng) {
            if Int.random(in: 0..<3, using: &rng) == 0, let scalar = Unicode.Scalar(UInt32.random(in: 0...0x2FF, using: &rng)) {
                text.unicodeScalars.append(scalar)
            } else {
                text += fragments[Int.random(in: 0..<fragments.count, using: &rng)]
            }
        }
        return text
    }

    static func mutate(_ input: String, _ rng: inout SeededGenerator) -> String {
        var characters = Array(input)
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            let position = characters.isEmpty ? 0 : Int.random(in: 0...characters.count, using: &rng)
            switch Int.random(in: 0..<6, using: &rng) {
            case 0 where !characters.isEmpty && position < characters.count:
                characters.remove(at: position)
            case 1:
                characters.insert(contentsOf: Array(fragments[Int.random(in: 0..<fragments.count, using: &rng)]), at: position)
            case 2 where position < characters.count:
                let end = min(characters.count, position + Int.random(in: 1...8, using: &rng))
                characters.insert(contentsOf: characters[position..<end], at: position)
            case 3:
                characters = Array(characters[..<position])
            case 4 where position < characters.count:
                characters[position] = Character(Unicode.Scalar(UInt8.random(in: 32...126, using: &rng)))
            default:
                let fragment = Array(fragments[Int.random(in: 0..<fragments.count, using: &rng)])
                characters.replaceSubrange(position..<min(characters.count, position + fragment.count), with: fragment)
            }
        }
        return String(characters)
    }
}
