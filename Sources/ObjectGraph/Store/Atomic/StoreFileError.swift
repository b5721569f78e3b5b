/// A problem a reader found in a store file, and where: what readers of atomic stores
/// throw. The store adds the file's path and reports it as an ``ObjectGraphError`` with code
/// `notADatabase`.
///
/// ```swift
/// throw StoreFileError(.line(12), "expected '>' after the tag name 'Recipe'")
/// ```
public struct StoreFileError: Error, Sendable, CustomStringConvertible {
    /// A place in a file.
    public enum Location: Sendable, Equatable, CustomStringConvertible {
        /// A line of a text file, from 1.
        case line(Int)
        /// A byte offset in a binary file, from 0.
        case byte(Int)

        /// `line 12` or `byte 40`.
        public var description: String {
            switch self {
            case .line(let line): "line \(line)"
            case .byte(let offset): "byte \(offset)"
            }
        }
    }

    /// Where the problem is.
    public var location: Location?
    /// What is wrong, in a sentence.
    public var problem: String

    /// Reports `problem` at `location`.
    public init(_ location: Location?, _ problem: String) {
        self.location = location
        self.problem = problem
    }

    /// The problem, after its place when it has one: `line 12: expected …`.
    public var description: String { (location.map { "\($0): " } ?? "") + problem }
}
