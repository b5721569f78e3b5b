import Foundation
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// A store file in a temporary folder, written with one model version and reopened with another.
@MainActor
struct MigrationFixture {
    let directory: URL
    let path: String

    init(_ name: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("og-migrate-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("store.sqlite").path
    }

    /// Creates the store with `model` and fills it; every connection is closed on return.
    func write(_ model: ObjectModel, _ fill: (MainContext) throws -> Void) throws {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(at: path)
        let context = MainContext(coordinator: coordinator)
        try fill(context)
        try context.save()
    }

    /// Opens the store with `model`, migrating from `sources` (inferred), and returns a context on it.
    func open(_ model: ObjectModel, migratingFrom sources: [ObjectModel] = [], mappings: [MappingModel] = [],
              progress: (@Sendable (Double) -> Void)? = nil) throws -> MainContext {
        var options = SQLiteStore.Options()
        options.shouldMigrateStoreAutomatically = !sources.isEmpty || !mappings.isEmpty
        options.sourceModels = sources
        options.mappingModels = mappings
        options.migrationProgress = progress
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(at: path, options: options)
        return MainContext(coordinator: coordinator)
    }

    /// The store file's bytes.
    func bytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// The files in the folder, by name.
    func files() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

extension MainContext {
    /// Every object of an entity, sorted by a key.
    func all(_ entity: String, by key: String) throws -> [ManagedObject] {
        try fetch(FetchRequest(entityName: entity, sortKeys: [SortKey(key)]))
    }
}

/// Collects progress reports from any thread.
final class ProgressLog: Sendable {
    private let values = Locked<[Double]>([])
    var reported: [Double] { values.withLock { $0 } }
    func record(_ value: Double) { values.withLock { $0.append(value) } }
}
