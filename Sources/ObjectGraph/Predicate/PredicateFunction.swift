import Foundation

/// The functions `FUNCTION(receiver, 'name', arguments…)` can call.
///
/// One Swift implementation serves both back ends: the in-memory evaluator calls
/// ``apply(_:)`` and SQL calls the same code through the registered function
/// `og_function(code, receiver, arguments…)` (see the SQLite store's `SQLFunctions`), so SQLite's own
/// `upper()`, `lower()`, `length()` and `abs()` are never used.
///
/// | Name | Receiver | Arguments | Result |
/// | --- | --- | --- | --- |
/// | `uppercase` (`uppercaseString`) | String | — | `String.uppercased()` (full Unicode mapping: `ß` → `SS`) |
/// | `lowercase` (`lowercaseString`) | String | — | `String.lowercased()` (`İ` → `i̇`) |
/// | `length` | String | — | the number of characters (grapheme clusters) |
/// | `abs:` (`abs`) | number | — | the absolute value |
/// | `floor:` (`floor`) | number | — | the greatest whole number not above it |
/// | `ceiling:` (`ceiling`) | number | — | the least whole number not below it |
/// | `modulus:by:` | number | a number | the remainder of dividing by it, with the receiver's sign |
///
/// A nil receiver or argument gives nil; `modulus:by:` by zero gives nil.
package enum PredicateFunction: Int64, CaseIterable, Sendable {
    case uppercase = 1, lowercase, length, abs, floor, ceiling, modulus

    /// The canonical name, as printed in documentation.
    var name: String {
        switch self {
        case .uppercase: "uppercase"
        case .lowercase: "lowercase"
        case .length: "length"
        case .abs: "abs:"
        case .floor: "floor:"
        case .ceiling: "ceiling:"
        case .modulus: "modulus:by:"
        }
    }

    /// Every accepted spelling.
    static let names: [String: PredicateFunction] = [
        "uppercase": .uppercase, "uppercaseString": .uppercase,
        "lowercase": .lowercase, "lowercaseString": .lowercase,
        "length": .length,
        "abs:": .abs, "abs": .abs, "floor:": .floor, "floor": .floor, "ceiling:": .ceiling, "ceiling": .ceiling,
        "modulus:by:": .modulus,
    ]

    /// The function called `name`, in any accepted spelling.
    init?(named name: String) {
        guard let function = Self.names[name] else { return nil }
        self = function
    }

    /// How many arguments follow the receiver.
    var argumentCount: Int { self == .modulus ? 1 : 0 }

    /// The kind of the receiver and of every argument.
    var operandKind: ValueKind {
        switch self {
        case .uppercase, .lowercase, .length: .string
        default: .numeric
        }
    }

    /// The kind of the result.
    var resultKind: ValueKind {
        switch self {
        case .uppercase, .lowercase: .string
        default: .numeric
        }
    }

    /// The result for a receiver and arguments in stored form (receiver first).
    package func apply(_ operands: [StoredValue]) -> StoredValue {
        guard operands.count == argumentCount + 1, !operands.contains(where: \.isNull) else { return .null }
        switch (self, operands[0]) {
        case (.uppercase, .text(let text)): return .text(text.uppercased())
        case (.lowercase, .text(let text)): return .text(text.lowercased())
        case (.length, .text(let text)): return .integer(Int64(text.count))
        case (.abs, .integer(let v)): return v == .min ? .real(-Double(v)) : .integer(Swift.abs(v))
        case (.abs, .real(let v)): return .real(Swift.abs(v))
        case (.floor, .integer), (.ceiling, .integer): return operands[0]
        case (.floor, .real(let v)): return .real(v.rounded(.down))
        case (.ceiling, .real(let v)): return .real(v.rounded(.up))
        case (.modulus, .integer(let a)):
            if case .integer(let b) = operands[1] {
                if b == 0 { return .null }
                return .integer(a.remainderReportingOverflow(dividingBy: b).partialValue)
            }
            return Self.remainder(Double(a), operands[1])
        case (.modulus, .real(let a)): return Self.remainder(a, operands[1])
        default: return .null
        }
    }

    private static func remainder(_ a: Double, _ divisor: StoredValue) -> StoredValue {
        guard let b = StoredArithmetic.double(divisor), b != 0 else { return .null }
        let result = fmod(a, b)
        return result.isNaN ? .null : .real(result)
    }
}
