@_exported public import ObjectGraph

extension PersistentStoreCoordinator {
    /// Opens (or creates) a SQLite store file and adds it.
    ///
    /// - Parameters:
    ///   - path: the file; `":memory:"` makes an in-memory store.
    ///   - configuration: the entity names kept in this store; nil for every entity not
    ///     claimed by another store.
    ///   - options: the busy timeout, the size of the reader pool, and whether to migrate a
    ///     store written with an older model version (`SQLiteStore.Options.shouldMigrateStoreAutomatically`).
    /// - Throws: ``ObjectGraphError`` (`notADatabase`, `storeLocked`, `modelMismatch`,
    ///   `storeFailure`, and for a migration `cannotInferMapping` or `migrationFailed`).
    @discardableResult
    public func addStore(
        at path: String, configuration: [String]? = nil, options: SQLiteStore.Options = .init()
    ) throws -> SQLiteStore {
        try SQLiteStore.migrateIfNeeded(at: path, to: model, options: options)
        let store = try SQLiteStore(path: path, model: model, options: options)
        try addOnce(store, at: path, configuration: configuration)
        return store
    }

    /// Migrates the SQLite store at `path` with `mapping` if it was written with the
    /// mapping's source model, then opens it and adds it.
    ///
    /// ```swift
    /// let mapping = try MappingModel(from: version1, to: coordinator.model, entityMappings: [tagMapping])
    /// try coordinator.addStore(at: "notes.sqlite", migratingWith: mapping)
    /// ```
    /// - Throws: as ``addStore(at:configuration:options:)``, and as `SQLiteStore.migrateStore(at:using:progress:)`.
    @discardableResult
    public func addStore(
        at path: String, migratingWith mapping: MappingModel, configuration: [String]? = nil,
        options: SQLiteStore.Options = .init()
    ) throws -> SQLiteStore {
        var options = options
        options.shouldMigrateStoreAutomatically = true
        options.mappingModels.insert(mapping, at: 0)
        return try addStore(at: path, configuration: configuration, options: options)
    }

    /// Adds an empty in-memory SQLite store (gone when the coordinator is).
    @discardableResult
    public func addInMemoryStore() throws -> SQLiteStore { try addStore(at: ":memory:") }
}
