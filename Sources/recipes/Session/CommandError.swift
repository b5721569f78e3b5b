/// A ready-to-print command failure, for handlers that have no richer error type.
///
/// ```swift
/// throw CommandError("unknown command 'fetc' (did you mean 'fetch'?)")
/// // prints: error: unknown command 'fetc' (did you mean 'fetch'?)
/// ```
struct CommandError: Error, Equatable, CustomStringConvertible {
    /// The message, without the `error: ` prefix; may span several lines (a caret line).
    var message: String

    /// Creates an error with `message`.
    init(_ message: String) { self.message = message }

    var description: String { message }
}
