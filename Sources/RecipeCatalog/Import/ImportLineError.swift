/// A problem with one line of an import file, reported without stopping the import.
///
/// The description names the file and line the way compilers do:
///
/// ```
/// recipes.jsonl:17: "rating" must be a number, found string
/// ```
public struct ImportLineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file's name (its last path component), as shown in messages.
    public var file: String
    /// The 1-based line number.
    public var line: Int
    /// What is wrong, naming the field and what was expected.
    public var message: String

    /// Creates an error for `file`:`line`.
    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// The error as `file:line: message`.
    public var description: String { "\(file):\(line): \(message)" }
}
