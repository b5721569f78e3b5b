public import Foundation

/// A persisted value: one of SQLite's five storage classes.
///
/// Every attribute type maps onto one of these cases (``AttributeType/storageClass``);
/// it is the currency between objects, the row cache and the store.
public enum StoredValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// Whether this is ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}
