import Foundation

/// Prints a ``PredicateNode`` as its canonical format string.
///
/// Every `AND`, `OR`, `NOT` and arithmetic operation is parenthesized, keywords are
/// uppercase, strings use double quotes, and values without a literal form print as
/// `CAST(…)`, so parsing the output yields the same tree: `parse(print(p)) == p`.
enum PredicatePrinter {
    /// The canonical text of a predicate.
    static func print(_ node: PredicateNode) -> String {
        switch node {
        case .constant(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .not(let operand, _): return "NOT (" + print(operand) + ")"
        case .and(let operands): return "(" + operands.map(print).joined(separator: " AND ") + ")"
        case .or(let operands): return "(" + operands.map(print).joined(separator: " OR ") + ")"
        case .comparison(let c):
            let modifier = c.modifier == .direct ? "" : c.modifier.rawValue + " "
            return modifier + print(c.lhs) + " " + c.op.rawValue + c.options.formatted + " " + print(c.rhs)
        }
    }

    /// The canonical text of an expression.
    static func print(_ expression: PredicateExpression) -> String {
        switch expression {
        case .keyPath(let base, let components, _):
            let path = components.map(key).joined(separator: ".")
            // `SELF.@count` cannot be written without its `SELF.`.
            guard let base else { return components.first?.hasPrefix("@") == true ? "SELF." + path : path }
            return print(base) + "." + path
        case .value(let value, _): return print(value)
        case .variable(let name, _): return "$" + name
        case .evaluatedObject: return "SELF"
        case .aggregate(let elements, _): return "{" + elements.map(print).joined(separator: ", ") + "}"
        case .arithmetic(let op, let lhs, let rhs, _): return "(" + print(lhs) + " " + op.rawValue + " " + print(rhs) + ")"
        case .negate(let operand, _): return "-" + print(operand)
        case .subquery(let collection, let variable, let predicate, _):
            return "SUBQUERY(" + print(collection) + ", $" + variable + ", " + print(predicate) + ")"
        case .index(let base, let selector, _):
            let inner: String
            switch selector {
            case .first: inner = "FIRST"
            case .last: inner = "LAST"
            case .size: inner = "SIZE"
            case .position(let position): inner = print(position)
            }
            return print(base) + "[" + inner + "]"
        case .function(let receiver, let name, let arguments, _):
            return "FUNCTION(" + ([print(receiver), quoted(name)] + arguments.map(print)).joined(separator: ", ") + ")"
        }
    }

    /// A key, `#`-escaped when it is a keyword or not a plain identifier.
    static func key(_ name: String) -> String {
        if name.hasPrefix("@") { return name }
        return PredicateLexer.keywords.contains(name.uppercased()) ? "#" + name : name
    }

    /// The literal text of a value.
    static func print(_ value: PredicateValue) -> String {
        switch value {
        case .null: return "nil"
        case .bool(let v): return v ? "YES" : "NO"
        case .integer(let v): return String(v)
        case .double(let v): return number(v)
        case .string(let v): return quoted(v)
        case .date(let v): return "CAST(\(number(v.timeIntervalSinceReferenceDate)), \"NSDate\")"
        case .data(let v): return "CAST(\(quoted(v.base64EncodedString())), \"NSData\")"
        case .uuid(let v): return "CAST(\(quoted(v.uuidString)), \"UUID\")"
        case .url(let v): return "CAST(\(quoted(v.absoluteString)), \"NSURL\")"
        case .objectID(let v): return "CAST(\(quoted(v.description)), \"ObjectID\")"
        }
    }

    /// A double that reads back as a double (always with a `.` or an exponent).
    static func number(_ value: Double) -> String {
        if value.isInfinite { return value < 0 ? "-1e999" : "1e999" }
        let text = "\(value)"
        return text.contains(where: { $0 == "." || $0 == "e" || $0 == "n" }) ? text : text + ".0"
    }

    /// A double-quoted string with `\`, `"`, control characters and `%` escaped.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case "%": result += "%%"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
