/// An error that a test helper throws to fail the test with a message.
struct TestFailure: Error, CustomStringConvertible {
    /// What went wrong.
    var description: String

    /// Creates a failure with `description`.
    init(_ description: String) { self.description = description }
}
