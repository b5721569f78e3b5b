import Foundation
import Testing

/// `import FILE --background` in a real terminal (tmux): the prompt comes back at once and
/// shows the job, counts grow while it runs, `.jobs` lists it, `.cancel` and Ctrl-C stop it
/// at a batch boundary, and quitting asks whether to wait for it or cancel it.
///
/// Nothing here measures time: each step waits for what the screen shows, with generous
/// deadlines. Most tests import a ``HeldFIFO``: the job reads the lines the test has written,
/// then waits for more, so it is still running when the test acts on it, however slowly a
/// loaded machine runs the terminal's round trips, until the test cancels it or finishes the
/// FIFO. A pipe's job shows recipes where a file's shows a percentage, and cannot resume:
/// the one test that resumes imports a file instead, pausing long after each batch.
@Suite("Background imports in a terminal")
struct BackgroundImportTests {
    let home: TemporaryDirectory
    let store: String

    init() throws {
        home = try TemporaryDirectory()
        store = home.url.appendingPathComponent("catalog.sqlite").path
    }

    /// Generates `count` recipes into the home directory and returns the file's path.
    func generate(_ count: Int) async throws -> String {
        let file = home.url.appendingPathComponent("big-\(count).jsonl").path
        let run = try await RecipesBinary.run(["generate", "--count", String(count), "--seed", "5", "--output", file])
        #expect(run.status == 0, "\(run.standardError)")
        return file
    }

    /// Generates `count` recipes and returns their lines, each with its line end: what a test
    /// writes to a ``HeldFIFO``.
    func generateLines(_ count: Int) async throws -> [String] {
        let file = try await generate(count)
        return try await ChildProcess.offPool {
            try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map { $0 + "\n" }
        }
    }

    /// Opens the shell on the test's store and starts a background import of `file`, with
    /// `--pause` when `pause` (milliseconds after each batch) is given.
    func startImport(_ file: String, batch: Int = 200, pause: Int? = nil) async throws -> TmuxTerminal {
        let terminal = try await TmuxTerminal(arguments: [store], home: home.url)
        try await terminal.waitFor("the prompt") { $0.contains("recipes>") }
        await terminal.type("import \(file) --background --batch \(batch)" + (pause.map { " --pause \($0)" } ?? ""))
        await terminal.press("Enter")
        try await terminal.waitFor("the prompt back, showing the job") { $0.contains("recipes [import ") }
        return terminal
    }

    /// Whether the screen's last line is the prompt of a running import job.
    @Sendable static func showsJobPrompt(_ screen: String) -> Bool {
        screen.split(separator: "\n").last { !$0.allSatisfy(\.isWhitespace) }?.hasPrefix("recipes [import ") ?? false
    }

    /// Types `count Recipe` and returns the number printed under it (the `n`th such answer).
    ///
    /// The answers are the transcript's lines that are a number, the only such lines here:
    /// typed while the line editor was not reading yet, the command can show twice, on one
    /// line or two (`count Recipecount Recipe`), so lines that follow the command miscount.
    func count(in terminal: TmuxTerminal, answer n: Int) async throws -> Int {
        await terminal.type("count Recipe")
        await terminal.press("Enter")
        var result = 0
        try await terminal.waitFor("count answer \(n)", transcript: true) { transcript in
            let answers = transcript.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard answers.count >= n else { return false }
            result = answers[n - 1]
            return true
        }
        return result
    }

    /// Asks `count Recipe` until the job has saved its first batch, so that a cancel has a
    /// line to stop after (on a fast machine a cancel typed at once can come before it).
    func waitForFirstBatch(_ terminal: TmuxTerminal) async throws {
        for answer in 1...1_000 where try await count(in: terminal, answer: answer) > 0 { return }
        Issue.record("the import saved nothing in 1,000 counts")
    }

    /// The number after `prefix` in the terminal's transcript, such as the line a cancel stopped at.
    func number(after prefix: String, in terminal: TmuxTerminal) async throws -> Int {
        let transcript = await terminal.transcript()
        let range = try #require(transcript.range(of: prefix, options: .backwards), "no '\(prefix)' in:\n\(transcript)")
        return try #require(Int(transcript[range.upperBound...].prefix { $0.isNumber }))
    }

    @Test("The prompt comes back at once; counts grow while the job runs; .jobs lists it; .cancel stops it")
    func countsGrowAndCancel() async throws {
        // The job saves the batches the test writes to the FIFO, then waits for more: each time
        // the count shows all of them saved, the test writes one more, so the counts grow
        // while the job runs, and it runs until the `.cancel`, however slow the round trips.
        let lines = try await generateLines(600)
        let batches = stride(from: 0, to: lines.count, by: 200).map { lines[$0..<$0 + 200].joined() }
        let fifo = try HeldFIFO(named: "jobs.jsonl", in: home.url, head: batches[0])
        defer { fifo.finish() }
        let terminal = try await startImport(fifo.path)
        var answers = 1, written = 1
        var counts = [try await count(in: terminal, answer: answers)]
        // Keep counting until it has grown twice (at most 600 recipes), a bounded number of
        // times: the transcript keeps tmux's last 2,000 lines, about 1,000 answers.
        while counts.count < 3 {
            guard answers < 500 else { throw TestFailure("the count grew less than twice in 500 answers: \(counts)") }
            if counts.last! == 200 * written, written < batches.count {
                fifo.write(batches[written])
                written += 1
            }
            answers += 1
            let next = try await count(in: terminal, answer: answers)
            #expect(next >= counts.last!)
            if next > counts.last! { counts.append(next) }
        }
        print("counts seen while the import ran: \(counts)")

        // A pipe's size is unknown: `-` for its percentage, and no time left.
        await terminal.type(".jobs")
        await terminal.press("Enter")
        try await terminal.waitFor("the job's line") { screen in
            screen.split(separator: "\n").contains { line in
                line.hasPrefix("#1  import jobs.jsonl  running  -  ") && line.contains(" recipes  ") && line.hasSuffix("/s")
            }
        }
        await terminal.type(".cancel")
        await terminal.press("Enter")
        // The report is one long line (its length grows with the elapsed time), so it is
        // read from the transcript, where a line the terminal wrapped is joined back whole.
        try await terminal.waitFor("the cancel's report", transcript: true) { $0.contains("a pipe is read once: it cannot resume") }
        let stoppedAt = try await number(after: "import #1: cancelled after line ", in: terminal)
        #expect(stoppedAt % 200 == 0 && stoppedAt >= counts.last!)
        #expect(try await count(in: terminal, answer: answers + 1) == stoppedAt)
        await terminal.type(".jobs")
        await terminal.press("Enter")
        try await terminal.waitFor("the cancelled job") { $0.contains("#1  import jobs.jsonl  cancelled ") }
        try await terminal.waitFor("the plain prompt") { screen in
            screen.split(separator: "\n").last.map { $0.trimmingCharacters(in: .whitespaces) } == "recipes>"
        }
    }

    @Test("Ctrl-C at the prompt while a job runs asks first; 'n' keeps it, 'y' cancels it after its batch")
    func interruptAsks() async throws {
        // Two questions and their answers must come while the job runs: it reads a FIFO held
        // open after one batch, so it waits for more until the second answer cancels it.
        let fifo = try HeldFIFO(named: "jobs.jsonl", in: home.url, head: try await generateLines(200).joined())
        defer { fifo.finish() }
        let terminal = try await startImport(fifo.path)
        try await terminal.press("C-c", when: Self.showsJobPrompt, description: "the job's prompt")
        try await terminal.waitFor("the question") { $0.contains("Cancel import #1 (") && $0.contains("after its current batch? [y/N]") }
        await terminal.type("n")
        await terminal.press("Enter")
        try await terminal.press("C-c", when: { screen in
            screen.components(separatedBy: "recipes [import ").count >= 3 && Self.showsJobPrompt(screen)
        }, description: "the job's prompt again")
        try await terminal.waitFor("the question again") { $0.components(separatedBy: "[y/N]").count == 3 }
        await terminal.type("y")
        await terminal.press("Enter")
        try await terminal.waitFor("the cancel's report") { $0.contains("import #1: cancelled after line ") }
        let stoppedAt = try await number(after: "import #1: cancelled after line ", in: terminal)
        #expect(try await count(in: terminal, answer: 1) == stoppedAt)
    }

    @Test(".quit while a job runs asks; 'c' cancels it at a batch boundary and quits; the import then resumes")
    func quitCancels() async throws {
        // Resuming needs a file, not a pipe: the job pauses ten minutes after each batch of
        // its 2,000 recipes instead (a cancel ends the pause at once), so it is still running
        // when '.quit' and the answer reach the shell, however late.
        let file = try await generate(2_000)
        let terminal = try await startImport(file, pause: 600_000)
        try await waitForFirstBatch(terminal)
        await terminal.type(".quit")
        await terminal.press("Enter")
        try await terminal.waitFor("the question", transcript: true) {
            $0.contains("is still running. Wait for it to finish, or cancel it")
        }
        await terminal.type("c")
        await terminal.press("Enter")
        #expect(try await terminal.waitForExit() == 0)
        let stoppedAt = try await number(after: "import #1: cancelled after line ", in: terminal)

        let rerun = try await RecipesBinary.run([store, "-c", "count Recipe", "-c", "import \(file) --batch 200",
                                                 "-c", "count Recipe"])
        #expect(rerun.status == 0, "\(rerun.standardError)")
        let lines = rerun.standardOutput.split(separator: "\n")
        #expect(lines.first == "\(stoppedAt)")
        #expect(lines.dropFirst().first?.contains("resuming after line \(stoppedAt)") == true)
        #expect(lines.last == "2000")
    }

    @Test("Ctrl-D while a job runs asks; 'w' waits for it to finish, then quits")
    func endOfInputWaits() async throws {
        // The question comes only while a job runs: it reads a FIFO held open after its first
        // 1,000 lines, which gets the rest once the shell says it waits.
        let lines = try await generateLines(2_000)
        let fifo = try HeldFIFO(named: "jobs.jsonl", in: home.url, head: lines[..<1_000].joined())
        defer { fifo.finish() }
        let terminal = try await startImport(fifo.path)
        await terminal.press("C-d")
        try await terminal.waitFor("the question") { $0.contains("[w/c/N]") }
        await terminal.type("w")
        await terminal.press("Enter")
        try await terminal.waitFor("the wait") { $0.contains("waiting for import #1 (") }
        fifo.finish(writing: lines[1_000...].joined())
        #expect(try await terminal.waitForExit(timeout: .seconds(180)) == 0)
        #expect(await terminal.transcript().contains("import #1: imported 2000 recipes from jobs.jsonl"))
        let check = try await RecipesBinary.run([store, "-c", "count Recipe"])
        #expect(check.standardOutput == "2000\n")
    }

    @Test(".stats shows the main-actor lateness probe while a job runs; .stats reset starts it again")
    func probe() async throws {
        // The probe ticks every 5 ms while the job runs, and the job, reading a FIFO held open
        // after one batch, runs until the test ends: wait for some of the ticks, asking a
        // bounded number of times (an ended job's probe stops, and asking on would never get
        // there; tmux's 2,000 lines of transcript hold about 160 answers).
        let fifo = try HeldFIFO(named: "jobs.jsonl", in: home.url, head: try await generateLines(200).joined())
        defer { fifo.finish() }
        let terminal = try await startImport(fifo.path)
        var ticks = 0, answers = 0
        while ticks < 200 {
            guard answers < 100 else { throw TestFailure("the probe showed \(ticks) ticks after 100 .stats answers") }
            await terminal.type(".stats")
            await terminal.press("Enter")
            answers += 1
            try await terminal.waitFor(".stats answer \(answers)", transcript: true) { transcript in
                let lines = transcript.split(separator: "\n").filter { $0.hasPrefix("main-actor lateness ") }
                guard lines.count >= answers else { return false }
                ticks = Self.ticks(in: lines[answers - 1]) ?? 0
                return true
            }
        }
        let line = try #require(await terminal.transcript().split(separator: "\n").last { $0.hasPrefix("main-actor lateness ") })
        print("shell with a background import: \(line)")
        #expect(line.contains(" p50 ") && line.contains(" ms  p99 ") && line.contains(" ms  worst ") && line.hasSuffix(" ticks)"))
        // Both lines in one keystroke batch, so the shell reads them back to back: typed one
        // tmux call at a time on a loaded machine, a second could pass between them, and as
        // many ticks as the count before the reset.
        await terminal.press(".stats reset", "Enter", ".stats", "Enter")
        try await terminal.waitFor("the stats after the reset", transcript: true) { transcript in
            transcript.split(separator: "\n").filter { $0.hasPrefix("main-actor lateness ") }.count > answers
        }
        let after = try #require(await terminal.transcript().split(separator: "\n").last { $0.hasPrefix("main-actor lateness ") })
        #expect(try #require(Self.ticks(in: after)) < ticks)
    }

    /// `1,234` from `… (1,234 ticks)`.
    static func ticks(in line: Substring) -> Int? {
        guard let open = line.lastIndex(of: "(") else { return nil }
        return Int(line[line.index(after: open)...].prefix { $0 != " " }.replacingOccurrences(of: ",", with: ""))
    }
}
