import Foundation
import Testing
@testable import RecipeCatalog

/// A seeded mutation fuzzer for the JSON Lines import reader: lines of the sample data and
/// generated recipes, mutated byte by byte (flips, cuts, repeats, splices, escapes, invalid
/// UTF-8, deep nesting, huge numbers), through the line parser and, in small files with
/// tiny chunks, through the whole reader.
///
/// Nothing may crash; a line the parser accepts must be JSON that Foundation accepts too,
/// with the same `id` and `name` (the parser claims RFC 8259 exactly); a line it refuses gets
/// a message. The reader must account for every line of a file (a record or an error with
/// that line's number) whatever its chunk size.
///
/// `JSONL_FUZZ_COUNT` sets the number of inputs (5,000 by default; `make soak` runs
/// 1,000,000), `JSONL_FUZZ_SEED` the seed.
@Suite("JSON Lines fuzzing")
struct RecipeLineFuzzTests {
    static let fragments: [[UInt8]] = [
        "\"", "\\", "\\\"", "\\u", "\\u0000", "\\ud83d\\ude00", "\\ud800", "\\udc00", "\\x", "{", "}", "[", "]", ",", ":",
        "null", "true", "false", "-", "-0", "0.", ".5", "1e", "1e999", "-1e-999", "9223372036854775808", "1.5e308", "00",
        "\"id\": ", "\"name\": ", "\"ingredients\": [", "\"rating\": ", "\"servings\": 2.5", "\"photo\": \"%%%\"",
        "\"published\": \"2021-13-45\"", String(repeating: "[", count: 70), String(repeating: "{\"a\":", count: 70),
        " ", "\t", "\r", "\u{0}", "é", "🙂", "\u{FEFF}",
    ].map { Array($0.utf8) } + [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]]

    struct Statistics {
        var inputs = 0, accepted = 0, refused = 0, files = 0
    }

    /// The corpus: every line of the sample data and of a small generated file.
    static func corpus() throws -> [[UInt8]] {
        let sample = try String(contentsOf: TestFiles.sampleData("recipes.jsonl"), encoding: .utf8)
        let generator = CatalogGenerator(seed: 5, ingredientNames: ["salt", "Beans, \"kidney\", raw", "crème fraîche"],
                                         photoInterval: 3)
        return sample.split(separator: "\n").map { Array($0.utf8) } + generator.makeLines(count: 30).map { Array($0.utf8) }
    }

    @Test("Mutated lines never crash; accepted ones are JSON with the same id and name; files account for every line")
    func fuzz() throws {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["JSONL_FUZZ_COUNT"].flatMap(Int.init) ?? 5_000
        let seed = environment["JSONL_FUZZ_SEED"].flatMap(UInt64.init) ?? 20_261_125
        var random = SplitMixRandom(seed: seed)
        var corpus = try Self.corpus()
        var statistics = Statistics()
        var failures: [String] = []
        var pendingFile: [[UInt8]] = []
        for _ in 0..<count {
            var line = corpus[Int.random(in: 0..<corpus.count, using: &random)]
            if Int.random(in: 0..<4, using: &random) > 0 { line = Self.mutate(line, corpus: corpus, &random) }
            line.removeAll { $0 == 0x0A }
            statistics.inputs += 1
            switch Self.check(line) {
            case .accepted:
                statistics.accepted += 1
                if corpus.count < 2_000, Int.random(in: 0..<16, using: &random) == 0 { corpus.append(line) }
            case .refused:
                statistics.refused += 1
            case .failure(let message):
                if failures.count < 20 { failures.append(message) }
            }
            pendingFile.append(line)
            if pendingFile.count == 25 {
                statistics.files += 1
                // Chunks from 253 bytes (most lines split several times) to about 4 KB.
                let chunkSize = 1 << Int.random(in: 8...12, using: &random) - Int.random(in: 0...3, using: &random)
                if let problem = try Self.checkFile(pendingFile, chunkSize: chunkSize) {
                    if failures.count < 20 { failures.append(problem) }
                }
                pendingFile.removeAll()
            }
        }
        print("""
            JSON Lines fuzz: seed \(seed), \(statistics.inputs) lines (\(statistics.accepted) accepted, \
            \(statistics.refused) refused with a message), \(statistics.files) files read whole in small chunks, \
            \(failures.count) failures
            """)
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")  // each names the line, so it can become a test
        #expect(statistics.accepted > count / 10 && statistics.refused > count / 4)
    }

    enum Outcome {
        case accepted, refused
        case failure(String)
    }

    /// Parses one line and compares it with Foundation's JSON parser.
    static func check(_ line: [UInt8]) -> Outcome {
        let parsed: Result<RecipeRecord, LineProblem> = line.withUnsafeBufferPointer { bytes in
            var parser = RecipeLineParser(bytes: bytes)
            return Result { () throws(LineProblem) -> RecipeRecord in try parser.parseRecord(lineNumber: 1) }
        }
        let whole = String(decoding: line, as: UTF8.self).debugDescription
        let text = whole.count > 300 ? whole.prefix(300) + "… (\(line.count) bytes)" : whole
        switch parsed {
        case .success(let record):
            let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
            guard let object, String(validating: line, as: UTF8.self) != nil else {
                return .failure("accepted a line that is not a JSON object in UTF-8: \(text)")
            }
            // Foundation drops a U+FEFF that starts a string value; JSON keeps it, as the parser
            // does (see RecipeFileReaderTests.byteOrderMarkInsideAString).
            func foundation(_ text: String) -> String { text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text }
            guard object["id"] as? String == foundation(record.sourceID), object["name"] as? String == foundation(record.name) else {
                return .failure("id or name differ from Foundation's (\(record.sourceID), \(record.name)): \(text)")
            }
            return .accepted
        case .failure(let problem):
            return problem.message.isEmpty ? .failure("an empty message for \(text)") : .refused
        }
    }

    /// Reads `lines` as one file in chunks of `chunkSize` bytes: every non-blank line must
    /// come back as a record or an error with its number, as the line parser alone says.
    static func checkFile(_ lines: [[UInt8]], chunkSize: Int) throws -> String? {
        let url = try TestFiles.write("", name: "fuzz.jsonl")
        defer { TestFiles.remove(url) }
        let bytes = Array(lines.joined(separator: [0x0A]))
        try Data(bytes).write(to: url)
        let reader = try RecipeFileReader(url: url, batchSize: 7, chunkSize: chunkSize)
        var accepted: [Int] = [], refused: [Int] = []
        while let batch = try reader.nextBatch() {
            accepted += batch.records.map(\.lineNumber)
            refused += batch.errors.map(\.line)
        }
        // The file's lines, as the format has them: a line ends at LF, CRLF or a lone CR
        // (a mutated line may hold CRs), and the last may have no end.
        var fileLines: [ArraySlice<UInt8>] = []
        var start = 0, position = 0
        while position < bytes.count {
            guard bytes[position] == 0x0A || bytes[position] == 0x0D else { position += 1; continue }
            fileLines.append(bytes[start..<position])
            position += bytes[position] == 0x0D && position + 1 < bytes.count && bytes[position + 1] == 0x0A ? 2 : 1
            start = position
        }
        let endsUnterminated = start < bytes.count
        if endsUnterminated { fileLines.append(bytes[start...]) }
        var expectedAccepted: [Int] = [], expectedRefused: [Int] = []
        for (index, line) in fileLines.enumerated() {
            var content = line
            if index == 0, content.starts(with: [0xEF, 0xBB, 0xBF]) { content = content.dropFirst(3) }
            if content.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            let isLast = endsUnterminated && index == fileLines.count - 1
            let ok = Array(content).withUnsafeBufferPointer { bytes in
                var parser = RecipeLineParser(bytes: bytes, isUnterminatedLastLine: isLast)
                return (try? parser.parseRecord(lineNumber: index + 1)) != nil
            }
            if ok { expectedAccepted.append(index + 1) } else { expectedRefused.append(index + 1) }
        }
        guard accepted.sorted() == expectedAccepted, refused.sorted() == expectedRefused else {
            return "chunk size \(chunkSize): the reader returned records for lines \(accepted.sorted()) and errors for "
                + "\(refused.sorted()); line by line gives \(expectedAccepted) and \(expectedRefused)"
        }
        return nil
    }

    /// One to four mutations of `line`.
    static func mutate(_ line: [UInt8], corpus: [[UInt8]], _ random: inout SplitMixRandom) -> [UInt8] {
        var bytes = line
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0...bytes.count, using: &random)
            switch Int.random(in: 0..<8, using: &random) {
            case 0 where position < bytes.count:
                bytes.remove(at: position)
            case 1 where position < bytes.count:
                bytes[position] ^= UInt8(1 << Int.random(in: 0..<8, using: &random))
            case 2:
                bytes.insert(contentsOf: fragments[Int.random(in: 0..<fragments.count, using: &random)], at: position)
            case 3 where position < bytes.count:
                let end = min(bytes.count, position + Int.random(in: 1...40, using: &random))
                bytes.insert(contentsOf: bytes[position..<end], at: position)
            case 4:
                bytes = Array(bytes[..<position])
            case 5:
                let other = corpus[Int.random(in: 0..<corpus.count, using: &random)]
                let cut = Int.random(in: 0...other.count, using: &random)
                bytes = Array(bytes[..<position]) + other[cut...]
            case 6 where position < bytes.count:
                bytes[position] = UInt8.random(in: 0...255, using: &random)
            default:
                // Replace a string's content with a fragment: keeps the line's shape, changes a value.
                if let quote = bytes[position...].firstIndex(of: 0x22), let end = bytes[(quote + 1)...].firstIndex(of: 0x22) {
                    bytes.replaceSubrange((quote + 1)..<end, with: fragments[Int.random(in: 0..<fragments.count, using: &random)])
                }
            }
        }
        return bytes
    }
}

/// A seeded generator (SplitMix64), so a failing input can be replayed from the seed.
struct SplitMixRandom: RandomNumberGenerator {
    private var source: SplitMix64
    init(seed: UInt64) { source = SplitMix64(seed: seed) }
    mutating func next() -> UInt64 { source.next() }
}
