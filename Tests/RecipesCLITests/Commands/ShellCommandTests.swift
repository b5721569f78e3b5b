import Foundation
import Testing

/// The `recipes` binary driven through `-c`, `-f` and standard input, as users and scripts do.
struct ShellCommandTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let sample = root.appendingPathComponent("SampleData/recipes.jsonl").path

    func run(_ arguments: [String], input: String? = nil) async throws -> RecipesBinary.Run {
        try await RecipesBinary.run(arguments, input: input, in: Self.root)
    }

    @Test("demo refresh counts its own live objects, not the ones the shell's unsaved changes hold")
    func refreshDemoCountsItsOwnObjects() async throws {
        let run = try await run(["--memory", "--deterministic", "-c", "insert Chef name=Bob", "-c", "insert Chef name=Al",
                                 "-c", "demo refresh --size 10"])
        let steps = run.standardOutput.split(separator: "\n").filter { $0.hasPrefix("before") || $0.hasPrefix("after") }
        #expect(steps.map { $0.split(separator: " ", omittingEmptySubsequences: true).suffix(2).joined(separator: " ") }
                == ["0 0", "0 0"], "\(run.standardOutput)")
    }

    @Test func withoutAStoreTheSampleCatalogueIsCreatedOnFirstUse() async throws {
        let first = try await run(["-c", "count Recipe", "-c", "count Ingredient where kcal > 0"])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardError.contains("Created the sample catalogue at "))
        let counts = first.standardOutput.split(separator: "\n").compactMap { Int($0) }
        #expect(counts.count == 2 && counts[0] >= 160 && counts[1] > 5_000)
    }

    @Test func jsonModePrintsOneObjectPerLineWithEveryAttribute() async throws {
        let run = try await run(["--memory", "--deterministic", "-c", "import \(Self.sample)", "-c", ".mode json",
                                 "-c", "fetch Recipe where hasPhoto == YES sort sourceID limit 2",
                                 "-c", "count Recipe where cuisine.name == 'French'",
                                 "-c", "fetch RecipePhoto limit 1"])
        #expect(run.status == 0, "\(run.standardError)")
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 5)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        for key in ["objectID", "name", "sourceID", "instructions", "course", "prepMinutes", "cookMinutes",
                    "servings", "rating", "published", "hasPhoto", "ingredientCount", "chef", "cuisine", "photo"] {
            #expect(first.keys.contains(key), "missing \(key)")
        }
        #expect(first["hasPhoto"] as? Bool == true)
        #expect((first["published"] as? String)?.count == 10)  // ISO 8601 date
        #expect(first["chef"] is String && first["cuisine"] is String)
        #expect(lines[3].hasPrefix("{\"count\": "))
        let photo = try #require(try JSONSerialization.jsonObject(with: Data(lines[4].utf8)) as? [String: Any])
        let bytes = try #require(Data(base64Encoded: photo["data"] as? String ?? ""))
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))  // a PNG
    }

    @Test("A date before 1582 or before year 1 prints as it was imported or typed, and so does a fraction of a second")
    func datesPrintAsTyped() async throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write(#"{"id": "old-1", "name": "Pottage", "published": "1390-06-01"}"# + "\n", to: "old.jsonl")
        let run = try await run(["--memory", "--deterministic", "-c", "import \(file)",
                                 "-c", "insert Recipe name=Garum sourceID=old-2 published=-0044-03-15",
                                 "-c", "insert Recipe name=Hippocras sourceID=old-3 published=1500-01-01T12:30:00Z",
                                 "-c", "insert Recipe name=Toast sourceID=old-4 published=2024-03-01T10:30:00.5Z",
                                 "-c", "update Recipe where sourceID == 'old-1' set published=1582-10-10",
                                 "-c", ".mode json", "-c", "fetch Recipe sort sourceID"])
        #expect(run.status == 0, "\(run.standardError)")
        let published = run.standardOutput.split(separator: "\n").compactMap { line in
            ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["published"] as? String
        }
        #expect(published == ["1582-10-10", "-0044-03-15", "1500-01-01T12:30:00Z", "2024-03-01T10:30:00.500Z"])
    }

    @Test func csvModeQuotesFields() async throws {
        let run = try await run(["--memory", "-c", "insert Chef name=\"O'Brien, Camille\"", "-c", ".mode csv",
                                 "-c", "fetch Chef"])
        #expect(run.standardOutput.contains("objectID,name\n"))
        #expect(run.standardOutput.contains("\"O'Brien, Camille\""))
    }

    @Test func scriptErrorsNameFileAndLineAndSetTheStatus() async throws {
        let directory = try TemporaryDirectory()
        let script = try directory.write("""
            -- a comment
            insert Chef name="Ana"
            fetch Chef where nmae == 'Ana'
            count Chefs
            count Chef
            """, to: "work.rec")
        let run = try await run(["--memory", "-f", script])
        #expect(run.status == 1)
        #expect(run.standardError.contains("\(script):3: error: unknown key 'nmae' on entity 'Chef'"))
        #expect(run.standardError.contains("\(script):4: error: unknown entity 'Chefs'; did you mean 'Chef'?"))
        #expect(run.standardOutput.hasSuffix("1\n"))  // the script went on
        #expect(run.standardError.contains("Rolled back 1 unsaved change."))
    }

    @Test func bailStopsAtTheFirstError() async throws {
        let run = try await run(["--memory", "--bail", "-c", "count Nothing", "-c", "count Chef"])
        #expect(run.status == 1)
        #expect(run.standardOutput.isEmpty)
    }

    @Test func badValuesAndConstraintsGiveClearErrors() async throws {
        let run = try await run(["--memory", "-c", "insert Recipe name=Soup sourceID=s-1 servings=many",
                                 "-c", "insert Chef name=Ana", "-c", "insert Chef name=Ana", "-c", "save",
                                 "-c", "count Chef"])
        #expect(run.standardError.contains("'many' is not a valid Int32 for 'servings'"))
        #expect(run.standardError.contains("another Chef already has name = Ana; nothing was saved"))
        #expect(run.standardOutput.hasSuffix("2\n"))  // unsaved, and nothing was lost
    }

    @Test("An update that repeats a unique name is refused with the attribute and value, as an insert is")
    func uniquenessViolationsFromAnUpdateNameTheValue() async throws {
        let directory = try TemporaryDirectory()
        let store = directory.url.appendingPathComponent("unique.sqlite").path
        let run = try await run([store, "-c", "insert Chef name=Ana", "-c", "insert Chef name=Bea", "-c", "save",
                                 "-c", "update Chef where name == 'Bea' set name=Ana", "-c", "save"])
        #expect(run.standardError.contains(
            "-c:5: error: cannot save Chef: another Chef already has name = Ana; nothing was saved"), "\(run.standardError)")
    }

    @Test func saveAndRollbackTakeNoArguments() async throws {
        let run = try await run(["--memory", "-c", "insert Chef name=Ana", "-c", "save now", "-c", "rollback all",
                                 "-c", "count Chef", "-c", "save", "-c", "count Chef"])
        #expect(run.standardError.contains("-c:2: error: save takes no arguments"), "\(run.standardError)")
        #expect(run.standardError.contains("-c:3: error: rollback takes no arguments"), "\(run.standardError)")
        // Neither mistake saved or discarded anything: the insert waits for the plain save.
        #expect(run.standardOutput == "inserted Chef/t1.1 (unsaved; save to keep it)\n1\nsaved 1 change\n1\n", "\(run.standardOutput)")
    }

    @Test func aStorePathKeepsItsDataAcrossRuns() async throws {
        let directory = try TemporaryDirectory()
        let store = directory.url.appendingPathComponent("mine.sqlite").path
        let first = try await run([store, "-c", "insert Cuisine name=Georgian", "-c", "save"])
        #expect(first.status == 0, "\(first.standardError)")
        let second = try await run([store, "-c", "count Cuisine"])
        #expect(second.standardOutput == "1\n")
    }

    @Test func aFileThatIsNotAStoreIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("not a database, just words\n", to: "notes.sqlite")
        let run = try await run([path, "-c", "count Recipe"])
        #expect(run.status == 1)
        #expect(run.standardError.contains("is not a SQLite database"))
    }

    @Test func standardInputIsReadWithoutPrompts() async throws {
        let run = try await run(["--memory"], input: "insert Chef name=Zoë\nsave\ncount Chef\n")
        #expect(run.status == 0)
        #expect(run.standardOutput == "inserted Chef/p1 (unsaved; save to keep it)\nsaved 1 change\n1\n"
                || run.standardOutput.hasSuffix("saved 1 change\n1\n"))
        #expect(!run.standardOutput.contains("recipes>"))
    }

    @Test func generateIsDeterministicAndImports() async throws {
        let directory = try TemporaryDirectory()
        let a = directory.url.appendingPathComponent("a.jsonl").path
        let b = directory.url.appendingPathComponent("b.jsonl").path
        #expect(try await run(["generate", "--count", "300", "--seed", "7", "--output", a]).status == 0)
        #expect(try await run(["generate", "--count", "300", "--seed", "7", "--output", b]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: a)) == Data(contentsOf: URL(fileURLWithPath: b)))
        let imported = try await run(["--memory", "--deterministic", "-c", "import --batch 100 \(a)", "-c", "count Recipe"])
        #expect(imported.standardOutput == "imported 300 recipes from a.jsonl\n300\n", "\(imported.standardError)")
    }

    @Test("A FIFO (or a piped /dev/stdin) is imported: read once, not first read to count its lines for the progress bar")
    func importFromAFIFO() async throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.url.appendingPathComponent("fifo.jsonl").path
        try #require(mkfifo(fifo, 0o600) == 0)
        let lines = (1...3).map { #"{"id": "p-\#($0)", "name": "Piped \#($0)"}"# }.joined(separator: "\n") + "\n"
        let writer = Thread {
            // Opening blocks until the shell opens the FIFO for reading.
            guard let handle = FileHandle(forWritingAtPath: fifo) else { return }
            handle.write(Data(lines.utf8))
            try? handle.close()
        }
        writer.start()
        defer { close(open(fifo, O_RDONLY | O_NONBLOCK)) }  // frees the writer if the shell never opened it
        // Before, the line count read the FIFO to its end and the import then waited for more.
        let run = try await RecipesBinary.run(["--memory", "--deterministic", "-c", "import \(fifo)", "-c", "count Recipe"],
                                              timeout: .seconds(120))
        #expect(run.standardOutput == "imported 3 recipes from fifo.jsonl\n3\n", "\(run.standardError)")
    }

    @Test("Commands read from standard input cannot import or .read it too; with -c, standard input is recipes")
    func standardInputIsEitherCommandsOrRecipes() async throws {
        let recipe = #"{"id": "p-1", "name": "Piped"}"#
        // Before, the import took the lines after it (here the recipe, then `count Recipe`)
        // as recipes, and the shell never ran them as commands.
        let piped = try await run(["--memory", "--deterministic"],
                                  input: "import /dev/stdin\n.read /dev/stdin\n\(recipe)\ncount Recipe\n")
        #expect(piped.standardError.contains(
            "error: cannot import '/dev/stdin': it is standard input, where the shell reads its commands"), "\(piped.standardError)")
        #expect(piped.standardError.contains("error: cannot read '/dev/stdin': it is standard input"), "\(piped.standardError)")
        #expect(piped.standardOutput.hasSuffix("0\n"), "the shell kept reading commands: \(piped.standardOutput)")
        let recipes = try await run(["--memory", "--deterministic", "-c", "import /dev/stdin", "-c", "count Recipe"],
                                    input: recipe + "\n")
        #expect(recipes.standardOutput == "imported 1 recipe from stdin\n1\n", "\(recipes.standardError)")
    }

    @Test("Ctrl-C stops an import from a FIFO no one has opened for writing yet")
    func interruptImportOfAFIFOWithoutWriter() async throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.url.appendingPathComponent("fifo.jsonl").path
        try #require(mkfifo(fifo, 0o600) == 0)
        let shell = try ShellProcess(["--memory", "--deterministic"], home: directory.url)
        shell.send("import \(fifo)")
        // Ctrl-C once the shell holds the FIFO open (as its descriptors in /proc show), when
        // the import waits for a writer. Before, it waited in open(2) and never got that far.
        let pid = shell.processIdentifier
        try await ChildProcess.offPool {
            let deadline = HangLimit.deadline(after: .seconds(120))
            func holdsTheFIFO() -> Bool {
                let folder = "/proc/\(pid)/fd"
                let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                return descriptors.contains { descriptor in
                    (try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + descriptor))?.hasSuffix("/fifo.jsonl") == true
                }
            }
            while !holdsTheFIFO() {
                guard ContinuousClock.now < deadline else { throw TestFailure("the shell never opened the FIFO") }
                usleep(10_000)  // pacing, not a measurement
            }
        }
        kill(pid, SIGINT)
        // Before, the import waited in open(2) for a writer, and Ctrl-C with it.
        let exit = try await shell.waitForExit(timeout: .seconds(120))
        #expect(exit.status == 130 && !exit.wasSignalled, "\(shell.output)")
        #expect(shell.output.contains("error: interrupted"), "\(shell.output)")
    }

    @Test("Ctrl-C stops an import from a FIFO that waits for its writer; it keeps the saved batches and says a pipe cannot resume")
    func interruptImportWaitingForAFIFO() async throws {
        let directory = try TemporaryDirectory()
        let store = directory.url.appendingPathComponent("catalog.sqlite").path
        #expect(try await run([store, "-c", "count Recipe"]).standardOutput == "0\n")
        // 150 lines in batches of 100, and the FIFO held open: the import saves one batch,
        // then waits for the rest of the next.
        let lines = (1...150).map { #"{"id": "p-\#($0)", "name": "Piped \#($0)"}"# + "\n" }.joined()
        let fifo = try HeldFIFO(named: "fifo.jsonl", in: directory.url, head: lines)
        defer { fifo.finish() }
        let shell = try ShellProcess([store, "--deterministic"], home: directory.url)
        shell.send("import \(fifo.path) --batch 100")
        let deadline = HangLimit.deadline(after: .seconds(120))
        while try await run([store, "-c", "count Recipe"]).standardOutput != "100\n" {
            guard ContinuousClock.now < deadline else { throw TestFailure("no batch saved; output:\n\(shell.output)") }
            try await Task.sleep(for: .milliseconds(20))  // pacing, not a measurement
        }
        kill(shell.processIdentifier, SIGINT)
        // Before, the read waited for the writer, and Ctrl-C with it.
        try await shell.waitFor("the import to stop") { $0.contains("cannot resume\n") }
        #expect(shell.output.hasPrefix("imported 100 recipes from fifo.jsonl\n"
            + "import stopped after line 100: every saved batch is kept; a pipe is read once: it cannot resume\n"), "\(shell.output)")
        #expect(try await run([store, "-c", "count Recipe"]).standardOutput == "100\n")
    }

    @Test func theEnvironmentVariableSwitchesSQLDebuggingOn() async throws {
        let run = try await RecipesBinary.run(["--memory", "-c", "count Chef where name == 'Ana'"], in: Self.root,
                                              environment: ["OBJECTGRAPH_SQL_DEBUG": "2"])
        #expect(run.standardOutput == "0\n")
        #expect(run.standardError.contains(#"sql: SELECT count(*) FROM "Chef" AS t0 WHERE"#))
        #expect(run.standardError.contains("  values: 'Ana'"))
        #expect(run.standardError.contains(" row"))
    }

    @Test func sqlDebugLevelsAddValuesAndPlans() async throws {
        let run = try await run(["--memory", "--deterministic", "-c", ".sqldebug 1", "-c", "count Chef where name == 'Ana'",
                                 "-c", ".sqldebug 3", "-c", "count Chef where name == 'Ana'", "-c", ".sqldebug 0",
                                 "-c", "count Chef"])
        #expect(run.standardOutput == """
            sql: SELECT count(*) FROM "Chef" AS t0 WHERE ((t0."name" IS ?))
              1 row
            0
            sql: SELECT count(*) FROM "Chef" AS t0 WHERE ((t0."name" IS ?))
              values: 'Ana'
              1 row
              plan: SEARCH t0 USING COVERING INDEX sqlite_autoindex_Chef_1 (name=?)
            0
            0

            """)
    }

    @Test("In JSON mode update and delete print their counts as JSON, as their --batch forms do")
    func updateAndDeleteCountInJSON() async throws {
        let run = try await run(["--memory", "--deterministic", "-c", "insert Chef name=Ana", "-c", "insert Chef name=Abe",
                                 "-c", "save", "-c", ".mode json", "-c", "update Chef where name BEGINSWITH 'A' set name=Al",
                                 "-c", "delete Chef where name == 'Al'", "-c", "update Chef where name == 'x' set name=y --batch"])
        #expect(run.standardOutput.split(separator: "\n").suffix(3) == [#"{"updated": 2}"#, #"{"deleted": 2}"#, #"{"updated": 0}"#],
                "\(run.standardOutput)")
    }

    @Test("In CSV mode, as in JSON, show prints the object alone: no relationship lines or notes in the CSV")
    func showInCSVIsCSV() async throws {
        let run = try await run(["--memory", "--deterministic", "-c", "insert Cuisine name=Thai", "-c", "insert Cuisine name=Tex",
                                 "-c", "insert Recipe name=a sourceID=s-1 cuisine=Thai", "-c", "save", "-c", ".mode csv",
                                 "-c", "show Cuisine/p1", "-c", "show Cuisine where name BEGINSWITH 'T'"])
        #expect(run.standardOutput.split(separator: "\n").suffix(4) == ["objectID,name", "Cuisine/p1,Thai",
                                                                        "objectID,name", "Cuisine/p2,Tex"],
                "\(run.standardOutput)")
    }

    @Test("CSV keeps binary data in full, in base64 as JSON does; table and line modes show its size")
    func binaryDataInCSV() async throws {
        let run = try await run(["--memory", "--deterministic", "-c", "insert Recipe name=a sourceID=s-1", "-c", "save",
                                 "-c", "insert RecipePhoto data=AAEC/w== recipe=Recipe/p1", "-c", "save",
                                 "-c", ".mode csv", "-c", "fetch RecipePhoto", "-c", ".mode json", "-c", "fetch RecipePhoto",
                                 "-c", ".mode line", "-c", "fetch RecipePhoto"])
        #expect(run.standardError.isEmpty, "\(run.standardError)")
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("RecipePhoto/p1,AAEC/w==,a"), "\(lines)")
        #expect(lines.contains(#"{"objectID": "RecipePhoto/p1", "data": "AAEC/w==", "recipe": "a"}"#), "\(lines)")
        #expect(lines.contains("    data = <4 bytes>"), "\(lines)")
    }

    @Test func showTakesAnObjectID() async throws {
        let run = try await run(["--memory", "-c", "insert Chef name=Ana", "-c", "save", "-c", "show Chef/p1",
                                 "-c", "show Chef/x1", "-c", "show Chef/p9"])
        #expect(run.standardOutput.contains("name = Ana"))
        #expect(run.standardError.contains("expected an object ID such as Chef/p1, found 'Chef/x1'"))
        #expect(run.standardError.contains("the store has no object Chef/p9"))
    }

    @Test func explainShowsTheIndexForPrefixSearches() async throws {
        let run = try await run(["--memory", "-c", ".explain fetch Recipe where name BEGINSWITH[cd] 'crè'"])
        #expect(run.standardOutput.contains("USING INDEX _index_Recipe_nameCanonical"))
        #expect(run.standardOutput.contains("values: 'cre', 'crf'"))
    }
}
