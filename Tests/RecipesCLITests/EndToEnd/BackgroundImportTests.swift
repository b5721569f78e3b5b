import Foundation
import Testing

/// `import FILE --background` in a real terminal (tmux): the prompt comes back at once and
/// shows the job, counts grow while it runs, `.jobs` lists it, `.cancel` and Ctrl-C stop it
/// at a batch boundary, and quitting asks whether to wait for it or cancel it.
///
/// Nothing here measures time: each step waits for what the screen shows, with generous
/// deadlines. The files are large enough that the job is still running when the test acts
/// on it: 30,000 recipes (about 10 s of work for a debug build on an idle machine, four
/// times that in a slow fresh-clone run), and 100,000 for the two tests that make several
/// round trips and then cancel the job. The two that must finish the import (quitting, then
/// resuming; Ctrl-D, then waiting) keep the smaller file and start over on an empty store
/// when the job ended before the shell read what they typed.
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

    /// Opens the shell on the test's store and starts a background import of `file`.
    func startImport(_ file: String, batch: Int = 200) async throws -> TmuxTerminal {
        let terminal = try await TmuxTerminal(arguments: [store], home: home.url)
        try await terminal.waitFor("the prompt") { $0.contains("recipes>") }
        await terminal.type("import \(file) --background --batch \(batch)")
        await terminal.press("Enter")
        try await terminal.waitFor("the prompt back, showing the job") { $0.contains("recipes [import ") }
        return terminal
    }

    /// Whether the screen's last line is the prompt of a running import job.
    @Sendable static func showsJobPrompt(_ screen: String) -> Bool {
        screen.split(separator: "\n").last { !$0.allSatisfy(\.isWhitespace) }?.hasPrefix("recipes [import ") ?? false
    }

    /// Types `count Recipe` and returns the number printed under it (the `n`th such answer).
    func count(in terminal: TmuxTerminal, answer n: Int) async throws -> Int {
        await terminal.type("count Recipe")
        await terminal.press("Enter")
        var result = 0
        try await terminal.waitFor("count answer \(n)", transcript: true) { transcript in
            let answers = Array(transcript.components(separatedBy: "> count Recipe\n").dropFirst())
            guard answers.count >= n, let value = answers[n - 1].split(separator: "\n").first.flatMap({ Int($0) })
            else { return false }
            result = value
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
        // More than three times its neighbours' file (about 35 s of work for a debug build alone):
        // under the parallel test run, the round trips of three counts, `.jobs` and `.cancel`
        // once outlasted an import of 30,000 (seen once in a fresh clone's run).
        let file = try await generate(100_000)
        let terminal = try await startImport(file)
        var answers = 1
        var counts = [try await count(in: terminal, answer: answers)]
        while counts.count < 3 {  // keep counting until it has grown twice
            answers += 1
            let next = try await count(in: terminal, answer: answers)
            #expect(next >= counts.last!)
            if next > counts.last! { counts.append(next) }
        }
        print("counts seen while the import ran: \(counts)")
        #expect(counts.last! < 100_000)

        await terminal.type(".jobs")
        await terminal.press("Enter")
        try await terminal.waitFor("the job's line") { screen in
            screen.split(separator: "\n").contains { line in
                line.hasPrefix("#1  import big-100000.jsonl  running ") && line.contains(" recipes  ")
                    && line.contains("/s  ") && line.hasSuffix(" left")
            }
        }
        await terminal.type(".cancel")
        await terminal.press("Enter")
        // The report is one long line (its length grows with the elapsed time), so it is
        // read from the transcript, where a line the terminal wrapped is joined back whole.
        try await terminal.waitFor("the cancel's report", transcript: true) { $0.contains("run the same import to resume") }
        let stoppedAt = try await number(after: "import #1: cancelled after line ", in: terminal)
        #expect(stoppedAt % 200 == 0 && stoppedAt >= counts.last!)
        #expect(try await count(in: terminal, answer: answers + 1) == stoppedAt)
        await terminal.type(".jobs")
        await terminal.press("Enter")
        try await terminal.waitFor("the cancelled job") { $0.contains("#1  import big-100000.jsonl  cancelled ") }
        try await terminal.waitFor("the plain prompt") { screen in
            screen.split(separator: "\n").last.map { $0.trimmingCharacters(in: .whitespaces) } == "recipes>"
        }
    }

    @Test("Ctrl-C at the prompt while a job runs asks first; 'n' keeps it, 'y' cancels it after its batch")
    func interruptAsks() async throws {
        // Two questions and their answers must come while the job runs: the larger file.
        let file = try await generate(100_000)
        let terminal = try await startImport(file)
        // Each check that the job runs and its Ctrl-C go together, off the cooperative pool,
        // which other tests may keep busy until the job is over.
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
        let file = try await generate(30_000)
        // On a loaded machine the terminal's round trips can outlast the import (a debug
        // build imports the file in about 10 s alone): when the job has finished before the
        // shell reads '.quit' (no question: it quits) or before the answer reaches it, there
        // is nothing to cancel, and the scenario starts over on an empty store, at most three
        // times.
        let question = "is still running. Wait for it to finish, or cancel it"
        for attempt in 1...3 {
            let terminal = try await startImport(file)
            try await waitForFirstBatch(terminal)
            await terminal.type(".quit")
            await terminal.press("Enter")
            try await terminal.waitFor("the question, or the job's end", transcript: true) {
                $0.contains(question) || $0.contains("import #1: imported 30000 recipes")
            }
            if await terminal.transcript().contains(question) {
                await terminal.type("c")
                await terminal.press("Enter")
            }
            #expect(try await terminal.waitForExit() == 0)
            if attempt < 3, await terminal.transcript().contains("import #1: imported 30000 recipes") {
                print("quitCancels: the import finished before the shell read '.quit' or the answer (attempt \(attempt)); starting over")
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
                continue
            }
            let stoppedAt = try await number(after: "import #1: cancelled after line ", in: terminal)

            let rerun = try await RecipesBinary.run([store, "-c", "count Recipe", "-c", "import \(file) --batch 200",
                                                     "-c", "count Recipe"])
            #expect(rerun.status == 0, "\(rerun.standardError)")
            let lines = rerun.standardOutput.split(separator: "\n")
            #expect(lines.first == "\(stoppedAt)")
            #expect(lines.dropFirst().first?.contains("resuming after line \(stoppedAt)") == true)
            #expect(lines.last == "30000")
            return
        }
    }

    @Test("Ctrl-D while a job runs asks; 'w' waits for it to finish, then quits")
    func endOfInputWaits() async throws {
        // The question comes only while a job runs. On a loaded machine the job can end
        // before the shell reads the Ctrl-D (which then quits): the scenario then starts over
        // on an empty store, at most three times.
        let file = try await generate(30_000)
        var terminal = try await startImport(file)
        for attempt in 1...3 {
            await terminal.press("C-d")
            try await terminal.waitFor("the question, or the job's end", transcript: true) {
                $0.contains("[w/c/N]") || $0.contains("import #1: imported 30000 recipes")
            }
            if await terminal.transcript().contains("[w/c/N]") || attempt == 3 { break }
            print("endOfInputWaits: the import finished before the shell read Ctrl-D (attempt \(attempt)); starting over")
            _ = try await terminal.waitForExit()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
            terminal = try await startImport(file)
        }
        try await terminal.waitFor("the question") { $0.contains("[w/c/N]") }
        await terminal.type("w")
        await terminal.press("Enter")
        try await terminal.waitFor("the wait") { $0.contains("waiting for import #1 (") }
        #expect(try await terminal.waitForExit(timeout: .seconds(180)) == 0)
        #expect(await terminal.transcript().contains("import #1: imported 30000 recipes from big-30000.jsonl"))
        let check = try await RecipesBinary.run([store, "-c", "count Recipe"])
        #expect(check.standardOutput == "30000\n")
    }

    @Test(".stats shows the main-actor lateness probe while a job runs; .stats reset starts it again")
    func probe() async throws {
        let terminal = try await startImport(try await generate(30_000))
        var ticks = 0, answers = 0
        while ticks < 200 {  // the probe ticks every 5 ms while the job runs: wait for some of them
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
