import Foundation

extension REPLSession {
    /// Reads commands from a non-terminal standard input, without prompts, until its end,
    /// `.quit`, Ctrl-C, or (with `--bail`) the first failure.
    ///
    /// Errors print as `error: …` without a location, exactly as when typed, so a piped
    /// transcript matches an interactive one.
    ///
    /// Ctrl-C stops the reading whenever it comes: during a command it also stops that
    /// command (``execute(_:at:)``); between commands, while the reading thread waits for a
    /// line that may never come (the reader does not see SIGINT), it ends the loop at once.
    /// Either way a running background job is then cancelled at its next batch boundary
    /// (``finishJobsBeforeExit()``), and the exit status is 130.
    ///
    /// - Returns: the exit status (see ``exitStatus``).
    func runStandardInput(makeReader: @escaping @Sendable () -> any LineEditor = { PlainLineReader() })
        async -> Int32
    {
        mode = .standardInput
        refreshCompletions()
        let events = InputThread.start(prompt: "", makeEditor: makeReader)
        // Cancelling the reading task ends its wait for the next event (an AsyncStream's
        // `next()` returns nil); the commands run in tasks of their own, which it does not cancel.
        let reading = Task { await self.readCommands(from: events) }
        let registration = interrupts.whenInterrupted { reading.cancel() }
        await reading.value
        registration.cancel()
        if reading.isCancelled { wasInterrupted = true }
        await finishNonInteractiveRun()
        return exitStatus
    }

    /// Runs each line of `events` until its end, `.quit`, Ctrl-C (the task's cancellation)
    /// or a failure under `--bail`.
    private func readCommands(from events: AsyncStream<InputEvent>) async {
        for await event in events {
            guard !Task.isCancelled, case .line(let text) = event.kind else {
                event.ack.stop()
                continue
            }
            if shouldStop(after: await execute(text, at: nil)) {
                event.ack.stop()
            } else {
                event.ack.readNext(prompt: "")
            }
        }
    }

    /// The interactive shell: prompts from the handler, line editing, Ctrl-C, Ctrl-D.
    ///
    /// Errors never end it. `.quit`, `.exit` and Ctrl-D on an empty line take the same
    /// path: while a background job runs the user is asked whether to wait for it, cancel
    /// it (at its next batch boundary) or stay; then, with unsaved changes, `Discard
    /// unsaved changes? [y/N]`, and only `y` or `yes` discards them and leaves. Ctrl-C at
    /// the prompt while a job runs asks whether to cancel the job.
    ///
    /// - Parameter makeEditor: creates the editor on the input thread.
    /// - Returns: 0.
    func runInteractive(makeEditor: @escaping @Sendable () -> any LineEditor) async -> Int32 {
        mode = .interactive
        refreshCompletions()
        var events = InputThread.start(prompt: handler.prompt, interrupts: interrupts, makeEditor: makeEditor)
            .makeAsyncIterator()
        reading: while let event = await events.next(isolation: #isolation) {
            var ack = event.ack
            let wantsToQuit: Bool
            switch event.kind {
            case .line(let text): wantsToQuit = await execute(text, at: nil, interruptsAtRead: event.interruptsAtRead) == .quit
            case .interrupted:
                await offerToCancelJobs(ack: &ack, events: &events)
                wantsToQuit = false
            case .endOfInput: wantsToQuit = true
            }
            if wantsToQuit, await settleJobsBeforeQuitting(ack: &ack, events: &events) {
                guard handler.hasUnsavedChanges else {
                    ack.stop()
                    break reading
                }
                if let reply = await ask("Discard unsaved changes? [y/N] ", ack: &ack, events: &events),
                   ["y", "yes"].contains(reply) {
                    output.printErrorLine(handler.discardUnsavedChanges())
                    ack.stop()
                    break reading
                }
            }
            refreshCompletions()
            ack.readNext(prompt: handler.prompt)
        }
        while await events.next(isolation: #isolation) != nil {}  // the editor has restored the terminal
        printNotes()
        return 0
    }
}
