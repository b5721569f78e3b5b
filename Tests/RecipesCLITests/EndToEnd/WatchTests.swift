import Foundation
import Testing

/// `.watch fetch …` through the real binary: one line per change (`+`, `-`, `~`, `>`, the
/// object ID and its name) after saves, batch requests and a background import's batches,
/// in `-c` steps, `.read` files and at a terminal.
@Suite("Watching a fetch")
struct WatchTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let sample = root.appendingPathComponent("SampleData/recipes.jsonl").path
    /// The Thai recipes of the sample data, by ID after an import into an empty catalogue.
    static let thai = ["Recipe/p65 Tom Yum Goong", "Recipe/p66 Pad Thai", "Recipe/p67 Gaeng Keow Wan Gai",
                       "Recipe/p68 Som Tam", "Recipe/p69 Khao Niao Mamuang", "Recipe/p70 Larb Gai",
                       "Recipe/p71 Tom Kha Gai"]

    func run(_ steps: [String], input: String? = nil) async throws -> RecipesBinary.Run {
        try await RecipesBinary.run(["--memory", "--deterministic"] + steps.flatMap { ["-c", $0] }, input: input, in: Self.root)
    }

    @Test("In -c steps, saves and batch requests print one line per changed object, after the command's output")
    func stepsPrintEachChange() async throws {
        let run = try await run([
            "import \(Self.sample)",
            ".watch fetch Recipe where cuisine.name == \"Thai\" sort name",
            "insert Recipe name=\"Aaa Thai Test\" sourceID=x-1 cuisine=\"Thai\"",
            "count Recipe where cuisine.name == 'Thai'",  // counted, but not a change until saved
            "save",
            "update Recipe where name == 'Aaa Thai Test' set rating=4.5", "save",
            "update Recipe where name == 'Aaa Thai Test' set name=\"Zzz Thai Test\"", "save",
            "update Recipe where name == 'Zzz Thai Test' set cuisine=\"French\"", "save",
            "update Recipe where name == 'Larb Gai' set rating=1 --batch",
            "delete Recipe where name BEGINSWITH 'Pad' --batch",
            "update Recipe where name == 'Crème Brûlée' set rating=1", "save",  // not watched: no line
            ".watch",
            ".watch off",
            "save",
        ])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput == """
            imported 169 recipes from recipes.jsonl
            watching 7 Recipe objects (.watch off stops it)
            inserted Recipe (unsaved; save to keep it)
            8
            saved 2 changes
            + Recipe/p170 Aaa Thai Test
            updated 1 Recipe object (unsaved)
            saved 1 change
            ~ Recipe/p170 Aaa Thai Test
            updated 1 Recipe object (unsaved)
            saved 1 change
            > Recipe/p170 Zzz Thai Test
            updated 1 Recipe object (unsaved)
            saved 3 changes
            - Recipe/p170 Zzz Thai Test
            updated 1 Recipe row (batch: written to the store, no objects loaded)
            ~ Recipe/p70 Larb Gai
            deleted 1 Recipe row; by cascade 11 RecipeIngredient rows (batch: written to the store, no objects loaded)
            - Recipe/p66 Pad Thai
            updated 1 Recipe object (unsaved)
            saved 1 change
            watching fetch Recipe where cuisine.name == "Thai" sort name: 6 Recipe objects
            stopped watching
            saved 0 changes

            """)
    }

    @Test("In a .read file too; a second .watch replaces the first; mistakes are named")
    func readFileReplaceAndErrors() async throws {
        let directory = try TemporaryDirectory()
        let script = try directory.write("""
            .watch fetch Recipe where rating >= 4.9 sort name limit 2
            .watch fetch Recipe where cuisine.name == 'Korean' sort name desc
            update Recipe where name == 'Bibimbap' set rating=5
            update Recipe where cuisine.name == 'Vietnamese' set rating=5
            save
            .watch fetch Recipe ids
            .watch fetch Recipie
            .watch blah
            .watch off
            .watch off
            """, to: "watch.rec")
        let run = try await run(["import \(Self.sample)", ".read \(script)"])
        #expect(run.status == 1)
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.dropFirst(2).first?.hasPrefix("watching 7 Recipe objects, instead of the previous watch") == true)
        #expect(lines.contains("~ Recipe/p91 Bibimbap"))
        #expect(!lines.contains { $0.hasPrefix("~ ") && !$0.contains("Bibimbap") }, "the replaced watch still prints: \(lines)")
        #expect(lines.last == "stopped watching")
        let errors = run.standardError.split(separator: "\n").map(String.init)
        #expect(errors == [
            "\(script):6: error: .watch shows objects: 'ids' and 'keys' do not go with it",
            "\(script):7: error: unknown entity 'Recipie'; did you mean 'Recipe'?",
            "\(script):8: error: .watch takes a fetch command (.watch fetch Recipe where rating > 4 sort name), or off",
            "\(script):10: error: no watch is running",
        ])
    }

    @Test("A .watch whose fetch is refused names the mistake and leaves the running watch as it was")
    func refusedWatchKeepsTheRunningOne() async throws {
        let run = try await run([
            "import \(Self.sample)",
            ".watch fetch Recipe where cuisine.name == 'Thai' sort name",
            ".watch fetch Recipe where ratng > 4 sort name",
            ".watch fetch Recipe sort nmae",
            ".watch",
            "update Recipe where name == 'Larb Gai' set rating=1 --batch",
        ])
        #expect(run.status == 1)
        #expect(run.standardOutput == """
            imported 169 recipes from recipes.jsonl
            watching 7 Recipe objects (.watch off stops it)
            watching fetch Recipe where cuisine.name == 'Thai' sort name: 7 Recipe objects
            updated 1 Recipe row (batch: written to the store, no objects loaded)
            ~ Recipe/p70 Larb Gai

            """)
        #expect(run.standardError.contains("-c:3: error: unknown key 'ratng' on entity 'Recipe'"))
        #expect(run.standardError.contains("-c:4: error: unknown key 'nmae' on entity 'Recipe'; did you mean 'name'?"))
    }

    @Test("An object watched before it was saved keeps its name in the line that says it left")
    func unsavedObjectLeaves() async throws {
        let run = try await run([
            "import \(Self.sample)",
            "insert Recipe name=\"Aaa Thai\" sourceID=x-1 cuisine=\"Thai\"",
            ".watch fetch Recipe where cuisine.name == 'Thai' sort name",
            "update Recipe where name == 'Aaa Thai' set cuisine=\"French\"",
            "save",
        ])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.hasSuffix("""
            saved 3 changes
            - Recipe/p170 Aaa Thai

            """), "\(run.standardOutput)")
    }

    @Test("Every way of opening another catalogue says that the watch stopped")
    func openingAnotherCatalogueStopsTheWatch() async throws {
        let directory = try TemporaryDirectory()
        let copy = directory.url.appendingPathComponent("copy.sqlite").path
        let run = try await run([
            ".watch fetch Recipe sort name", ".open :memory:",
            ".watch fetch Recipe sort name", ".migrate sqlite \(copy)",
            ".watch fetch Recipe sort name", ".open \(copy)",
            ".watch fetch Recipe sort name", ".open --migrate \(copy)",
            ".watch",
        ])
        #expect(run.status == 0, "\(run.standardError)")
        let stopped = "; the watch of the previous catalogue stopped"
        #expect(run.standardOutput == """
            watching 0 Recipe objects (.watch off stops it)
            opened :memory:\(stopped)
            watching 0 Recipe objects (.watch off stops it)
            migrated 0 objects to a SQLite store at \(copy)\(stopped)
            watching 0 Recipe objects (.watch off stops it)
            opened \(copy)\(stopped)
            watching 0 Recipe objects (.watch off stops it)
            \(copy) is already at version 2 of the catalogue model
            opened \(copy)\(stopped)
            no watch (.watch fetch ENTITY [where …] [sort …] [limit N] starts one)

            """)
    }

    @Test("While a background import runs in a script, each batch's new matches print as it is merged")
    func backgroundImport() async throws {
        let run = try await run([".watch fetch Recipe where cuisine.name == 'Thai' sort name",
                                 "import \(Self.sample) --background --batch 5"])
        #expect(run.status == 0, "\(run.standardError)")
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "watching 0 Recipe objects (.watch off stops it)")
        #expect(lines.last == "import #1: imported 169 recipes from recipes.jsonl")
        // The lines print while the job runs, before the note of its end; batches of five
        // split the Thai recipes over three saves, each merged on its own.
        let watched = lines.filter { $0.hasPrefix("+ ") }.map { String($0.dropFirst(2)) }
        #expect(watched.sorted() == Self.thai.sorted())
        #expect(lines.dropLast().suffix(watched.count).allSatisfy { $0.hasPrefix("+ ") })
        #expect(!lines.contains { $0.hasPrefix("- ") || $0.hasPrefix("> ") || $0.hasPrefix("~ ") })
    }

    @Test("At a terminal, changes that arrive while the prompt waits print after the next command")
    func terminal() async throws {
        let home = try TemporaryDirectory()
        let terminal = try await TmuxTerminal(arguments: ["--memory"], home: home.url)
        try await terminal.waitFor("the prompt") { $0.contains("recipes>") }
        await terminal.type(".watch fetch Recipe where cuisine.name == 'Thai' sort name")
        await terminal.press("Enter")
        try await terminal.waitFor("the watch") { $0.contains("watching 0 Recipe objects") }
        await terminal.type("import \(Self.sample) --background --batch 20")
        await terminal.press("Enter")
        try await terminal.waitFor("the job") { $0.contains("in the background") }
        // Ask until the job has ended (one .jobs at a time); its note and the watch's lines
        // print after a command.
        var asked = 0
        while await !terminal.transcript().contains("import #1: imported 169 recipes") {
            asked += 1
            await terminal.type(".jobs")
            await terminal.press("Enter")
            try await terminal.waitFor("answer \(asked) to .jobs", transcript: true) { transcript in
                transcript.components(separatedBy: "#1  import recipes.jsonl  ").count > asked
            }
        }
        let transcript = await terminal.transcript()
        for line in Self.thai {
            #expect(transcript.contains("\n+ \(line)\n"), "'+ \(line)' is not a line of its own:\n\(transcript)")
        }
        #expect(asked > 0)
        await terminal.type(".quit")
        await terminal.press("Enter")
        #expect(try await terminal.waitForExit() == 0)
    }
}
