import Foundation

/// A store that keeps every row in memory and runs requests with the in-memory predicate
/// evaluator: no SQL, no file. Gone when the coordinator is.
///
/// It implements the same store protocol as the SQLite store, so the same contexts,
/// predicates, faults, saves, batch requests and merge policies work on it, with the same
/// answers (the predicate conformance table runs on both). Each read works on a snapshot
/// of the rows, so a read never sees half a save; a save builds the new rows aside and
/// swaps them in whole, so it applies all or nothing. Relationships are followed by
/// scanning, so it suits small graphs, tests and teaching, not large catalogues.
///
/// ```swift
/// let store = coordinator.addMemoryStore()
/// ```
public final class MemoryStore: StoreRequestHandler {
    /// A row: key, entity index, the columns of its ``TableLayout``, version.
    typealias Row = [StoredValue]

    /// Everything the store holds, swapped whole by each write.
    struct Contents {
        /// Rows by key, per table (root entity index).
        var tables: [Int: [Int64: Row]] = [:]
        /// Many-to-many pairs (source key, destination key), per join (named by the side that owns it).
        var joins: [String: Set<Pair>] = [:]
        /// The largest key given out, per table.
        var lastKey: [Int: Int64] = [:]
        var metadata: [String: String] = [:]
    }

    /// A pair of a many-to-many relationship, seen from the side that owns the join.
    struct Pair: Hashable {
        let source: Int64
        let destination: Int64
    }

    /// The store's UUID.
    public let identifier: String
    /// The model the store was made for.
    public let model: ObjectModel
    private let layoutByEntity: [TableLayout]
    let contents = Locked(Contents())
    private let counters = Locked(StoreStatistics())

    /// Creates an empty store for `model`.
    init(model: ObjectModel, identifier: String = UUID().uuidString) {
        self.model = model
        self.identifier = identifier
        var layouts: [Int: TableLayout] = [:]
        for entity in model.entities where entity.parent == nil { layouts[entity.index] = TableLayout(root: entity) }
        layoutByEntity = model.entities.map { layouts[$0.root.index]! }
    }

    package func layout(for entity: EntityDescription) -> TableLayout { layoutByEntity[entity.index] }

    /// The store's metadata (only keys callers set: this store keeps none of its own).
    public var metadata: [String: String] { contents.withLock { $0.metadata } }

    /// Sets (or, with nil, removes) a metadata value.
    public func setMetadata(_ value: String?, forKey key: String) throws {
        contents.withLock { $0.metadata[key] = value }
    }

    package var statistics: StoreStatistics { counters.withLock { $0 } }

    func count(statements: Int = 1, rows: Int = 0, transactions: Int = 0) {
        counters.withLock {
            $0.statements += statements
            $0.rows += rows
            $0.transactions += transactions
        }
    }

    // MARK: Reads

    /// The rows a plan selects, in its order and window (the window left out for a count).
    func select(_ plan: FetchPlan, in snapshot: Contents) -> [Row] {
        let members = Set((plan.includesSubentities ? plan.entity.selfAndDescendants : [plan.entity]).map(\.index))
        var rows = (snapshot.tables[plan.entity.root.index] ?? [:]).values.filter { row in
            guard case .integer(let entity) = row[1], members.contains(Int(entity)) else { return false }
            return plan.predicate.map { $0.evaluate(RowObject(row, self, snapshot)) } ?? true
        }
        if case .count = plan.output { return rows }
        rows.sort { lhs, rhs in
            let order = StoredOrdering.compare(plan.sortTerms, ascending: \.ascending) { term in
                (value(term.expression, of: lhs, snapshot), value(term.expression, of: rhs, snapshot))
            }
            return order != 0 ? order < 0 : StoredOrdering.compare(lhs[0], rhs[0]) < 0
        }
        if plan.offset > 0 { rows = Array(rows.dropFirst(plan.offset)) }
        if plan.limit > 0 { rows = Array(rows.prefix(plan.limit)) }
        return rows
    }

    /// The value of `expression` for `row`.
    func value(_ expression: CheckedExpression, of row: Row, _ snapshot: Contents) -> StoredValue {
        var scopes: PredicateEvaluator.Scopes = [RowObject(row, self, snapshot)]
        return PredicateEvaluator.value(expression, &scopes)
    }

    private static func id(of row: Row) -> ObjectID {
        guard case .integer(let key) = row[0], case .integer(let entity) = row[1] else { preconditionFailure("a row without keys") }
        return ObjectID(entityIndex: Int(entity), key: key)
    }

    package func forEachRow(_ plan: FetchPlan, _ body: (ObjectID, any StoreRow) throws -> Void) throws {
        let rows = select(plan, in: contents.withLock { $0 })
        count(rows: rows.count)
        try ValuesRow.handOn(rows, to: body)
    }

    package func forEachRow(withKeys keys: [Int64], of entity: EntityDescription, _ body: (ObjectID, any StoreRow) throws -> Void) throws {
        let table = contents.withLock { $0.tables[entity.root.index] ?? [:] }
        let rows = keys.sorted().compactMap { table[$0] }
        count(rows: rows.count)
        try ValuesRow.handOn(rows, to: body)
    }

    package func forEachRow(
        destinationsOf relationship: RelationshipDescription, sourceKeys: [Int64], _ body: (ObjectID, any StoreRow) throws -> Void
    ) throws {
        let snapshot = contents.withLock { $0 }
        let owners = Set(sourceKeys)
        let column = layout(for: relationship.destination).columnIndex[relationship.inverse.name]!
        let rows = destinations(of: relationship, in: snapshot) { row in
            if case .integer(let owner) = row[column] { return owners.contains(owner) }
            return false
        }.sorted { StoredOrdering.compare($0[column], $1[column]) < 0 }
        count(rows: rows.count)
        try ValuesRow.handOn(rows, to: body)
    }

    package func fetchIDs(_ plan: FetchPlan) throws -> [ObjectID] {
        let rows = select(plan, in: contents.withLock { $0 })
        count(rows: rows.count)
        return rows.map(Self.id(of:))
    }

    package func fetchValues(_ plan: FetchPlan) throws -> [[StoredValue]] {
        let snapshot = contents.withLock { $0 }
        if case .groups(let grouping) = plan.output {
            let groups = try self.groups(plan, grouping, in: snapshot)
            count(rows: groups.count)
            return groups
        }
        guard case .values(let expressions) = plan.output else { return [] }
        // Distinct values take their window after the duplicates are gone, as in SQL.
        var unwindowed = plan
        if plan.distinct { (unwindowed.limit, unwindowed.offset) = (0, 0) }
        var result: [[StoredValue]] = []
        var seen = Set<[StoredValue]>()
        for row in select(unwindowed, in: snapshot) {
            let values = expressions.map { value($0, of: row, snapshot) }
            if plan.distinct && !seen.insert(values).inserted { continue }
            result.append(values)
        }
        if plan.distinct {
            result = Array(result.dropFirst(plan.offset).prefix(plan.limit > 0 ? plan.limit : .max))
        }
        count(rows: result.count)
        return result
    }

    package func count(_ plan: FetchPlan) throws -> Int {
        var counting = plan
        counting.output = .count
        let matches = select(counting, in: contents.withLock { $0 }).count
        count()
        return matches
    }

    package func explain(_ plan: FetchPlan) throws -> QueryExplanation {
        let what = plan.predicate.map { _ in " where the predicate holds, evaluated in memory" } ?? ""
        return QueryExplanation(sql: "scan \(plan.entity.name) rows\(what)", isSQL: false, arguments: [], plan: ["SCAN \(plan.entity.root.name) (in memory)"])
    }

    package func fetchJoinPairs(of relationship: RelationshipDescription, sourceKeys: [Int64]) throws -> [(source: Int64, destination: Int64)] {
        let sources = Set(sourceKeys)
        let snapshot = contents.withLock { $0 }
        let pairs = self.pairs(of: relationship, in: snapshot).filter { sources.contains($0.source) }
        count(rows: pairs.count)
        return pairs.sorted { ($0.source, $0.destination) < ($1.source, $1.destination) }.map { ($0.source, $0.destination) }
    }

    package func fetchRow(_ id: ObjectID) throws -> [StoredValue]? {
        count()
        return contents.withLock { $0.tables[model.entities[Int(id.entityIndex)].root.index]?[id.key] }
    }

    package func fetchDestinations(of relationship: RelationshipDescription, key: Int64) throws -> [ObjectID] {
        let snapshot = contents.withLock { $0 }
        count()
        return RowObject(key: key, entity: relationship.entity, self, snapshot)
            .rows(of: relationship).map(Self.id(of:))
    }

    /// The pairs of a many-to-many relationship, seen from `relationship`'s side.
    func pairs(of relationship: RelationshipDescription, in snapshot: Contents) -> [Pair] {
        let (name, owned) = Self.join(of: relationship)
        let pairs = snapshot.joins[name] ?? []
        return owned ? Array(pairs) : pairs.map { Pair(source: $0.destination, destination: $0.source) }
    }

    /// The join a many-to-many relationship uses, and whether `relationship` is its owning side.
    static func join(of relationship: RelationshipDescription) -> (name: String, owned: Bool) {
        let mine = relationship.entity.name + "." + relationship.name
        let theirs = relationship.inverse.entity.name + "." + relationship.inverse.name
        return mine <= theirs ? (mine, true) : (theirs, false)
    }

    /// Rows of a relationship's destination table that are of its destination entity and pass `filter`.
    func destinations(of relationship: RelationshipDescription, in snapshot: Contents, where filter: (Row) -> Bool) -> [Row] {
        let members = Set(relationship.destination.selfAndDescendants.map(\.index))
        return (snapshot.tables[relationship.destination.root.index] ?? [:]).values.filter { row in
            guard case .integer(let entity) = row[1], members.contains(Int(entity)) else { return false }
            return filter(row)
        }
    }
}

/// What a store that keeps its rows in a ``MemoryStore`` adds to its writes: the keys of
/// new rows, and a copy of the rows kept elsewhere (an atomic store's file) before they
/// become current. Its methods run under the memory store's lock, one at a time.
protocol MemoryStoreBacking: AnyObject {
    /// The store's name for messages (its type).
    var storeName: String { get }
    /// The key of a new row of `entity`: one no row of its table has. `row` holds the
    /// values being inserted when they are known (key column null).
    func newKey(for entity: EntityDescription, row: MemoryStore.Row?, in contents: MemoryStore.Contents) throws -> Int64
    /// Writes `next` aside; the returned step makes it current or discards it.
    func stage(_ next: MemoryStore.Contents, replacing previous: MemoryStore.Contents) throws -> any StagedWrite
}

/// A copy of a store's rows written aside, waiting to become current.
protocol StagedWrite {
    /// Makes the copy current (an atomic store renames its file); on failure nothing changed.
    func commit() throws
    /// Throws the copy away.
    func discard()
}

extension PersistentStoreCoordinator {
    /// Adds an empty ``MemoryStore``: rows kept in memory, requests run by the in-memory
    /// evaluator; gone when the coordinator is.
    ///
    /// - Parameter configuration: the entity names kept in this store; nil for every entity
    ///   not claimed by another store.
    @discardableResult
    public func addMemoryStore(configuration: [String]? = nil) -> MemoryStore {
        let store = MemoryStore(model: model)
        add(store, configuration: configuration)
        return store
    }
}

extension MemoryStore {
    /// A store holding a snapshot of another store's rows, to run a plan that store cannot
    /// run itself with the in-memory evaluator (the reference semantics).
    ///
    /// - Parameters:
    ///   - tables: full rows (``TableLayout`` order, version last) per root entity index.
    ///   - joins: the pairs of each many-to-many relationship, seen from the side whose
    ///     `Entity.relationship` sorts first (the side that owns the join).
    package convenience init(model: ObjectModel, snapshotTables tables: [Int: [[StoredValue]]],
                             joins: [(relationship: RelationshipDescription, pairs: [(Int64, Int64)])]) {
        self.init(model: model, identifier: "snapshot")
        var contents = Contents()
        for (root, rows) in tables {
            var byKey: [Int64: Row] = [:]
            for row in rows { if case .integer(let key) = row[0] { byKey[key] = row } }
            contents.tables[root] = byKey
        }
        for (relationship, pairs) in joins {
            let (name, owned) = Self.join(of: relationship)
            contents.joins[name, default: []].formUnion(pairs.map {
                owned ? Pair(source: $0.0, destination: $0.1) : Pair(source: $0.1, destination: $0.0)
            })
        }
        self.contents.withLock { $0 = contents }
    }
}
