/// The command layer that a ``REPLSession`` drives: it runs lines, the session does the rest.
///
/// The session owns everything around a command — reading input (terminal, stdin,
/// `-c`, `-f`, `.read`), skipping comments, Ctrl-C, printing errors with their location,
/// exit statuses, `--bail`, deferred notes, the "Discard unsaved changes?" question and
/// the rollback at the end of a batch run. The handler knows the commands and the store.
///
/// ```swift
/// @MainActor final class RecipeCommands: CommandHandler {
///     func execute(_ line: String, context: CommandContext) async throws -> CommandResult {
///         let words = line.split(separator: " ")
///         switch words.first {
///         case ".quit", ".exit": return .quit
///         case ".read": return try await context.runScript(at: String(words[1]))
///         case "count": context.print("\(try store.count(String(words[1])))")
///         default: throw CommandError("unknown command '\(words[0])' (try .help)")
///         }
///         return .ok
///     }
///     var prompt: String { context.hasChanges ? "recipes*> " : "recipes> " }
///     …
/// }
/// ```
@MainActor protocol CommandHandler: AnyObject {
    /// Runs one input line.
    ///
    /// The line is trimmed and is never blank or a comment (`--…`, `#…`). Write results
    /// with ``CommandContext/print(_:)``; poll ``CommandContext/interrupt`` between
    /// batches of long work (the session also cancels the `Task` that runs this call).
    ///
    /// - Returns: ``CommandResult/ok``, or ``CommandResult/quit`` for `.quit`/`.exit`
    ///   (the session asks about unsaved changes before it really quits).
    /// - Throws: any error; the session prints it once on standard error as
    ///   `error: <description>` (prefixed `file:line: ` in scripts) and goes on, or
    ///   stops under `--bail`. `CancellationError` is shown as `interrupted`. Make errors
    ///   `CustomStringConvertible` (or throw ``CommandError``) to control the text.
    func execute(_ line: String, context: CommandContext) async throws -> CommandResult

    /// The prompt for the next line, such as `recipes> ` or `recipes*> ` with unsaved changes.
    var prompt: String { get }

    /// What Tab completes: commands, entity names, keys, key paths, file names after the
    /// commands that read a file. Read after every command.
    var completionVocabulary: CompletionWords.Vocabulary { get }

    /// Whether quitting now would lose changes.
    var hasUnsavedChanges: Bool { get }

    /// Rolls back the unsaved changes and returns the message the session prints on
    /// standard error, such as `Rolled back 3 unsaved changes.`
    func discardUnsavedChanges() -> String

    /// The background jobs still running, as the session names them in its questions and
    /// messages (`import #1 (42%)`), or nil when none runs.
    var runningJobs: String? { get }

    /// Waits until no background job runs, printing how each one ended; with `cancelling`,
    /// first asks each to stop at its next safe point (a batch boundary).
    ///
    /// Cancelling the calling task asks the jobs to stop too, and still waits for them:
    /// the session does that on Ctrl-C, so work is never cut off by the process exiting.
    ///
    /// - Returns: how many jobs failed that no earlier call counted, for a script's exit status.
    func finishJobs(cancelling: Bool, output: any ShellOutput) async -> Int
}

extension CommandHandler {
    /// No background jobs: handlers without them need not say so.
    var runningJobs: String? { nil }

    /// No background jobs: returns at once.
    func finishJobs(cancelling: Bool, output: any ShellOutput) async -> Int { 0 }
}
