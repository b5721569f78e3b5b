import ObjectGraph
/// A piece of PostgreSQL text and the values bound to its placeholders.
///
/// String interpolation turns every value into a placeholder and an argument, so values are
/// never spliced into SQL text; identifiers go through ``SQLIdentifier``. Fragments combine
/// freely; ``text`` numbers the placeholders `$1`, `$2`… once the statement is whole.
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

    var description: String { text }

    /// The marker of a placeholder until ``text`` numbers it (never part of an identifier:
    /// names come from the model, which allows only letters, digits and `_`).
    static let placeholder: Character = "\u{1}"

    /// The statement with its placeholders numbered `$1`, `$2`…, in argument order.
    var text: String {
        var result = ""
        result.reserveCapacity(sql.utf8.count + arguments.count * 2)
        var number = 0
        for character in sql {
            if character == Self.placeholder {
                number += 1
                result += "$\(number)"
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// Builds a fragment from literal text, values and identifiers.
    struct Interpolation: StringInterpolationProtocol {
        var fragment = SQLFragment()

        init(literalCapacity: Int, interpolationCount: Int) {
            fragment.sql.reserveCapacity(literalCapacity + interpolationCount * 4)
        }

        mutating func appendLiteral(_ literal: String) { fragment.sql += literal }

        /// A bound value: a placeholder.
        mutating func appendInterpolation(_ value: StoredValue) {
            fragment.sql.append(SQLFragment.placeholder)
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
