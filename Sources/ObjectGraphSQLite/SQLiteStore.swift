public import ObjectGraph
import ObjectGraphSQL
import Foundation

/// A persistent store in one SQLite file (or in memory), shared by every context of a coordinator.
///
/// The store creates its schema from the model on first open (one table per inheritance
/// tree), keeps store metadata in a key/value table (the model's
/// version hashes, the store's UUID, and anything a caller sets), runs in WAL mode and
/// caches prepared statements. Open it through a ``ObjectGraph/PersistentStoreCoordinator``.
///
/// A file store has one writer connection and up to ``Options/maximumReaderCount``
/// read-only ones: fetches read the last committed state and never wait for a save in
/// progress. An in-memory store has only the writer.
///
/// - Throws on open: ``ObjectGraph/ObjectGraphError`` with code `notADatabase` (not SQLite, or SQLite
///   but not a store of this framework), `storeLocked` (another process holds the lock past
///   the busy timeout), `modelMismatch` (made with another model: the message names the
///   entities that differ) or `storeFailure` (the file cannot be opened).
public final class SQLiteStore: StoreRequestHandler {
    /// Options for opening a store.
    @dynamicMemberLookup
    public struct Options: Sendable {
        /// How long to wait for another process's lock before failing with `storeLocked`.
        public var busyTimeout: Duration = .seconds(5)
        /// The most read-only connections a file store opens, for fetches running at once;
        /// with 0, fetches wait for saves, reading on the one writer connection (as an
        /// in-memory store always does).
        public var maximumReaderCount = 4
        /// How long loads of faults and relationships may go on reading one committed state,
        /// so that a run of them pays for one read transaction, not one each.
        ///
        /// A load sees every save made to the file in this process before it, at once. A save
        /// by another process it may miss for up to this long (Core Data's row cache serves
        /// values as stale as a context's `stalenessInterval`, which is unbounded by default).
        /// Fetches and counts always read the last committed state. With `.zero`, every load
        /// reads the last committed state too, in a read transaction of its own.
        public var faultSnapshotLifetime: Duration = .milliseconds(10)
        /// The most pages (of 4,096 bytes) the file may grow to, or nil for no limit but the
        /// disk's. A save that needs more fails as on a full disk (`storeFailure`, "full"),
        /// leaving the store and the context's unsaved changes as they were. For capping a
        /// store's size, and for testing what a full disk does.
        public var maximumPageCount: Int?
        /// Whether and how a store written with an older model version is migrated; its
        /// fields read and write as this value's own (`options.shouldMigrateStoreAutomatically`).
        public var migration = MigrationOptions()
        /// A field of ``migration``.
        public subscript<Value>(dynamicMember field: WritableKeyPath<MigrationOptions, Value>) -> Value {
            get { migration[keyPath: field] }
            set { migration[keyPath: field] = newValue }
        }
        /// Creates options with the defaults.
        public init() {}
    }

    /// The file's path, or `:memory:`.
    public let path: String
    /// The store's UUID, kept in its metadata; object URIs name it.
    public let identifier: String
    /// The model the store was opened with.
    public let model: ObjectModel
    /// The options the store was opened with.
    public let options: Options
    /// The writer and the readers.
    let pool: ConnectionPool
    let layouts: [TableLayout]
    /// The layout of each entity's table, by entity index.
    let layoutByEntity: [TableLayout]
    /// The statements every row of each entity's table uses, by entity index.
    let tableSQLByEntity: [TableSQL]
    /// The index of each entity's root entity, whose table holds its rows, by entity index.
    let rootIndexByEntity: [Int]
    /// Each entity's INSERTs, by entity index.
    private let insertSQLByEntity: [InsertSQL]
    /// The fewest rows any of those INSERTs writes: a save of fewer rows inserts each on its own.
    let fewestRowsPerInsert: Int
    /// The statements that load one object's to-many relationship, by relationship: built
    /// once, not on every fault (a delete rule loads one per deleted object).
    let toManySQL: [ObjectIdentifier: ToManySQL]
    private let metadataCache: Locked<[String: String]>

    /// Opens or creates the store at `path` for `model`.
    init(path: String, model: ObjectModel, options: Options = Options()) throws {
        self.path = path
        self.model = model
        self.options = options
        var layouts: [TableLayout] = []
        for entity in model.entities where entity.parent == nil { layouts.append(TableLayout(root: entity)) }
        try SchemaSQL.checkNamesAreDistinct(layouts, ignoringASCIICase: true)
        if Self.isFile(path) { try StoreFile.checkBeforeOpening(path) }
        let opened: SQLiteConnection
        do {
            opened = try SQLiteConnection(path: path, busyTimeout: options.busyTimeout)
        } catch {
            throw ObjectGraphError(.storeFailure,
                "cannot open the store at '\(path)': \(error.message). Check that the directory exists and is writable.",
                underlying: error)
        }
        self.layouts = layouts
        self.layoutByEntity = model.entities.map { entity in layouts.first { $0.root === entity.root }! }
        let tableSQL = layouts.map(TableSQL.init)
        self.tableSQLByEntity = layoutByEntity.map { layout in tableSQL[layouts.firstIndex { $0 === layout }!] }
        self.rootIndexByEntity = model.entities.map { $0.root.index }
        self.insertSQLByEntity = zip(model.entities, layoutByEntity).map(InsertSQL.init)
        self.fewestRowsPerInsert = insertSQLByEntity.map(\.rows).min() ?? 1
        var toManySQL: [ObjectIdentifier: ToManySQL] = [:]
        // Two statement numbers per to-many relationship, past the bands of the entities'.
        var number = SQLiteConnection.firstFreeStatementNumber + NumberedStatement.allCases.count * model.entities.count
        for entity in model.entities {
            for relationship in entity.relationships where relationship.isToMany && toManySQL[ObjectIdentifier(relationship)] == nil {
                let layout = layoutByEntity[relationship.destination.index]
                toManySQL[ObjectIdentifier(relationship)] = ToManySQL(relationship, layout: layout, number: number)
                number += 2
            }
        }
        self.toManySQL = toManySQL
        let metadata = try Self.prepare(opened, path: path, model: model, layouts: layouts, options: options)
        self.identifier = metadata[MetadataKey.storeUUID] ?? ""
        self.metadataCache = Locked(metadata)
        // Other connections cannot see an in-memory (or temporary, empty-path) database.
        var makeReader: (@Sendable () throws -> SQLiteConnection)?
        if Self.isFile(path) {
            makeReader = { @Sendable in try Self.openReader(path: path, busyTimeout: options.busyTimeout) }
        }
        self.pool = ConnectionPool(writer: opened, maximumReaderCount: options.maximumReaderCount,
                                   snapshotLifetime: options.faultSnapshotLifetime, file: Self.isFile(path) ? path : nil,
                                   makeReader: makeReader)
        applyEnvironmentDebugLevel()
    }

    /// Keys the store itself keeps in its metadata.
    enum MetadataKey {
        static let storeUUID = "_storeUUID"
        static let versionHashes = "_versionHashes"
        /// Each entity's storage description, to name what changed in a later model.
        static let entityDescriptions = "_entityDescriptions"
        /// Present once every table has its version column (stores made before rows had
        /// versions get it on their first open).
        static let rowVersions = "_rowVersions"
    }

    package func layout(for entity: EntityDescription) -> TableLayout { layoutByEntity[entity.index] }

    /// The row statements of `entity`'s table.
    func tableSQL(for entity: EntityDescription) -> TableSQL { tableSQLByEntity[entity.index] }

    /// The layout and row statements of the entity with model index `index` (what an
    /// ``ObjectID`` carries), for loops over rows that would otherwise read the entity.
    func table(ofEntityAt index: Int) -> (layout: TableLayout, sql: TableSQL) {
        (layoutByEntity[index], tableSQLByEntity[index])
    }

    /// The cached INSERT of the entity with model index `index`, found by number: the row's
    /// key, then its columns after `_pk` and `_ent` (the entity's number is in the text).
    func insertStatement(ofEntityAt index: Int, _ connection: SQLiteConnection) throws(SQLiteError) -> SQLiteStatement {
        try connection.cachedStatement(insertSQLByEntity[index].oneRow, number: statementNumber(.insert, ofEntityAt: index))
    }

    /// The cached INSERT of ``rowsPerInsert(ofEntityAt:)`` rows of the entity with model
    /// index `index`, found by number: each row binds its key, then its columns.
    func insertRowsStatement(ofEntityAt index: Int, _ connection: SQLiteConnection) throws(SQLiteError) -> SQLiteStatement {
        try connection.cachedStatement(insertSQLByEntity[index].rowsAtOnce, number: statementNumber(.insertRows, ofEntityAt: index))
    }

    /// How many rows of the entity with model index `index` one multi-row INSERT writes.
    func rowsPerInsert(ofEntityAt index: Int) -> Int { insertSQLByEntity[index].rows }

    /// The cached SELECT of one row by key of the entity with model index `index`, found by
    /// number: what every fault that fires from the store runs.
    func selectRowStatement(ofEntityAt index: Int, _ connection: SQLiteConnection) throws(SQLiteError) -> SQLiteStatement {
        try connection.cachedStatement(tableSQLByEntity[index].selectRow, number: statementNumber(.selectRow, ofEntityAt: index))
    }

    /// The kinds of statement cached by number, one per entity each.
    private enum NumberedStatement: Int, CaseIterable {
        case insert, selectRow, insertRows
    }

    /// The cache number of `kind`'s statement for the entity with model index `index`: one
    /// band of numbers per kind, past the connection's own.
    private func statementNumber(_ kind: NumberedStatement, ofEntityAt index: Int) -> Int {
        SQLiteConnection.firstFreeStatementNumber + kind.rawValue * tableSQLByEntity.count + index
    }

    // MARK: Metadata

    /// The store's metadata: keys the store keeps (starting with `_`) and keys callers set.
    public var metadata: [String: String] { metadataCache.withLock { $0 } }

    /// The metadata as the file holds it now (``metadata`` is the store's copy of it).
    func readMetadata() throws -> [String: String] {
        try performRead { connection in
            var result: [String: String] = [:]
            for row in try connection.rows(SchemaSQL.selectMetadata) {
                if case .text(let key) = row[0], case .text(let value) = row[1] { result[key] = value }
            }
            return result
        }
    }

    /// Writes metadata changes (nil removes a key) on `connection`, inside the caller's transaction.
    func writeMetadata(_ changes: [String: String?], _ connection: SQLiteConnection) throws {
        guard !changes.isEmpty else { return }  // most saves: sorting nothing still cost an allocation
        for (key, value) in changes.sorted(by: { $0.key < $1.key }) {
            if let value {
                let statement = try connection.cachedStatement(SchemaSQL.upsertMetadata)
                try statement.bind([.text(key), .text(value)])
                try statement.run()
            } else {
                let statement = try connection.cachedStatement(SchemaSQL.deleteMetadata)
                try statement.bind([.text(key)])
                try statement.run()
            }
        }
    }

    /// Updates the store's copy of its metadata after a transaction that changed it committed.
    func didCommitMetadata(_ changes: [String: String?]) {
        guard !changes.isEmpty else { return }  // most saves: no lock taken for nothing
        metadataCache.withLock { cache in
            for (key, value) in changes { cache[key] = value }
        }
    }

    /// Sets (or, with nil, removes) a metadata value, saved at once in its own transaction.
    /// To save a value together with a context's changes, use the context's `setMetadata`.
    ///
    /// A resumable import records its position here, so a later run continues where it stopped.
    public func setMetadata(_ value: String?, forKey key: String) throws {
        try perform { connection in
            try connection.inTransaction { try writeMetadata([key: value], connection) }
        }
        didCommitMetadata([key: value])
    }

    // MARK: Access

    /// Runs `body` with the writer connection, turning SQLite errors into framework errors.
    ///
    /// For saves, key reservations, batch requests and metadata: anything that writes.
    func perform<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        do {
            return try pool.write(body)
        } catch let error as SQLiteError {
            throw translate(error)
        }
    }

    /// Runs `body` with a connection that sees the last committed state (on the thread
    /// inside ``perform(_:)``, that write's own rows too), turning SQLite errors into
    /// framework errors. For fetches: it never waits for a save in progress.
    ///
    /// With `.recent` (for loads of faults and relationships), `body` may see a state as old
    /// as ``Options/faultSnapshotLifetime`` allows.
    func performRead<T>(_ freshness: ConnectionPool.Freshness = .latest, _ body: (SQLiteConnection) throws -> T) throws -> T {
        do {
            return try pool.read(freshness, body)
        } catch let error as SQLiteError {
            throw translate(error)
        }
    }

    /// The framework error for a SQLite error of this store.
    func translate(_ error: SQLiteError) -> ObjectGraphError {
        Self.translate(error, path: path, busyTimeout: options.busyTimeout)
    }

    /// The framework error for a SQLite error of the store at `path`, which waits up to
    /// `busyTimeout` for another connection's lock.
    static func translate(_ error: SQLiteError, path: String, busyTimeout: Duration = Options().busyTimeout) -> ObjectGraphError {
        switch error.result {
        case .busy, .locked:
            return ObjectGraphError(.storeLocked,
                "the store at '\(path)' is locked by another connection or process: waited \(describe(busyTimeout)) "
                + "(the busy timeout) for it; close the other program or try again",
                underlying: error)
        case .notADatabase:
            return ObjectGraphError(.notADatabase,
                "'\(path)' is not a SQLite database; open a store file made by this framework, or a new path",
                underlying: error)
        case .corrupt:
            return ObjectGraphError(.notADatabase,
                "the store at '\(path)' is corrupt (\(error.message)); restore it from a backup", underlying: error)
        case .readOnly:
            return ObjectGraphError(.storeFailure,
                "the store at '\(path)' is read-only; check the file's permissions", underlying: error)
        case .full:
            return ObjectGraphError(.storeFailure,
                "the disk holding the store at '\(path)' is full; free some space and try again", underlying: error)
        default:
            if isTooComplex(error) {
                return ObjectGraphError(.predicateTooComplex,
                    "the predicate is too complex for the store '\(path)' (SQLite: \(error.message)); "
                    + "nest it less deeply, or split the fetch into smaller ones", underlying: error)
            }
            return ObjectGraphError(.storeFailure, "store '\(path)': \(error.message)", underlying: error)
        }
    }

    /// Whether SQLite refused a statement for one of its size limits, which only a fetch's
    /// predicate can reach: an expression deeper than 1,000 (`SQLITE_MAX_EXPR_DEPTH`), more
    /// parentheses open than its parser's stack holds, or more bound values than it takes.
    private static func isTooComplex(_ error: SQLiteError) -> Bool {
        guard error.result == .generic else { return false }
        return error.message.hasPrefix("Expression tree is too large") || error.message == "parser stack overflow"
            || error.message == "too many SQL variables"
    }

    /// Statistics counted by the store's connections, the writer and every reader.
    var connectionStatistics: ConnectionStatistics { pool.statistics }

    /// What the store's connection ran.
    package var statistics: StoreStatistics {
        let counts = connectionStatistics
        return StoreStatistics(statements: counts.statements, rows: counts.rows, transactions: counts.transactions)
    }

    /// `5 s`, `0.25 s` or `50 ms`.
    static func describe(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds < 0.1 ? "\(Int((seconds * 1000).rounded())) ms" : String(format: "%g s", seconds)
    }

    // MARK: Opening

    /// Whether `path` names a file other connections can open (not `:memory:`, not empty).
    static func isFile(_ path: String) -> Bool { path != ":memory:" && !path.isEmpty }

    /// Opens a read-only connection to the store file with the reader settings and the SQL
    /// functions predicates use; what it ran to get there is not counted.
    private static func openReader(path: String, busyTimeout: Duration) throws -> SQLiteConnection {
        let reader = try SQLiteConnection(path: path, readOnly: true, busyTimeout: busyTimeout)
        for pragma in SchemaSQL.connectionSettings(isFile: true, isReader: true) { try reader.execute(pragma) }
        try SQLFunctions.register(on: reader)
        reader.statistics = ConnectionStatistics()
        return reader
    }

    /// Checks that the file is a store of `model` (or empty), then configures the connection
    /// and creates the schema in an empty file. Nothing is written to a file that is not a
    /// store (the first statement only reads), nor to a store of another model.
    private static func prepare(
        _ connection: SQLiteConnection, path: String, model: ObjectModel, layouts: [TableLayout], options: Options
    ) throws -> [String: String] {
        do {
            let tables = Set(try connection.rows(SchemaSQL.userTables).compactMap { row -> String? in
                if case .text(let name) = row[0] { return name }
                return nil
            })
            if !tables.isEmpty && !tables.contains("_metadata") {
                throw ObjectGraphError(.notADatabase,
                    "'\(path)' is a SQLite database but not an ObjectGraph store (it has no metadata table); open another path")
            }
            for pragma in SchemaSQL.connectionSettings(isFile: isFile(path)) { try connection.execute(pragma) }
            if let pages = options.maximumPageCount { try connection.execute(SchemaSQL.maximumPageCount(pages)) }
            try SQLFunctions.register(on: connection)
            if tables.isEmpty {
                try connection.inTransaction {
                    try connection.execute(SchemaSQL.createMetadata)
                    try connection.execute(SchemaSQL.createPrimaryKeys)
                    for layout in layouts {
                        for statement in SchemaSQL.create(layout, dialect: .sqlite) { try connection.execute(statement) }
                    }
                    let insert = try connection.cachedStatement(SchemaSQL.upsertMetadata)
                    for (key, value) in [(MetadataKey.storeUUID, UUID().uuidString),
                                         (MetadataKey.versionHashes, encode(model.versionHashes)),
                                         (MetadataKey.entityDescriptions, RecordedModel.encodeJSON(model.storageDescriptions)),
                                         (MetadataKey.rowVersions, "1")] {
                        insert.reset()
                        try insert.bind([.text(key), .text(value)])
                        try insert.run()
                    }
                }
            }
            var metadata: [String: String] = [:]
            for row in try connection.rows(SchemaSQL.selectMetadata) {
                if case .text(let key) = row[0], case .text(let value) = row[1] { metadata[key] = value }
            }
            try checkModel(model, hashes: decode(metadata[MetadataKey.versionHashes] ?? ""),
                           descriptions: metadata[MetadataKey.entityDescriptions].flatMap(RecordedModel.decodeJSON), path: path)
            if metadata[MetadataKey.rowVersions] == nil {
                try connection.inTransaction {
                    try addVersionColumns(connection, layouts: layouts)
                    let insert = try connection.cachedStatement(SchemaSQL.upsertMetadata)
                    try insert.bind([.text(MetadataKey.rowVersions), .text("1")])
                    try insert.run()
                }
                metadata[MetadataKey.rowVersions] = "1"
            }
            return metadata
        } catch let error as SQLiteError {
            throw translate(error, path: path, busyTimeout: options.busyTimeout)
        }
    }

    /// Gives tables made before rows had versions the version column (an `ALTER TABLE`
    /// that rewrites nothing; existing rows start at version 0).
    private static func addVersionColumns(_ connection: SQLiteConnection, layouts: [TableLayout]) throws {
        for layout in layouts {
            let names = try connection.rows(SchemaSQL.tableColumns, [.text(layout.table)]).compactMap { row -> String? in
                if case .text(let name) = row[0] { return name }
                return nil
            }
            if !names.contains(SchemaNaming.versionColumn) {
                try connection.execute(SchemaSQL.addVersionColumn(table: layout.table))
            }
        }
    }

    /// Throws `modelMismatch` naming exactly the entities added, removed and changed (and,
    /// for stores that keep descriptions, what changed in each) when the hashes differ.
    private static func checkModel(
        _ model: ObjectModel, hashes: [String: String], descriptions: [String: String]?, path: String
    ) throws {
        guard hashes != model.versionHashes else { return }
        let differences = descriptions.map { ModelDifferences(stored: $0, current: model.storageDescriptions) }
            ?? ModelDifferences(stored: hashes, current: model.versionHashes)
        throw ObjectGraphError(.modelMismatch,
            "the store at '\(path)' was made with a different model: \(differences.summary). Migrate the store or open a new path.")
    }

    static func encode(_ hashes: [String: String]) -> String {
        hashes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ";")
    }

    static func decode(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in text.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { result[String(parts[0])] = String(parts[1]) }
        }
        return result
    }
}

/// The INSERTs of one entity's rows: one row, and ``rows`` rows at once.
private struct InsertSQL {
    let oneRow: String
    let rowsAtOnce: String
    let rows: Int

    /// The INSERTs of `entity`'s rows into `layout`'s table.
    init(entity: EntityDescription, layout: TableLayout) {
        rows = SchemaSQL.rowsPerInsert(width: layout.width)
        oneRow = SchemaSQL.insert(table: layout.table, columns: layout.columns, entityIndex: entity.index)
        rowsAtOnce = SchemaSQL.insert(table: layout.table, columns: layout.columns, entityIndex: entity.index, rows: rows)
    }
}
