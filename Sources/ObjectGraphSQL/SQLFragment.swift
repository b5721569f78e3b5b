package import ObjectGraph
/// A piece of SQL text and the values bound to its `?` placeholders.
///
/// String interpolation turns every value into a `?` and an argument, so values are never
/// spliced into SQL text; identifiers go through ``SQLIdentifier``. SQLite runs ``sql`` as it
/// is; the PostgreSQL store numbers the marks `$1`, `$2`… once the statement is whole (`?`
/// is never part of SQL the stores write otherwise: names come from the model, which allows
/// only letters, digits and `_`, and values are always bound).
/// ```swift
/// let fragment: SQLFragment = "SELECT _pk FROM \(table: "Recipe") WHERE name = \(.text("Phở"))"
/// ```
package struct SQLFragment: Sendable, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The text, with a `?` for every bound value.
    package private(set) var sql: String
    /// The values bound to the `?` marks, in order.
    package private(set) var arguments: [StoredValue]

    package init(sql: String = "", arguments: [StoredValue] = []) {
        self.sql = sql
        self.arguments = arguments
    }

    package init(stringLiteral value: String) { self.init(sql: value) }

    package init(stringInterpolation: Interpolation) { self = stringInterpolation.fragment }

    /// Appends another fragment's text and arguments.
    package mutating func append(_ other: SQLFragment) {
        sql += other.sql
        arguments += other.arguments
    }

    package static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment {
        var result = lhs
        result.append(rhs)
        return result
    }

    /// Joins fragments with a separator.
    package static func joined(_ fragments: [SQLFragment], separator: String) -> SQLFragment {
        var result = SQLFragment()
        for (index, fragment) in fragments.enumerated() {
            if index > 0 { result.sql += separator }
            result.append(fragment)
        }
        return result
    }

    /// `?, ?, ?` with `values` bound, the list of an `IN`: built at once, where joining a
    /// fragment per value cost about 3,000 instructions a value.
    package static func list(_ values: [StoredValue]) -> SQLFragment {
        var sql = ""
        sql.reserveCapacity(values.count * 3)
        for index in values.indices { sql += index == 0 ? "?" : ", ?" }
        return SQLFragment(sql: sql, arguments: values)
    }

    /// The text with its `?` marks.
    package var description: String { sql }

    /// Builds a fragment from literal text, values and identifiers.
    package struct Interpolation: StringInterpolationProtocol {
        package var fragment = SQLFragment()

        package init(literalCapacity: Int, interpolationCount: Int) {
            fragment.sql.reserveCapacity(literalCapacity + interpolationCount * 4)
        }

        package mutating func appendLiteral(_ literal: String) { fragment.sql += literal }

        /// A bound value: `?`.
        package mutating func appendInterpolation(_ value: StoredValue) {
            fragment.sql += "?"
            fragment.arguments.append(value)
        }

        /// A nested fragment.
        package mutating func appendInterpolation(_ other: SQLFragment) { fragment.append(other) }

        /// A quoted table name.
        package mutating func appendInterpolation(table name: String) { fragment.sql += SQLIdentifier(name).quoted }

        /// A quoted column name.
        package mutating func appendInterpolation(column name: String) { fragment.sql += SQLIdentifier(name).quoted }

        /// A quoted column name qualified by a table alias: `t0."name"`.
        package mutating func appendInterpolation(column name: String, of alias: String) {
            fragment.sql += alias + "." + SQLIdentifier(name).quoted
        }

        /// SQL text the store wrote itself (keywords, aliases), never user input.
        package mutating func appendInterpolation(raw text: String) { fragment.sql += text }
    }
}
