/// How one line (or one script) ended, as the session's loops see it.
enum LineOutcome: Sendable, Equatable {
    /// It ran (or was a comment).
    case succeeded
    /// It failed; the error was printed.
    case failed
    /// Ctrl-C cancelled it; `interrupted` was printed. A batch run stops.
    case interrupted
    /// It asked to leave the session.
    case quit
}
