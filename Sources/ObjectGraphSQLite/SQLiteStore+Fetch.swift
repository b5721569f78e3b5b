import ObjectGraph
import ObjectGraphSQL
/// The row a fetch hands to a context: its statement's current row. One serves every row
/// of a statement.
///
/// The context reads the columns after the key and entity (the ID comes with the row).
/// A full row of a table that holds one entity has no entity column in SQLite
/// (``SQLDialect/leavesOutSoleEntity``), so those columns sit one to the left.
final class SQLiteStoreRow: StoreRow {
    private let row: SQLiteRow
    /// 1 when the statement leaves out the entity column, 0 otherwise.
    private let shift: Int

    init(_ statement: SQLiteStatement, _ layout: TableLayout) {
        row = statement.currentRow
        shift = layout.soleEntityIndex == nil ? 0 : 1
    }

    func slot(at index: Int) -> Slot { row.slot(at: index - shift) }
    func value(at index: Int) -> StoredValue { row.value(at: index - shift) }
    /// The version column, `_opt`, is `NOT NULL DEFAULT 0` in every table: an integer,
    /// read without asking SQLite its type first.
    func version(at index: Int) -> Int64? { row.int64(at: index - shift) }
}

/// Reads: every fetch a context plans, and the loads of faults and prefetches, in SQL.
extension SQLiteStore {
    /// Runs `plan` (``FetchPlan/Output-swift.enum/rows`` or ``FetchPlan/Output-swift.enum/keys``)
    /// and hands each row to `body` with its object ID.
    package func forEachRow(_ plan: FetchPlan, _ body: (ObjectID, any StoreRow) throws -> Void) throws {
        let layout = layout(for: plan.entity)
        try forEachRow(FetchSQL.statement(for: plan, layout: layout, dialect: .sqlite), .latest, layout, body)
    }

    /// The full rows of `entity`'s table with the given keys, in key order, in one statement.
    package func forEachRow(withKeys keys: [Int64], of entity: EntityDescription, _ body: (ObjectID, any StoreRow) throws -> Void) throws {
        let layout = layout(for: entity)
        try forEachRow(FetchSQL.selectRows(layout, keys: keys, dialect: .sqlite), .recent, layout, body)
    }

    /// The full rows of the destinations of a one-to-many relationship for several sources,
    /// grouped by source, in one statement.
    package func forEachRow(
        destinationsOf relationship: RelationshipDescription, sourceKeys: [Int64], _ body: (ObjectID, any StoreRow) throws -> Void
    ) throws {
        let layout = layout(for: relationship.destination)
        if sourceKeys.count == 1, let statements = toManySQL[ObjectIdentifier(relationship)], let sql = statements.destinationRows {
            // The key is bound as it is: no list of arguments made for one value.
            let key = sourceKeys[0]
            return try forEachRow(sql, number: statements.destinationRowsNumber, .recent, layout,
                                  bind: { try $0.bind(.integer(key), at: 1) }, body)
        }
        try forEachRow(FetchSQL.selectDestinations(of: relationship, sourceKeys: sourceKeys, layout: layout, dialect: .sqlite),
                       .recent, layout, body)
    }

    /// Runs `body` with every read this thread makes inside one read transaction on one
    /// reader, so they all see the same committed state.
    package func readingOneState<T>(_ body: () throws -> T) throws -> T {
        do {
            return try pool.readingOneState(body)
        } catch let error as SQLiteError {
            throw translate(error)
        }
    }

    /// Runs `select`, which reads rows of `layout`'s table, and hands each row to `body`.
    private func forEachRow(
        _ select: SQLFragment, _ freshness: ConnectionPool.Freshness, _ layout: TableLayout,
        _ body: (ObjectID, any StoreRow) throws -> Void
    ) throws {
        try forEachRow(select.sql, number: nil, freshness, layout, bind: { try $0.bind(select.arguments) }, body)
    }

    /// Runs `sql`, which reads rows of `layout`'s table, with the values `bind` binds, and
    /// hands each row to `body`; `number`, when given, finds the cached statement by number
    /// instead of by its text.
    private func forEachRow(
        _ sql: String, number: Int?, _ freshness: ConnectionPool.Freshness, _ layout: TableLayout,
        bind: (SQLiteStatement) throws -> Void, _ body: (ObjectID, any StoreRow) throws -> Void
    ) throws {
        let sole = layout.soleEntityIndex
        try performRead(freshness) { connection in
            let statement = if let number {
                try connection.cachedStatement(sql, number: number)
            } else {
                try connection.cachedStatement(sql)
            }
            try bind(statement)
            let handed = SQLiteStoreRow(statement, layout)
            try statement.forEachRow { row in
                try body(row.objectID(sole), handed)
            }
        }
    }

    /// The IDs of the rows `plan` selects (its output is keys).
    package func fetchIDs(_ plan: FetchPlan) throws -> [ObjectID] {
        let layout = layout(for: plan.entity), sole = layout.soleEntityIndex
        let select = FetchSQL.statement(for: plan, layout: layout, dialect: .sqlite)
        // Reads the key (and the entity) directly: no row handed on per ID.
        return try performRead { connection in
            let statement = try connection.cachedStatement(select.sql)
            try statement.bind(select.arguments)
            var ids: [ObjectID] = []
            try statement.forEachRow { row in ids.append(row.objectID(sole)) }
            return ids
        }
    }

    /// The values `plan` selects (its output is values), one array per row.
    package func fetchValues(_ plan: FetchPlan) throws -> [[StoredValue]] {
        let select = FetchSQL.statement(for: plan, layout: layout(for: plan.entity), dialect: .sqlite)
        return try performRead { connection in try connection.rows(select.sql, select.arguments) }
    }

    /// The number of rows `plan` selects, window aside.
    package func count(_ plan: FetchPlan) throws -> Int {
        var countPlan = plan
        countPlan.output = .count
        let select = FetchSQL.statement(for: countPlan, layout: layout(for: plan.entity), dialect: .sqlite)
        return try performRead { connection in
            let statement = try connection.cachedStatement(select.sql)
            try statement.bind(select.arguments)
            var count = 0
            try statement.forEachRow { row in count = Int(row.int64(at: 0)) }
            return count
        }
    }

    /// The statement `plan` runs, its values and SQLite's plan for it.
    package func explain(_ plan: FetchPlan) throws -> QueryExplanation {
        let select = FetchSQL.statement(for: plan, layout: layout(for: plan.entity), dialect: .sqlite)
        let steps = try performRead { connection in
            try connection.cachedStatement(select.sql).queryPlan(arguments: select.arguments)
        }
        return QueryExplanation(sql: select.sql, arguments: select.arguments, plan: steps)
    }

    /// The statement that loads one object's row by its key (``readRow(_:_:)``, which
    /// `existingObject(with:)` and a fault use), its value and SQLite's plan for it.
    package func explainRow(_ id: ObjectID) throws -> QueryExplanation {
        let index = Int(id.entityIndex)
        let arguments = [StoredValue.integer(id.key)]
        let steps = try performRead { connection in
            try selectRowStatement(ofEntityAt: index, connection).queryPlan(arguments: arguments)
        }
        return QueryExplanation(sql: tableSQLByEntity[index].selectRow, arguments: arguments, plan: steps)
    }

    /// The (source, destination) key pairs of a many-to-many relationship for several sources.
    package func fetchJoinPairs(of relationship: RelationshipDescription, sourceKeys: [Int64]) throws -> [(source: Int64, destination: Int64)] {
        let select = FetchSQL.selectJoinPairs(of: relationship, sourceKeys: sourceKeys, dialect: .sqlite)
        return try performRead(.recent) { connection in try connection.rows(select.sql, select.arguments) }.compactMap { row in
            guard case .integer(let source) = row[0], case .integer(let destination) = row[1] else { return nil }
            return (source, destination)
        }
    }

    /// The full row of one object, or nil when it is not in the store: ``readRow(_:_:)``'s
    /// row copied into values.
    package func fetchRow(_ id: ObjectID) throws -> [StoredValue]? {
        let layout = layout(for: model.entities[Int(id.entityIndex)])
        let sole = layout.soleEntityIndex != nil
        var values: [StoredValue]?
        _ = try readRow(id) { row in
            values = (0..<layout.rowWidth).map { column in
                // A table of one entity has no entity column to read: the ID's index goes in.
                sole && column < 2 ? .integer(column == 0 ? id.key : Int64(id.entityIndex)) : row.value(at: column)
            }
        }
        return values
    }

    /// Hands the full row of one object to `body`, read from the statement in place; false
    /// when the table has no row with its key.
    package func readRow(_ id: ObjectID, _ body: (any StoreRow) throws -> Void) throws -> Bool {
        let index = Int(id.entityIndex), layout = layout(for: model.entities[index])
        return try performRead(.recent) { connection in
            let statement = try selectRowStatement(ofEntityAt: index, connection)
            try statement.bind(.integer(id.key), at: 1)
            let row = SQLiteStoreRow(statement, layout)
            var found = false
            try statement.forEachRow { _ in
                found = true
                try body(row)
            }
            return found
        }
    }

    /// The IDs of the destinations of a to-many relationship of the object with key `key`.
    package func fetchDestinations(of relationship: RelationshipDescription, key: Int64) throws -> [ObjectID] {
        let sole = layout(for: relationship.destination).soleEntityIndex
        return try performRead(.recent) { connection in
            let statement = if let statements = toManySQL[ObjectIdentifier(relationship)] {
                try connection.cachedStatement(statements.destinationKeys, number: statements.destinationKeysNumber)
            } else {
                try connection.cachedStatement(FetchSQL.selectDestinations(of: relationship, dialect: .sqlite))
            }
            try statement.bind(.integer(key), at: 1)
            var ids: [ObjectID] = []
            try statement.forEachRow { row in
                ids.append(row.objectID(sole))
            }
            return ids
        }
    }
}

extension SQLiteRow {
    /// The ID in a row's first two columns, the key and the entity index (every statement
    /// that reads objects or their keys selects those first); `sole`, the table's only
    /// entity, saves reading the second column (``TableLayout/soleEntityIndex``).
    @inline(__always)
    func objectID(_ sole: Int?) -> ObjectID { ObjectID(entityIndex: sole ?? Int(int64(at: 1)), key: int64(at: 0)) }
}
