/// Thrown by ``CommandContext/runScript(at:)`` when a nested script had failures.
///
/// Its errors were already printed with their own `file:line`, so the session counts
/// the `.read` line as failed without printing anything more.
struct ScriptFailure: Error, Equatable {
    /// True if the script stopped because of Ctrl-C.
    var wasInterrupted: Bool
}
