public import Foundation

/// A persisted value: one of SQLite's five storage classes.
///
/// Every attribute type maps onto one of these cases (its storage class);
/// it is the currency between objects, the row cache and the store.
public enum StoredValue: Hashable, Sendable, CustomStringConvertible {
    /// No value (nil).
    case null
    /// A 64-bit signed integer: integers, Booleans.
    case integer(Int64)
    /// A double: doubles and dates.
    case real(Double)
    /// Text: strings, UUIDs and URLs.
    case text(String)
    /// Bytes: binary data.
    case blob(Data)

    /// The value as a SQL literal, for logs and `.explain`: `NULL`, `42`, `'O''Brien'`, `<16 bytes>`.
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let v): String(v)
        case .real(let v): String(v)
        case .text(let v): "'" + v.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let v): "<\(v.count) bytes>"
        }
    }

    /// Whether this is ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension StoredValue {
    /// The value as every store saves it: a -0.0 as 0.0. SQLite keeps a whole double as an
    /// integer and reads a -0.0 back as 0.0, so the other stores save it so too, and a
    /// value reads back alike from every store type. Applied where values are handed to a
    /// store: a save's rows and batch requests' values.
    @inline(__always)
    package var savedForm: StoredValue {
        if case .real(let value) = self, value == 0, value.sign == .minus { return .real(0) }
        return self
    }
}
