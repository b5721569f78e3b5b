import ObjectGraph
/// A table or column name, quoted for SQL with embedded quotes doubled.
struct SQLIdentifier: Hashable, Sendable {
    let name: String

    init(_ name: String) {
        precondition(!name.isEmpty && !name.contains("\0"), "invalid SQL identifier '\(name)'")
        self.name = name
    }

    /// The name in double quotes, with embedded quotes doubled.
    var quoted: String {
        "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}
