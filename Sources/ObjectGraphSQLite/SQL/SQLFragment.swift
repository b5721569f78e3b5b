import ObjectGraph
/// A piece of SQL text and the values bound to its `?` placeholders.
///
/// String interpolation turns every value into a `?` and an argument, so values are never
/// spliced into SQL text; identifiers go through ``SQLIdentifier``.
/// ```swift
/// let fragment: SQLFragment = "SELECT _pk FROM \(table: "Recipe") WHERE name = \(.text("Phở"))"
/// ```
struct SQLFragment: Sendable, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
    private(set) var sql: String
    private(set) var arguments: [StoredValue]

    init(sql: String = "", arguments: [StoredValue] = []) {
        self.sql = sql
        self.arguments = arguments
    }

    init(stringLiteral value: String) { self.init(sql: value) }

    init(stringInterpolation: Interpolation) { self = stringInterpolation.fragment }

    /// Appends another fragment's text and arguments.
    mutating func append(_ other: SQLFragment) {
        sql += other.sql
        arguments += other.arguments
    }

    static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment {
        var result = lhs
        result.append(rhs)
        return result
    }

    /// Joins fragments with a separator.
    static func joined(_ fragments: [SQLFragment], separator: String) -> SQLFragment {
        var result = SQLFragment()
        for (index, fragment) in fragments.enumerated() {
            if index > 0 { result.sql += separator }
            result.append(fragment)
        }
        return result
    }

    var description: String { sql }

    /// Builds a fragment from literal text, values and identifiers.
    struct Interpolation: StringInterpolationProtocol {
        var fragment = SQLFragment()

        init(literalCapacity: Int, interpolationCount: Int) {
            fragment.sql.reserveCapacity(literalCapacity + interpolationCount * 4)
        }

        mutating func appendLiteral(_ literal: String) { fragment.sql += literal }

        /// A bound value: `?`.
        mutating func appendInterpolation(_ value: StoredValue) {
            fragment.sql += "?"
            fragment.arguments.append(value)
        }

        /// A nested fragment.
        mutating func appendInterpolation(_ other: SQLFragment) { fragment.append(other) }

        /// A quoted table name.
        mutating func appendInterpolation(table name: String) { fragment.sql += SQLIdentifier(name).quoted }

        /// A quoted column name.
        mutating func appendInterpolation(column name: String) { fragment.sql += SQLIdentifier(name).quoted }

        /// A quoted column name qualified by a table alias: `t0."name"`.
        mutating func appendInterpolation(column name: String, of alias: String) {
            fragment.sql += alias + "." + SQLIdentifier(name).quoted
        }

        /// SQL text the store wrote itself (keywords, aliases), never user input.
        mutating func appendInterpolation(raw text: String) { fragment.sql += text }
    }
}
