/// One relationship of an entity: its destination, inverse, cardinality and delete rule.
///
/// Every relationship has an inverse, so both sides stay consistent in memory and in the store.
/// ```swift
/// RelationshipDescription("chef", to: "Chef", inverse: "recipes")
/// RelationshipDescription("recipes", toMany: "Recipe", inverse: "chef", deleteRule: .deny)
/// ```
// Mutated only by `ObjectModel.init` while it resolves the model, before the model is
// published to any other isolation domain; immutable afterwards, so sharing it is safe.
public final class RelationshipDescription: @unchecked Sendable, CustomStringConvertible {
    /// What deleting the source object does to the destination objects.
    public enum DeleteRule: String, Sendable {
        /// Remove the deleted object from each destination's inverse.
        case nullify
        /// Delete the destination objects too.
        case cascade
        /// Refuse to save while any destination object remains.
        case deny
        /// Do nothing: the destinations keep a dangling reference until the caller fixes it.
        case noAction
    }

    /// The relationship's name, unique within its entity tree.
    public let name: String
    /// The name of the destination entity.
    public let destinationName: String
    /// The name of the inverse relationship on the destination entity.
    public let inverseName: String
    /// Whether the relationship holds many objects.
    public let isToMany: Bool
    /// Whether a to-one relationship may be nil (or a to-many empty) when saved.
    public let isOptional: Bool
    /// What deleting the source object does to the destinations.
    public let deleteRule: DeleteRule
    /// The least number of destinations a saved to-many relationship holds (0: no minimum).
    public let minCount: Int
    /// The most destinations a saved to-many relationship holds (0: no maximum).
    public let maxCount: Int
    /// For a to-many relationship: the destination attribute its objects are ordered by.
    public let orderKey: String?
    /// The name this relationship had in the previous model version, for a migration that renames it.
    public let renamingIdentifier: String?

    // Set only while the model is resolved and read on every relationship access afterwards:
    // no dynamic exclusivity checks (see EntityDescription).
    /// The object slot that holds this relationship (set when the model is resolved).
    @exclusivity(unchecked) public internal(set) var slot: Int = -1
    /// The entity that declares this relationship (set when the model is resolved).
    @exclusivity(unchecked) public internal(set) unowned(unsafe) var entity: EntityDescription! = nil
    /// The destination entity (set when the model is resolved).
    @exclusivity(unchecked) public internal(set) unowned(unsafe) var destination: EntityDescription! = nil
    /// The inverse relationship (set when the model is resolved).
    @exclusivity(unchecked) public internal(set) unowned(unsafe) var inverse: RelationshipDescription! = nil
    /// Whether a derived attribute is computed from this relationship (set when the model is resolved).
    @exclusivity(unchecked) package var isDerivationSource = false

    /// Declares a to-one relationship.
    public init(
        _ name: String, to destination: String, inverse: String,
        isOptional: Bool = true, deleteRule: DeleteRule = .nullify, renamingIdentifier: String? = nil
    ) {
        self.name = name
        self.destinationName = destination
        self.inverseName = inverse
        self.isToMany = false
        self.isOptional = isOptional
        self.deleteRule = deleteRule
        self.minCount = 0
        self.maxCount = 0
        self.orderKey = nil
        self.renamingIdentifier = renamingIdentifier
    }

    /// Declares a to-many relationship, optionally ordered by a destination attribute.
    public init(
        _ name: String, toMany destination: String, inverse: String,
        deleteRule: DeleteRule = .nullify, minCount: Int = 0, maxCount: Int = 0,
        orderedBy orderKey: String? = nil, renamingIdentifier: String? = nil
    ) {
        self.name = name
        self.destinationName = destination
        self.inverseName = inverse
        self.isToMany = true
        self.isOptional = minCount == 0
        self.deleteRule = deleteRule
        self.minCount = minCount
        self.maxCount = maxCount
        self.orderKey = orderKey
        self.renamingIdentifier = renamingIdentifier
    }

    /// Whether both this relationship and its inverse are to-many (stored in a join table).
    public var isManyToMany: Bool { isToMany && inverse.isToMany }

    /// A one-line description: `chef -> Chef (inverse recipes, nullify)`.
    public var description: String {
        let arrow = isToMany ? "->>" : "->"
        var text = "\(name) \(arrow) \(destinationName) (inverse \(inverseName), \(deleteRule.rawValue)"
        if minCount > 0 { text += ", min \(minCount)" }
        if maxCount > 0 { text += ", max \(maxCount)" }
        if let orderKey { text += ", ordered by \(orderKey)" }
        if !isToMany && !isOptional { text += ", required" }
        return text + ")"
    }
}
