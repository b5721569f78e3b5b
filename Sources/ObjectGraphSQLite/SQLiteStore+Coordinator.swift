@_exported public import ObjectGraph

extension PersistentStoreCoordinator {
    /// Opens (or creates) a SQLite store file and adds it.
    ///
    /// - Parameters:
    ///   - path: the file; `":memory:"` makes an in-memory store.
    ///   - configuration: the entity names kept in this store; nil for every entity not
    ///     claimed by another store.
    ///   - options: the busy timeout and the size of the reader pool.
    /// - Throws: ``ObjectGraphError`` (`notADatabase`, `storeLocked`, `modelMismatch`, `storeFailure`).
    @discardableResult
    public func addStore(
        at path: String, configuration: [String]? = nil, options: SQLiteStore.Options = .init()
    ) throws -> SQLiteStore {
        let store = try SQLiteStore(path: path, model: model, options: options)
        add(store, configuration: configuration)
        return store
    }

    /// Adds an empty in-memory SQLite store (gone when the coordinator is).
    @discardableResult
    public func addInMemoryStore() throws -> SQLiteStore { try addStore(at: ":memory:") }
}
