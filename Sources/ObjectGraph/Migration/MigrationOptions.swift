/// Whether and how a store written with another model version is migrated when it is
/// opened: the options every store that migrates on opening takes (the SQLite store's
/// `SQLiteStore.Options` holds them, `PostgresStore.Options` is this type).
///
/// ```swift
/// var options = MigrationOptions()
/// options.shouldMigrateStoreAutomatically = true        // as Core Data's option
/// options.sourceModels = [try NotesModel.version1()]    // versions to infer from
/// ```
public struct MigrationOptions: Sendable {
    /// Whether a store written with an older model version is migrated when it is opened
    /// (Core Data's `shouldMigrateStoreAutomatically`); without it, opening such a store
    /// fails with `modelMismatch`.
    public var shouldMigrateStoreAutomatically = false
    /// Whether a mapping is inferred from the store's model version in ``sourceModels``
    /// when no mapping model in ``mappingModels`` fits.
    public var shouldInferMappingModelAutomatically = true
    /// The model versions a store may have been written with, to infer a mapping from.
    public var sourceModels: [ObjectModel] = []
    /// Mapping models (with policies, say) tried before inference: one from the store's
    /// version straight to the opening model runs alone; otherwise the first whose source
    /// model wrote the store runs, and the migration goes on from its destination model
    /// (by another mapping model, or inferred), so versions v1→v2→v3 migrate in turn.
    /// A PostgreSQL store refuses a mapping with policies, which only a SQLite store runs.
    public var mappingModels: [MappingModel] = []
    /// Called with a migration's progress, from 0 to 1, on the thread that opens the store.
    public var migrationProgress: (@Sendable (Double) -> Void)?
    /// Creates options with the defaults.
    public init() {}
}
