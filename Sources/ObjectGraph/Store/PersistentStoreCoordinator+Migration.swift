import Foundation

extension PersistentStoreCoordinator {
    /// Copies every object, value and relationship of `store` into a new store of another
    /// type at `path`, and puts the new store in its place (as Core Data's
    /// `migratePersistentStore(_:to:options:type:)` does).
    ///
    /// Objects keep their IDs (the new store keeps each row's key), so IDs and the objects of
    /// contexts made afterwards go on working; the caller's metadata keys come along, the
    /// new store has its own UUID. Contexts that hold objects from before the migration
    /// should be reset: the row cache is emptied, and saved versions start again at 0.
    /// The old store and its file are left as they were.
    ///
    /// ```swift
    /// let xml = try coordinator.migrateStore(coordinator.stores[0], to: "catalog.xml", type: .xml)
    /// ```
    /// - Parameters:
    ///   - store: one of this coordinator's stores.
    ///   - path: the new store's file, which must not exist yet (ignored for `.memory`).
    ///   - type: the new store's type.
    /// - Returns: the new store.
    /// - Throws: ``ObjectGraphError``: `storeFailure` when `store` is not this coordinator's
    ///   or `path` exists; any error of reading the old store or writing the new one (the
    ///   coordinator then keeps the old store).
    @discardableResult
    public func migrateStore(_ store: any PersistentStore, to path: String, type: PersistentStoreType) throws -> any PersistentStore {
        guard handlers.contains(where: { $0 === store }) else {
            throw ObjectGraphError(.storeFailure, "cannot migrate a store that this coordinator does not have")
        }
        if type != .memory, FileManager.default.fileExists(atPath: path) {
            throw ObjectGraphError(.storeFailure, "cannot migrate to '\(path)': the file exists; remove it or choose another path")
        }
        let existing = Set(type.files(path).filter { FileManager.default.fileExists(atPath: $0) })
        do {
            return try migrateStore(store, target: type == .memory ? "into memory" : "to '\(path)' (\(type))") {
                try type.make(model, path)  // an error opening it names the path
            }
        } catch {
            // The new store is closed now; remove every file it made (a SQLite store's log
            // too, which would otherwise keep the path from being used again).
            for file in type.files(path) where !existing.contains(file) { try? FileManager.default.removeItem(atPath: file) }
            throw error
        }
    }

    /// ``migrateStore(_:to:type:)`` into the store `open` makes (a store module's own way to
    /// name a place, such as a PostgreSQL database), named `target` in errors ("to …").
    ///
    /// The old store is read first, then `open` runs and the copy is saved in one save; when
    /// that fails, the new store is released before the error reaches the caller, and the
    /// coordinator keeps the old store.
    package func migrateStore(
        _ store: any PersistentStore, target: String, opening open: () throws -> any StoreRequestHandler
    ) throws -> any StoreRequestHandler {
        guard let old = handlers.first(where: { $0 === store }) else {
            throw ObjectGraphError(.storeFailure, "cannot migrate a store that this coordinator does not have")
        }
        let changes = try Self.copy(of: old, model: model)
        let new = try open()
        do {
            _ = try new.save(changes, beforeCommit: {})
        } catch var error as ObjectGraphError {
            error.message = "cannot migrate the store \(target): \(error.message); the coordinator keeps the old store"
            throw error
        }
        guard replace(old, with: new) else {
            throw ObjectGraphError(.storeFailure, "the store was removed from the coordinator during the migration")
        }
        old.didLeaveCoordinator()
        rowCache.removeAll()
        return new
    }

    /// Every row and many-to-many pair of `store` as one save that inserts them with their
    /// own keys, and the caller's metadata.
    static func copy(of store: any StoreRequestHandler, model: ObjectModel) throws -> StoreChanges {
        var changes = StoreChanges()
        var entityOfKey: [Int: [Int64: Int]] = [:]  // root index → key → entity index
        for root in model.entities where root.parent == nil {
            let width = store.layout(for: root).width
            try store.forEachRow(FetchPlan(entity: root, output: .rows)) { id, row in
                changes.inserts.append(StoreChanges.Insert(id: id, start: changes.values.count))
                for column in 2..<width { changes.values.append(row.value(at: column)) }
                entityOfKey[root.index, default: [:]][id.key] = Int(id.entityIndex)
            }
        }
        for entity in model.entities {
            for relationship in entity.declaredRelationships where relationship.isManyToMany {
                let sources = (entityOfKey[entity.root.index] ?? [:]).filter { model.entities[$0.value].isKind(of: entity) }
                let destinations = entityOfKey[relationship.destination.root.index] ?? [:]
                for pair in try store.fetchJoinPairs(of: relationship, sourceKeys: sources.keys.sorted()) {
                    guard let source = sources[pair.source], let destination = destinations[pair.destination] else { continue }
                    changes.joins.append(StoreChanges.JoinChange(
                        relationship: relationship,
                        source: ObjectID(entityIndex: source, key: pair.source),
                        destination: ObjectID(entityIndex: destination, key: pair.destination), isInsertion: true))
                }
            }
        }
        for (key, value) in store.metadata where !key.hasPrefix("_") { changes.metadata[key] = value }
        return changes
    }
}
