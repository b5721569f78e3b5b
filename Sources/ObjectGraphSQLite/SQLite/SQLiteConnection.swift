public import ObjectGraph
internal import CSQLite
import Foundation

/// One SQLite database connection, with a cache of prepared statements.
///
/// Not Sendable: a connection is confined to one thread at a time; ``ConnectionPool``
/// hands out the store's writer and readers one user at a time. The only type that opens
/// a `sqlite3*`; the handle never leaves this folder.
final class SQLiteConnection {
    private let handle: OpaquePointer
    let path: String
    // Touched once per statement (`trace` once per bound value); the connection is confined
    // and nothing re-enters these during an access, so the dynamic exclusivity checks are skipped.
    @exclusivity(unchecked) private var statementCache: [String: SQLiteStatement] = [:]
    /// Statements of the cache that callers find by number (see `cachedStatement(_:number:)`).
    @exclusivity(unchecked) private var numberedStatements: [SQLiteStatement?] = []
    /// Counts statements, rows and transactions for ``ContextStatistics``.
    @exclusivity(unchecked) var statistics = ConnectionStatistics()
    /// Receives every statement when SQL logging is on.
    @exclusivity(unchecked) var trace: (@Sendable (SQLTraceEvent) -> Void)?
    /// Whether traced statements also carry their query plan.
    var tracesQueryPlans = false

    /// Opens (or creates) the database at `path`; `":memory:"` is a private in-memory database.
    /// An `immutable` connection reads the file as it is, creating no `-wal` or `-shm` beside
    /// it (SQLite's `immutable` URI parameter): only for a file nothing else writes.
    init(path: String, readOnly: Bool = false, immutable: Bool = false, busyTimeout: Duration = .seconds(5)) throws(SQLiteError) {
        var db: OpaquePointer?
        var flags = (readOnly || immutable ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        var name = path
        if immutable {
            flags |= SQLITE_OPEN_URI
            let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#%"))
            name = "file:" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path) + "?immutable=1"
        }
        let code = sqlite3_open_v2(name, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)  // a failed open still allocates a handle
            throw SQLiteError(code: code, message: message, sql: nil)
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        let milliseconds = busyTimeout.components.seconds * 1000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(db, Int32(clamping: milliseconds))
        checksCancellation(true)
    }

    /// Cancelling the Swift task that runs a read stops it within a few thousand virtual
    /// machine steps (SQLITE_INTERRUPT, reported as CancellationError by ConnectionPool).
    /// Only statements outside a write transaction stop: a save is never cut in half. A
    /// read-only connection stops inside its read transactions too: they change nothing.
    /// Off, nothing stops (see ``endReading()``).
    private func checksCancellation(_ on: Bool) {
        guard on else { return sqlite3_progress_handler(handle, 0, nil, nil) }
        sqlite3_progress_handler(handle, Self.cancellationCheckInterval, { db in
            Task.isCancelled && (sqlite3_get_autocommit(OpaquePointer(db)) != 0
                || sqlite3_db_readonly(OpaquePointer(db), "main") == 1) ? 1 : 0
        }, UnsafeMutableRawPointer(handle))
    }

    /// How many SQLite virtual machine steps run between two checks for task cancellation.
    static var cancellationCheckInterval: Int32 { 1_000 }

    deinit {
        numberedStatements.removeAll()
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    // MARK: Keys

    /// The next free key of each table, as this connection's saves left them, by the index
    /// of the table's root entity: valid only while ``fileVersion()`` still returns
    /// ``nextKeysVersion`` (nothing has committed to the file since, here or elsewhere). A
    /// save that inserts then reads no key from the file.
    @exclusivity(unchecked) var nextKeys = NextKeys()
    /// The ``fileVersion()`` that ``nextKeys`` belong to; -1 when they belong to none.
    @exclusivity(unchecked) var nextKeysVersion: Int64 = -1

    /// The next free key of each table by its root entity's index, nil where unknown: an
    /// array rather than a dictionary, so a save's lookup and update hash nothing.
    struct NextKeys {
        private var keys: [Int64?] = []

        /// The next free key of the table of the root entity at `root`, if known.
        subscript(root: Int) -> Int64? {
            get { root < keys.count ? keys[root] : nil }
            set {
                if keys.count <= root { keys += repeatElement(nil, count: root + 1 - keys.count) }
                keys[root] = newValue
            }
        }

        /// Forgets every table's next key.
        mutating func removeAll() {
            for index in keys.indices { keys[index] = nil }
        }
    }

    /// A number that changes whenever a transaction commits to the main database file, this
    /// connection's or another's, in this process or another (`SQLITE_FCNTL_DATA_VERSION`).
    /// SQLite keeps it in the connection's memory and notes other connections' commits
    /// when a transaction begins, so within a transaction it is as current as the
    /// transaction's view of the file; between transactions it changes only by this
    /// connection's own. A read of a field, where `PRAGMA data_version` (which leaves out
    /// this connection's commits) ran a statement: about 700 instructions every save.
    /// Bookkeeping, neither counted nor traced.
    func fileVersion() -> Int64 {
        var version: UInt32 = 0
        sqlite3_file_control(handle, nil, SQLITE_FCNTL_DATA_VERSION, &version)  // nil: the main database
        return Int64(version)
    }

    // MARK: Statements

    /// A cached prepared statement for `sql`, reset and with its bindings cleared.
    ///
    /// The cache holds at most ``statementCacheCapacity`` statements; past that, an arbitrary
    /// one is finalized for each new text (a statement in use lives on with its caller).
    func cachedStatement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let statement = statementCache[sql] {
            statement.reset()
            return statement
        }
        let statement = try makeStatement(sql)
        if statementCache.count >= Self.statementCacheCapacity {
            // Numbered statements stay alive in `numberedStatements` and are found there.
            statementCache.remove(at: statementCache.startIndex)
        }
        statementCache[sql] = statement
        return statement
    }

    /// The most statements the cache keeps by their text. A fetch's text changes with the
    /// length of its `IN` lists, so a long-running program would otherwise keep one prepared
    /// statement for every length it ever used.
    static let statementCacheCapacity = 512

    /// The cached statement for `sql`, found by `number` instead of by its text: for the
    /// statements every save runs (an entity's INSERT, the transaction's BEGIN and COMMIT),
    /// whose texts would otherwise be hashed on every save. The caller gives each text one
    /// number for the connection's life.
    func cachedStatement(_ sql: String, number: Int) throws(SQLiteError) -> SQLiteStatement {
        let statement = try numberedStatement(sql, number: number)
        statement.reset()
        return statement
    }

    /// ``cachedStatement(_:number:)`` without the reset, for a statement that takes no
    /// arguments and whose every run is reset after it (BEGIN and COMMIT, see
    /// ``control(_:number:)``): resetting it again and clearing bindings it does not have
    /// cost about 150 instructions a statement.
    private func numberedStatement(_ sql: String, number: Int) throws(SQLiteError) -> SQLiteStatement {
        if number < numberedStatements.count, let statement = numberedStatements[number] {
            assert(statement.sql == sql, "statement number \(number) names another statement on this connection")
            return statement
        }
        let statement = try cachedStatement(sql)
        while numberedStatements.count <= number { numberedStatements.append(nil) }
        numberedStatements[number] = statement
        return statement
    }

    /// The statement numbers this connection uses itself (for transactions); callers
    /// number theirs from here.
    static let firstFreeStatementNumber = 6

    /// A new prepared statement that is not cached.
    func makeStatement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
        }
        return SQLiteStatement(handle: statement, connection: self, sql: sql)
    }

    /// The number of statements in the cache (for tests).
    var cachedStatementCount: Int { statementCache.count }

    /// Runs one or more statements that return no rows and take no arguments.
    func execute(_ sql: String) throws(SQLiteError) {
        statistics.statements += 1
        trace?(SQLTraceEvent(sql: sql, arguments: [], rows: 0, duration: .zero, plan: []))
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else {
            throw SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
        }
    }

    /// Copies this connection's database into `destination`'s, replacing what it held, as one
    /// read transaction sees it (SQLite's online backup): saves other connections or programs
    /// make meanwhile are in the copy entirely or not at all.
    func backup(into destination: SQLiteConnection) throws(SQLiteError) {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw SQLiteError(code: sqlite3_extended_errcode(destination.handle), message: destination.errorMessage(), sql: nil)
        }
        let step = sqlite3_backup_step(backup, -1), finish = sqlite3_backup_finish(backup)
        guard step == SQLITE_DONE, finish == SQLITE_OK else {
            let code = step == SQLITE_DONE ? finish : step
            throw SQLiteError(code: code, message: String(cString: sqlite3_errstr(code)), sql: nil)
        }
    }

    /// Whether a transaction (or a read transaction) is open on this connection.
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Begins a read transaction: the first statement after it takes a snapshot that every
    /// statement until ``endReading()`` sees. Bookkeeping, neither traced nor counted, so
    /// statistics and SQL logs show the same statements with or without it.
    ///
    /// Like ``endReading()``, never stopped by cancellation: SQLite counts a cached
    /// statement's steps across its runs, so one run in several hundred of this BEGIN or
    /// that COMMIT meets the check. A cancelled task's BEGIN that stopped there had opened
    /// the transaction and reported failure, and a COMMIT that stopped left it open: either
    /// way the reader refused every later BEGIN.
    func beginReading() throws(SQLiteError) {
        let statement = try cachedStatement("BEGIN", number: 4)
        checksCancellation(false)
        defer {
            statement.reset()
            checksCancellation(true)
        }
        while try statement.step() {}
    }

    /// Ends the read transaction ``beginReading()`` began; nothing happens without one.
    func endReading() {
        guard isInTransaction, let statement = try? cachedStatement("COMMIT", number: 5) else { return }
        checksCancellation(false)
        defer {
            statement.reset()
            checksCancellation(true)
        }
        while (try? statement.step()) == true {}
    }

    /// Runs a statement with arguments and returns the rows it produced, as stored values.
    @discardableResult
    func rows(_ sql: String, _ arguments: [StoredValue] = []) throws(SQLiteError) -> [[StoredValue]] {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments)
        var rows: [[StoredValue]] = []
        try statement.forEachRow { row in
            rows.append((0..<row.columnCount).map { row.value(at: $0) })
        }
        return rows
    }

    /// Runs `body` in a transaction that commits if and only if it returns.
    ///
    /// `BEGIN IMMEDIATE` takes the write lock first, so a second writer waits (up to the busy
    /// timeout) at the start rather than failing halfway. Inside another transaction it runs
    /// in a savepoint: a failure undoes only its own writes, and the outer one goes on.
    func inTransaction<T>(_ body: () throws -> T) throws -> T {
        if sqlite3_get_autocommit(handle) == 0 {
            try control("SAVEPOINT nested", number: 0)
            do {
                let result = try body()
                try control("RELEASE nested", number: 1)
                return result
            } catch {
                try? execute("ROLLBACK TO nested")
                try? execute("RELEASE nested")
                throw error
            }
        }
        try control("BEGIN IMMEDIATE", number: 2)
        do {
            let result = try body()
            try control("COMMIT", number: 3)
            statistics.transactions += 1
            return result
        } catch {
            try? execute("ROLLBACK")  // the original error is the one worth reporting
            throw error
        }
    }

    /// Runs a statement that begins or ends a transaction or savepoint, prepared once and
    /// kept: parsing it again for every save cost several thousand instructions. Reset
    /// afterwards, even when it fails, so it never keeps the transaction busy.
    ///
    /// Traced before it runs, as ``execute(_:)`` traces: a trace that ends before a COMMIT
    /// line belongs to a transaction that has not committed (the SIGKILL trials rely on it).
    private func control(_ sql: String, number: Int) throws(SQLiteError) {
        let statement = try numberedStatement(sql, number: number)
        defer { statement.reset() }
        statistics.statements += 1
        trace?(SQLTraceEvent(sql: sql, arguments: [], rows: 0, duration: .zero, plan: []))
        while try statement.step() {}
    }

    /// The number of rows the last statement changed.
    var changes: Int { Int(sqlite3_changes(handle)) }

    // MARK: Functions

    /// Registers a deterministic SQL function implemented in Swift; a `body` that returns
    /// nil interrupts the statement (`SQLITE_INTERRUPT`, a cancelled task's error).
    func createFunction(
        _ name: String, argumentCount: Int32, body: @escaping @Sendable ([StoredValue]) -> StoredValue?
    ) throws(SQLiteError) {
        let box = Unmanaged.passRetained(SQLiteFunctionBox(body)).toOpaque()
        let code = sqlite3_create_function_v2(
            handle, name, argumentCount, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, box,
            { context, count, values in
                let box = Unmanaged<SQLiteFunctionBox>.fromOpaque(sqlite3_user_data(context)!)
                    .takeUnretainedValue()
                var arguments: [StoredValue] = []
                arguments.reserveCapacity(Int(count))
                for index in 0..<Int(count) {
                    arguments.append(SQLiteStatement.storedValue(of: values![index]!))
                }
                if let result = box.body(arguments) {
                    SQLiteStatement.setResult(result, context: context)
                } else {
                    sqlite3_result_error_code(context, SQLITE_INTERRUPT)
                }
            }, nil, nil,
            { box in box.map { Unmanaged<SQLiteFunctionBox>.fromOpaque($0).release() } })
        guard code == SQLITE_OK else {
            throw SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)), sql: nil)
        }
    }

    func errorMessage() -> String { String(cString: sqlite3_errmsg(handle)) }

    // MARK: Rows a statement deletes

    /// Runs `body` while SQLite's update hook appends the rows deleted from `table` of the
    /// main database to `ids`, in the order they go, as IDs of the entity at `entityIndex`;
    /// returns `body`'s result.
    ///
    /// The hook sees every row that a `DELETE` with a `WHERE` clause removes from a rowid
    /// table, one call per row and no query, but not the rows that a `DELETE` without one
    /// drops all at once (SQLite's truncate optimization): callers compare the count with
    /// the statement's changes.
    func collectingDeletedRows<T>(
        from table: String, entityIndex: Int, into ids: inout [ObjectID], _ body: () throws -> T
    ) throws -> T {
        var collector = DeletedRowCollector(table: table, entityIndex: entityIndex)
        // The list moves into the collector and back: appended to in place, never copied.
        swap(&collector.ids, &ids)
        defer { swap(&collector.ids, &ids) }
        // The hook reaches the collector through a pointer: no retain, and no exclusivity
        // check per row, which a class's stored array cost (about 170 instructions a row).
        return try withUnsafeMutablePointer(to: &collector) { collector in
            sqlite3_update_hook(handle, { context, operation, database, table, rowID in
                guard operation == SQLITE_DELETE, let context, let database, let table else { return }
                let collector = context.assumingMemoryBound(to: DeletedRowCollector.self)
                // SQLite passes its own copy of a table's name, the same for every row of it.
                if table != collector.pointee.matchedName {
                    guard strcmp(table, collector.pointee.table) == 0, strcmp(database, "main") == 0 else { return }
                    collector.pointee.matchedName = table
                }
                collector.pointee.ids.append(ObjectID(entityIndex: collector.pointee.entityIndex, key: rowID))
            }, collector)
            defer { sqlite3_update_hook(handle, nil, nil) }
            return try body()
        }
    }
}

/// What the update hook of ``SQLiteConnection/collectingDeletedRows(from:entityIndex:into:_:)``
/// collects; SQLite calls the hook on the thread that runs the statement, while `body` runs.
private struct DeletedRowCollector {
    let table: [CChar]
    let entityIndex: Int
    /// SQLite's pointer to the table's name, once a row of it was reported.
    var matchedName: UnsafePointer<CChar>?
    var ids: [ObjectID] = []
    init(table: String, entityIndex: Int) {
        self.table = Array(table.utf8CString)
        self.entityIndex = entityIndex
    }
}

/// Keeps a Swift function alive while SQLite holds it as user data.
private final class SQLiteFunctionBox {
    let body: @Sendable ([StoredValue]) -> StoredValue?
    init(_ body: @escaping @Sendable ([StoredValue]) -> StoredValue?) { self.body = body }
}

/// Counters a connection keeps; the store adds them up into ``StoreStatistics``.
struct ConnectionStatistics: Sendable {
    var statements = 0
    var rows = 0
    var transactions = 0

    /// The counts of two connections together.
    static func + (lhs: ConnectionStatistics, rhs: ConnectionStatistics) -> ConnectionStatistics {
        ConnectionStatistics(statements: lhs.statements + rhs.statements, rows: lhs.rows + rhs.rows,
                             transactions: lhs.transactions + rhs.transactions)
    }

    /// Adds another connection's counts.
    static func += (lhs: inout ConnectionStatistics, rhs: ConnectionStatistics) { lhs = lhs + rhs }
}

/// One executed statement, for SQL debug logging.
public struct SQLTraceEvent: Sendable {
    /// The SQL text, with `?` placeholders.
    public var sql: String
    /// The bound values.
    public var arguments: [StoredValue]
    /// The rows the statement returned.
    public var rows: Int
    /// How long the statement ran.
    public var duration: Duration
    /// SQLite's query plan, when plans are traced (debug level 3).
    public var plan: [String]
}
