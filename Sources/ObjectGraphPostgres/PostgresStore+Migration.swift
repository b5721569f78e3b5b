public import ObjectGraph
import ObjectGraphSQL

extension PersistentStoreCoordinator {
    /// Copies every object, value and relationship of `store` into a new PostgreSQL store at
    /// `location`, and puts the new store in its place: ``migrateStore(_:to:type:)`` for a
    /// database, so a SQLite (or XML, binary, HTML) store moves to a server.
    ///
    /// Objects keep their IDs; the caller's metadata keys come along, the new store has its
    /// own UUID. The way back is ``migrateStore(_:to:type:)`` with a file's path and type.
    /// A PostgreSQL store does not migrate between model versions itself: move it into a
    /// SQLite file, migrate that, and move it back.
    ///
    /// ```swift
    /// let server = try PostgresLocation(url: "postgres://og@127.0.0.1:5432/catalogue")
    /// try coordinator.migrateStore(coordinator.stores[0], to: server)
    /// ```
    /// - Parameters:
    ///   - store: one of this coordinator's stores.
    ///   - location: a database or schema that holds no objects yet (a missing schema is made).
    /// - Returns: the new store.
    /// - Throws: ``ObjectGraphError``: `storeFailure` when `store` is not this coordinator's
    ///   or the location holds objects already; as ``PostgresStore/init(location:model:creatingSchema:)``;
    ///   any error of reading the old store or saving the copy (nothing is saved, and the
    ///   coordinator keeps the old store).
    @discardableResult
    public func migrateStore(_ store: any PersistentStore, to location: PostgresLocation) throws -> PostgresStore {
        let target = location.schema == "public" ? "to \(location)" : "to \(location), schema \(location.schema)"
        let new = try migrateStore(store, target: target) {
            let new = try PostgresStore(location: location, model: model)
            try new.requireNoObjects(target: target)
            try new.startListening { [weak self] note in self?.storeDidChangeElsewhere(note) }
            return new
        }
        return new as! PostgresStore  // the store the closure opened
    }
}

extension PostgresStore {
    /// Throws unless no table of the store holds a row: a migration copies objects with their
    /// keys, which must not meet others.
    func requireNoObjects(target: String) throws {
        for layout in layouts where !(try writer.run("SELECT 1 FROM \(SQLIdentifier(layout.table).quoted) LIMIT 1").rows.isEmpty) {
            throw ObjectGraphError(.storeFailure,
                "cannot migrate the store \(target): a store there holds \(layout.root.name) objects already; "
                + "name an empty database or schema; the coordinator keeps the old store")
        }
    }
}
