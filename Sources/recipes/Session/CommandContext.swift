import Glibc

/// What a command may use while it runs: output, the Ctrl-C flag, notes, progress bars,
/// nested scripts.
///
/// The session makes one per line. It is `Sendable`, so a command can hand parts of it
/// (``interrupt``, ``notes``, a progress bar, ``output``) to background work.
///
/// ```swift
/// func execute(_ line: String, context: CommandContext) async throws -> CommandResult {
///     let progress = context.makeProgressBar(label: "import", total: rows.count)
///     defer { progress.finish() }
///     for batch in rows.chunked(1_000) {
///         try context.interrupt.check()
///         try await save(batch)
///         progress.advance(by: batch.count)
///     }
///     context.print("imported \(rows.count) recipes")
///     return .ok
/// }
/// ```
struct CommandContext: Sendable {
    /// Where to write; prefer ``print(_:)`` and ``printDiagnostic(_:)``.
    let output: any ShellOutput
    /// Raised when the user presses Ctrl-C during this command.
    let interrupt: InterruptFlag
    /// Notes for later: printed after the next command's output.
    let notes: DeferredNotes
    /// The script line or `-c` command being run; `nil` when typed or piped.
    let location: SourceLocation?
    /// How the session reads its input.
    let mode: SessionMode
    /// `--deterministic` was given.
    let isDeterministic: Bool
    private let scriptRunner: @MainActor @Sendable (String) async throws -> CommandResult

    /// Creates a context; the session does this for each line.
    init(output: any ShellOutput, interrupt: InterruptFlag, notes: DeferredNotes,
         location: SourceLocation?, mode: SessionMode, isDeterministic: Bool,
         scriptRunner: @escaping @MainActor @Sendable (String) async throws -> CommandResult) {
        self.output = output
        self.interrupt = interrupt
        self.notes = notes
        self.location = location
        self.mode = mode
        self.isDeterministic = isDeterministic
        self.scriptRunner = scriptRunner
    }

    /// Writes `line` and a newline to standard output.
    func print(_ line: String) { output.printLine(line) }

    /// Writes `line` and a newline to standard error, for warnings. Throw errors instead
    /// of printing them: the session adds the location and counts the failure.
    func printDiagnostic(_ line: String) { output.printErrorLine(line) }

    /// A progress bar that draws only when the session is interactive, not
    /// `--deterministic`, and standard error is a terminal; otherwise a silent one.
    func makeProgressBar(label: String, total: Int?) -> ProgressBar {
        let isEnabled = mode == .interactive && !isDeterministic && StandardStreams.isTerminal(STDERR_FILENO)
        return ProgressBar(label: label, total: total, isEnabled: isEnabled)
    }

    /// Runs the script at `path` line by line, as `.read FILE` does, and returns when it ends.
    ///
    /// Its lines are reported as `path:line`; `--bail` applies inside it.
    ///
    /// - Returns: ``CommandResult/quit`` if the script ran `.quit`, else ``CommandResult/ok``.
    /// - Throws: ``CommandError`` if the file cannot be read or scripts nest too deeply;
    ///   ``ScriptFailure`` if any of its commands failed (already reported: rethrow it).
    @MainActor func runScript(at path: String) async throws -> CommandResult {
        try await scriptRunner(path)
    }
}
