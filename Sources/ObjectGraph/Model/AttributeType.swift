import Foundation

/// The type of an attribute, and how its values are stored.
public enum AttributeType: String, Hashable, Sendable, CaseIterable {
    /// A 16-bit signed integer (`Int16`).
    case integer16
    /// A 32-bit signed integer (`Int32`).
    case integer32
    /// A 64-bit signed integer (`Int64`).
    case integer64
    /// A double-precision floating-point number.
    case double
    /// A Boolean, stored as 0 or 1.
    case boolean
    /// Unicode text.
    case string
    /// A point in time, stored as seconds since 1970.
    case date
    /// Raw bytes (`Data`).
    case binary
    /// A UUID, stored as its text form.
    case uuid
    /// A URL, stored as its absolute string.
    case url

    /// A short name for schemas and error messages (`Int64`, `String`, …).
    public var displayName: String {
        switch self {
        case .integer16: "Int16"
        case .integer32: "Int32"
        case .integer64: "Int64"
        case .double: "Double"
        case .boolean: "Bool"
        case .string: "String"
        case .date: "Date"
        case .binary: "Data"
        case .uuid: "UUID"
        case .url: "URL"
        }
    }

    /// ``displayName`` after its article, for messages: `an Int16`, `a String`.
    package var nameWithArticle: String {
        switch self {
        case .integer16, .integer32, .integer64: "an \(displayName)"
        default: "a \(displayName)"
        }
    }

    /// Whether values of this type are numbers (usable in arithmetic and aggregates).
    public var isNumeric: Bool {
        switch self {
        case .integer16, .integer32, .integer64, .double, .boolean: true
        default: false
        }
    }

    /// Whether values of this type are stored as integers (Booleans as 0 and 1), so that
    /// their sum is an integer.
    package var isStoredAsInteger: Bool { isNumeric && self != .double }

    /// Converts a Swift value of this type to its stored form, or returns nil when it has another type.
    ///
    /// Integers accept any `BinaryInteger` within range; `double` also accepts integers.
    /// A nil `Optional` boxed in `Any` (a `Double?` put in `[String: any Sendable]`) is nil too.
    public func storedValue(from value: Any?) -> StoredValue? {
        guard let value else { return .null }
        if let stored = converted(value) { return stored }
        // `guard let` sees a value in a boxed `Optional.none`; checked only when nothing
        // else fitted, so setting a value pays nothing for it.
        return (value as? any BoxedOptional)?.isNone == true ? .null : nil
    }

    /// `value` in its stored form, or nil when it has another type.
    private func converted(_ value: Any) -> StoredValue? {
        switch self {
        case .integer16, .integer32, .integer64:
            let integer: Int64?
            switch value {
            case let v as Int: integer = Int64(v)
            case let v as Int64: integer = v
            case let v as Int32: integer = Int64(v)
            case let v as Int16: integer = Int64(v)
            case let v as Int8: integer = Int64(v)
            case let v as UInt8: integer = Int64(v)
            case let v as UInt16: integer = Int64(v)
            case let v as UInt32: integer = Int64(v)
            default: integer = nil
            }
            guard let integer, fits(integer) else { return nil }
            return .integer(integer)
        case .double:
            switch value {
            case let v as Double: return .real(v)
            case let v as Float: return .real(Double(v))
            case let v as Int: return .real(Double(v))
            case let v as Int64: return .real(Double(v))
            default: return nil
            }
        case .boolean:
            guard let v = value as? Bool else { return nil }
            return .integer(v ? 1 : 0)
        case .string:
            guard let v = value as? String else { return nil }
            return .text(v)
        case .date:
            guard let v = value as? Date else { return nil }
            return .real(v.timeIntervalSince1970)
        case .binary:
            if let v = value as? Data { return .blob(v) }
            if let v = value as? [UInt8] { return .blob(Data(v)) }
            return nil
        case .uuid:
            guard let v = value as? UUID else { return nil }
            return .text(v.uuidString)
        case .url:
            guard let v = value as? URL else { return nil }
            return .text(v.absoluteString)
        }
    }

    /// Converts a stored value back to the Swift value of this type (`Int`, `Double`, `Bool`,
    /// `String`, `Date`, `Data`, `UUID`, `URL`), or nil for ``StoredValue/null``.
    public func swiftValue(from stored: StoredValue) -> Any? {
        switch (self, stored) {
        case (_, .null): return nil
        case (.integer16, .integer(let v)), (.integer32, .integer(let v)), (.integer64, .integer(let v)):
            return Int(v)
        case (.double, .real(let v)): return v
        case (.double, .integer(let v)): return Double(v)
        case (.boolean, .integer(let v)): return v != 0
        case (.string, .text(let v)): return v
        case (.date, .real(let v)): return Date(timeIntervalSince1970: v)
        case (.date, .integer(let v)): return Date(timeIntervalSince1970: Double(v))
        case (.binary, .blob(let v)): return v
        case (.uuid, .text(let v)): return UUID(uuidString: v)
        case (.url, .text(let v)): return URL(string: v)
        case (.string, .integer(let v)): return String(v)
        case (.string, .real(let v)): return String(v)
        default: return nil
        }
    }

    /// Parses text typed by a person (a shell argument) into a stored value of this type.
    ///
    /// Integers and (finite) doubles in decimal; booleans as `true`/`false`/`yes`/`no`/`1`/`0`;
    /// dates as ISO 8601 (`2024-03-01`, midnight UTC, or a date-time, `2024-03-01T10:00:00Z`;
    /// proleptic Gregorian, a year before 1 with a sign, `-0044-03-15`), refusing days
    /// and times that do not exist; `nil`/`null` for no value.
    /// - Throws: ``ObjectGraphError`` with code ``ObjectGraphError/Code/invalidValue``.
    public func parse(_ text: String, key: String) throws -> StoredValue {
        let lowered = text.lowercased()
        if lowered == "nil" || lowered == "null" { return .null }
        func invalid() -> ObjectGraphError {
            ObjectGraphError(.invalidValue, "'\(text)' is not a valid \(displayName) for '\(key)'")
        }
        switch self {
        case .integer16, .integer32, .integer64:
            guard let v = Int64(text), fits(v) else { throw invalid() }
            return .integer(v)
        case .double:
            // `1e999` would be infinity, `nan` nothing SQLite keeps: neither is a number typed by mistake.
            guard let v = Double(text), v.isFinite else { throw invalid() }
            return .real(v)
        case .boolean:
            switch lowered {
            case "true", "yes", "1": return .integer(1)
            case "false", "no", "0": return .integer(0)
            default: throw invalid()
            }
        case .string: return .text(text)
        case .date:
            guard let date = ISO8601Date.parse(text) else { throw invalid() }
            return .real(date.timeIntervalSince1970)
        case .binary:
            guard let data = Data(base64Encoded: text) else { throw invalid() }
            return .blob(data)
        case .uuid:
            guard let uuid = UUID(uuidString: text) else { throw invalid() }
            return .text(uuid.uuidString)
        case .url:
            guard URL(string: text) != nil else { throw invalid() }
            return .text(text)
        }
    }

    /// The storage class the store uses for values of this type.
    package var storageClass: String {
        switch self {
        case .integer16, .integer32, .integer64, .boolean: "INTEGER"
        case .double, .date: "REAL"
        case .string, .uuid, .url: "TEXT"
        case .binary: "BLOB"
        }
    }

    private func fits(_ value: Int64) -> Bool {
        switch self {
        case .integer16: Int64(Int16.min)...Int64(Int16.max) ~= value
        case .integer32: Int64(Int32.min)...Int64(Int32.max) ~= value
        default: true
        }
    }
}

/// Any `Optional`, so a nil one boxed in `Any` can be recognized.
private protocol BoxedOptional {
    /// Whether it holds nil.
    var isNone: Bool { get }
}

extension Optional: BoxedOptional {
    var isNone: Bool { self == nil }
}
