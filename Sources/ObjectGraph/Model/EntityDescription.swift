/// One entity of a model: its attributes, relationships, place in an inheritance tree,
/// indexes, uniqueness constraints and the class its objects are made of.
///
/// ```swift
/// final class Chef: ManagedObject {}
///
/// let chefEntity = EntityDescription("Chef", objectClass: Chef.self,
///     attributes: [AttributeDescription("name", .string)],
///     relationships: [RelationshipDescription("recipes", toMany: "Recipe", inverse: "chef")],
///     uniquenessConstraints: [["name"]])
/// ```
/// Sub-entities name their parent and inherit its properties; an abstract entity has no
/// objects of its own. A tree of entities is stored in one table, like Core Data's SQLite store.
///
/// ## Topics
/// - ``attributes``
/// - ``relationships``
/// - ``parent``
/// - ``subentities``
/// - ``isAbstract``
/// - ``versionHash``
// Mutated only by `ObjectModel.init` while it resolves the model, before the model is
// published to any other isolation domain; immutable afterwards, so sharing it is safe.
public final class EntityDescription: @unchecked Sendable, CustomStringConvertible {
    /// The entity's name, unique within its model.
    public let name: String
    /// The name of the parent entity, for a sub-entity.
    public let parentName: String?
    /// Whether the entity has no objects of its own (only its sub-entities do).
    public let isAbstract: Bool
    /// The class objects of this entity are made of: ``ManagedObject`` or a subclass of it.
    public let objectClass: ManagedObject.Type
    /// The attributes this entity declares (not the inherited ones).
    public let declaredAttributes: [AttributeDescription]
    /// The relationships this entity declares (not the inherited ones).
    public let declaredRelationships: [RelationshipDescription]
    /// Indexes to create, each a list of attribute or to-one relationship names.
    public let indexes: [[String]]
    /// Each entry is a set of attribute names whose values must be unique together.
    public let uniquenessConstraints: [[String]]
    /// The name this entity had in the previous model version, for a migration that renames it.
    public let renamingIdentifier: String?

    // The properties below are set only by `ObjectModel.init` while it resolves the model and
    // read on every object access afterwards, so they skip dynamic exclusivity checks (a
    // resolved model is never written again: no access can overlap a write).
    /// The entity's position in its model; objects' IDs carry it.
    public internal(set) var index: Int {
        // Not inlined into other modules: there an inlined read of the stored property came
        // with Swift's run-time exclusivity check (about 60 instructions and a thread-local
        // lookup), the attribute below notwithstanding: the stores read it on every fault.
        @inline(never) get { storedIndex }
        set { storedIndex = newValue }
    }
    @exclusivity(unchecked) private var storedIndex = -1
    /// The model this entity belongs to. Entities and their model keep each other alive, for
    /// the life of the process: managed objects point at their entity without retaining it
    /// (one less reference count per object), so an entity must outlive every object, even one
    /// kept after its context and coordinator are gone.
    @exclusivity(unchecked) public internal(set) var model: ObjectModel! = nil
    /// The parent entity, for a sub-entity.
    @exclusivity(unchecked) public internal(set) unowned(unsafe) var parent: EntityDescription? = nil
    /// The direct sub-entities.
    @exclusivity(unchecked) public internal(set) var subentities: [EntityDescription] = []
    /// The root of this entity's inheritance tree (itself when it has no parent); its table holds the tree.
    @exclusivity(unchecked) public internal(set) unowned(unsafe) var root: EntityDescription! = nil
    /// All attributes, inherited first.
    @exclusivity(unchecked) public internal(set) var attributes: [AttributeDescription] = []
    /// All relationships, inherited first.
    @exclusivity(unchecked) public internal(set) var relationships: [RelationshipDescription] = []
    /// A hash of everything that decides how this entity is stored; a changed hash needs a migration.
    @exclusivity(unchecked) public internal(set) var versionHash: String = ""
    /// This entity and all entities below it, for fetches that include sub-entities.
    @exclusivity(unchecked) public internal(set) var selfAndDescendants: [EntityDescription] = []

    @exclusivity(unchecked) var attributesByName: [String: AttributeDescription] = [:]
    @exclusivity(unchecked) var relationshipsByName: [String: RelationshipDescription] = [:]
    /// Attributes and relationships by the bits of their names' literals, tried before the
    /// dictionaries above (see ``PropertyKeyCache``).
    @exclusivity(unchecked) var propertyKeys = PropertyKeyCache()
    /// Attributes whose value the store keeps (not transient).
    @exclusivity(unchecked) var storedAttributes: [AttributeDescription] = []
    /// To-one relationships.
    @exclusivity(unchecked) var toOneRelationships: [RelationshipDescription] = []
    /// Attributes derived from a relationship (`ingredients.@count`, `photo != nil`), computed on save.
    @exclusivity(unchecked) package var relationshipDerivedAttributes: [AttributeDescription] = []
    /// Attributes that must have a value when saved.
    @exclusivity(unchecked) package var requiredAttributes: [AttributeDescription] = []
    /// Stored attributes whose values a save checks against a range: those with a minimum
    /// or maximum, and 16- and 32-bit integers.
    @exclusivity(unchecked) var rangedAttributes: [AttributeDescription] = []
    /// The canonical shadows (`canonical:(name)`) as the slots of their source and their
    /// own: a fill from a row leaves them out, and the first read of one folds them.
    @exclusivity(unchecked) var foldedShadows: [(source: Int, shadow: Int)] = []
    /// Attributes with a default value, applied on insert.
    @exclusivity(unchecked) var attributesWithDefaults: [AttributeDescription] = []
    /// To-many relationships.
    @exclusivity(unchecked) var toManyRelationships: [RelationshipDescription] = []
    /// Which of the arrays above a save must walk for each object of this entity. A save
    /// reads these flags for every object it writes: reading a flag costs nothing, where
    /// reading an array (even to see that it is empty) costs an atomic retain and release.
    @exclusivity(unchecked) var saveWork: SaveWork = []

    /// The per-object work of a save that an entity needs (see ``saveWork``).
    struct SaveWork: OptionSet {
        let rawValue: UInt8
        /// Attributes derived from relationships to recompute.
        static let derivesFromRelationships = SaveWork(rawValue: 1)
        /// Required or ranged attributes to validate.
        static let checksAttributes = SaveWork(rawValue: 2)
        /// Relationships to validate.
        static let hasRelationships = SaveWork(rawValue: 4)
        /// To-many relationships, whose changes to clear or write as join rows.
        static let hasToMany = SaveWork(rawValue: 8)
    }

    /// Declares an entity.
    public init(
        _ name: String, parent: String? = nil, isAbstract: Bool = false,
        objectClass: ManagedObject.Type = ManagedObject.self,
        attributes: [AttributeDescription] = [], relationships: [RelationshipDescription] = [],
        indexes: [[String]] = [], uniquenessConstraints: [[String]] = [], renamingIdentifier: String? = nil
    ) {
        self.name = name
        self.parentName = parent
        self.isAbstract = isAbstract
        self.objectClass = objectClass
        self.declaredAttributes = attributes
        self.declaredRelationships = relationships
        self.indexes = indexes
        self.uniquenessConstraints = uniquenessConstraints
        self.renamingIdentifier = renamingIdentifier
    }

    /// The number of slots an object of this entity has: one per attribute and relationship.
    public var slotCount: Int { attributes.count + relationships.count }

    /// The names of all attributes and relationships.
    public var propertyNames: [String] { attributes.map(\.name) + relationships.map(\.name) }

    /// The attribute called `name`, inherited or declared.
    public func attribute(named name: String) -> AttributeDescription? {
        propertyKeys.attribute(name) ?? attributesByName[name]
    }

    /// The relationship called `name`, inherited or declared.
    public func relationship(named name: String) -> RelationshipDescription? {
        propertyKeys.relationship(name) ?? relationshipsByName[name]
    }

    /// The value that ``ManagedObject/setValue(parsing:forKey:)`` would give the attribute
    /// `key` of this entity's objects, without changing any.
    ///
    /// A command that sets several keys on many objects checks them all first, so that a
    /// mistake in the last one changes nothing:
    ///
    /// ```swift
    /// for (key, text) in assignments { _ = try entity.value(parsing: text, forKey: key) }
    /// for object in objects {
    ///     for (key, text) in assignments { try object.setValue(parsing: text, forKey: key) }
    /// }
    /// ```
    ///
    /// - Throws: ``ObjectGraphError`` for an unknown key, a relationship, a derived
    ///   attribute, or text that does not parse as the attribute's type.
    @discardableResult
    public func value(parsing text: String, forKey key: String) throws -> StoredValue {
        try settableAttribute(key).type.parse(text, key: key)
    }

    /// The attribute `key`, which a person's text may set.
    ///
    /// - Throws: ``ObjectGraphError`` for an unknown key, a relationship or a derived attribute.
    func settableAttribute(_ key: String) throws -> AttributeDescription {
        guard let attribute = attribute(named: key) else {
            if relationship(named: key) != nil {
                throw ObjectGraphError(.invalidValue, "'\(key)' is a relationship; set it to an object, not text")
            }
            throw ObjectGraphError.unknownKey(key, entity: self)
        }
        try checkSettable(attribute)
        return attribute
    }

    /// Refuses to set a derived attribute: the framework computes it.
    func checkSettable(_ attribute: AttributeDescription) throws {
        guard let derivation = attribute.derivation else { return }
        throw ObjectGraphError(.invalidValue,
            "'\(name).\(attribute.name)' is derived (\(derivation)) and computed by the framework; change '\(derivation.source)' instead")
    }

    /// Whether `other` is this entity or one of its descendants.
    public func isKind(of other: EntityDescription) -> Bool {
        var entity: EntityDescription? = self
        while let current = entity {
            if current === other { return true }
            entity = current.parent
        }
        return false
    }

    /// `Recipe/p42` for a permanent ID of this entity, `Recipe/t3.7` for a temporary one.
    public func describe(_ id: ObjectID) -> String {
        id.isTemporary ? "\(name)/t\(id.temporaryTag).\(id.key)" : "\(name)/p\(id.key)"
    }

    /// The entity's name.
    public var description: String { name }

    /// Stored values of `keys` as errors show them: `name = Ana`, not the stored form.
    func describe(_ keys: [String], _ values: [StoredValue]) -> String {
        zip(keys, values).map { name, value in
            let shown = attribute(named: name)?.type.swiftValue(from: value).map { "\($0)" }
            return "\(name) = \(shown ?? (value.isNull ? "nil" : "\(value)"))"
        }.joined(separator: ", ")
    }
}
