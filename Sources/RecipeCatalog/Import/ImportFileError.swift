/// A problem with an import file as a whole: it cannot be opened or read, or it
/// is not the kind of file expected (for example a TSV with the wrong header).
public struct ImportFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path of the file.
    public var path: String
    /// What went wrong.
    public var message: String

    /// Creates an error for the file at `path`.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// The error as `path: message`.
    public var description: String { "\(path): \(message)" }
}
