import Foundation

/// A constant in a predicate: a literal, a format argument or a substituted variable.
///
/// Values keep their Swift type until the type checker converts them to the stored form
/// of the attribute they are compared with (``StoredValue``), so a `Date` argument becomes
/// seconds since 1970 and a `UUID` its uppercase string.
enum PredicateValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case url(URL)
    case objectID(ObjectID)

    /// The name of the value's type, for error messages.
    var typeName: String {
        switch self {
        case .null: "nil"
        case .bool: "Bool"
        case .integer: "Int"
        case .double: "Double"
        case .string: "String"
        case .date: "Date"
        case .data: "Data"
        case .uuid: "UUID"
        case .url: "URL"
        case .objectID: "ObjectID"
        }
    }
}

/// Converts format arguments and substitution values (Swift values) to predicate expressions.
enum PredicateArgument {
    /// The expression for one `%@` argument or `$variable` value: a value, or `{…}` for
    /// arrays and sets. Returns nil for a type the language has no value for.
    static func expression(for argument: Any?, span: SourceSpan) -> PredicateExpression? {
        guard let argument = unwrap(argument) else { return .value(.null, span) }
        if let value = scalar(argument) { return .value(value, span) }
        if let sequence = argument as? any Sequence {
            var elements: [PredicateExpression] = []
            for element in sequence {
                guard let expression = expression(for: element, span: span) else { return nil }
                if case .aggregate = expression { return nil }
                elements.append(expression)
            }
            return .aggregate(elements, span)
        }
        return nil
    }

    /// A scalar value, or nil when `argument` is a collection or unsupported.
    ///
    /// A NaN becomes nil: both back ends store and compare NaN as nil (SQLite binds it as
    /// NULL), and nil has a literal, so the predicate prints to text that parses back.
    static func scalar(_ argument: Any) -> PredicateValue? {
        switch argument {
        case let v as String: return .string(v)
        case let v as Substring: return .string(String(v))
        case let v as Character: return .string(String(v))
        case let v as Bool: return .bool(v)
        case let v as Int: return .integer(Int64(v))
        case let v as Int64: return .integer(v)
        case let v as Int32: return .integer(Int64(v))
        case let v as Int16: return .integer(Int64(v))
        case let v as Int8: return .integer(Int64(v))
        case let v as UInt8: return .integer(Int64(v))
        case let v as UInt16: return .integer(Int64(v))
        case let v as UInt32: return .integer(Int64(v))
        case let v as UInt: return Int64(exactly: v).map { .integer($0) } ?? .double(Double(v))
        case let v as UInt64: return Int64(exactly: v).map { .integer($0) } ?? .double(Double(v))
        case let v as Double: return v.isNaN ? .null : .double(v)
        case let v as Float: return v.isNaN ? .null : .double(Double(v))
        case let v as Date: return .date(v)
        case let v as Data: return .data(v)
        case let v as UUID: return .uuid(v)
        case let v as URL: return .url(v)
        case let v as ObjectID: return .objectID(v)
        case let v as StoredValue:
            switch v {
            case .null: return .null
            case .integer(let i): return .integer(i)
            case .real(let d): return d.isNaN ? .null : .double(d)
            case .text(let s): return .string(s)
            case .blob(let b): return .data(b)
            }
        default: return nil
        }
    }

    /// `Optional.none` (at any depth) becomes nil; other values are returned unwrapped.
    static func unwrap(_ value: Any?) -> Any? {
        guard let value else { return nil }
        if let optional = value as? any OptionalProtocol { return unwrap(optional.wrappedAny) }
        return value
    }
}

/// Lets code holding an `Any` see through an `Optional` stored in it.
protocol OptionalProtocol {
    var wrappedAny: Any? { get }
}

extension Optional: OptionalProtocol {
    var wrappedAny: Any? { self.map { $0 as Any } }
}
