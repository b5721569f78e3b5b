import Testing
@testable import recipes

/// How the session treats background jobs when it ends, when the user quits, and at Ctrl-C,
/// driven in-process with ``EchoHandler``'s pretend job (`job SECONDS`).
@MainActor
@Suite("REPLSession with background jobs")
struct REPLSessionJobsTests {
    let output = CapturedOutput()
    let interrupts = InterruptCounter()
    let prompts = PromptLog()

    func makeSession() -> REPLSession<EchoHandler> {
        REPLSession(handler: EchoHandler(), output: output, options: SessionOptions(), interrupts: interrupts)
    }

    /// Runs the interactive session over `events` and returns its status.
    func runInteractive(_ events: [LineEditorEvent]) async -> Int32 {
        let prompts = self.prompts
        return await makeSession().runInteractive { ScriptedEditor(events, prompts: prompts) }
    }

    @Test("The end of a script waits for a running job, and says so first")
    func scriptEndWaits() async {
        // A held job, which ends only once waited for: one of 0.1 s ended before the session
        // got to its end when other work held the main actor, and then no wait was said.
        let status = await makeSession().runBatch([.command("job held"), .command("echo next")])
        #expect(status == 0)
        #expect(output.merged == """
            next
            waiting for job #1 to finish before exiting (Ctrl-C cancels it after its current batch)
            job #1: finished

            """)
    }

    @Test("Ctrl-C while a script waits for a job cancels the job; the status is 130")
    func scriptEndInterrupted() async {
        // Pressing only once the job runs: a press before `job 600` ran (a loaded machine can
        // hold the main actor that long) stops the script before it, and no job ever starts.
        let handler = EchoHandler()
        let presser = RepeatingInterrupt(interrupts) { [handler] in handler.hasStartedJob }
        let session = REPLSession(handler: handler, output: output, options: SessionOptions(), interrupts: interrupts)
        let status = await session.runBatch([.command("job 600")])
        presser.stop()
        #expect(status == 130)
        #expect(output.text(of: .standardOutput).hasPrefix("job #1: cancelled after tick "))
    }

    @Test("Quitting while a job runs asks; 'c' cancels it and quits")
    func quitCancels() async {
        #expect(await runInteractive([.line("job 600"), .line(".quit"), .line("c")]) == 0)
        #expect(prompts.all.contains(
            "job #1 is still running. Wait for it to finish, or cancel it after its current batch? [w/c/N] "))
        #expect(output.text(of: .standardOutput).hasPrefix("job #1: cancelled after tick "))
        #expect(prompts.all.count == 3)  // the prompt, the next prompt, the question: then it left
    }

    @Test("Ctrl-D while a job runs asks; 'w' waits for it to finish, then quits")
    func endOfInputWaits() async {
        // Held until waited for: a job of 0.2 s could end before Ctrl-D was read, and then
        // nothing was asked.
        #expect(await runInteractive([.line("job held"), .endOfInput, .line("w")]) == 0)
        #expect(output.text(of: .standardError) == "waiting for job #1 (Ctrl-C cancels it after its current batch)\n")
        #expect(output.text(of: .standardOutput) == "job #1: finished\n")
    }

    @Test("Any other answer stays in the shell, with the job running")
    func quitStays() async {
        #expect(await runInteractive([.line("job 600"), .line(".quit"), .line(""), .line("echo still here"),
                                      .line(".quit"), .line("c")]) == 0)
        #expect(output.text(of: .standardOutput).hasPrefix("still here\njob #1: cancelled after tick "))
    }

    @Test("Ctrl-C at an idle prompt while a job runs asks before cancelling it")
    func interruptAsks() async {
        #expect(await runInteractive([.line("job 600"), .interrupted, .line("n"), .line("echo running"),
                                      .interrupted, .line("y"), .endOfInput]) == 0)
        let question = "Cancel job #1 after its current batch? [y/N] "
        #expect(prompts.all.filter { $0 == question }.count == 2)
        #expect(output.text(of: .standardOutput).hasPrefix("running\njob #1: cancelled after tick "))
        #expect(!prompts.all.contains { $0.hasSuffix("[w/c/N] ") })  // nothing ran any more at Ctrl-D
    }

    @Test("Ctrl-C at an idle prompt without jobs asks nothing")
    func interruptWithoutJobs() async {
        #expect(await runInteractive([.interrupted, .line("echo hi")]) == 0)
        #expect(prompts.all == ["recipes> ", "recipes> ", "recipes> "])
        #expect(output.merged == "hi\n")
    }
}
