public import Foundation

/// A persisted value: one of SQLite's five storage classes.
///
/// Every attribute type maps onto one of these cases (``AttributeType/storageClass``);
/// it is the currency between objects, the row cache and the store.
public enum StoredValue: Hashable, Sendable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
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
