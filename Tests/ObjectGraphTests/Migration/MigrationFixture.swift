import Foundation
@testable import ObjectGraph
@testable import ObjectGraphSQLite
@testable import ObjectGraphPostgres
import ObjectGraphSQL

/// A store file in a temporary folder (or, on `.postgres`, a schema of the test database),
/// written with one model version and reopened with another.
@MainActor
struct MigrationFixture {
    let directory: URL
    let path: String
    /// The store's schema when it is a PostgreSQL store.
    let location: PostgresLocation?

    /// The kinds of store that migrate between model versions: PostgreSQL when a server is reachable.
    nonisolated static var kinds: [StoreKind] { [.sqlite] + (PostgresTestServer.isAvailable ? [.postgres] : []) }

    init(_ name: String, on kind: StoreKind = .sqlite) throws {
        precondition(kind == .sqlite || kind == .postgres, "only SQLite and PostgreSQL stores migrate")
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("og-migrate-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("store.sqlite").path
        location = kind == .postgres ? PostgresTestServer.newLocation() : nil
    }

    /// Creates the store with `model` and fills it; every connection is closed on return.
    func write(_ model: ObjectModel, _ fill: (MainContext) throws -> Void) throws {
        let coordinator = PersistentStoreCoordinator(model: model)
        if let location { try coordinator.addPostgresStore(at: location) } else { try coordinator.addStore(at: path) }
        let context = MainContext(coordinator: coordinator)
        try fill(context)
        try context.save()
    }

    /// Opens the store with `model`, migrating from `sources` (inferred), and returns a context on it.
    func open(_ model: ObjectModel, migratingFrom sources: [ObjectModel] = [], mappings: [MappingModel] = [],
              inferring: Bool = true, progress: (@Sendable (Double) -> Void)? = nil) throws -> MainContext {
        let coordinator = PersistentStoreCoordinator(model: model)
        if let location {
            var options = PostgresStore.Options()
            options.shouldMigrateStoreAutomatically = !sources.isEmpty || !mappings.isEmpty
            options.shouldInferMappingModelAutomatically = inferring
            options.sourceModels = sources
            options.mappingModels = mappings
            options.migrationProgress = progress
            try coordinator.addPostgresStore(at: location, options: options)
        } else {
            var options = SQLiteStore.Options()
            options.shouldMigrateStoreAutomatically = !sources.isEmpty || !mappings.isEmpty
            options.shouldInferMappingModelAutomatically = inferring
            options.sourceModels = sources
            options.mappingModels = mappings
            options.migrationProgress = progress
            try coordinator.addStore(at: path, options: options)
        }
        return MainContext(coordinator: coordinator)
    }

    /// The names of the store's tables.
    func tables(of context: MainContext) throws -> Set<String> {
        let rows: [[StoredValue]]
        if let store = context.coordinator.stores[0] as? PostgresStore {
            rows = try store.writer.run("SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema()").rows
        } else {
            rows = try (context.coordinator.stores[0] as! SQLiteStore).performRead {
                try $0.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            }
        }
        return Set(rows.compactMap { if case .text(let name) = $0[0] { name } else { nil } })
    }

    /// The names of a table's columns.
    func columns(of table: String, in context: MainContext) throws -> Set<String> {
        let rows: [[StoredValue]]
        if let store = context.coordinator.stores[0] as? PostgresStore {
            rows = try store.writer.run(
                "SELECT column_name::text FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1",
                [.text(table)]).rows
        } else {
            rows = try (context.coordinator.stores[0] as! SQLiteStore).performRead { try $0.rows(SchemaSQL.tableColumns, [.text(table)]) }
        }
        return Set(rows.compactMap { if case .text(let name) = $0[0] { name } else { nil } })
    }

    /// The store file's bytes.
    func bytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// The files in the folder, by name.
    func files() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() }

    /// Removes the folder (a PostgreSQL schema goes with the test database).
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
