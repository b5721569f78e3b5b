import Foundation

/// One attribute of an entity: its name, type, optionality and default.
///
/// ```swift
/// AttributeDescription("rating", .double, isOptional: true)
/// AttributeDescription("servings", .integer16, defaultValue: 4)
/// ```
// Mutated only by `ObjectModel.init` while it resolves the model, before the model is
// published to any other isolation domain; immutable afterwards, so sharing it is safe.
public final class AttributeDescription: @unchecked Sendable, CustomStringConvertible {
    /// How a derived attribute is computed from its source attribute.
    public enum Derivation: String, Sendable {
        /// Unicode case- and diacritic-folded, NFKC-normalized text, for fast search.
        case canonical
    }

    /// The attribute's name, unique within its entity tree.
    public let name: String
    /// The attribute's type.
    public let type: AttributeType
    /// Whether the attribute may be nil when saved.
    public let isOptional: Bool
    /// The stored value a newly inserted object starts with.
    public let defaultValue: StoredValue
    /// Transient attributes live in objects only and are never stored.
    public let isTransient: Bool
    /// Whether the store keeps an index on this attribute alone.
    public let isIndexed: Bool
    /// For a derived attribute, the attribute it is computed from and how.
    public let derivation: (source: String, kind: Derivation)?

    /// The object slot that holds this attribute's value (set when the model is resolved).
    public internal(set) var slot: Int = -1
    /// Attributes derived from this one, kept up to date when it changes (set when the model is resolved).
    var derivedTargets: [AttributeDescription] = []
    /// The entity that declares this attribute (set when the model is resolved).
    public internal(set) unowned(unsafe) var entity: EntityDescription! = nil

    /// Declares an attribute.
    /// - Parameters:
    ///   - defaultValue: a Swift value of the attribute's type (`Int`, `String`, `Date`, …).
    ///   - derivedFrom: makes this a derived attribute kept up to date from `source`.
    public init(
        _ name: String, _ type: AttributeType, isOptional: Bool = false, defaultValue: Any? = nil,
        isTransient: Bool = false, isIndexed: Bool = false,
        derivedFrom source: String? = nil, derivation: Derivation = .canonical
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional || source != nil
        // A default of the wrong type is a programming error in the model declaration.
        guard let stored = type.storedValue(from: defaultValue) else {
            preconditionFailure(
                "default value \(String(describing: defaultValue)) of '\(name)' is not a \(type.displayName)")
        }
        self.defaultValue = stored
        self.isTransient = isTransient
        self.isIndexed = isIndexed || source != nil
        self.derivation = source.map { ($0, derivation) }
    }

    /// A one-line description: `name: String?`.
    public var description: String {
        var text = "\(name): \(type.displayName)\(isOptional ? "?" : "")"
        if !defaultValue.isNull, let value = type.swiftValue(from: defaultValue) { text += " = \(value)" }
        if isTransient { text += " (transient)" }
        if let derivation { text += " (\(derivation.kind.rawValue) of \(derivation.source))" }
        if isIndexed { text += " (indexed)" }
        return text
    }
}
