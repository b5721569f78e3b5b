import Foundation

extension REPLSession {
    /// Waits for the handler's background jobs to end, cancelling them first with
    /// `cancelling`; Ctrl-C meanwhile cancels them (each still ends at a batch boundary).
    ///
    /// - Returns: whether Ctrl-C was pressed while waiting.
    func endJobs(cancelling: Bool) async -> Bool {
        let handler = self.handler, output = self.output
        let pressesBefore = interrupts.count
        let waiting = Task { await handler.finishJobs(cancelling: cancelling, output: output) }
        let registration = interrupts.whenInterrupted { waiting.cancel() }
        let failures = await waiting.value
        registration.cancel()
        if mode != .interactive { failureCount += failures }
        return interrupts.count != pressesBefore
    }

    /// The end of a script or of piped input while background jobs run: waits for them
    /// (after Ctrl-C stopped the run: cancels them), saying so on standard error first.
    ///
    /// Waiting is the default because a script that starts a background import and ends
    /// means the import to happen; Ctrl-C during the wait cancels the jobs at their next
    /// batch boundary, and the exit status is then 130.
    func finishJobsBeforeExit() async {
        guard let jobs = handler.runningJobs else { return }
        if wasInterrupted {
            output.printErrorLine("cancelling \(jobs) after its current batch before exiting")
            _ = await endJobs(cancelling: true)
        } else {
            output.printErrorLine("waiting for \(jobs) to finish before exiting (Ctrl-C cancels it after its current batch)")
            if await endJobs(cancelling: false) { wasInterrupted = true }
        }
    }

    /// Asks `question` on the terminal and returns the trimmed, lowercased answer; nil for
    /// Ctrl-C, Ctrl-D or the end of input. `ack` answers the event being handled, and is
    /// replaced by the answer's.
    func ask(_ question: String, ack: inout InputAck,
             events: inout AsyncStream<InputEvent>.Iterator) async -> String? {
        ack.readNext(prompt: question, recordsHistory: false)
        guard let answer = await events.next(isolation: #isolation) else { return nil }
        ack = answer.ack
        guard case .line(let reply) = answer.kind else { return nil }
        return reply.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// Ctrl-C at an idle prompt while a job runs: asks whether to cancel it, and does.
    func offerToCancelJobs(ack: inout InputAck, events: inout AsyncStream<InputEvent>.Iterator) async {
        guard let jobs = handler.runningJobs else { return }
        let reply = await ask("Cancel \(jobs) after its current batch? [y/N] ", ack: &ack, events: &events)
        guard let reply, ["y", "yes"].contains(reply) else { return }
        _ = await endJobs(cancelling: true)
    }

    /// Quitting at a terminal while a job runs: wait for it, cancel it at its next batch
    /// boundary, or stay. Ctrl-C while waiting cancels it.
    ///
    /// - Returns: whether no job runs any more, so the session may go on quitting.
    func settleJobsBeforeQuitting(ack: inout InputAck, events: inout AsyncStream<InputEvent>.Iterator) async -> Bool {
        guard let jobs = handler.runningJobs else { return true }
        let question = "\(jobs) is still running. Wait for it to finish, or cancel it after its current batch? [w/c/N] "
        switch await ask(question, ack: &ack, events: &events) {
        case "w", "wait":
            output.printErrorLine("waiting for \(jobs) (Ctrl-C cancels it after its current batch)")
            _ = await endJobs(cancelling: false)
        case "c", "cancel":
            _ = await endJobs(cancelling: true)
        default:
            return false
        }
        return handler.runningJobs == nil
    }
}
