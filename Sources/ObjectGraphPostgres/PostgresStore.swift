public import ObjectGraph
import ObjectGraphSQL
import Foundation

/// A persistent store in a PostgreSQL database, shared by every context of a coordinator
/// and by every process and machine connected to the same database.
///
/// The store creates its schema from the model on first open (one table per inheritance
/// tree, named as the SQLite store names them), keeps metadata in a key/value table and
/// compiles fetches to SQL with bound parameters only. It holds two connections: a writer
/// for saves, key reservations, batch requests and metadata, and a reader for fetches, so
/// a fetch never sees a save in progress; a read made on the saving thread inside a save's
/// transaction runs on the writer and sees that save's rows. Rows carry versions, so a
/// save of a row another process changed meanwhile conflicts and the context's merge
/// policy decides (optimistic locking).
///
/// ```swift
/// let location = try PostgresLocation(url: "postgres://og@127.0.0.1:5432/catalogue")
/// try coordinator.addPostgresStore(at: location)
/// ```
///
/// - Throws on open: ``ObjectGraph/ObjectGraphError`` with code `storeFailure` (server
///   unreachable, login refused, no such database), `notADatabase` (tables that are not a
///   store of this framework), `modelMismatch`, or `invalidModel` (before connecting) when a
///   name the model makes is longer than PostgreSQL's 63-byte identifiers. What a failed
///   open made (tables, a schema) is dropped.
public final class PostgresStore: StoreRequestHandler {
    /// Where the store lives.
    public let location: PostgresLocation
    /// The store's UUID, kept in its metadata; object URIs name it.
    public let identifier: String
    /// The model the store was opened with.
    public let model: ObjectModel
    let writer: PostgresSession
    let reader: PostgresSession
    /// The thread holding the writer in a transaction: its reads go to the writer.
    private let writerThread = Locked<pthread_t?>(nil)
    let layouts: [TableLayout]
    let layoutByEntity: [TableLayout]
    private let tableSQLByEntity: [TableSQL]
    private let metadataCache: Locked<[String: String]>
    /// This store object's name in its change notifications, to skip its own.
    let sender = String(UUID().uuidString.prefix(8))
    /// The connections listening for other processes' saves.
    let listeners = Locked<[PostgresSession]>([])
    /// Whether opening the store created its tables (in an empty schema), and the schema itself.
    let createdTables: Bool, createdSchema: Bool
    /// For tests: the next save has the server end its connection just before committing.
    package let losesConnectionBeforeNextCommit = Locked(false)

    /// Connects to the database at `location` and opens (or creates) the store there.
    /// - Parameters:
    ///   - creatingSchema: whether to create `location.schema` when it is missing.
    ///   - options: whether and how to migrate a store written with another model version.
    public init(location: PostgresLocation, model: ObjectModel, creatingSchema: Bool = true, options: Options = Options()) throws {
        self.location = location
        self.model = model
        var layouts: [TableLayout] = []
        for entity in model.entities where entity.parent == nil { layouts.append(TableLayout(root: entity)) }
        try Self.checkIdentifierLengths(layouts)
        try SchemaSQL.checkNamesAreDistinct(layouts, ignoringASCIICase: false)
        writer = try PostgresSession(location)
        reader = try PostgresSession(location)
        self.layouts = layouts
        self.layoutByEntity = model.entities.map { entity in layouts.first { $0.root === entity.root }! }
        let tableSQL = layouts.map(TableSQL.init)
        self.tableSQLByEntity = layoutByEntity.map { layout in tableSQL[layouts.firstIndex { $0 === layout }!] }
        var createdSchema = false
        let prepared: (metadata: [String: String], createdTables: Bool)
        do {
            if location.schema != "public" {
                if creatingSchema {
                    let missing = try writer.run(SchemaSQL.schemaExists, [.text(location.schema)]).rows.isEmpty
                    try writer.run(SchemaSQL.createSchema(location.schema))
                    createdSchema = missing
                }
                for session in [writer, reader] {
                    session.settings = [SchemaSQL.useSchema(location.schema)]
                    try session.run(SchemaSQL.useSchema(location.schema))
                }
            }
            try Self.migrateIfNeeded(writer, location: location, model: model, options: options)
            prepared = try Self.prepare(writer, location: location, model: model, layouts: layouts)
        } catch {
            // The schema this open made goes again. Its tables were rolled back with the failed
            // transaction; one that another process filled meanwhile is not empty, and stays.
            if createdSchema { _ = try? writer.run(SchemaSQL.dropSchema(location.schema, cascade: false)) }
            throw error
        }
        let (metadata, createdTables) = prepared
        self.createdTables = createdTables
        self.createdSchema = createdSchema && createdTables
        identifier = metadata[MetadataKey.storeUUID] ?? ""
        metadataCache = Locked(metadata)
        writer.statistics = StoreStatistics()
        reader.statistics = StoreStatistics()
    }

    /// Keys the store itself keeps in its metadata.
    enum MetadataKey {
        static let storeUUID = "_storeUUID"
        static let versionHashes = "_versionHashes"
        static let entityDescriptions = "_entityDescriptions"
    }

    package func layout(for entity: EntityDescription) -> TableLayout { layoutByEntity[entity.index] }

    func tableSQL(for entity: EntityDescription) -> TableSQL { tableSQLByEntity[entity.index] }

    /// What the store's two connections ran.
    package var statistics: StoreStatistics {
        let (w, r) = (writer.statistics, reader.statistics)
        return StoreStatistics(statements: w.statements + r.statements, rows: w.rows + r.rows,
                               transactions: w.transactions + r.transactions)
    }

    // MARK: Metadata

    /// The store's metadata: keys the store keeps (starting with `_`) and keys callers set.
    public var metadata: [String: String] { metadataCache.withLock { $0 } }

    /// Sets (or, with nil, removes) a metadata value, saved at once in its own transaction.
    public func setMetadata(_ value: String?, forKey key: String) throws {
        try write { session in try writeMetadata([key: value], session) }
        didCommitMetadata([key: value])
    }

    func writeMetadata(_ changes: [String: String?], _ session: PostgresSession) throws {
        for (key, value) in changes.sorted(by: { $0.key < $1.key }) {
            if let value {
                try session.run(SchemaSQL.upsertMetadata, [.text(key), .text(value)])
            } else {
                try session.run(SchemaSQL.deleteMetadata, [.text(key)])
            }
        }
    }

    func didCommitMetadata(_ changes: [String: String?]) {
        metadataCache.withLock { cache in for (key, value) in changes { cache[key] = value } }
    }

    // MARK: Access

    /// Runs `body` in a transaction on the writer; this thread's reads meanwhile use the
    /// writer too, and see what `body` wrote.
    ///
    /// The transaction holds the store's advisory lock, shared (`exclusive`: alone), from its
    /// first statement: saves of every process run side by side, but not beside a
    /// ``holdingWriteLock(_:)``.
    func write<T>(exclusive: Bool = false, _ body: (PostgresSession) throws -> T) throws -> T {
        try writer.withLock {
            if writer.isInTransaction { return try body(writer) }
            writerThread.withLock { $0 = pthread_self() }
            defer { writerThread.withLock { $0 = nil } }
            return try writer.inTransaction(opening: [(SchemaSQL.lockStore(exclusive: exclusive), [.text(channel)])]) {
                try body(writer)
            }
        }
    }

    /// Runs `body` in a transaction holding the store's advisory lock alone, so that no other
    /// connection or process commits a save meanwhile (they wait for the lock); saves inside
    /// it run in its transaction, and their reads on this thread see its writes.
    package func holdingWriteLock<T>(_ body: () throws -> T) throws -> T {
        try write(exclusive: true) { _ in try body() }
    }

    /// Whether this thread is inside a write (a save's transaction) on this store.
    var isWritingOnThisThread: Bool {
        writerThread.withLock { owner in owner.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Runs `body` with the connection this thread reads on: the writer inside this thread's
    /// write, else the reader (which sees only committed saves).
    ///
    /// A read outside a write whose task is cancelled throws `CancellationError`, before it
    /// starts or once its statements are answered (a statement the server runs cannot be
    /// stopped from here), as the SQLite store's reads do: Ctrl-C in the shell is not lost.
    func read<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        let isWriting = isWritingOnThisThread
        let session = isWriting ? writer : reader
        if !isWriting, Task.isCancelled { throw CancellationError() }
        let result = try session.withLock { try body(session) }
        if !isWriting, Task.isCancelled { throw CancellationError() }
        return result
    }

    /// Runs `body` with every read this thread makes inside one repeatable-read transaction
    /// on the reader, so they all see the same committed state.
    package func readingOneState<T>(_ body: () throws -> T) throws -> T {
        let isWriting = writerThread.withLock { owner in owner.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
        if isWriting { return try body() }
        return try reader.withLock { try reader.inTransaction(readOnly: true, body) }
    }

    // MARK: Opening

    /// Creates the schema in an empty database (or schema), or checks that the tables there
    /// are a store of `model`; returns the metadata, and whether it created the tables.
    private static func prepare(
        _ session: PostgresSession, location: PostgresLocation, model: ObjectModel, layouts: [TableLayout]
    ) throws -> ([String: String], Bool) {
        try session.inTransaction {
            // One store is created at a time, even by several processes opening it at once.
            try session.run("SELECT pg_advisory_xact_lock(4242)")
            let tables = Set(try session.run(SchemaSQL.userTables).rows.compactMap { row -> String? in
                if case .text(let name) = row[0] { return name }
                return nil
            })
            if !tables.isEmpty && !tables.contains("_metadata") {
                throw ObjectGraphError(.notADatabase,
                    "\(location) (schema \(location.schema)) holds tables but is not an ObjectGraph store (it has no _metadata table); name another database or schema")
            }
            if tables.isEmpty {
                try session.run(SchemaSQL.createMetadata)
                try session.run(SchemaSQL.createPrimaryKeys)
                for layout in layouts {
                    for statement in SchemaSQL.create(layout, dialect: .postgreSQL) { try session.run(statement) }
                }
                for (key, value) in [(MetadataKey.storeUUID, UUID().uuidString),
                                     (MetadataKey.versionHashes, RecordedModel.encodeJSON(model.versionHashes)),
                                     (MetadataKey.entityDescriptions, RecordedModel.encodeJSON(model.storageDescriptions))] {
                    try session.run(SchemaSQL.upsertMetadata, [.text(key), .text(value)])
                }
            }
            var metadata: [String: String] = [:]
            for row in try session.run(SchemaSQL.selectMetadata).rows {
                if case .text(let key) = row[0], case .text(let value) = row[1] { metadata[key] = value }
            }
            let hashes = RecordedModel.decodeJSON(metadata[MetadataKey.versionHashes] ?? "") ?? [:]
            if hashes != model.versionHashes {
                let differences = metadata[MetadataKey.entityDescriptions].flatMap(RecordedModel.decodeJSON)
                    .map { ModelDifferences(stored: $0, current: model.storageDescriptions) }
                    ?? ModelDifferences(stored: hashes, current: model.versionHashes)
                throw ObjectGraphError(.modelMismatch,
                    "the store at \(location) was made with a different model: \(differences.summary). Open another database or schema.")
            }
            return (metadata, tables.isEmpty)
        }
    }
}

extension PersistentStoreCoordinator {
    /// Connects to a PostgreSQL database, opens (or creates) the store there and adds it.
    ///
    /// The coordinator hears of other processes' saves to the same store (LISTEN/NOTIFY) as
    /// of its own contexts' saves: ``addDidSaveObserver(_:)`` callbacks run, contexts that
    /// merge automatically refresh.
    ///
    /// A store written with an older model version is migrated first when `options` ask
    /// for it (``ObjectGraph/MigrationOptions/shouldMigrateStoreAutomatically``), as a SQLite store is.
    ///
    /// ```swift
    /// try coordinator.addPostgresStore(at: PostgresLocation(url: "postgres://og@localhost/catalogue"))
    /// ```
    /// - Throws: ``ObjectGraphError`` as ``PostgresStore/init(location:model:creatingSchema:options:)``,
    ///   and for a migration `cannotInferMapping` or `migrationFailed` (the store is then unchanged).
    @discardableResult
    public func addPostgresStore(
        at location: PostgresLocation, configuration: [String]? = nil, options: PostgresStore.Options = .init()
    ) throws -> PostgresStore {
        let store = try PostgresStore(location: location, model: model, options: options)
        do {
            try store.startListening { [weak self] note in self?.storeDidChangeElsewhere(note) }
            try addOnce(store, at: location.description, configuration: configuration)
        } catch {
            // Not added: the tables (or schema) this open made go again, as after a failed init.
            store.removeWhatOpeningMade()
            throw error
        }
        return store
    }
}
