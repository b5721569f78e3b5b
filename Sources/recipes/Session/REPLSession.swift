import Foundation
import ObjectGraph

/// Drives a ``CommandHandler``: reads lines, runs them one at a time on the main actor,
/// prints errors, handles Ctrl-C, and decides the exit status.
///
/// Three ways in, chosen by ``RecipesProgram``:
/// - ``runInteractive(makeEditor:)``: a terminal, with prompts from the handler.
/// - ``runStandardInput()``: piped input, no prompts.
/// - ``runBatch(_:)``: the `-c` and `-f` steps in order, then exit.
///
/// The rules of a line, everywhere: it is trimmed; blank lines and lines starting with
/// `--` or `#` are skipped; an error prints once on standard error as `error: …`,
/// prefixed `file:line: ` (or `-c:N: `) in batch runs; deferred notes print after the
/// line's output. In the two non-interactive modes the exit status is 1 if any line (or
/// background job) failed (130 if Ctrl-C stopped the run), `--bail` stops at the first
/// failure, the run waits for background jobs at its end (saying so), and unsaved changes
/// are rolled back at the end, with the handler's message on standard error.
///
/// ```swift
/// let session = REPLSession(handler: shell, output: StandardStreams(),
///                           options: SessionOptions(bailsOnError: true))
/// let status = await session.runBatch([.command("echo hi"), .script(path: "setup.rec")])
/// ```
@MainActor final class REPLSession<Handler: CommandHandler> {
    /// The command layer.
    let handler: Handler
    /// Where output and errors go.
    let output: any ShellOutput
    /// `--bail` and `--deterministic`.
    let options: SessionOptions
    /// Ctrl-C presses; the process-wide counter unless a test supplies one.
    let interrupts: InterruptCounter
    /// The Tab-completion words, refreshed from the handler after every command.
    let completions = CompletionWords()
    /// Notes from background work, printed after the next command.
    let notes = DeferredNotes()

    /// How input is being read (set by the `run…` methods).
    var mode: SessionMode = .batch
    /// The number of lines that failed so far, nested script lines included.
    var failureCount = 0
    /// Whether Ctrl-C stopped a command (or the wait for background jobs at the end).
    var wasInterrupted = false
    /// How many `.read` scripts are running inside each other.
    var scriptDepth = 0
    /// The scripts running inside each other, outermost first (the `-f` script too): the path
    /// as given, and resolved, so that a script that reads one of them again is refused.
    var runningScripts: [(path: String, resolved: String)] = []
    /// Raised by any Ctrl-C since the session began: a non-interactive run stops at the
    /// first, also one that came between two commands or during one that ended anyway.
    private let interruptedSinceStart: InterruptFlag

    /// The deepest `.read` nesting allowed, of scripts that are all different files.
    static var maximumScriptDepth: Int { 16 }

    /// Creates a session; nothing runs until a `run…` method is called.
    init(handler: Handler, output: any ShellOutput, options: SessionOptions,
         interrupts: InterruptCounter = InterruptSignal.counter) {
        self.handler = handler
        self.output = output
        self.options = options
        self.interrupts = interrupts
        interruptedSinceStart = interrupts.makeFlag()
    }

    /// The exit status of a non-interactive run: 130 after Ctrl-C, 1 after any failure, else 0.
    var exitStatus: Int32 { wasInterrupted ? 130 : failureCount > 0 ? 1 : 0 }

    /// Runs one line and prints what it produced, its error, and the pending notes.
    ///
    /// - Parameters:
    ///   - line: the raw input line.
    ///   - location: its script line or `-c` index, which prefixes its error message.
    ///   - interruptsAtRead: the Ctrl-C count when the line was read at a terminal: a Ctrl-C
    ///     pressed since (between Enter and now, while the session was busy) stops the
    ///     command as one pressed while it runs does.
    func execute(_ line: String, at location: SourceLocation?, interruptsAtRead: Int? = nil) async -> LineOutcome {
        defer { printNotes() }  // after blank lines too: Enter at the prompt shows job notes
        guard !ScriptFile.isComment(line) else { return .succeeded }
        let text = line.trimmingCharacters(in: .whitespaces)
        // A script or -c run stops at Ctrl-C, as a shell script does, wherever it landed: a
        // command too short to notice it ends normally (its output stands), and one pressed
        // between two commands cancels no task; the next command does not run.
        if mode != .interactive, interruptedSinceStart.isRaised { return stopInterrupted(at: location) }
        let interrupt = interruptsAtRead.map { InterruptFlag(counter: interrupts, baseline: $0) } ?? interrupts.makeFlag()
        let context = CommandContext(
            output: output, interrupt: interrupt, notes: notes, location: location, mode: mode,
            isDeterministic: options.isDeterministic,
            scriptRunner: { [unowned self] path in try await self.runNestedScript(at: path) })
        let task = Task { try await self.handler.execute(text, context: context) }
        let registration = interrupts.whenInterrupted { task.cancel() }
        if interrupt.isRaised { task.cancel() }  // pressed before the registration
        let result = await task.result
        registration.cancel()

        switch result {
        case .success(let result):
            return result == .quit ? .quit : .succeeded
        case .failure(let failure as ScriptFailure):
            return failure.wasInterrupted ? .interrupted : .failed
        case .failure(is CancellationError):
            return stopInterrupted(at: location)
        case .failure(let error):
            failureCount += 1
            report(Self.message(for: error), at: location)
            return .failed
        }
    }

    /// Reports `interrupted` at `location` and counts it: the run ends with status 130.
    private func stopInterrupted(at location: SourceLocation?) -> LineOutcome {
        wasInterrupted = true
        failureCount += 1
        report("interrupted", at: location)
        return .interrupted
    }

    /// The text printed after `error: ` for `error`. A Foundation file error that no command
    /// worded reads `<path>: <reason>`, not its `Error Domain=NSCocoaErrorDomain …` dump.
    static func message(for error: any Error) -> String {
        let text = switch error {
        case is CancellationError: "interrupted"
        case let error as NSError where error.domain == NSCocoaErrorDomain:
            (FileErrorReason.path(of: error).map { "\($0): " } ?? "") + FileErrorReason.of(error)
        case let error as any CustomStringConvertible: error.description
        default: String(describing: error)
        }
        // Diagnostics that render themselves (predicate errors) already start with "error: ".
        return text.hasPrefix("error: ") ? String(text.dropFirst("error: ".count)) : text
    }

    /// Prints `error: message` on standard error, prefixed with `location: ` when known.
    func report(_ message: String, at location: SourceLocation?) {
        let prefix = location.map { "\($0): " } ?? ""
        output.write("\(prefix)error: \(message)\n", to: .standardError)
    }

    /// Prints and forgets the notes posted since the last call.
    func printNotes() {
        for note in notes.drain() { output.printErrorLine(note) }
    }

    /// Hands the handler's current words to Tab completion.
    func refreshCompletions() { completions.update(handler.completionVocabulary) }

    /// The end of a non-interactive run: wait for background jobs (see
    /// ``finishJobsBeforeExit()``), roll back what was not saved, and say so.
    func finishNonInteractiveRun() async {
        await finishJobsBeforeExit()
        if handler.hasUnsavedChanges {
            output.printErrorLine(handler.discardUnsavedChanges())
        }
        printNotes()
    }
}
