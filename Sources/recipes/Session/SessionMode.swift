/// How the session gets its input.
enum SessionMode: Sendable, Equatable {
    /// A terminal: prompts, line editing, history, "Discard unsaved changes?".
    case interactive
    /// Standard input is a pipe or file: no prompts; exit status 1 if a command failed.
    case standardInput
    /// `-c` and `-f`: run in order, then exit; errors are located.
    case batch
}
