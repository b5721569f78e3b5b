extension PersistentStoreCoordinator {
    /// Opens (or creates) an atomic store file of the given class and adds it.
    ///
    /// ```swift
    /// let store = try coordinator.addStore(XMLStore.self, at: "catalog.xml")
    /// ```
    /// - Parameters:
    ///   - storeClass: ``XMLStore``, ``BinaryStore``, ``HTMLStore`` or a subclass of your own.
    ///   - path: the file; a file that does not exist is created, empty.
    ///   - configuration: the entity names kept in this store; nil for every entity not
    ///     claimed by another store.
    /// - Throws: ``ObjectGraphError``: `storeFailure` when the class misses a customization
    ///   point (naming it), `path` is a directory or its folder does not exist, or the file
    ///   cannot be read or written; `modelMismatch` when the file was written with another
    ///   model (naming what differs); `notADatabase` when the file is not valid (naming the
    ///   line or byte offset and the problem).
    @discardableResult
    public func addStore<Node, Store: AtomicStore<Node>>(_ storeClass: Store.Type, at path: String, configuration: [String]? = nil) throws -> Store {
        let store = storeClass.init(path: path, model: model)
        try store.open()
        try addOnce(store, at: path, configuration: configuration)
        return store
    }
}
