import Foundation
import Glibc
import Testing
@testable import recipes

/// `recipes tutorial N`: the prose a section at a time, each command offered on the edit line.
@Suite("Walking through a tutorial")
struct TutorialWalkTests {
    static let root = TranscriptTests.root

    @Test func documentSplitsProseAtHeadingsAndKeepsOnlyTypedLines() {
        let document = TutorialDocument(markdown: """
            # 3. Hello

            Why it matters.

            ```repl
            recipes> count Recipe
            169
            recipes> .stats
            SQL statements  4
            ```

            Between blocks.

            ## Next part

            ```swift
            let x = 1   // code stays prose
            ```
            """)
        #expect(document.title == "3. Hello")
        #expect(document.steps == [
            .prose("# 3. Hello\n\nWhy it matters."), .command("count Recipe"), .command(".stats"),
            .prose("Between blocks."), .prose("## Next part\n\n```swift\nlet x = 1   // code stays prose\n```"),
        ])
        #expect(document.commandCount == 2)
    }

    @Test("A tutorial whose lines end in CRLF (or a lone CR) reads as one with LF line ends", arguments: ["\r\n", "\r"])
    func windowsLineEnds(lineEnd: String) {
        let lines = ["# 3. Hello", "", "Why.", "", "```repl", "recipes> count Recipe", "169", "```", "", "## Next", "Then."]
        let document = TutorialDocument(markdown: lines.joined(separator: lineEnd))
        #expect(document == TutorialDocument(markdown: lines.joined(separator: "\n")))
        #expect(document.title == "3. Hello")
        #expect(document.steps == [.prose("# 3. Hello\n\nWhy."), .command("count Recipe"), .prose("## Next\nThen.")])
    }

    @Test func aTutorialFileWithWindowsLineEndsOffersItsCommands() async throws {
        let folder = try TemporaryDirectory()
        let tutorial = try smallCheckout(in: folder, lineEnd: "\r\n")
        let run = try await RecipesBinary.run(["--tutorial", tutorial, "--deterministic"], input: "\n\n", in: folder.url,
                                              environment: ["TMPDIR": folder.url.appendingPathComponent("tmp").path])
        #expect(run.standardOutput.contains("Tutorial: 1. Small (2 commands)"), "\(run.standardOutput)")
        #expect(run.standardOutput.contains("recipes> count Recipe\n0\n"))
        #expect(run.standardError.contains("error: unknown entity 'Recipie'; did you mean 'Recipe'?"))
    }

    @Test func aTutorialWithoutCommandsEndsWithoutWaitingForInput() async throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("# Notes\n\nOnly prose, in one section.\n", to: "notes.md")
        let run = try await RecipesBinary.run(["--tutorial", file, "--deterministic"], in: folder.url)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.hasSuffix("Only prose, in one section.\n\nEnd of the tutorial.\n"), "\(run.standardOutput)")
    }

    @Test func pipedInputRunsTheOfferedCommandsOrWhatIsTypedInstead() async throws {
        // Tutorial 1: the ingredients, the recipes, then `.schema Chef`, which we replace.
        let run = try await RecipesBinary.run(["tutorial", "1", "--deterministic"], input: "\n\ncount Chef\n",
                                              in: Self.root)
        #expect(run.status == 0, "\(run.standardError)")
        let output = run.standardOutput
        #expect(output.contains("Tutorial: 1. First steps"))
        #expect(output.contains("recipes> import SampleData/recipes.jsonl\nimported 169 recipes from recipes.jsonl\n"))
        #expect(output.contains("recipes> count Chef\n30\n"), "the typed command ran instead of the offered one")
        #expect(!output.contains("recipes> .schema Chef"))
        #expect(!output.contains("End of the tutorial"), "input ended before the tutorial did")
    }

    @Test func aCommandTypedAtAPauseRunsAndThePauseStays() async throws {
        // Tutorial 2 opens with two prose sections: the first input answers the pause between them.
        let run = try await RecipesBinary.run(["tutorial", "2", "--deterministic"], input: "count Recipe\n\n",
                                              in: Self.root)
        #expect(run.status == 0, "\(run.standardError)")
        let output = run.standardOutput
        let ran = try #require(output.range(of: "recipes> count Recipe\n0\n"), "the line typed at the pause was dropped")
        let section = try #require(output.range(of: "## Normalize what repeats"))
        #expect(ran.upperBound <= section.lowerBound, "the next section came before the typed command ran")
        #expect(!output.contains("recipes> import SampleData/recipes.jsonl"), "the empty line ran a command instead")
    }

    @Test func aWholeTutorialRunsToItsEnd() async throws {
        let file = Self.root.appendingPathComponent("Tutorials/01-first-steps.md")
        let commands = TutorialDocument(markdown: try String(contentsOf: file, encoding: .utf8)).commandCount
        let run = try await RecipesBinary.run(["--tutorial", file.path, "--deterministic"],
                                              input: String(repeating: "\n", count: commands), in: Self.root)
        #expect(run.standardOutput.hasSuffix("End of the tutorial.\n"))
        // Its deliberate mistakes fail as they would in any piped session.
        #expect(run.standardError.contains("error: unknown entity 'Recipie'; did you mean 'Recipe'?"))
        #expect(run.status == 1)
    }

    @Test func aTutorialThatWritesAFileCanBeWalkedAgainAndLeavesTheCheckoutAlone() async throws {
        // Tutorial 15 migrates a copy to catalog-v2.sqlite, a path the shell never overwrites.
        let copy = Self.root.appendingPathComponent("catalog-v2.sqlite")
        try #require(!FileManager.default.fileExists(atPath: copy.path), "remove \(copy.path) left by an earlier walk")
        defer { try? FileManager.default.removeItem(at: copy) }
        let file = Self.root.appendingPathComponent("Tutorials/15-model-migration.md")
        // One line per step answers every command and every "more" between prose sections.
        let steps = TutorialDocument(markdown: try String(contentsOf: file, encoding: .utf8)).steps.count
        for walk in 1...2 {
            let run = try await RecipesBinary.run(["tutorial", "15", "--deterministic"],
                                                  input: String(repeating: "\n", count: steps), in: Self.root)
            #expect(run.standardOutput.contains("migrated catalog-v2.sqlite from version 1"), "walk \(walk): \(run.standardError)")
            #expect(run.standardOutput.contains("the folder is removed when the shell ends"))
            #expect(run.standardOutput.hasSuffix("End of the tutorial.\n"))
        }
        #expect(!FileManager.default.fileExists(atPath: copy.path), "the walk wrote into the checkout")
    }

    @Test func aRelativeStoreIsOpenedWhereItWasTypedNotInTheScratchFolder() async throws {
        let folder = try TemporaryDirectory()
        // Tutorial 1's first two commands import into the store named on the command line.
        // A walk with a STORE keeps its scratch folder: TMPDIR puts it in the test's folder.
        let run = try await RecipesBinary.run(["tutorial", "1", "mine.sqlite", "--deterministic"], input: "\n\n",
                                              in: folder.url,
                                              environment: ["RECIPES_TUTORIALS": Self.root.appendingPathComponent("Tutorials").path,
                                                            "TMPDIR": folder.url.path])
        #expect(run.standardOutput.contains("imported 169 recipes from recipes.jsonl"), "\(run.standardError)")
        #expect(run.standardOutput.contains("the files the tutorial writes stay there"))
        #expect(FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("mine.sqlite").path),
                "the store was created in the scratch folder instead")
    }

    /// A checkout of one small tutorial in `folder` (its `Tutorials` and an empty `SampleData`),
    /// with `lineEnd` ending its lines; returns the tutorial's path.
    func smallCheckout(in folder: TemporaryDirectory, lineEnd: String = "\n") throws -> String {
        for name in ["checkout/Tutorials", "checkout/SampleData", "tmp"] {
            try FileManager.default.createDirectory(at: folder.url.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        let text = ["# 1. Small", "", "Two commands.", "", "```repl", "recipes> count Recipe", "0",
                    "recipes> count Recipie", "error: unknown entity 'Recipie'; did you mean 'Recipe'?", "```", ""]
        return try folder.write(text.joined(separator: lineEnd), to: "checkout/Tutorials/01-small.md")
    }

    /// The scratch folders of walks left in `folder`'s `tmp`.
    func scratchFolders(in folder: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.appendingPathComponent("tmp").path)
            .filter { $0.hasPrefix("recipes-tutorial-") }
    }

    @Test func aWalkRemovesItsScratchFolderWhenItEndsUnlessAStoreWasGiven() async throws {
        let folder = try TemporaryDirectory()
        let tutorial = try smallCheckout(in: folder)
        let environment = ["TMPDIR": folder.url.appendingPathComponent("tmp").path]
        // To the end (through a failing command), and stopped by the end of input at the first step.
        for input in ["\n\n", ""] {
            let run = try await RecipesBinary.run(["--tutorial", tutorial, "--deterministic"], input: input,
                                                  in: folder.url, environment: environment)
            #expect(run.standardOutput.contains("the folder is removed when the shell ends"), "\(run.standardError)")
            #expect(try scratchFolders(in: folder) == [], "input \(input.debugDescription)")
        }
        // With a STORE, the learner keeps the files the tutorial wrote beside it.
        let run = try await RecipesBinary.run(["--tutorial", tutorial, "mine.sqlite", "--deterministic"], input: "\n\n",
                                              in: folder.url, environment: environment)
        #expect(run.standardOutput.contains("the files the tutorial writes stay there"), "\(run.standardError)")
        #expect(try scratchFolders(in: folder).count == 1)
    }

    @Test("SIGTERM or SIGHUP ends a walk by that signal and removes its scratch folder", arguments: [SIGTERM, SIGHUP])
    func aSignalRemovesTheScratchFolder(signal: Int32) async throws {
        let folder = try TemporaryDirectory()
        let tutorial = try smallCheckout(in: folder)
        let shell = try ShellProcess(["--tutorial", tutorial, "--deterministic"], home: folder.url,
                                     environment: ["TMPDIR": folder.url.appendingPathComponent("tmp").path])
        try await shell.waitFor("the walk to start") { $0.contains("the folder is removed when the shell ends") }
        #expect(try scratchFolders(in: folder).count == 1, "\(shell.output)")
        kill(shell.processIdentifier, signal)
        let ending = try await shell.waitForExit()
        #expect(ending.wasSignalled && ending.status == signal, "\(ending) \(shell.output)")
        #expect(try scratchFolders(in: folder) == [], "\(shell.output)")
    }

    @Test func fromAnotherFolderTheTutorialsOfTheBuiltCheckoutAreListed() async throws {
        let elsewhere = try TemporaryDirectory()
        let list = try await RecipesBinary.run(["tutorial"], in: elsewhere.url)
        #expect(list.status == 0, "\(list.standardError)")
        #expect(list.standardOutput.split(separator: "\n").dropFirst().count == TranscriptTests.tutorials.count)
    }

    @Test func aTutorialsFolderThatIsNotThereIsAnErrorNotAnEmptyList() async throws {
        let elsewhere = try TemporaryDirectory()
        let missing = elsewhere.url.appendingPathComponent("Tutorials").path
        for arguments in [["tutorial"], ["tutorial", "3"]] {
            let run = try await RecipesBinary.run(arguments, in: elsewhere.url, environment: ["RECIPES_TUTORIALS": missing])
            #expect(run.status == 1)
            #expect(run.standardError == "error: RECIPES_TUTORIALS is '\(missing)', which is not a folder; set it to the Tutorials folder of a checkout\n")
        }
    }

    @Test("A tutorial is named by its number, or the start of its file name with or without the number", arguments: [
        ("3", "03-predicates.md"), ("03", "03-predicates.md"), ("03-pred", "03-predicates.md"),
        ("predicates", "03-predicates.md"), ("pred", "03-predicates.md"), ("retain-cycles.md", "10-retain-cycles.md"),
    ])
    func namingATutorial(name: String, file: String) throws {
        let library = TutorialLibrary(folder: Self.root.appendingPathComponent("Tutorials"))
        #expect(try library.file(for: name).lastPathComponent == file)
    }

    @Test func aNameThatFitsSeveralTutorialsSaysSo() {
        let library = TutorialLibrary(folder: Self.root.appendingPathComponent("Tutorials"))
        // first-steps, fetch-options, faults-and-sql
        let error = #expect(throws: CommandError.self) { try library.file(for: "f") }
        #expect(error?.message.hasPrefix("'f' names 3 tutorials in ") == true, "\(String(describing: error))")
    }

    @Test func listingAndUnknownTutorials() async throws {
        let list = try await RecipesBinary.run(["tutorial"], in: Self.root)
        #expect(list.status == 0)
        #expect(list.standardOutput.contains("  1. First steps"))
        let lines = list.standardOutput.split(separator: "\n").dropFirst()
        #expect(lines.count == TranscriptTests.tutorials.count)

        let missing = try await RecipesBinary.run(["tutorial", "99"], in: Self.root)
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("error: no tutorial '99' in "))
        #expect(missing.standardError.contains("01-first-steps"))

        let combined = try await RecipesBinary.run(["tutorial", "1", "-c", "count Recipe"], in: Self.root)
        #expect(combined.status == 2)
        #expect(combined.standardError.contains("a tutorial cannot be combined with -c or -f"))
    }

    @Test func atATerminalTheNextCommandWaitsOnTheEditLine() async throws {
        let home = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: home.url.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        let terminal = try await TmuxTerminal(arguments: ["tutorial", "1"], home: home.url,
                                        environment: ["RECIPES_TUTORIALS": Self.root.appendingPathComponent("Tutorials").path,
                                                      "TMPDIR": home.url.appendingPathComponent("tmp").path])
        try await terminal.waitFor("the first command offered") {
            $0.hasSuffix("recipes> import SampleData/ingredients.tsv")
                || $0.split(separator: "\n").last == "recipes> import SampleData/ingredients.tsv"
        }
        await terminal.press("Enter")
        try await terminal.waitFor("the import and the next offer") {
            $0.contains("imported 7413 ingredients") && $0.contains("recipes> import SampleData/recipes.jsonl")
        }
        await terminal.press("C-u")
        await terminal.type("count Recipe")
        await terminal.press("Enter")
        try await terminal.waitFor("the changed command's answer, then the next offer") {
            $0.contains("recipes> count Recipe\n0\n") && $0.contains("recipes> .schema Chef")
        }
        await terminal.press("C-u")
        await terminal.press("Enter")  // an emptied line skips `.schema Chef`
        try await terminal.waitFor("the offer after the skipped one") { $0.contains("recipes> count Recipe\n0\n")
            && $0.split(separator: "\n").last == "recipes> count Recipe" }
        await terminal.press("C-c")  // the same step again; the terminal flushes unread input, so wait
        try await terminal.waitFor("the step offered again") {
            $0.contains("count Recipe^C") && $0.split(separator: "\n").last == "recipes> count Recipe"
        }
        await terminal.press("C-u")
        await terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
        #expect(try scratchFolders(in: home) == [], "the walk left its scratch folder")
    }

    @Test func atATerminalACommandTypedAtThePauseRunsAndEnterThenShowsMore() async throws {
        let home = try TemporaryDirectory()
        let terminal = try await TmuxTerminal(arguments: ["tutorial", "2"], home: home.url,
                                        environment: ["RECIPES_TUTORIALS": Self.root.appendingPathComponent("Tutorials").path])
        try await terminal.waitFor("the pause after the first section") {
            $0.split(separator: "\n").last == "[Enter: more]"
        }
        await terminal.type("count Recipe")
        await terminal.press("Enter")
        try await terminal.waitFor("the typed command's answer, and the pause again") {
            $0.contains("[Enter: more] count Recipe\n0\n") && $0.split(separator: "\n").last == "[Enter: more]"
                && !$0.contains("## Normalize what repeats")
        }
        await terminal.press("Enter")
        try await terminal.waitFor("the next section and its first command") {
            $0.contains("## Normalize what repeats")
                && $0.split(separator: "\n").last == "recipes> import SampleData/recipes.jsonl"
        }
        await terminal.press("C-u")
        await terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
    }
}
