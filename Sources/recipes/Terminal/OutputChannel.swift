/// Where a piece of shell output goes.
enum OutputChannel: Sendable, Equatable {
    /// Results: standard output.
    case standardOutput
    /// Errors, notes and progress: standard error.
    case standardError
}
