import Foundation
import Testing

/// Three `recipes` processes on one PostgreSQL catalogue: one imports generated recipes in
/// the background while two query and edit the same recipe. Every edit lands or fails
/// through the merge policy with its message, and all three end with the same counts.
///
/// Runs when `OBJECTGRAPH_POSTGRES_URL` (and `PGPASSWORD`) name a server, as `make test`
/// sets them, and `recipes` was built with the `PostgreSQL` trait; it prints why it was
/// skipped otherwise. The import is 3,000 recipes (100,000 with `RELIABILITY_SOAK=1`).
@Suite("Three processes on one PostgreSQL catalogue", .serialized)
struct PostgresMultiProcessTests {
    /// The server's URL, or nil (with the reason printed) when the test cannot run.
    static let server: String? = {
        guard let url = ProcessInfo.processInfo.environment["OBJECTGRAPH_POSTGRES_URL"], !url.isEmpty else {
            print("PostgreSQL tests skipped: OBJECTGRAPH_POSTGRES_URL is not set (make test starts a server with Scripts/postgres.sh)")
            return nil
        }
        return url
    }()

    /// The prefix of the databases these tests make: `objectgraph_mp_<pid>_<n>`.
    static let databasePrefix = "objectgraph_mp_"

    /// Runs `sql` with psql in the server's `postgres` database (or `database`); returns its
    /// exit status and its unaligned, header-less output.
    static func psql(_ server: String, _ sql: String, database: String = "postgres") async throws -> (status: Int32, output: String) {
        let url = URL(string: server)!
        return try await ChildProcess.run(["/usr/bin/psql", "-h", url.host!, "-p", String(url.port ?? 5432), "-U", url.user!,
                                           "-d", database, "-qAtc", sql])
    }

    /// Runs `body` with the URL of a catalogue in a new, empty database, and drops the
    /// database afterwards, whether `body` returned or threw.
    static func withCatalogue(_ server: String, _ body: (String) async throws -> Void) async throws {
        try await sweep(server)
        let name = "\(databasePrefix)\(getpid())_\(Int.random(in: 0..<1_000_000))"
        let created = try await psql(server, "CREATE DATABASE \(name)")
        guard created.status == 0 else { throw TestFailure("psql could not create the database \(name) (exit status \(created.status))") }
        let url = URL(string: server)!
        do {
            try await body("postgres://\(url.user!)@\(url.host!):\(url.port ?? 5432)/\(name)")
        } catch {
            _ = try? await drop(name, server)
            throw error
        }
        try await drop(name, server)
    }

    /// Drops the database `name`, ending any session still connected to it.
    static func drop(_ name: String, _ server: String) async throws {
        let dropped = try await psql(server, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        guard dropped.status == 0 else { throw TestFailure("psql could not drop the database \(name) (exit status \(dropped.status))") }
    }

    /// Drops the databases of test processes that are gone (a process killed mid-test
    /// leaves its database behind).
    static func sweep(_ server: String) async throws {
        let listed = try await psql(server, "SELECT datname FROM pg_database WHERE datname LIKE 'objectgraph\\_mp\\_%'")
        guard listed.status == 0 else { throw TestFailure("psql could not list the databases (exit status \(listed.status))") }
        for name in listed.output.split(separator: "\n").map(String.init) {
            guard let pid = Int32(name.dropFirst(databasePrefix.count).prefix { $0 != "_" }),
                  pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try await drop(name, server)
        }
    }

    @Test("A catalogue's database is dropped after its test, also when it fails; those of gone processes are swept")
    func databasesAreDropped() async throws {
        guard let server = Self.server else { return }
        func exists(_ name: String) async throws -> Bool {
            try await Self.psql(server, "SELECT 1 FROM pg_database WHERE datname = '\(name)'").output.hasPrefix("1")
        }
        var used: [String] = []
        try await Self.withCatalogue(server) { used.append(String($0.split(separator: "/").last!)) }
        await #expect(throws: TestFailure.self) {
            try await Self.withCatalogue(server) { used.append(String($0.split(separator: "/").last!)); throw TestFailure("failed") }
        }
        #expect(used.count == 2)
        for name in used { #expect(try await !exists(name), "\(name) was left on the server") }
        // A process that has ended (and been reaped): its pid names no process.
        let gone = try await ChildProcess.run(["/bin/sh", "-c", "echo $$"])
        let leftover = "\(Self.databasePrefix)\(gone.output.trimmingCharacters(in: .whitespacesAndNewlines))_1"
        #expect(try await Self.psql(server, "CREATE DATABASE \(leftover)").status == 0)
        try await Self.sweep(server)
        #expect(try await !exists(leftover), "\(leftover) was not swept")
    }

    @Test("An import and two editors at once: edits land or fail with the merge policy's message; counts converge")
    func importAndEdits() async throws {
        guard let server = Self.server else { return }
        try await Self.withCatalogue(server) { catalogue in
            let home = try TemporaryDirectory()
            let count = ProcessInfo.processInfo.environment["RELIABILITY_SOAK"] == "1" ? 100_000 : 3_000
            let small = home.url.appendingPathComponent("small.jsonl").path, large = home.url.appendingPathComponent("large.jsonl").path
            for (file, n) in [(small, 40), (large, count + 40)] {
                let generated = try await RecipesBinary.run(["generate", "--count", String(n), "--seed", "3", "--output", file])
                #expect(generated.status == 0, "\(generated.standardError)")
            }
            let first = try await RecipesBinary.run([catalogue, "-c", "import \(small)", "-c", "count Recipe"])
            if first.standardError.contains("built without PostgreSQL") {
                print("PostgreSQL tests skipped: recipes was built without the PostgreSQL trait (swift build --traits PostgreSQL)")
                return
            }
            #expect(first.status == 0 && first.standardOutput.contains("40"), "\(first.standardError)")

            /// 40 edits of one property of recipe g-0000001, each saved, with counts between.
            func editor(_ property: String, base: Int) -> String {
                (1...40).map { step in
                    "update Recipe where sourceID == 'g-0000001' set \(property)=\(base + step)\nsave\ncount Recipe where sourceID BEGINSWITH 'g-00000'\n"
                }.joined()
            }
            async let importer = RecipesBinary.run([catalogue, "-c", "import \(large)"], timeout: .seconds(1_800))
            async let prep = RecipesBinary.run([catalogue], input: editor("prepMinutes", base: 1_000), timeout: .seconds(600))
            async let cook = RecipesBinary.run([catalogue], input: editor("cookMinutes", base: 2_000), timeout: .seconds(600))
            let (imported, editors) = try await (importer, [prep, cook])
            #expect(imported.status == 0, "\(imported.standardError)")
            var conflicts = 0
            for run in editors {
                let errors = run.standardError.split(separator: "\n").filter { $0.contains("error") }
                conflicts += errors.count
                for line in errors {
                    #expect(line.contains("another context or process saved this object since they were loaded"), "not the merge policy's message: \(line)")
                }
                #expect(errors.count < 40, "no edit of this process landed")
            }
            // Every process sees the same catalogue now.
            var answers: [String] = []
            for _ in 0..<3 {
                let run = try await RecipesBinary.run([catalogue, "-c", ".mode csv", "-c", "count Recipe",
                                                       "-c", "fetch Recipe where sourceID == 'g-0000001' keys prepMinutes, cookMinutes"])
                #expect(run.status == 0, "\(run.standardError)")
                answers.append(run.standardOutput)
            }
            #expect(Set(answers).count == 1)
            #expect(answers[0].contains("\(count + 40)"), "\(answers[0])")
            let values = answers[0].split(separator: "\n").last.map { $0.split(separator: ",").compactMap { Int($0) } } ?? []
            #expect(values.count == 2 && (1_001...1_040).contains(values[0]) && (2_001...2_040).contains(values[1]), "\(answers[0])")
            print("postgres multi-process: imported \(count) recipes beside 2 × 40 edits; \(conflicts) edits refused by the merge policy")
        }
    }

    @Test("A shell's .watch shows another shell's saves on the same catalogue: inserts, updates and deletes")
    func watchSeesAnotherShell() async throws {
        guard let server = Self.server else { return }
        try await Self.withCatalogue(server) { catalogue in
            let home = try TemporaryDirectory()
            guard let watcher = try await Self.watchingThaiRecipes(catalogue, home: home) else { return }
            let editor = try await RecipesBinary.run([catalogue,
                "-c", "insert Recipe name=\"Aaa Thai Test\" sourceID=x-1 cuisine=\"Thai\"",
                "-c", "update Recipe where name == 'Larb Gai' set rating=1",
                "-c", "delete Recipe where name == 'Pad Thai'", "-c", "save"])
            #expect(editor.status == 0, "\(editor.standardError)")

            // The other process's save arrives as a notification; the watch's lines print after
            // the next command, so ask until they are there.
            let expected = ["+ Recipe/", "Aaa Thai Test", "~ Recipe/", "Larb Gai", "- Recipe/", "Pad Thai"]
            var asked = 0
            let deadline = HangLimit.deadline(after: .seconds(120))
            while !Self.hasWatchLines(watcher.output) {
                guard ContinuousClock.now < deadline else {
                    throw TestFailure("the watch never showed the other shell's save; output:\n\(watcher.output)")
                }
                asked += 1
                watcher.send("count Recipe")
                try await watcher.waitFor("answer \(asked) to count, then the watch's lines", timeout: .seconds(60)) { output in
                    // Answers can follow each other with nothing between, so count the lines.
                    output.split(separator: "\n").count { $0 == "169" } >= asked || Self.hasWatchLines(output)
                }
                if !Self.hasWatchLines(watcher.output) { try await Task.sleep(for: .milliseconds(200)) }
            }
            let lines = watcher.output.split(separator: "\n").map(String.init)
            for (prefix, name) in stride(from: 0, to: expected.count, by: 2).map({ (expected[$0], expected[$0 + 1]) }) {
                #expect(lines.contains { $0.hasPrefix(prefix) && $0.hasSuffix(name) }, "no line '\(prefix)… \(name)':\n\(watcher.output)")
            }
            watcher.send(".quit")
            #expect(try await watcher.waitForExit().status == 0)
        }
    }

    @Test("A shell's .watch says when its listening connection was made again, and shows what changed meanwhile")
    func watchAfterReconnect() async throws {
        guard let server = Self.server else { return }
        try await Self.withCatalogue(server) { catalogue in
            let home = try TemporaryDirectory()
            guard let watcher = try await Self.watchingThaiRecipes(catalogue, home: home) else { return }
            // A change no notification announces, then the end of the shell's listening connection.
            let database = String(catalogue.split(separator: "/").last!)
            let deleted = try await Self.psql(server, #"DELETE FROM "Recipe" WHERE "name" = 'Pad Thai'"#, database: database)
            #expect(deleted.status == 0)
            let ended = try await Self.psql(server,
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)' AND query LIKE 'LISTEN%'")
            #expect(ended.output.split(separator: "\n") == ["t"], "\(ended.output)")

            // The line prints after the next command at a terminal: ask until it is there.
            func sawReconnect(_ output: String) -> Bool {
                let lines = output.split(separator: "\n")
                return lines.contains { $0.contains("the connection to the database server was made again") }
                    && lines.contains { $0.hasPrefix("- Recipe/") && $0.hasSuffix("Pad Thai") }
            }
            var asked = 0
            let deadline = HangLimit.deadline(after: .seconds(120))
            while !sawReconnect(watcher.output) {
                guard ContinuousClock.now < deadline else {
                    throw TestFailure("the watch never said it listened again; output:\n\(watcher.output)")
                }
                asked += 1
                watcher.send("count Recipe")
                try await watcher.waitFor("answer \(asked) to count, then the watch's lines", timeout: .seconds(60)) { output in
                    output.split(separator: "\n").count { $0 == "168" } >= asked || sawReconnect(output)
                }
                if !sawReconnect(watcher.output) { try await Task.sleep(for: .milliseconds(200)) }
            }
            watcher.send(".quit")
            #expect(try await watcher.waitForExit().status == 0)
        }
    }

    @Test("make run-postgres's first use loads the sample catalogue; later uses find it there")
    func sampleOnFirstUse() async throws {
        guard let server = Self.server else { return }
        try await Self.withCatalogue(server) { catalogue in
            var answers: [RecipesBinary.Run] = []
            for _ in 0..<2 {
                answers.append(try await RecipesBinary.run([catalogue, "-c", ".mode json", "-c", "count Recipe"],
                                                           environment: ["RECIPES_POSTGRES_SAMPLE": "1"]))
            }
            if answers[0].standardError.contains("built without PostgreSQL") { return }  // said by importAndEdits
            for run in answers {
                #expect(run.status == 0 && run.standardOutput == "{\"count\": 169}\n", "\(run.standardOutput)\(run.standardError)")
            }
            #expect(answers[0].standardError.contains("Created the sample catalogue in"), "\(answers[0].standardError)")
            #expect(!answers[1].standardError.contains("Created"), "\(answers[1].standardError)")
        }
    }

    @Test(".open switches from a SQLite file to a PostgreSQL catalogue and back; --migrate is refused for a URL")
    func openSwitchesBetweenFileAndServer() async throws {
        guard let server = Self.server else { return }
        try await Self.withCatalogue(server) { catalogue in
            let folder = try TemporaryDirectory()
            let file = folder.url.appendingPathComponent("local.sqlite").path
            let run = try await RecipesBinary.run([file, "--deterministic",
                "-c", "insert Cuisine name=\"Local\"", "-c", "save",
                "-c", ".open \(catalogue)", "-c", "count Cuisine",
                "-c", "insert Cuisine name=\"Remote\"", "-c", "insert Cuisine name=\"Remote 2\"", "-c", "save",
                "-c", ".open \(file)", "-c", "fetch Cuisine keys name",
                "-c", ".open \(catalogue)", "-c", "count Cuisine",
                "-c", ".open --migrate \(catalogue)"], in: folder.url)
            if run.standardError.contains("built without PostgreSQL") { return }  // said by importAndEdits
            #expect(run.standardOutput == """
                inserted Cuisine (unsaved; save to keep it)
                saved 1 change
                opened \(catalogue)
                0
                inserted Cuisine (unsaved; save to keep it)
                inserted Cuisine (unsaved; save to keep it)
                saved 2 changes
                opened \(file)
                name
                -----
                Local
                (1 row)
                opened \(catalogue)
                2

                """, "\(run.standardError)")
            #expect(run.standardError == "-c:12: error: .open --migrate migrates catalogue files; "
                    + "open a PostgreSQL catalogue without it: .open \(catalogue)\n")
            // The URL was never taken for a path: no folder `postgres:` beside the file.
            #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("postgres:").path))
        }
    }

    @Test(".sqldebug on a PostgreSQL catalogue names the store and points to .explain")
    func sqlDebugPointsToExplain() async throws {
        guard let server = Self.server else { return }
        try await Self.withCatalogue(server) { catalogue in
            let run = try await RecipesBinary.run([catalogue, "-c", ".sqldebug 1", "-c", ".explain count Chef"])
            if run.standardError.contains("built without PostgreSQL") { return }  // said by importAndEdits
            #expect(run.standardError == "-c:1: error: .sqldebug works on SQLite stores; this catalogue is a PostgreSQL store: "
                    + ".explain COMMAND shows the SQL a command runs and PostgreSQL's plan\n")
            #expect(run.standardOutput.hasPrefix("SQL: SELECT count(*) FROM \"Chef\""), "\(run.standardOutput)")
        }
    }

    @Test("Ctrl-C during an import keeps the saved batches, names the line they end at, and the same import resumes there")
    func interruptedImportResumes() async throws {
        guard let server = Self.server else { return }
        try await Self.withCatalogue(server) { catalogue in
            let home = try TemporaryDirectory()
            let file = home.url.appendingPathComponent("big.jsonl").path, total = 20_000
            let generated = try await RecipesBinary.run(["generate", "--count", String(total), "--seed", "7", "--output", file])
            #expect(generated.status == 0, "\(generated.standardError)")
            let importer = try ShellProcess([catalogue, "--deterministic", "-c", "import \(file) --batch 200"], home: home.url)
            var saved = 0
            while saved == 0 {  // until a batch is saved, so that there is one to keep
                let count = try await RecipesBinary.run([catalogue, "-c", "count Recipe"])
                if count.standardError.contains("built without PostgreSQL") { return }  // said by importAndEdits
                saved = Int(count.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
                if saved == 0 { try await Task.sleep(for: .milliseconds(50)) }  // pacing, not a measurement
            }
            kill(importer.processIdentifier, SIGINT)
            let exit = try await importer.waitForExit()
            let output = importer.output
            if output.contains("imported \(total) recipes") { return }  // the import ended before Ctrl-C
            #expect(exit.status == 130, "\(output)")
            let stopped = try #require(output.split(separator: "\n").first { $0.hasPrefix("import stopped after line ") }, "\(output)")
            let line = try #require(Int(stopped.dropFirst("import stopped after line ".count).prefix { $0.isNumber }))
            // Every line is a good recipe: the saved batches hold exactly the lines up to the one named.
            let count = try await RecipesBinary.run([catalogue, "-c", "count Recipe"])
            #expect(count.standardOutput == "\(line)\n" && line % 200 == 0, "\(stopped); count: \(count.standardOutput)")
            let resumed = try await RecipesBinary.run([catalogue, "--deterministic", "-c", "import \(file) --batch 200",
                                                       "-c", "count Recipe"], timeout: .seconds(1_200))
            #expect(resumed.standardOutput == "imported \(total - line) recipes from big.jsonl, resuming after line \(line)\n\(total)\n",
                    "\(resumed.standardError)")
        }
    }

    @Test("RECIPES_POSTGRES_SAMPLE leaves a catalogue that already holds recipes alone")
    func sampleNotMixedIntoRecipes() async throws {
        guard let server = Self.server else { return }
        try await Self.withCatalogue(server) { catalogue in
            let home = try TemporaryDirectory()
            guard try await Self.importGenerated(40, seed: 3, into: catalogue, home: home) else { return }
            let run = try await RecipesBinary.run([catalogue, "-c", "count Recipe"], environment: ["RECIPES_POSTGRES_SAMPLE": "1"])
            #expect(run.status == 0 && run.standardOutput == "40\n", "\(run.standardOutput)\(run.standardError)")
            #expect(!run.standardError.contains("Created"), "\(run.standardError)")
        }
    }

    @Test("Ctrl-C during a count that PostgreSQL sends to the evaluator stops it, as on SQLite: status 130, nothing after")
    func interruptedEvaluatorCount() async throws {
        guard let server = Self.server else { return }
        try await Self.withCatalogue(server) { catalogue in
            let home = try TemporaryDirectory()
            guard try await Self.importGenerated(4000, seed: 5, into: catalogue, home: home) else { return }
            // MATCHES runs on the in-memory evaluator, after reading every table: seconds here.
            let shell = try ShellProcess([catalogue, "-c", "count Chef", "-c", "count Recipe where name MATCHES '(.*[aeiou]){5}q'",
                                          "-c", "count Cuisine"], home: home.url)
            // After the first answer, from the thread reading it: inside the slow count, or just
            // before it starts, where the run stops alike (before the next command).
            shell.send(signal: SIGINT) { !$0.isEmpty }
            let exit = try await shell.waitForExit(timeout: .seconds(600))
            let lines = shell.output.split(separator: "\n")
            #expect(exit.status == 130 && !exit.wasSignalled, "\(shell.output)")
            #expect(lines.count == 2 && lines.last == "-c:2: error: interrupted", "\(shell.output)")
        }
    }

    /// Imports `count` generated recipes into `catalogue`; false when the shell was built
    /// without PostgreSQL (``importAndEdits`` says so).
    static func importGenerated(_ count: Int, seed: Int, into catalogue: String, home: TemporaryDirectory) async throws -> Bool {
        let file = home.url.appendingPathComponent("generated.jsonl").path
        let generated = try await RecipesBinary.run(["generate", "--count", String(count), "--seed", String(seed), "--output", file])
        #expect(generated.status == 0, "\(generated.standardError)")
        let imported = try await RecipesBinary.run([catalogue, "-c", "import \(file)"])
        return !imported.standardError.contains("built without PostgreSQL")
    }

    /// Whether `output` shows all three changes the editor saved.
    /// Imports the sample catalogue into `catalogue` and starts a shell that watches its seven
    /// Thai recipes; nil when the binary was built without PostgreSQL (`importAndEdits` says so).
    static func watchingThaiRecipes(_ catalogue: String, home: TemporaryDirectory) async throws -> ShellProcess? {
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("SampleData/recipes.jsonl").path
        let imported = try await RecipesBinary.run([catalogue, "-c", "import \(sample)"])
        if imported.standardError.contains("built without PostgreSQL") { return nil }
        #expect(imported.status == 0, "\(imported.standardError)")
        let watcher = try ShellProcess([catalogue], home: home.url)
        watcher.send(".watch fetch Recipe where cuisine.name == 'Thai' sort name")
        try await watcher.waitFor("the watch") { $0.contains("watching 7 Recipe objects") }
        return watcher
    }

    static func hasWatchLines(_ output: String) -> Bool {
        let lines = output.split(separator: "\n")
        return lines.contains { $0.hasPrefix("+ Recipe/") && $0.hasSuffix("Aaa Thai Test") }
            && lines.contains { $0.hasPrefix("~ Recipe/") && $0.hasSuffix("Larb Gai") }
            && lines.contains { $0.hasPrefix("- Recipe/") && $0.hasSuffix("Pad Thai") }
    }
}
