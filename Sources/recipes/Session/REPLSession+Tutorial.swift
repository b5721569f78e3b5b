import Foundation

extension REPLSession {
    /// Walks a learner through a tutorial: prints its prose a section at a time and puts
    /// each command of its transcripts on the edit line, ready to run or change.
    ///
    /// At a terminal, Enter runs what is on the line (the offered command, or what the
    /// learner made of it) and an emptied line skips the command; between two prose
    /// sections Enter shows the next, and a command typed there runs first, the pause
    /// staying; Ctrl-C offers the same step again; Ctrl-D or `.quit` leaves. After the last
    /// step the shell goes on as usual, on the catalogue the tutorial built. When standard
    /// input is not a terminal, each line read answers one step: an empty line runs the
    /// offered command (or, at a pause, shows the next section), any other text runs instead
    /// of it (at a pause: runs, and the pause stays).
    ///
    /// - Parameters:
    ///   - document: the tutorial.
    ///   - isTerminal: whether input comes from a terminal (prefilled edit lines).
    ///   - makeEditor: creates the editor on the input thread.
    /// - Returns: the exit status (see ``exitStatus``; 0 at a terminal).
    func runTutorial(_ document: TutorialDocument, isTerminal: Bool,
                     makeEditor: @escaping @Sendable () -> any LineEditor) async -> Int32 {
        mode = isTerminal ? .interactive : .standardInput
        refreshCompletions()
        output.printLine("Tutorial: \(document.title) (\(document.commandCount) command\(document.commandCount == 1 ? "" : "s"))")
        output.printLine(isTerminal
            ? "Enter runs the command on the line (change it first if you like); an empty line skips it; "
                + "a command typed at [Enter: more] runs too; Ctrl-D leaves."
            : "Each input line answers one step: an empty line runs the offered command.")
        var walk = TutorialWalk(steps: document.steps)
        var next = walk.showUntilInput(output)
        var finished = next == .end
        // A tutorial that asks nothing (no command, a single prose section) reads no input.
        if !finished {
            var events = InputThread.start(prompt: prompt(for: next, isTerminal), prefill: prefill(for: next, isTerminal),
                                           interrupts: interrupts, makeEditor: makeEditor).makeAsyncIterator()
            reading: while !finished, let event = await events.next(isolation: #isolation) {
                let ack = event.ack
                switch event.kind {
                case .line(let text):
                    // At a pause between prose sections an empty line shows the next one, and a
                    // command typed there runs with the pause kept, so the prose does not push its
                    // output away; at an offered command the line runs instead of it.
                    let isPause = next == .more
                    let typed = text.trimmingCharacters(in: .whitespaces)
                    let command = if case .command(let offered) = next, !isTerminal, typed.isEmpty { offered } else { typed }
                    if !command.isEmpty {
                        if !isTerminal { output.printLine("recipes> " + command) }
                        let outcome = await execute(command, at: nil, interruptsAtRead: event.interruptsAtRead)
                        if outcome == .quit || (!isTerminal && shouldStop(after: outcome)) {
                            ack.stop()
                            break reading
                        }
                    }
                    if !isPause { walk.position += 1 }
                    if !isPause || command.isEmpty { next = walk.showUntilInput(output) }
                case .interrupted:
                    break  // the same step again
                case .endOfInput:
                    ack.stop()
                    break reading
                }
                if next == .end {
                    finished = true
                    ack.stop()
                } else {
                    refreshCompletions()
                    ack.readNext(prompt: prompt(for: next, isTerminal), prefill: prefill(for: next, isTerminal))
                }
            }
            while await events.next(isolation: #isolation) != nil {}  // the editor has restored the terminal
        }
        if finished { output.printLine("End of the tutorial.") }
        guard isTerminal else {
            await finishNonInteractiveRun()
            return exitStatus
        }
        guard finished else { return 0 }
        output.printLine("The shell goes on with the catalogue the tutorial built; .quit leaves.")
        return await runInteractive(makeEditor: makeEditor)
    }

    private func prompt(for next: TutorialWalk.Next, _ isTerminal: Bool) -> String {
        switch next {
        case .command: isTerminal ? handler.prompt : ""
        case .more: isTerminal ? "[Enter: more] " : ""
        case .end: ""
        }
    }

    private func prefill(for next: TutorialWalk.Next, _ isTerminal: Bool) -> String {
        if case .command(let command) = next, isTerminal { return command }
        return ""
    }
}

/// Where a tutorial walk stands: the step it shows or offers next.
struct TutorialWalk {
    /// What the walk waits for after showing what comes before it.
    enum Next: Equatable {
        /// The learner runs (or changes, or skips) this command.
        case command(String)
        /// The learner asks for the next prose section.
        case more
        /// Nothing is left.
        case end
    }

    /// The tutorial's steps.
    let steps: [TutorialDocument.Step]
    /// The index of the step shown or offered next.
    var position = 0

    /// Prints prose up to the next command, or up to the end of one section when another
    /// follows it, and says what to wait for.
    mutating func showUntilInput(_ output: any ShellOutput) -> Next {
        while position < steps.count {
            switch steps[position] {
            case .command(let command):
                return .command(command)
            case .prose(let text):
                output.printLine("")
                output.printLine(text)
                output.printLine("")
                position += 1
                if position < steps.count, case .prose = steps[position] { return .more }
            }
        }
        return .end
    }
}
