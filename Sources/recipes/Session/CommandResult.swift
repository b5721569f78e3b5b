/// What a command asks the session to do next.
enum CommandResult: Sendable, Equatable {
    /// Go on reading.
    case ok
    /// Leave the session (after the unsaved-changes question when interactive).
    case quit
}
