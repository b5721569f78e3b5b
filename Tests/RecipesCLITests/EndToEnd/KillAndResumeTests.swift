import Foundation
import Testing

/// A background import survives `kill -9`: every batch is saved with its resume marker in
/// one transaction, so whenever the process dies, running the same import again ends with
/// every recipe exactly once, each with all its ingredient lines, in a sound store file.
///
/// The moments are chosen by events, not by sleeping: the test polls `.jobs` and kills the
/// process as soon as it reports a given number of saved batches, which lands the kill
/// anywhere in the next batch (reading, inserting, inside the save, or between batches).
@Suite("Killing recipes during a background import")
struct KillAndResumeTests {
    /// Recipes in the file, recipes per batch, and after how many saved batches each round kills.
    static let total = 400, batchSize = 10
    static let killAfterBatches = [1, 2, 3, 5, 8, 12, 16, 20, 25, 30]

    @Test("SIGKILL at ten moments of a background import; rerunning it leaves every recipe exactly once")
    func killAndResume() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("kill.jsonl").path
        let generated = try await RecipesBinary.run(["generate", "--count", String(Self.total), "--seed", "11",
                                                     "--output", file])
        #expect(generated.status == 0, "\(generated.standardError)")
        let expectedLines = try Self.ingredientLineCounts(in: file)
        #expect(expectedLines.count == Self.total)

        for (round, batches) in Self.killAfterBatches.enumerated() {
            let store = directory.url.appendingPathComponent("round-\(round).sqlite").path
            let seen = try await importAndKill(file: file, store: store, afterBatches: batches, home: directory.url)
            try await checkResumedImport(file: file, store: store, savedBeforeKill: seen, expectedLines: expectedLines,
                                         round: round)
        }
    }

    /// Starts a background import in a child shell, polls `.jobs` until it reports
    /// `afterBatches` saved batches (or the job ended), and kills the child.
    ///
    /// - Returns: the number of recipes `.jobs` last reported saved.
    func importAndKill(file: String, store: String, afterBatches: Int, home: URL) async throws -> Int {
        let shell = try ShellProcess([store], home: home)
        shell.send("import \(file) --background --batch \(Self.batchSize)")
        try await shell.waitFor("the job to start") { $0.contains("import #1: kill.jsonl in the background") }
        var answers = 0, saved = 0
        while saved < afterBatches * Self.batchSize {
            shell.send(".jobs")
            answers += 1
            let text = try await shell.waitFor(".jobs answer \(answers)") { Self.jobLines(in: $0).count >= answers }
            let line = Self.jobLines(in: text)[answers - 1]
            saved = Self.savedCount(in: line) ?? 0
            if !line.contains(" running ") { break }  // it ended before the moment: kill it anyway
        }
        shell.kill()
        let exit = try await shell.waitForExit()
        #expect(exit.wasSignalled)
        return saved
    }

    /// Runs the same import to its end, then checks the store: the count, one recipe per
    /// source ID, every recipe's ingredient lines, and SQLite's integrity check.
    func checkResumedImport(file: String, store: String, savedBeforeKill: Int, expectedLines: [String: Int],
                            round: Int) async throws {
        let run = try await RecipesBinary.run(
            [store, "-c", "import \(file) --batch \(Self.batchSize)", "-c", "count Recipe", "-c", ".mode csv",
             "-c", "fetch Recipe keys sourceID, ingredientCount", "-c", "fetch RecipeIngredient keys recipe.sourceID"])
        #expect(run.status == 0, "round \(round): \(run.standardError)")
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        let summary = try #require(lines.first, "round \(round): no output")
        print("round \(round): killed after \(savedBeforeKill) recipes were reported saved; rerun: \(summary)")

        // The import's own account adds up: what it resumed after, imported and skipped.
        let numbers = Self.summaryNumbers(summary)
        #expect(numbers.resumedAfter + numbers.imported + numbers.skipped == Self.total, "round \(round): \(summary)")
        #expect(numbers.skipped == 0 || numbers.skipped == Self.total, "round \(round): \(summary)")
        if numbers.skipped == 0 { #expect(numbers.resumedAfter >= savedBeforeKill, "round \(round): \(summary)") }

        #expect(lines.count > 1 && lines[1] == String(Self.total), "round \(round): count \(lines.dropFirst().first ?? "")")
        let recipeHeader = try #require(lines.firstIndex(of: "sourceID,ingredientCount"), "round \(round)")
        let lineHeader = try #require(lines.firstIndex(of: "recipe.sourceID"), "round \(round)")
        let recipeRows = lines[(recipeHeader + 1)..<lineHeader].map { $0.split(separator: ",").map(String.init) }
        let sourceIDs = recipeRows.map { $0[0] }
        #expect(sourceIDs.count == Self.total && Set(sourceIDs).count == Self.total, "round \(round): duplicates")
        #expect(Set(sourceIDs) == Set(expectedLines.keys), "round \(round): other recipes")
        for fields in recipeRows {
            #expect(Int(fields[1]) == expectedLines[fields[0]], "round \(round): ingredientCount of \(fields[0])")
        }
        var linesPerRecipe: [String: Int] = [:]
        for sourceID in lines[(lineHeader + 1)...] { linesPerRecipe[sourceID, default: 0] += 1 }
        #expect(linesPerRecipe == expectedLines.filter { $0.value > 0 }, "round \(round): ingredient lines differ from the file")

        let check = try await ChildProcess.run(["sqlite3", store, "PRAGMA integrity_check"])
        #expect(check.status == 0 && check.output == "ok\n", "round \(round): integrity_check: \(check.output)")
    }

    /// For each recipe of the JSON Lines file, by `id`, the number of its ingredients.
    static func ingredientLineCounts(in path: String) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let id = try #require(object["id"] as? String)
            counts[id] = (object["ingredients"] as? [Any])?.count ?? 0
        }
        return counts
    }

    /// The lines `.jobs` printed for job 1.
    static func jobLines(in output: String) -> [Substring] {
        output.split(separator: "\n").filter { $0.hasPrefix("#1  import ") }
    }

    /// `120` from a `.jobs` line such as `#1  import kill.jsonl  running  30%  120 recipes  …`.
    static func savedCount(in line: Substring) -> Int? {
        let words = line.split(separator: " ")
        guard let index = words.firstIndex(where: { $0.hasPrefix("recipe") }), index > 0 else { return nil }
        return Int(words[index - 1].replacingOccurrences(of: ",", with: ""))
    }

    /// The resumed-after line, imported and skipped counts of an import summary such as
    /// `imported 230 recipes from kill.jsonl, resuming after line 170`.
    static func summaryNumbers(_ summary: String) -> (resumedAfter: Int, imported: Int, skipped: Int) {
        func number(after prefix: String) -> Int {
            guard let range = summary.range(of: prefix) else { return 0 }
            return Int(summary[range.upperBound...].prefix { $0.isNumber }) ?? 0
        }
        let skipped = summary.range(of: "; ").map { Int(summary[$0.upperBound...].prefix { $0.isNumber }) ?? 0 } ?? 0
        return (number(after: "resuming after line "), number(after: "imported "), skipped)
    }
}
