/// A store that keeps the objects of a coordinator's contexts: what every store type shows
/// its users.
///
/// Add stores through ``PersistentStoreCoordinator``: `SQLiteStore` (module ObjectGraphSQLite),
/// ``MemoryStore``, and the atomic stores ``XMLStore``, ``BinaryStore`` and ``HTMLStore``
/// (see <doc:Stores>).
public protocol PersistentStore: AnyObject, Sendable {
    /// The store's UUID, kept in its metadata; object URIs name it.
    var identifier: String { get }
    /// The store's metadata: keys the store keeps (starting with `_`) and keys callers set.
    var metadata: [String: String] { get }
    /// Sets (or, with nil, removes) a metadata value, saved at once.
    func setMetadata(_ value: String?, forKey key: String) throws
}

/// Reads, writes and counts of a store: the one boundary between contexts and a store.
///
/// Requests are typed: a context checks a fetch once into a ``FetchPlan`` and a save into
/// ``StoreChanges``; the store turns them into its own query language and hands back rows
/// (``StoreRow``, in ``TableLayout`` order), IDs, values or counts. A store never sees a
/// context or a managed object. Nothing here assumes that a query is cheap, that keys are
/// dense, or that the store runs in this process: a request is a value, and every call
/// may fail.
package protocol StoreRequestHandler: PersistentStore {
    /// The model the store was opened with.
    var model: ObjectModel { get }
    /// The row format of `entity`'s table.
    func layout(for entity: EntityDescription) -> TableLayout

    // MARK: Reads

    /// Runs a plan whose output is rows or keys, handing each row to `body` with its ID.
    func forEachRow(_ plan: FetchPlan, _ body: (ObjectID, any StoreRow) throws -> Void) throws
    /// The full rows of `entity`'s table with the given keys.
    func forEachRow(withKeys keys: [Int64], of entity: EntityDescription, _ body: (ObjectID, any StoreRow) throws -> Void) throws
    /// The full rows of the destinations of a one-to-many relationship for several sources.
    func forEachRow(
        destinationsOf relationship: RelationshipDescription, sourceKeys: [Int64], _ body: (ObjectID, any StoreRow) throws -> Void
    ) throws
    /// The IDs a plan selects.
    func fetchIDs(_ plan: FetchPlan) throws -> [ObjectID]
    /// The values a plan selects, one array per row.
    func fetchValues(_ plan: FetchPlan) throws -> [[StoredValue]]
    /// How many rows a plan selects, window aside.
    func count(_ plan: FetchPlan) throws -> Int
    /// What the store runs for a plan.
    func explain(_ plan: FetchPlan) throws -> QueryExplanation
    /// The (source, destination) key pairs of a many-to-many relationship for several sources.
    func fetchJoinPairs(of relationship: RelationshipDescription, sourceKeys: [Int64]) throws -> [(source: Int64, destination: Int64)]
    /// The full row of one object, or nil when the store has none.
    func fetchRow(_ id: ObjectID) throws -> [StoredValue]?
    /// Hands the full row of one object to `body`, read in place where the store can (a
    /// fault's load: no array of values made and freed); false when the store has none.
    func readRow(_ id: ObjectID, _ body: (any StoreRow) throws -> Void) throws -> Bool
    /// The IDs of the destinations of a to-many relationship of the object with key `key`, in order.
    func fetchDestinations(of relationship: RelationshipDescription, key: Int64) throws -> [ObjectID]
    /// Runs `body`, whose reads on this thread all see one committed state of the store,
    /// though another connection or process commits meanwhile: a fetch and its prefetches
    /// never show half of a save made between them. A store whose every read sees the same
    /// state anyway can run `body` as it is (the default).
    func readingOneState<T>(_ body: () throws -> T) throws -> T
    /// Runs `body` holding the store's write lock, so that no other connection or process
    /// commits meanwhile; saves inside it nest. A save that lost a race for its rows
    /// (optimistic locking) reads them again, applies its merge policy and writes inside
    /// it, so it cannot lose the race again. A store that only this process writes can run
    /// `body` as it is (the default).
    func holdingWriteLock<T>(_ body: () throws -> T) throws -> T

    // MARK: Writes

    /// Writes a save's rows in one transaction, running `beforeCommit` inside it, and
    /// returns the permanent ID of each inserted row.
    func save(_ changes: StoreChanges, beforeCommit: () throws -> Void) throws -> [ObjectID]
    /// Permanent IDs for temporary ones, reserved now.
    func reservePermanentIDs(for ids: [ObjectID]) throws -> [ObjectID]
    /// Inserts rows of `entity` given as attribute values, in one transaction.
    func batchInsert(_ entity: EntityDescription, rows: [[String: any Sendable]]) throws -> [ObjectID]
    /// Sets attribute values on the rows a plan selects, in one transaction.
    func batchUpdate(_ entity: EntityDescription, plan: FetchPlan, values: [String: StoredValue]) throws -> [ObjectID]
    /// Deletes the rows a plan selects, applying every delete rule, in one transaction.
    /// Without `listingIDs` the store may leave out of ``BatchResult/deletedIDs`` rows it
    /// deletes without reading their keys; ``BatchResult/deletedCount`` still counts them.
    func batchDelete(_ entity: EntityDescription, plan: FetchPlan, listingIDs: Bool) throws -> BatchResult

    // MARK: Diagnostics

    /// Statements, rows and transactions the store ran so far.
    var statistics: StoreStatistics { get }
    /// Called once the coordinator has put another store in this one's place (a migration):
    /// the store stops whatever it does on the coordinator's behalf.
    func didLeaveCoordinator()
}

extension StoreRequestHandler {
    /// Does nothing: a store with no work of its own beyond its coordinator (a PostgreSQL
    /// store stops listening for other processes' saves).
    package func didLeaveCoordinator() {}

    /// Runs `body` as it is.
    package func readingOneState<T>(_ body: () throws -> T) throws -> T { try body() }
    /// Runs `body` as it is.
    package func holdingWriteLock<T>(_ body: () throws -> T) throws -> T { try body() }

    /// The full row of one object as last committed, or nil when the store has none. A plain
    /// ``fetchRow(_:)`` is a fault's load, which a store may serve from a slightly older state
    /// (the SQLite store's `faultSnapshotLifetime`); conflict checks and explicit reads use this.
    package func fetchLatestRow(_ id: ObjectID) throws -> [StoredValue]? {
        try readingOneState { try fetchRow(id) }
    }

    /// ``fetchRow(_:)``'s values, handed on as a row: for stores whose rows are values already.
    package func readRow(_ id: ObjectID, _ body: (any StoreRow) throws -> Void) throws -> Bool {
        guard let values = try fetchRow(id) else { return false }
        let row = ValuesRow()
        row.values = values
        try body(row)
        return true
    }
}

/// What a store ran: counters for ``ContextStatistics``.
package struct StoreStatistics: Sendable {
    package var statements = 0
    package var rows = 0
    package var transactions = 0

    /// Creates counters.
    package init(statements: Int = 0, rows: Int = 0, transactions: Int = 0) {
        self.statements = statements
        self.rows = rows
        self.transactions = transactions
    }
}

/// One row a store hands back: column 0 is the key, column 1 the entity index, then the
/// table's columns in ``TableLayout`` order. Valid only inside the call that passes it.
/// The row's ID comes with it, so a context reads only the columns from 2 on, and a store
/// need not read the first two into the row (SQLite leaves the entity out of a table that
/// holds one entity).
///
/// A class: a context receives it as a reference and a witness table, where a struct
/// went in an existential box that every column read projected and every row destroyed.
/// A store makes one for a whole fetch and moves it from row to row.
package protocol StoreRow: AnyObject {
    /// Column `index` as a slot value.
    func slot(at index: Int) -> Slot
    /// Column `index` as a stored value.
    func value(at index: Int) -> StoredValue
    /// The row's version, at `index` (``TableLayout/versionColumn``); nil when the row has
    /// none. Read for every fetched object, so a store may skip the type checks of
    /// ``value(at:)``.
    func version(at index: Int) -> Int64?
}

extension StoreRow {
    /// The version from ``value(at:)``, for stores whose rows are values already.
    package func version(at index: Int) -> Int64? {
        if case .integer(let version) = value(at: index) { version } else { nil }
    }
}

/// A row held as its values, for the stores that read rows as arrays (memory, atomic,
/// PostgreSQL): one serves a whole fetch, its values replaced at each row.
package final class ValuesRow: StoreRow {
    /// The current row's values, in ``TableLayout`` order.
    package var values: [StoredValue] = []

    /// A row with no values yet.
    package init() {}

    package func slot(at index: Int) -> Slot { Slot(values[index]) }
    package func value(at index: Int) -> StoredValue { values[index] }

    /// Hands each of `rows` (values in ``TableLayout`` order) to `body` with the ID its key
    /// and entity columns make, through one row object; a row without them is skipped.
    package static func handOn(
        _ rows: some Sequence<[StoredValue]>, to body: (ObjectID, any StoreRow) throws -> Void
    ) rethrows {
        let current = ValuesRow()
        for row in rows {
            guard case .integer(let key) = row[0], case .integer(let entity) = row[1] else { continue }
            current.values = row
            try body(ObjectID(entityIndex: Int(entity), key: key), current)
        }
    }
}

/// What a fetch would run, for `.explain`: the store's query, its values and its plan.
public struct QueryExplanation: Sendable {
    /// The query text (for SQLite, SQL with `?` placeholders), or, where ``isSQL`` is false,
    /// a description of the scan a store without SQL runs.
    public var sql: String
    /// Whether ``sql`` is SQL the database runs, rather than a description of work the
    /// store does in memory (the memory and atomic stores, PostgreSQL's in-memory fallback).
    public var isSQL: Bool
    /// The values bound to the placeholders.
    public var arguments: [StoredValue]
    /// The store's query plan, one line per step, indented by depth.
    public var plan: [String]

    /// Creates an explanation; stores make these.
    public init(sql: String, isSQL: Bool = true, arguments: [StoredValue], plan: [String]) {
        self.sql = sql
        self.isSQL = isSQL
        self.arguments = arguments
        self.plan = plan
    }
}
