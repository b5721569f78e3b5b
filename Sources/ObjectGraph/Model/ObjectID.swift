public import Foundation

/// The identity of one object, valid across every context of a coordinator.
///
/// An inserted object gets a temporary ID until it is saved (or
/// `obtainPermanentIDs(for:)` is called); afterwards its ID is permanent and names its
/// row in the store. IDs are small values: pass them between contexts and tasks instead
/// of objects.
///
/// An ID carries its entity and key, not its store: it means something only to contexts of
/// the coordinator whose store issued it. Given to a context of another coordinator, it names
/// whatever row has that key there. To name an object across coordinators or processes, use
/// ``uriRepresentation(storeIdentifier:model:)``, which
/// ``PersistentStoreCoordinator/objectID(forURI:)`` reads back only for a store it holds.
///
/// ```swift
/// let id = recipe.objectID
/// let uri = id.uriRepresentation(storeIdentifier: store.identifier, model: coordinator.model)
/// ```
public struct ObjectID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The index of the object's entity in its model.
    public let entityIndex: UInt32
    /// Zero for a permanent ID; otherwise the serial of the context that issued the temporary ID.
    @usableFromInline let temporaryTag: UInt32
    /// The row's primary key for a permanent ID, or a counter for a temporary one.
    public let key: Int64

    /// Inlined into the stores, which make one for every row they read (a call and a
    /// default argument's call otherwise).
    @inlinable
    package init(entityIndex: Int, key: Int64, temporaryTag: UInt32 = 0) {
        self.entityIndex = UInt32(entityIndex)
        self.key = key
        self.temporaryTag = temporaryTag
    }

    /// Whether the object has not been saved yet (and has no permanent ID).
    public var isTemporary: Bool { temporaryTag != 0 }

    /// Orders by entity, then key: the order of rows in the store.
    public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool {
        (lhs.entityIndex, lhs.temporaryTag, lhs.key) < (rhs.entityIndex, rhs.temporaryTag, rhs.key)
    }

    /// `#2/p42` for a permanent ID of the model's third entity, `#2/t3.7` for a temporary one;
    /// ``ObjectModel/describe(_:)`` names the entity.
    public var description: String {
        isTemporary ? "#\(entityIndex)/t\(temporaryTag).\(key)" : "#\(entityIndex)/p\(key)"
    }

    /// A URI that names this object in the store with `storeIdentifier`, such as
    /// `x-objectgraph://6F1E…/Recipe/p42`; ``ObjectID/parse(uri:model:)`` reads it back.
    public func uriRepresentation(storeIdentifier: String, model: ObjectModel) -> URL {
        let name = model.entities[Int(entityIndex)].name
        let keyPart = isTemporary ? "t\(temporaryTag).\(key)" : "p\(key)"
        return URL(string: "x-objectgraph://\(storeIdentifier)/\(name)/\(keyPart)")!
    }

    /// Reads an ID back from its URI form; nil when the URI does not name an object of `model`.
    /// - Returns: the ID and the identifier of the store it names.
    public static func parse(uri: URL, model: ObjectModel) -> (id: ObjectID, storeIdentifier: String)? {
        guard uri.scheme == "x-objectgraph", let store = uri.host, !store.isEmpty else { return nil }
        let parts = uri.path.split(separator: "/")
        guard parts.count == 2, let entity = model.entity(named: String(parts[0])) else { return nil }
        let keyPart = parts[1]
        if keyPart.hasPrefix("p"), let key = Int64(keyPart.dropFirst()) {
            return (ObjectID(entityIndex: entity.index, key: key), store)
        }
        if keyPart.hasPrefix("t") {
            let numbers = keyPart.dropFirst().split(separator: ".")
            if numbers.count == 2, let tag = UInt32(numbers[0]), tag != 0, let key = Int64(numbers[1]) {
                return (ObjectID(entityIndex: entity.index, key: key, temporaryTag: tag), store)
            }
        }
        return nil
    }
}
