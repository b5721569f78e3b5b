import Foundation
import Testing

/// Inputs far larger than usual through the real binary: a big import (5,000 recipes here,
/// 1,000,000 in the soak), a 10 MB instructions field, a long script (5,000 lines here,
/// 100,000 in the soak), a predicate nested 10,000 deep. Each ends in success or a clear
/// error, within a bounded peak memory (measured by `/usr/bin/time`), never a crash.
@Suite("Huge inputs", .serialized)
struct HugeInputTests {
    let home: TemporaryDirectory

    init() throws { home = try TemporaryDirectory() }

    /// The most memory (resident set) a run may reach, whatever the size of its input.
    static let memoryBound = 600 * 1024 * 1024

    /// Runs `recipes arguments` under `/usr/bin/time` and returns the run and its peak resident set in bytes.
    func measured(_ arguments: [String]) async throws -> (run: RecipesBinary.Run, peakBytes: Int) {
        let report = home.url.appendingPathComponent("time-\(UUID().uuidString)").path
        let run = try await RecipesBinary.run(["-f", "%M", "-o", report, RecipesBinary.path] + arguments, in: home.url,
                                              timeout: .seconds(3_600), executable: "/usr/bin/time")
        let kilobytes = try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n").last.flatMap { Int($0) }
        return (run, (kilobytes ?? 0) * 1024)
    }

    @Test("A big generated import: every recipe once, a sound store, bounded memory")
    func bigImport() async throws {
        let count = ReliabilitySettings.isSoak ? 1_000_000 : 5_000
        let file = home.url.appendingPathComponent("big.jsonl").path
        let generated = try await RecipesBinary.run(["generate", "--count", String(count), "--seed", "9", "--output", file],
                                                    timeout: .seconds(3_600))
        #expect(generated.status == 0, "\(generated.standardError)")
        let store = home.url.appendingPathComponent("big.sqlite").path
        let (run, peak) = try await measured([store, "-c", "import \(file)", "-c", "count Recipe"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.hasSuffix("\n\(count)\n"), "\(run.standardOutput)")
        #expect(peak < Self.memoryBound, "peak resident set \(peak / 1_048_576) MB")
        let check = try await ChildProcess.run(["sqlite3", store, "PRAGMA quick_check"])
        #expect(check.output == "ok\n", "\(check.output)")
        print("huge inputs: imported \(count) recipes, peak resident set \(peak / 1_048_576) MB")
    }

    @Test("A 10 MB instructions field is imported whole; the same line cut short is an error naming it")
    func tenMegabyteField() async throws {
        let instructions = String(repeating: "Stir gently, then simmer — déjà vu. ", count: 10_000_000 / 38)
        let line = #"{"id": "huge-1", "name": "Patience", "instructions": "\#(instructions)"}"#
        let file = try home.write(line + "\n" + String(line.prefix(5_000_000)) + "\n", to: "huge.jsonl")
        let store = home.url.appendingPathComponent("huge.sqlite").path
        let (run, peak) = try await measured([store, "-c", "import \(file)"])
        #expect(run.status == 1)
        #expect(run.standardError.contains("huge.jsonl:2: malformed JSON at column"), "\(run.standardError.prefix(500))")
        let length = try await ChildProcess.run(["sqlite3", store, #"SELECT length("instructions") FROM "Recipe""#])
        #expect(length.output == "\(instructions.count)\n")
        #expect(peak < Self.memoryBound, "peak resident set \(peak / 1_048_576) MB")
        print("huge inputs: a \(instructions.utf8.count / 1_000_000) MB field imported, peak resident set \(peak / 1_048_576) MB")
    }

    @Test("A long script of inserts and saves runs to its end")
    func longScript() async throws {
        let lines = ReliabilitySettings.isSoak ? 100_000 : 5_000
        var script = ""
        for index in 1...lines {
            script += index % 1_000 == 0 ? "save\n" : "insert Chef name=\"Chef \(index)\"\n"
        }
        let path = try home.write(script, to: "long.recipes")
        let store = home.url.appendingPathComponent("script.sqlite").path
        let (run, peak) = try await measured([store, "-f", path, "-c", "count Chef"])
        #expect(run.status == 0, "\(run.standardError.prefix(500))")
        #expect(run.standardOutput.hasSuffix("\n\(lines - lines / 1_000)\n"))
        #expect(peak < Self.memoryBound, "peak resident set \(peak / 1_048_576) MB")
        print("huge inputs: a \(lines)-line script, peak resident set \(peak / 1_048_576) MB")
    }

    @Test("A predicate nested 10,000 deep is refused naming the depth; 10,000 ORed terms run in SQLite")
    func deepPredicate() async throws {
        let store = home.url.appendingPathComponent("deep.sqlite").path
        let nested = String(repeating: "(", count: 10_000) + "name == 'x'" + String(repeating: ")", count: 10_000)
        let chain = Array(repeating: "name == 'x'", count: 10_000).joined(separator: " OR ")
        let script = try home.write("count Recipe where \(nested)\ncount Recipe where \(chain)\n", to: "deep.recipes")
        let run = try await RecipesBinary.run([store, "-f", script])
        #expect(run.status == 1)
        #expect(run.standardError.contains("deep.recipes:1: error: the predicate is nested too deeply (more than 100 levels)"))
        // The SQL compiler writes the chain as a balanced tree, well inside SQLite's 1,000 levels.
        #expect(!run.standardError.contains("deep.recipes:2:"), "\(run.standardError.prefix(500))")
        #expect(run.standardOutput == "0\n")
    }
}
