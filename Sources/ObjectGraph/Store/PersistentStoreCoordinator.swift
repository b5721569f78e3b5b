public import Foundation
import Synchronization

/// Holds a model and the stores its objects live in, and the row cache its contexts share.
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(model: model)
/// try coordinator.addStore(at: "recipes.sqlite")        // ObjectGraphSQLite
/// let context = MainContext(coordinator: coordinator)
/// ```
/// Create one coordinator per store file per process and share it between contexts.
public final class PersistentStoreCoordinator: Sendable {
    /// The model every store of this coordinator uses.
    public let model: ObjectModel
    let rowCache: RowCache
    /// Who hears about saves (see ``addDidSaveObserver(_:)``).
    let didSaveCenter = DidSaveCenter()
    /// How many saves gave permanent IDs to objects a child context may hold by temporary
    /// ones: a nested context that misses an object by a permanent ID asks its parents for
    /// the renames only when this moved since it last asked.
    let temporaryIDRenames = Atomic<UInt64>(0)
    private let storeList = Locked(StoreList())

    /// The stores with their configurations, and the store of each entity that follows from them.
    private struct StoreList {
        var entries: [(store: any StoreRequestHandler, configuration: Set<String>?)] = []
        /// The store of each entity and the entity's table layout there, by entity index
        /// (empty while there is no store): resolved when the list changes, not on every
        /// lookup (every fault makes one).
        var byEntity: [(store: any StoreRequestHandler, layout: TableLayout)] = []
        /// The stores of `entries`, in order: what every save reads, kept so that reading
        /// it retains one array instead of building one.
        var stores: [any StoreRequestHandler] = []

        /// Adds or replaces stores through `change`, then resolves each entity's store: the
        /// first whose configuration names the entity's root, else the first without a
        /// configuration, else the first.
        mutating func update(_ model: ObjectModel, _ change: (inout [(store: any StoreRequestHandler, configuration: Set<String>?)]) -> Void) {
            change(&entries)
            stores = entries.map(\.store)
            guard let fallback = entries.first(where: { $0.configuration == nil }) ?? entries.first else { return }
            byEntity = model.entities.map { entity in
                let store = entries.first { $0.configuration?.contains(entity.root.name) ?? false }?.store ?? fallback.store
                return (store, store.layout(for: entity))
            }
        }
    }

    /// Creates a coordinator with no stores yet.
    public convenience init(model: ObjectModel) { self.init(model: model, rowCacheLimit: 200_000) }

    /// Creates a coordinator whose row cache keeps at most `rowCacheLimit` rows.
    init(model: ObjectModel, rowCacheLimit: Int) {
        self.model = model
        rowCache = RowCache(limit: rowCacheLimit)
    }

    /// Adds an opened store; store types call this from their own `addStore` methods.
    ///
    /// - Parameter configuration: the entity names kept in this store; nil for every
    ///   entity not claimed by another store.
    package func add(_ store: any StoreRequestHandler, configuration: [String]?) {
        storeList.withLock { $0.update(model) { $0.append((store, configuration.map(Set.init))) } }
    }

    /// Adds a store opened from `location` unless a store with its identifier (its UUID) is
    /// already added: the same file again, by any spelling, or a copy of it. Two such stores
    /// would hand out the same object IDs, and their connections would wait on each other.
    /// - Throws: ``ObjectGraphError`` `storeFailure` naming the location.
    package func addOnce(_ store: any StoreRequestHandler, at location: String, configuration: [String]?) throws {
        try storeList.withLock { list in
            guard !list.entries.contains(where: { $0.store.identifier == store.identifier }) else {
                throw ObjectGraphError(.storeFailure,
                    "the store at '\(location)' is already added to this coordinator (store \(store.identifier)); add each "
                    + "store once (a copy of a store has its UUID too: open a copy with a coordinator of its own)")
            }
            list.update(model) { $0.append((store, configuration.map(Set.init))) }
        }
    }

    /// Puts `new` where `old` was, with its configuration.
    /// - Returns: false when `old` is not one of the stores.
    func replace(_ old: any PersistentStore, with new: any StoreRequestHandler) -> Bool {
        storeList.withLock { list in
            guard let index = list.entries.firstIndex(where: { $0.store === old }) else { return false }
            list.update(model) { $0[index].store = new }
            return true
        }
    }

    /// The stores, in the order they were added.
    public var stores: [any PersistentStore] { handlers }

    /// The stores as contexts use them, in the order they were added.
    var handlers: [any StoreRequestHandler] { storeList.withLock { $0.stores } }

    /// Throws unless a store has been added: what every fetch, save and batch request
    /// checks first, so that none traps or (a save) reports success having written nothing.
    func requireStores() throws {
        _ = try requiredHandlers()
    }

    /// ``handlers``, or the error of ``requireStores()`` when there is none: a save's check
    /// and its list of stores under one lock.
    func requiredHandlers() throws -> [any StoreRequestHandler] {
        let stores = storeList.withLock { $0.byEntity.isEmpty ? [] : $0.stores }
        guard stores.isEmpty else { return stores }
        throw ObjectGraphError(.storeFailure,
            "the coordinator has no store: add one with addStore(at:) (or addStore(type:at:)) before fetching or saving")
    }

    /// The store that keeps `entity`'s objects.
    func store(for entity: EntityDescription) -> any StoreRequestHandler {
        storeAndLayout(ofEntityAt: entity.index).store
    }

    /// The store of the entity with model index `index` (what an ``ObjectID`` carries) and
    /// the entity's table layout there, in one lookup: what a fault needs to load.
    func storeAndLayout(ofEntityAt index: Int) -> (store: any StoreRequestHandler, layout: TableLayout) {
        storeList.withLock { list in
            guard !list.byEntity.isEmpty else {
                preconditionFailure("the coordinator has no store: call addStore(at:) before using a context")
            }
            return list.byEntity[index]
        }
    }

    /// The ID named by a URI from ``ObjectID/uriRepresentation(storeIdentifier:model:)``, if it
    /// names an object of one of this coordinator's stores.
    public func objectID(forURI uri: URL) -> ObjectID? {
        guard let (id, identifier) = ObjectID.parse(uri: uri, model: model),
              stores.contains(where: { $0.identifier == identifier }) else { return nil }
        return id
    }

    /// The URI form of an object's ID, naming the store that keeps it.
    public func uri(for id: ObjectID) -> URL {
        let store = store(for: model.entities[Int(id.entityIndex)])
        return id.uriRepresentation(storeIdentifier: store.identifier, model: model)
    }
}
