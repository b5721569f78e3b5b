/// One object as an atomic store reads and writes it: its ID, its attribute values and its
/// relationships, by name.
///
/// A reader makes one for each object it finds in a file; the store hands one to
/// ``AtomicStore/newCacheNode(for:)`` and ``AtomicStore/updateCacheNode(_:from:)`` for each
/// object a save inserted or changed.
///
/// ```swift
/// var object = StoredObject(entity: chefEntity, key: 3)
/// object.values["name"] = .text("Ana")
/// object.destinations["recipes"] = []   // to-many relationships are kept by the other side
/// ```
public struct StoredObject: Sendable, Equatable {
    /// The object's ID; its key is the store's reference object for it.
    public let objectID: ObjectID
    /// The object's entity (never abstract).
    public let entity: EntityDescription
    /// The values of ``storedAttributes(of:)``, by name; a missing name is nil.
    public var values: [String: StoredValue]
    /// The destinations of ``storedRelationships(of:)``, by name: one ID for a to-one
    /// relationship that is set, the pairs of a many-to-many one, in key order.
    public var destinations: [String: [ObjectID]]
    /// Where a reader found the object (`line 12`, `byte 4096`), so errors found after
    /// reading can point there.
    public var location: String?

    /// An object of `entity` with the given key and no values yet.
    public init(entity: EntityDescription, key: Int64, values: [String: StoredValue] = [:],
                destinations: [String: [ObjectID]] = [:], location: String? = nil) {
        self.objectID = ObjectID(entityIndex: entity.index, key: key)
        self.entity = entity
        self.values = values
        self.destinations = destinations
        self.location = location
    }

    /// The attributes a file keeps for `entity`: every stored (non-transient) one, inherited
    /// ones first.
    public static func storedAttributes(of entity: EntityDescription) -> [AttributeDescription] { entity.storedAttributes }

    /// The relationships a file keeps for `entity`: every to-one, and each many-to-many
    /// relationship on one side only (the other side is its inverse). To-many relationships
    /// whose inverse is to-one are kept by their inverse.
    public static func storedRelationships(of entity: EntityDescription) -> [RelationshipDescription] {
        entity.relationships.filter { !$0.isToMany || ($0.isManyToMany && MemoryStore.join(of: $0).owned) }
    }

    /// Whether two objects have the same ID, values and destinations.
    public static func == (lhs: StoredObject, rhs: StoredObject) -> Bool {
        lhs.objectID == rhs.objectID && lhs.values == rhs.values && lhs.destinations == rhs.destinations
    }
}

extension ObjectID {
    /// The permanent ID of the object of `entity` with key `key`.
    public init(entity: EntityDescription, key: Int64) { self.init(entityIndex: entity.index, key: key) }
}
