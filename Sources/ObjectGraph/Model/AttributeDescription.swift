import Foundation

/// One attribute of an entity: its name, type, optionality and default.
///
/// ```swift
/// AttributeDescription("rating", .double, isOptional: true)
/// AttributeDescription("servings", .integer16, defaultValue: 4, minimum: 1)
/// ```
// Mutated only by `ObjectModel.init` while it resolves the model, before the model is
// published to any other isolation domain; immutable afterwards, so sharing it is safe.
public final class AttributeDescription: @unchecked Sendable, CustomStringConvertible {
    /// How a derived attribute is computed, written as an expression in the model:
    ///
    /// | Expression | Value | Kept up to date |
    /// |---|---|---|
    /// | `canonical:(name)` | `name` case- and diacritic-folded, NFKC-normalized | on every write of `name` |
    /// | `ingredients.@count` | the number of objects in a to-many relationship | on save |
    /// | `photo != nil` | whether an attribute or to-one relationship has a value | on save (on write, for an attribute) |
    public enum Derivation: Sendable, Hashable, CustomStringConvertible {
        /// Unicode case- and diacritic-folded, NFKC-normalized text of a String attribute, for fast search.
        case canonical(String)
        /// The number of objects in a to-many relationship.
        case count(String)
        /// Whether an attribute or a to-one relationship is not nil.
        case exists(String)

        /// Reads `canonical:(key)`, `key.@count` or `key != nil`; nil for anything else.
        public init?(expression: String) {
            let text = expression.trimmingCharacters(in: .whitespaces)
            func key(_ candidate: Substring) -> String? {
                let name = candidate.trimmingCharacters(in: .whitespaces)
                return !name.isEmpty && name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) ? name : nil
            }
            if text.hasPrefix("canonical:("), text.hasSuffix(")"),
               let name = key(text.dropFirst("canonical:(".count).dropLast()) {
                self = .canonical(name)
            } else if text.hasSuffix(".@count"), let name = key(text.dropLast(".@count".count)) {
                self = .count(name)
            } else if text.hasSuffix("!= nil"), let name = key(text.dropLast("!= nil".count)) {
                self = .exists(name)
            } else {
                return nil
            }
        }

        /// The property the value is computed from.
        public var source: String {
            switch self {
            case .canonical(let key), .count(let key), .exists(let key): key
            }
        }

        /// The expression, as written in a model: `ingredients.@count`.
        public var description: String {
            switch self {
            case .canonical(let key): "canonical:(\(key))"
            case .count(let key): "\(key).@count"
            case .exists(let key): "\(key) != nil"
            }
        }
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
    /// For a derived attribute, how the framework computes it; derived attributes cannot be set.
    public let derivation: Derivation?
    /// The name this attribute had in the previous model version, for a migration that renames it.
    ///
    /// Written `Entity.name`, it names an attribute of another entity that moves into this one
    /// (see ``MappingModel/inferred(from:to:)``). Not part of the ``EntityDescription/versionHash``.
    public let renamingIdentifier: String?
    /// The smallest value a save accepts, for a number attribute (nil: no lower bound).
    ///
    /// Like Core Data's minimum and maximum, the bounds are checked when an object is saved
    /// (and by a batch insert or update), not on each write, and they are not part of the
    /// ``EntityDescription/versionHash``: changing them needs no migration.
    public let minimum: Double?
    /// The largest value a save accepts, for a number attribute (nil: no upper bound).
    public let maximum: Double?

    /// Whether ``derivation`` is set: one byte to test on every typed write.
    let isDerived: Bool
    // Set only while the model is resolved and read on every typed access afterwards: no
    // dynamic exclusivity checks (see EntityDescription).
    /// The index of the declaring entity (set when the model is resolved), for the typed
    /// subscript's ownership check.
    @exclusivity(unchecked) var ownerIndex: UInt32 = .max
    /// The object slot that holds this attribute's value (set when the model is resolved).
    @exclusivity(unchecked) public internal(set) var slot: Int = -1
    /// Attributes derived from this one, kept up to date when it changes (set when the model is resolved).
    @exclusivity(unchecked) package var derivedTargets: [AttributeDescription] = [] {
        didSet { hasDerivedTargets = !derivedTargets.isEmpty }
    }
    /// Whether ``derivedTargets`` is not empty, read on every set: a flag costs no
    /// reference counting, where reading the array (even to see that it is empty) does.
    @exclusivity(unchecked) package private(set) var hasDerivedTargets = false
    /// For an attribute derived from a relationship, that relationship (set when the model is resolved).
    @exclusivity(unchecked) package unowned(unsafe) var sourceRelationship: RelationshipDescription? = nil
    /// The entity that declares this attribute (set when the model is resolved).
    @exclusivity(unchecked) public internal(set) unowned(unsafe) var entity: EntityDescription! = nil

    /// Declares an attribute.
    /// - Parameters:
    ///   - name: the key objects and predicates use.
    ///   - type: the value type, which decides the column's storage class.
    ///   - isOptional: whether nil is a valid value when saving.
    ///   - defaultValue: a Swift value of the attribute's type (`Int`, `String`, `Date`, …).
    ///   - isTransient: kept in memory only, never stored.
    ///   - isIndexed: gives the column an index in stores that have them.
    ///   - expression: makes this a derived attribute computed by the framework from an
    ///     expression: `canonical:(name)`, `ingredients.@count` or `photo != nil`
    ///     (see ``Derivation``). Derived attributes are stored and cannot be set; a canonical
    ///     one is indexed.
    ///   - renamingIdentifier: the attribute's name in the previous model version, when it was renamed.
    ///   - minimum: for a number attribute, the smallest value a save accepts.
    ///   - maximum: for a number attribute, the largest value a save accepts.
    public init(
        _ name: String, _ type: AttributeType, isOptional: Bool = false, defaultValue: Any? = nil,
        isTransient: Bool = false, isIndexed: Bool = false, derivedFrom expression: String? = nil,
        renamingIdentifier: String? = nil, minimum: Double? = nil, maximum: Double? = nil
    ) {
        // A model is code: a default of the wrong type or an unreadable derivation is a
        // programming error in its declaration, reported on first run.
        let derivation = expression.map { text in
            guard let derivation = Derivation(expression: text) else {
                preconditionFailure(
                    "derived attribute '\(name)': cannot read '\(text)'; write canonical:(attribute), relationship.@count or key != nil")
            }
            return derivation
        }
        // A count starts at 0 and a nil test at false (a type that does not fit is reported by the model).
        var defaultValue = defaultValue
        switch derivation {
        case .count? where defaultValue == nil && [.integer16, .integer32, .integer64].contains(type): defaultValue = 0
        case .exists? where defaultValue == nil && type == .boolean: defaultValue = false
        default: break
        }
        if minimum != nil || maximum != nil {
            precondition([.integer16, .integer32, .integer64, .double].contains(type),
                         "attribute '\(name)': a minimum or maximum needs a number type, not \(type.displayName)")
            precondition((minimum ?? -.infinity) <= (maximum ?? .infinity),
                         "attribute '\(name)': the minimum \(minimum!) is above the maximum \(maximum!)")
        }
        guard let stored = type.storedValue(from: defaultValue) else {
            preconditionFailure(
                "default value \(String(describing: defaultValue)) of '\(name)' is not \(type.nameWithArticle)")
        }
        self.name = name
        self.type = type
        // A canonical shadow exists to be searched, so it is indexed, and it is nil when its source is.
        let isCanonical = if case .canonical? = derivation { true } else { false }
        self.isOptional = isOptional || isCanonical
        self.defaultValue = stored
        self.isTransient = isTransient
        self.isIndexed = isIndexed || isCanonical
        self.derivation = derivation
        self.isDerived = derivation != nil
        self.renamingIdentifier = renamingIdentifier
        self.minimum = minimum
        self.maximum = maximum
    }

    /// Whether a save checks this attribute's values against a range: its bounds, or the
    /// width of a 16- or 32-bit integer.
    var hasRange: Bool { minimum != nil || maximum != nil || type == .integer16 || type == .integer32 }

    /// What is wrong with `value` for this attribute's range, as the end of a sentence that
    /// starts with the attribute (`is 9.0, above the maximum 5.0`); nil when it fits.
    package func rangeProblem(_ value: StoredValue) -> String? {
        let number: Double, text: String
        switch value {
        case .integer(let integer):
            let width: ClosedRange<Int64>? = switch type {
            case .integer16: Int64(Int16.min)...Int64(Int16.max)
            case .integer32: Int64(Int32.min)...Int64(Int32.max)
            default: nil
            }
            if let width, !width.contains(integer) { return "is \(integer), outside the range of \(type.displayName)" }
            (number, text) = (Double(integer), String(integer))
        case .real(let real): (number, text) = (real, String(real))
        default: return nil
        }
        if let minimum, number < minimum { return "is \(text), below the minimum \(bound(minimum))" }
        if let maximum, number > maximum { return "is \(text), above the maximum \(bound(maximum))" }
        return nil
    }

    /// A bound as the attribute's values are written: `0` for an integer, `5.0` for a double.
    private func bound(_ value: Double) -> String {
        type != .double && value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// A one-line description: `name: String?`.
    public var description: String {
        var text = "\(name): \(type.displayName)\(isOptional ? "?" : "")"
        if !defaultValue.isNull, let value = type.swiftValue(from: defaultValue) { text += " = \(value)" }
        if isTransient { text += " (transient)" }
        if let derivation { text += " (derived: \(derivation))" }
        if isIndexed { text += " (indexed)" }
        switch (minimum, maximum) {
        case let (minimum?, maximum?): text += " (\(bound(minimum)) to \(bound(maximum)))"
        case let (minimum?, nil): text += " (at least \(bound(minimum)))"
        case let (nil, maximum?): text += " (at most \(bound(maximum)))"
        case (nil, nil): break
        }
        return text
    }
}
