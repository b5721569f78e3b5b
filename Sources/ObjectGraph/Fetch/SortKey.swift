/// One key of a fetch's sort order: a key path and a direction.
///
/// ```swift
/// request.sortKeys = [SortKey("rating", ascending: false), SortKey("name")]
/// ```
/// Strings sort by their UTF-8 bytes (as SQLite's default collation does); nil sorts first
/// in ascending order.
public struct SortKey: Hashable, Sendable, CustomStringConvertible {
    /// An attribute name, or a path through to-one relationships (`chef.name`).
    public var keyPath: String
    /// Whether smaller values come first.
    public var ascending: Bool

    /// Creates a sort key.
    public init(_ keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    /// `name asc`.
    public var description: String { "\(keyPath) \(ascending ? "asc" : "desc")" }
}
