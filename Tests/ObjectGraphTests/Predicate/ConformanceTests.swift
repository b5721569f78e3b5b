@testable import ObjectGraph
@testable import ObjectGraphSQLite
import Testing

/// Every conformance case runs through the in-memory evaluator and the SQL compiler; both
/// must select exactly the expected objects.
@Suite("Predicate conformance: memory and SQL agree with the table")
struct ConformanceTests {
    let graph = RecipeDataset.make()

    func letters(_ keys: Set<Int64>) -> String { RecipeDataset.letters(keys, in: graph) }

    func names(_ keys: Set<Int64>, entity: String) -> [String] { RecipeDataset.names(keys, entity: entity, in: graph) }

    @Test("The table has at least 200 cases")
    func tableSize() {
        #expect(ConformanceCases.recipes.count + ConformanceCases.chefs.count + ConformanceCases.lines.count >= 200)
    }

    @Test("Recipes", arguments: ConformanceCases.recipes)
    func recipes(format: String, expected: String) throws {
        let backEnds = try BothBackEnds(graph)
        let result = try backEnds.run(try FetchPredicate(format), on: "Recipe")
        #expect(letters(result.memory) == expected, "in memory: \(format)")
        #expect(letters(result.sql) == expected, "in SQL: \(format)\n\(result.sqlText)")
    }

    @Test("Chefs", arguments: ConformanceCases.chefs)
    func chefs(format: String, expected: [String]) throws {
        let backEnds = try BothBackEnds(graph)
        let result = try backEnds.run(try FetchPredicate(format), on: "Chef")
        #expect(names(result.memory, entity: "Chef") == expected.sorted(), "in memory: \(format)")
        #expect(names(result.sql, entity: "Chef") == expected.sorted(), "in SQL: \(format)\n\(result.sqlText)")
    }

    @Test("Ingredient lines", arguments: ConformanceCases.lines)
    func lines(format: String, expected: [String]) throws {
        let backEnds = try BothBackEnds(graph)
        let result = try backEnds.run(try FetchPredicate(format), on: "Line")
        #expect(names(result.memory, entity: "Line") == expected.sorted(), "in memory: \(format)")
        #expect(names(result.sql, entity: "Line") == expected.sorted(), "in SQL: \(format)\n\(result.sqlText)")
    }

    @Test("Every table case prints to text that parses back to the same tree")
    func roundTrip() throws {
        for (format, _) in ConformanceCases.recipes {
            let predicate = try FetchPredicate(format)
            let printed = predicate.description
            let reparsed = try FetchPredicate(printed)
            #expect(reparsed == predicate, "\(format) printed as \(printed)")
            #expect(reparsed.description == printed)
        }
    }
}
