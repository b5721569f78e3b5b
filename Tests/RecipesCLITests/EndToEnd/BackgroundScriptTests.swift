import Foundation
import Testing

/// Background imports without a terminal: scripts and piped input wait for a running job at
/// their end and say so, the commands that must not overlap a job refuse, and `.stats` keeps
/// its lateness figures out of `--deterministic` output.
@Suite("Background imports in scripts")
struct BackgroundScriptTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    let directory: TemporaryDirectory
    let store: String

    init() throws {
        directory = try TemporaryDirectory()
        store = directory.url.appendingPathComponent("catalog.sqlite").path
    }

    /// Generates `count` recipes into `name` and returns the file's path.
    func generate(_ count: Int, to name: String = "jobs.jsonl") async throws -> String {
        let file = directory.url.appendingPathComponent(name).path
        let run = try await RecipesBinary.run(["generate", "--count", String(count), "--seed", "9", "--output", file])
        #expect(run.status == 0, "\(run.standardError)")
        return file
    }

    /// Generates `count` recipes and returns their lines, each with its line end: what a test
    /// writes to a ``HeldFIFO``, which keeps an import running until the test lets it end.
    func generateLines(_ count: Int) async throws -> [String] {
        let file = try await generate(count, to: "source.jsonl")
        return try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map { $0 + "\n" }
    }

    static let waiting = "waiting for import #1 ("
    static let waitingEnd = ") to finish before exiting (Ctrl-C cancels it after its current batch)"

    @Test("The end of a -c script waits for a running import, says so, and prints how it ended")
    func scriptWaits() async throws {
        // The import reads a FIFO that stays open until the shell says it waits at the end of
        // the script: `.jobs` sees the job running, however late a loaded machine runs it.
        let lines = try await generateLines(2_000)
        let fifo = try HeldFIFO(named: "jobs.jsonl", in: directory.url, head: lines[..<1_000].joined())
        let errors = directory.url.appendingPathComponent("stderr").path
        fifo.finish(writing: lines[1_000...].joined(), once: errors, contains: Self.waiting)
        defer { fifo.finish() }  // keeps it until the run has ended: the job may open it after the script's end
        let run = try await RecipesBinary.run([store, "--deterministic", "-c", "import \(fifo.path) --background",
                                               "-c", ".jobs"], errorPath: errors)
        #expect(run.status == 0, "\(run.standardError)")
        let output = run.standardOutput.split(separator: "\n").map(String.init)
        #expect(output.first == "import #1: jobs.jsonl in the background, batches of 1000 (.jobs shows its progress, .cancel stops it)")
        // A pipe's size is unknown: recipes instead of a percentage.
        #expect(output.dropFirst().first?.hasPrefix("#1  import jobs.jsonl  running  -  ") == true)
        #expect(output.last == "import #1: imported 2000 recipes from jobs.jsonl")
        #expect(run.standardError.hasPrefix(Self.waiting) && run.standardError.hasSuffix(" recipes" + Self.waitingEnd + "\n"),
                "\(run.standardError)")
        let count = try await RecipesBinary.run([store, "-c", "count Recipe"])
        #expect(count.standardOutput == "2000\n")
    }

    @Test("Piped input that ends while an import runs waits for it too")
    func pipedInputWaits() async throws {
        // As in scriptWaits: the FIFO stays open until the shell says it waits, so the input
        // ends while the import runs, however late a loaded machine runs it.
        let lines = try await generateLines(3_000)
        let fifo = try HeldFIFO(named: "jobs.jsonl", in: directory.url, head: lines[..<1_500].joined())
        let errors = directory.url.appendingPathComponent("stderr").path
        fifo.finish(writing: lines[1_500...].joined(), once: errors, contains: Self.waiting)
        defer { fifo.finish() }
        let run = try await RecipesBinary.run([store, "--deterministic"],
                                              input: "import \(fifo.path) --background --batch 500\ncount Recipe\n",
                                              errorPath: errors)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.hasSuffix("import #1: imported 3000 recipes from jobs.jsonl\n"), "\(run.standardOutput)")
        #expect(run.standardError.hasPrefix(Self.waiting) && run.standardError.hasSuffix(" recipes" + Self.waitingEnd + "\n"),
                "\(run.standardError)")
    }

    @Test("Ctrl-C while piped input waits for its next line stops reading, cancels the running import after its batch, and exits 130")
    func interruptWhilePipedInputWaits() async throws {
        // The import reads a FIFO held open after its first 600 lines: it is still running,
        // waiting for more, when Ctrl-C comes, however late that is.
        let lines = try await generateLines(600)
        let fifo = try HeldFIFO(named: "jobs.jsonl", in: directory.url, head: lines.joined())
        defer { fifo.finish() }
        let shell = try ShellProcess([store, "--deterministic"], home: directory.url)
        shell.send("import \(fifo.path) --background --batch 200")
        try await shell.waitFor("the job to start") { $0.contains("import #1: jobs.jsonl in the background") }
        // Ctrl-C once `.jobs` shows a saved batch, so that the cancel has a line to stop after.
        // Asked and pressed from a thread of its own: when the asking waited on the busy
        // cooperative pool, the import could end before the test saw a batch saved.
        let text = try await shell.send(signal: SIGINT, repeating: ".jobs",
                                        answered: { KillAndResumeTests.jobLines(in: $0).count >= $1 }) { text in
            guard let line = KillAndResumeTests.jobLines(in: text).last else { return false }
            return !line.contains(" running ") || (KillAndResumeTests.savedCount(in: line) ?? 0) > 0
        }
        let last = try #require(KillAndResumeTests.jobLines(in: text).last)
        try #require(last.contains(" running "), "the import ended before Ctrl-C: \(last)")
        let saved = try #require(KillAndResumeTests.savedCount(in: last))
        // Standard input stays open: the shell is waiting for a line that does not come.
        let exit = try await shell.waitForExit()
        let output = shell.output
        #expect(exit.status == 130 && !exit.wasSignalled, "\(output)")
        #expect(output.contains("cancelling import #1 ("), "\(output)")
        let cancelled = try #require(output.split(separator: "\n").first { $0.hasPrefix("import #1: cancelled after line ") },
                                     "\(output)")
        let line = try #require(Int(cancelled.dropFirst("import #1: cancelled after line ".count).prefix { $0.isNumber }))
        #expect(line >= saved && line <= 600 && line % 200 == 0, "\(cancelled)")
        let count = try await RecipesBinary.run([store, "-c", "count Recipe"])
        #expect(count.standardOutput == "\(line)\n", "the saved batches are kept")
    }

    @Test("Ctrl-C during a -c run of many short commands stops it before the next command, with status 130")
    func interruptManyShortCommands() async throws {
        let shell = try ShellProcess(["--memory"] + Array(repeating: ["-c", "count Chef where name BEGINSWITH 'A'"], count: 30_000)
            .joined(), home: directory.url)
        // Sent by the thread reading the answers: the 30,000 take seconds, and a wait here
        // for the first of them can take longer under parallel tests.
        shell.send(signal: SIGINT) { $0.hasPrefix("0\n0\n") }
        let exit = try await shell.waitForExit()
        let lines = shell.output.split(separator: "\n")
        #expect(exit.status == 130 && !exit.wasSignalled, "\(lines.suffix(3))")
        // Every command that ran answered; the one after them says it was interrupted.
        let last = try #require(lines.last)
        #expect(last == "-c:\(lines.count): error: interrupted" && lines.dropLast().allSatisfy { $0 == "0" }, "\(lines.suffix(3))")
    }

    @Test("Ctrl-C while piped input waits for its next line, with no job running, ends the run with status 130")
    func interruptIdlePipedInput() async throws {
        let shell = try ShellProcess([store], home: directory.url)
        shell.send("count Recipe")
        try await shell.waitFor("the count") { $0 == "0\n" }
        kill(shell.processIdentifier, SIGINT)
        let exit = try await shell.waitForExit()
        #expect(exit.status == 130 && !exit.wasSignalled, "\(shell.output)")
    }

    @Test("Another import, .open and .cancel of an ended job refuse while a job runs or after it")
    func refusals() async throws {
        // The import reads a FIFO held open after one batch: it is still running when the
        // refusals and the `.cancel` come, however late the shell runs them.
        let fifo = try HeldFIFO(named: "jobs.jsonl", in: directory.url, head: try await generateLines(1_000).joined())
        defer { fifo.finish() }
        let file = fifo.path
        let run = try await RecipesBinary.run(
            [store, "--deterministic", "-c", "import \(file) --background", "-c", "import \(file)",
             "-c", "import \(file) --background", "-c", ".open other.sqlite", "-c", ".cancel 2", "-c", ".cancel",
             "-c", ".cancel", "-c", ".cancel 1"], in: directory.url)
        #expect(run.status == 1)
        let errors = run.standardError.split(separator: "\n").map(String.init)
        let busy = "error: import #1 is still running in the background: wait for it to end (.jobs shows it), or .cancel it, before "
        #expect(errors == [
            "-c:2: " + busy + "starting another import",
            "-c:3: " + busy + "starting another import",
            "-c:4: " + busy + ".open",
            "-c:5: error: there is no job #2 (the jobs are #1; .jobs lists them)",
            "-c:7: error: no job is running (.jobs lists the ended ones)",
            "-c:8: error: import #1 has already ended (.jobs shows how)",
        ])
        #expect(run.standardOutput.contains("import #1: cancelled after line "))
        #expect(run.standardOutput.contains(" imported; a pipe is read once: it cannot resume\n"), "\(run.standardOutput)")
    }

    @Test("A job that reads a pipe shows its recipes, not a percentage or a time left; .cancel stops its wait for more")
    func pipeJob() async throws {
        // 150 lines in batches of 100: the job saves one batch, then waits for the rest of
        // the next, which the FIFO, held open, never sends.
        let fifo = try HeldFIFO(named: "pipe.jsonl", in: directory.url, head: try await generateLines(150).joined())
        defer { fifo.finish() }
        let shell = try ShellProcess([store], home: directory.url)
        shell.send("import \(fifo.path) --background --batch 100")
        try await shell.waitFor("the job to start") { $0.contains("import #1: pipe.jsonl in the background") }
        var answers = 0, line: Substring = ""
        let deadline = HangLimit.deadline(after: .seconds(120))
        while !line.contains(" 100 recipes ") {
            guard ContinuousClock.now < deadline else { throw TestFailure("no batch saved; output:\n\(shell.output)") }
            shell.send(".jobs")
            answers += 1
            let text = try await shell.waitFor(".jobs answer \(answers)") { KillAndResumeTests.jobLines(in: $0).count >= answers }
            line = KillAndResumeTests.jobLines(in: text)[answers - 1]
            if !line.contains(" running ") { break }
        }
        #expect(line.hasPrefix("#1  import pipe.jsonl  running  -  100 recipes  ") && line.hasSuffix("/s"), "\(line)")
        shell.send(".cancel")
        try await shell.waitFor("the cancel") { $0.contains("it cannot resume\n") }
        #expect(shell.output.contains("import #1: cancelled after line 100 of pipe.jsonl; 100 recipes imported in "))
        shell.send("count Recipe")
        try await shell.waitFor("the count") { $0.hasSuffix("it cannot resume\n100\n") }
    }

    @Test("Without jobs, .jobs says how to start one and .cancel fails; --background refuses .tsv files")
    func noJobs() async throws {
        let ingredients = Self.root.appendingPathComponent("SampleData/ingredients.tsv").path
        let run = try await RecipesBinary.run(["--memory", "-c", ".jobs", "-c", ".cancel",
                                               "-c", "import \(ingredients) --background", "-c", ".cancel 1", "-c", ".cancel x"])
        #expect(run.standardOutput == "no jobs (import FILE --background starts one)\n")
        #expect(run.standardError == """
            -c:2: error: no job is running (import FILE --background starts one)
            -c:3: error: --background imports recipe files (.jsonl); import the ingredient catalogue without it
            -c:4: error: there is no job #1 (no job has run; import FILE --background starts one)
            -c:5: error: .cancel takes a job number from .jobs, such as .cancel 1, found 'x'

            """)
    }

    @Test("Bad lines of a background import are warnings, and make a script's status 1")
    func badLines() async throws {
        let file = Self.root.appendingPathComponent("Tutorials/data/with-bad-lines.jsonl").path
        let run = try await RecipesBinary.run(["--memory", "--deterministic", "-c", "import \(file) --background"],
                                              mergingOutput: true)
        #expect(run.status == 1)
        #expect(run.standardOutput.contains("warning: with-bad-lines.jsonl:3: missing \"id\"\n"))
        #expect(run.standardOutput.contains(
            "import #1: imported 2 recipes from with-bad-lines.jsonl; 3 lines could not be imported (listed above)\n"))
    }

    @Test(".stats leaves the lateness figures out with --deterministic; .stats reset takes no other word")
    func statsDeterministic() async throws {
        let run = try await RecipesBinary.run(["--memory", "--deterministic", "-c", ".stats reset", "-c", ".stats",
                                               "-c", ".stats now"])
        #expect(run.standardOutput.hasSuffix("main-actor lateness        (not shown with --deterministic)\n"))
        #expect(run.standardError == "-c:3: error: .stats takes nothing, or reset\n")
    }
}
