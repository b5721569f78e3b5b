public import Foundation

/// A Swift type an attribute can be read as through ``ManagedObject/subscript(attribute:)``.
public protocol AttributeValue {
    /// Creates a value from its stored form (a default when the stored value is null or of another class).
    init(storedValue: StoredValue)
    /// The stored form of this value.
    var storedValue: StoredValue { get }
}

extension Int: AttributeValue {
    /// Reads an integer; 0 for null.
    @inlinable
    public init(storedValue: StoredValue) {
        switch storedValue {
        case .integer(let v): self = Int(v)
        case .real(let v): self = Int(v)
        default: self = 0
        }
    }
    /// The stored integer.
    @inlinable
    public var storedValue: StoredValue { .integer(Int64(self)) }
}

extension Double: AttributeValue {
    /// Reads a number; 0 for null.
    @inlinable
    public init(storedValue: StoredValue) {
        switch storedValue {
        case .real(let v): self = v
        case .integer(let v): self = Double(v)
        default: self = 0
        }
    }
    /// The stored number.
    @inlinable
    public var storedValue: StoredValue { .real(self) }
}

extension Bool: AttributeValue {
    /// Reads a Boolean; false for null.
    @inlinable
    public init(storedValue: StoredValue) {
        if case .integer(let v) = storedValue { self = v != 0 } else { self = false }
    }
    /// 1 or 0.
    @inlinable
    public var storedValue: StoredValue { .integer(self ? 1 : 0) }
}

extension String: AttributeValue {
    /// Reads text; empty for null.
    @inlinable
    public init(storedValue: StoredValue) {
        if case .text(let v) = storedValue { self = v } else { self = "" }
    }
    /// The stored text.
    @inlinable
    public var storedValue: StoredValue { .text(self) }
}

extension Date: AttributeValue {
    /// Reads a date stored as seconds since 1970; the epoch for null.
    @inlinable
    public init(storedValue: StoredValue) {
        switch storedValue {
        case .real(let v): self = Date(timeIntervalSince1970: v)
        case .integer(let v): self = Date(timeIntervalSince1970: Double(v))
        default: self = Date(timeIntervalSince1970: 0)
        }
    }
    /// Seconds since 1970.
    @inlinable
    public var storedValue: StoredValue { .real(timeIntervalSince1970) }
}

extension Data: AttributeValue {
    /// Reads bytes; empty for null.
    @inlinable
    public init(storedValue: StoredValue) {
        if case .blob(let v) = storedValue { self = v } else { self = Data() }
    }
    /// The stored bytes.
    @inlinable
    public var storedValue: StoredValue { .blob(self) }
}

extension UUID: AttributeValue {
    /// Reads a UUID stored as text; the nil UUID when absent or malformed.
    public init(storedValue: StoredValue) {
        if case .text(let v) = storedValue, let uuid = UUID(uuidString: v) { self = uuid } else {
            self = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        }
    }
    /// The uppercase UUID string.
    public var storedValue: StoredValue { .text(uuidString) }
}

extension URL: AttributeValue {
    /// Reads a URL stored as text; `about:blank` when absent or malformed.
    public init(storedValue: StoredValue) {
        if case .text(let v) = storedValue, let url = URL(string: v) { self = url } else {
            self = URL(string: "about:blank")!
        }
    }
    /// The absolute string.
    public var storedValue: StoredValue { .text(absoluteString) }
}

extension Optional: AttributeValue where Wrapped: AttributeValue {
    /// Reads nil for null, otherwise the wrapped value.
    public init(storedValue: StoredValue) {
        self = storedValue.isNull ? nil : Wrapped(storedValue: storedValue)
    }
    /// Null for nil.
    public var storedValue: StoredValue { self?.storedValue ?? .null }
}
