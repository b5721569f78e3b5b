public import Foundation
public import ObjectGraphSQLite

/// A recipe catalogue: a coordinator with the catalogue model and one store, and the ways
/// to fill and search it.
///
/// ```swift
/// let catalog = try Catalog.open(at: "recipes.sqlite")
/// let report = try await catalog.loadSampleData(from: Catalog.sampleDataDirectory!)
/// let context = await MainContext(coordinator: catalog.coordinator)
/// ```
public final class Catalog: Sendable {
    /// The coordinator every context of this catalogue uses.
    public let coordinator: PersistentStoreCoordinator
    /// The catalogue's store.
    public let store: any PersistentStore
    /// The type of ``store``.
    public let storeType: PersistentStoreType

    private init(coordinator: PersistentStoreCoordinator, store: any PersistentStore, type: PersistentStoreType) {
        self.coordinator = coordinator
        self.store = store
        self.storeType = type
    }

    /// The store when it is a SQLite store (for SQL debugging), or nil.
    public var sqliteStore: SQLiteStore? { store as? SQLiteStore }

    /// Opens (or creates, empty) the catalogue stored at `path`: a file's type is recognized
    /// from its content (SQLite, XML, binary or HTML store), whatever its name; a new file
    /// is a SQLite store.
    ///
    /// With `migrating`, a SQLite catalogue written with version 1 of the model is migrated
    /// first (``CatalogMigration``), reporting its progress; without it, opening one fails
    /// with `modelMismatch`. It blocks while it migrates: call it off Swift's cooperative pool.
    /// - Throws: ``ObjectGraphError`` when the file is not a catalogue, is locked, or cannot
    ///   be opened, or the migration fails (the file is then as it was).
    public static func open(
        at path: String, migrating: Bool = false, progress: (@Sendable (Double) -> Void)? = nil
    ) throws -> Catalog {
        var type = PersistentStoreType.sqlite
        if path != ":memory:", FileManager.default.fileExists(atPath: path), let found = try PersistentStoreType.recognize(fileAt: path) {
            type = found
        }
        guard type == .sqlite else { return try open(at: path, type: type) }
        let coordinator = PersistentStoreCoordinator(model: try CatalogModel.make())
        var options = SQLiteStore.Options()
        if migrating {
            options.shouldMigrateStoreAutomatically = true
            options.mappingModels = [try CatalogMigration.fromVersion1()]
            options.migrationProgress = progress
        }
        let store = try coordinator.addStore(at: path, options: options)
        return Catalog(coordinator: coordinator, store: store, type: .sqlite)
    }

    /// Opens (or creates, empty) a catalogue of the given store type at `path` (ignored for `.memory`).
    public static func open(at path: String, type: PersistentStoreType) throws -> Catalog {
        let coordinator = PersistentStoreCoordinator(model: try CatalogModel.make())
        let store = try coordinator.addStore(type: type, at: path)
        return Catalog(coordinator: coordinator, store: store, type: type)
    }

    /// Opens a catalogue on a store that `addStore` adds to a new coordinator of the
    /// catalogue model: for store types this module does not know (a database server).
    ///
    /// ```swift
    /// let catalog = try Catalog.open(type: postgres) { try $0.addPostgresStore(at: location) }
    /// ```
    /// - Throws: what `addStore` throws.
    public static func open(
        type: PersistentStoreType, addingStore addStore: (PersistentStoreCoordinator) throws -> any PersistentStore
    ) throws -> Catalog {
        let coordinator = PersistentStoreCoordinator(model: try CatalogModel.make())
        return Catalog(coordinator: coordinator, store: try addStore(coordinator), type: type)
    }

    /// Copies the whole catalogue into a new store of `type` at `path` (which must not exist)
    /// and returns the catalogue on it; the old store's file is left as it was. Contexts of
    /// the old catalogue should be dropped: make new ones on the returned catalogue.
    /// - Throws: ``ObjectGraphError`` when `path` exists or either store fails.
    public func migrate(to path: String, type: PersistentStoreType) throws -> Catalog {
        let new = try coordinator.migrateStore(store, to: path, type: type)
        return Catalog(coordinator: coordinator, store: new, type: type)
    }

    /// An empty catalogue in memory.
    public static func inMemory() throws -> Catalog { try open(at: ":memory:") }

    /// The path of the catalogue `recipes` opens by default:
    /// `$XDG_DATA_HOME/recipes/catalog.sqlite`, or `~/.local/share/recipes/catalog.sqlite`.
    public static var defaultPath: String {
        let environment = ProcessInfo.processInfo.environment
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (home + "/.local/share")
        return base + "/recipes/catalog.sqlite"
    }

    /// The bundled `SampleData` folder: `$RECIPES_SAMPLE_DATA`, or the one in this source checkout.
    public static var sampleDataDirectory: URL? {
        var candidates: [URL] = []
        if let configured = ProcessInfo.processInfo.environment["RECIPES_SAMPLE_DATA"], !configured.isEmpty {
            candidates.append(URL(fileURLWithPath: configured))
        }
        // Sources/RecipeCatalog/Catalog/Catalog.swift → the repository root.
        candidates.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("SampleData"))
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("recipes.jsonl").path) }
    }

    /// Imports the USDA ingredient catalogue (`ingredients.tsv`); names already present are skipped.
    /// - Returns: the number of ingredients inserted.
    public func importIngredients(from url: URL, batchSize: Int = 2_000) async throws -> Int {
        let entries = try IngredientCatalogFile.load(from: url)
        let context = PrivateContext(coordinator: coordinator)
        return try await context.perform { context in
            let entity = context.model.entity(named: CatalogModel.ingredient)!
            var inserted = 0
            for start in stride(from: 0, to: entries.count, by: batchSize) {
                let batch = entries[start..<min(entries.count, start + batchSize)]
                var request = FetchRequest(entityName: CatalogModel.ingredient)
                request.predicate = try FetchPredicate("name IN %@", batch.map(\.name))
                request.returnsObjectsAsFaults = false
                // Names compare by their bytes, as the store and the recipe importer compare them.
                let existing = Set(try context.fetch(request).map { ExactText($0[attribute: "name"] as String) })
                for entry in batch where !existing.contains(ExactText(entry.name)) {
                    let ingredient = context.insert(entity)
                    ingredient[attribute: "name"] = entry.name
                    ingredient[attribute: "foodGroup"] = entry.foodGroup as String?
                    ingredient[attribute: "usdaNumber"] = entry.usdaNumber as String?
                    for (key, value) in [("kcal", entry.kcal), ("proteinG", entry.proteinG), ("fatG", entry.fatG),
                                         ("carbohydrateG", entry.carbohydrateG), ("fiberG", entry.fiberG),
                                         ("sugarG", entry.sugarG), ("sodiumMg", entry.sodiumMg)] {
                        ingredient[attribute: key] = value
                    }
                    inserted += 1
                }
                try context.save()
                context.reset()
            }
            return inserted
        }
    }

    /// Fills the catalogue from a `SampleData` folder: the ingredient catalogue, then the recipes.
    public func loadSampleData(from directory: URL) async throws -> RecipeImporter.Report {
        _ = try await importIngredients(from: directory.appendingPathComponent("ingredients.tsv"))
        let context = PrivateContext(coordinator: coordinator)
        return try await RecipeImporter().importFile(directory.appendingPathComponent("recipes.jsonl"), into: context)
    }

    /// The metadata key with which ``loadSampleDataOnce(from:)`` records that it filled the catalogue.
    public static let sampleDataKey = "sampleCatalogue"

    /// Fills the catalogue from a `SampleData` folder unless its store's metadata says that was
    /// done, then records it (``sampleDataKey``): a catalogue on a database server gets the
    /// sample once, however often it is opened.
    /// - Returns: the import's report, or nil when the sample was there already.
    public func loadSampleDataOnce(from directory: URL) async throws -> RecipeImporter.Report? {
        guard store.metadata[Self.sampleDataKey] == nil else { return nil }
        let report = try await loadSampleData(from: directory)
        try store.setMetadata("loaded", forKey: Self.sampleDataKey)
        return report
    }

    /// The request behind `search TEXT`: recipes whose name contains the text, ignoring case
    /// and accents, by name. The framework answers it from the `nameCanonical` shadow.
    public static func searchRequest(_ text: String) throws -> FetchRequest {
        FetchRequest(entityName: CatalogModel.recipe,
                     predicate: try FetchPredicate("name CONTAINS[cd] %@", text),
                     sortKeys: [SortKey("name")])
    }
}
