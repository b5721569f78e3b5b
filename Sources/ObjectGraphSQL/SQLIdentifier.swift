/// A table or column name, quoted for SQL with embedded quotes doubled.
package struct SQLIdentifier: Hashable, Sendable {
    package let name: String

    package init(_ name: String) {
        precondition(!name.isEmpty && !name.contains("\0"), "invalid SQL identifier '\(name)'")
        self.name = name
    }

    /// The name in double quotes, with embedded quotes doubled.
    package var quoted: String {
        "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}
