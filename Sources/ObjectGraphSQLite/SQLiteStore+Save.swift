import ObjectGraph
import ObjectGraphSQL
import Foundation

extension SQLiteStore {
    /// Writes one save's rows in one transaction and returns the permanent ID of each
    /// inserted row, in the order of `changes.inserts`.
    ///
    /// `beforeCommit` runs after this store's rows are written, inside its transaction: a
    /// save across stores writes every other store there, so a failure anywhere rolls back
    /// this store too.
    /// - Throws: ``ObjectGraphError`` (`constraintViolation` naming the entity and the
    ///   values at fault; `objectNotFound` for an updated row that is gone; `validation` for
    ///   a reference to an object that is not being saved; `storeLocked`; `storeFailure`);
    ///   the transaction is rolled back.
    package func save(_ changes: StoreChanges, beforeCommit: () throws -> Void = {}) throws -> [ObjectID] {
        var current: ObjectID?
        var values = changes.values
        do {
            let ids = try pool.write { connection in
                try writeInTransaction(changes, connection, values: &values, current: &current, beforeCommit: beforeCommit)
            }
            didCommitMetadata(changes.metadata)
            return ids
        } catch let error as SQLiteError {
            if error.result == .constraint, let id = current {
                throw constraintError(error, id: id, changes: changes, values: values)
            }
            throw translate(error)
        }
    }

    /// Writes `changes` in one transaction on `connection` (see ``save(_:beforeCommit:)``):
    /// `values` receives the values with their references resolved, and `current` the row
    /// being written when an error is thrown.
    ///
    /// A method, not a closure inside `pool.write`: a closure nested in that one that used
    /// `changes` captured a copy of it (seven references retained and released every save).
    private func writeInTransaction(
        _ changes: StoreChanges, _ connection: SQLiteConnection, values: inout [StoredValue], current: inout ObjectID?,
        beforeCommit: () throws -> Void
    ) throws -> [ObjectID] {
        let ids = try connection.inTransaction {
            let ids = try assignKeys(changes.inserts.map(\.id), connection)
            let keys = StoreChanges.Keys(changes, ids: ids, model: model)
            values = try changes.resolvedValues(keys)
            current = changes.deletes.first
            try delete(changes.deletes, connection)
            try insertRows(changes.inserts, ids: ids, values: values, connection, current: &current)
            var conflicts: [ObjectID] = []
            for update in changes.updates {
                current = update.id
                let layout = layout(for: model.entities[Int(update.id.entityIndex)])
                let statement = try connection.cachedStatement(SchemaSQL.update(
                    layout, columns: update.columns.map { layout.columns[$0 - 2] }, checksVersion: update.version != nil))
                try statement.bind(Array(values[update.start..<update.start + update.columns.count])
                                   + [.integer(update.id.key)] + (update.version.map { [.integer($0)] } ?? []))
                guard try statement.run() == 0 else { continue }
                let exists = try connection.cachedStatement(SchemaSQL.selectVersion(table: layout.table))
                try exists.bind(.integer(update.id.key), at: 1)
                var found = false
                try exists.forEachRow { _ in found = true }
                guard found else {
                    throw ObjectGraphError(.objectNotFound,
                        "cannot save the changes to \(model.describe(update.id)): its row is no longer in the store (deleted by another context or process); nothing was saved")
                }
                conflicts.append(update.id)
            }
            if !conflicts.isEmpty { throw SaveConflicts(ids: conflicts) }
            for join in changes.joins {
                current = join.source
                let table = SchemaNaming.joinTable(for: join.relationship)
                // Both sides record the change; the side that names the join table writes it.
                guard table.sourceColumn == "_source" else { continue }
                let statement = try connection.cachedStatement(
                    join.isInsertion ? SchemaSQL.insertJoin(table.table) : SchemaSQL.deleteJoin(table.table))
                try statement.bind([.integer(try keys.key(of: join.source)), .integer(try keys.key(of: join.destination))])
                try statement.run()
            }
            try checkReferencedRowsExist(changes, connection)
            try writeMetadata(changes.metadata, connection)
            current = nil  // errors from here on belong to the other stores
            try beforeCommit()
            return ids
        }
        // The keys assignKeys checked or read are current after this commit: a later save
        // uses them while nothing else has committed to the file. (Inside an outer
        // transaction this is the version before that one commits, which its commit then
        // changes.)
        connection.nextKeysVersion = connection.fileVersion()
        return ids
    }

    /// Throws `objectNotFound` when a saved row this save points at (``StoreChanges/referencedSavedKeys(model:)``)
    /// is not in the store once the save's rows are written: a count per table pointed at, and
    /// only when one falls short, the keys that are there.
    private func checkReferencedRowsExist(_ changes: StoreChanges, _ connection: SQLiteConnection) throws {
        for (rootIndex, keys) in changes.referencedSavedKeys(model: model) {
            let table = layout(for: model.entities[rootIndex]).table
            let list = FetchSQL.keyList(keys, dialect: .sqlite)
            let count = try connection.cachedStatement(SchemaSQL.countKeys(table: table))
            try count.bind(list, at: 1)
            var present = 0
            try count.forEachRow { present = Int($0.int64(at: 0)) }
            guard present < keys.count else { continue }
            let statement = try connection.cachedStatement(SchemaSQL.selectKeys(table: table))
            try statement.bind(list, at: 1)
            var found = Set<Int64>(minimumCapacity: keys.count)
            try statement.forEachRow { found.insert($0.int64(at: 0)) }
            throw changes.danglingReferenceError(model: model, layout: layout(for:)) { id in
                model.entities[Int(id.entityIndex)].root.index == rootIndex && !found.contains(id.key)
            }
        }
    }

    /// Inserts the rows of `inserts` (their keys in `ids`, their values in `values`).
    ///
    /// Rows of one entity go in together, ``rowsPerInsert(ofEntityAt:)`` to a statement: a
    /// statement per row costs SQLite a seek from the table's root to check each explicit key
    /// and a statement's setup and teardown, about a quarter of a row's insert; one statement
    /// keeps its cursor where the last row went. What is left over of each entity goes in a
    /// row at a time, as does every row of a small save. Rows of different entities may go
    /// in out of their order in `inserts`: tables refer to each other by key, without
    /// foreign-key constraints to check the order.
    ///
    /// A constraint that fails in a multi-row statement stops it at the row at fault (see
    /// ``SchemaSQL/insert(table:columns:entityIndex:rows:)``); that row and the ones after
    /// it then go in one at a time, so that the error names the row: `current` is the row
    /// going in alone when an error is thrown, nil during a multi-row statement.
    private func insertRows(
        _ inserts: [StoreChanges.Insert], ids: [ObjectID], values: [StoredValue], _ connection: SQLiteConnection,
        current: inout ObjectID?
    ) throws {
        try values.withUnsafeBufferPointer { values in
            var writer = RowWriter(store: self, connection: connection, inserts: inserts, ids: ids, values: values)
            defer { current = writer.current }
            guard inserts.count >= fewestRowsPerInsert else {  // no statement would fill: in order, a row at a time
                for position in inserts.indices { try writer.insert(position) }
                return
            }
            // The positions of each entity's rows not yet inserted, by entity index.
            var waiting = [[Int]](repeating: [], count: model.entities.count)
            for position in inserts.indices {
                let entityIndex = Int(ids[position].entityIndex)
                waiting[entityIndex].append(position)
                guard waiting[entityIndex].count == rowsPerInsert(ofEntityAt: entityIndex) else { continue }
                do {
                    try writer.insert(waiting[entityIndex], entityIndex: entityIndex)
                } catch let error as SQLiteError where error.result == .constraint {
                    for position in try writer.notInserted(waiting[entityIndex], entityIndex: entityIndex) {
                        try writer.insert(position)  // throws at the row at fault
                    }
                }
                waiting[entityIndex].removeAll(keepingCapacity: true)
            }
            for position in waiting.joined() { try writer.insert(position) }
        }
    }

    /// Runs `body` inside a write transaction (`BEGIN IMMEDIATE`): no other connection or
    /// process commits until it returns. Saves inside it run in savepoints; it commits
    /// when `body` returns and rolls back when it throws.
    package func holdingWriteLock<T>(_ body: () throws -> T) throws -> T {
        do {
            return try pool.write { connection in try connection.inTransaction(body) }
        } catch let error as SQLiteError {
            throw translate(error)
        }
    }

    /// Gives objects with temporary IDs permanent ones now, in their own transaction.
    package func reservePermanentIDs(for ids: [ObjectID]) throws -> [ObjectID] {
        try perform { connection in
            try connection.inTransaction { try assignKeys(ids, connection, reserving: true) }
        }
    }

    /// The permanent ID for each of `ids`: new keys for temporary ones, in order per table,
    /// past every key the table has used.
    ///
    /// Keys for rows inserted in the same transaction are read, not recorded: the rows
    /// themselves then hold the largest key, and a delete records it before it removes them
    /// (``recordHighestKey(of:_:)``), so no key is ever handed out twice. Keys handed out
    /// before their rows exist (`reserving`, for ``reservePermanentIDs(for:)``) are recorded
    /// at once.
    ///
    /// The writer remembers each table's next key after a save and uses it at the next save
    /// when nothing else has committed to the file in between (``SQLiteConnection/fileVersion()``,
    /// read while this transaction holds the write lock, against its value after the last
    /// save's commit), so consecutive saves read no key at all.
    /// Whatever else this connection does to keys (reserving, a batch insert) forgets them.
    private func assignKeys(_ ids: consuming [ObjectID], _ connection: SQLiteConnection, reserving: Bool = false) throws -> [ObjectID] {
        // The IDs are replaced in place: a save's list is its own, so no copy is made.
        var result = ids
        // Checked even when every ID is permanent: the save's commit makes the keys current.
        if reserving {
            connection.nextKeys.removeAll()
        } else if connection.fileVersion() != connection.nextKeysVersion {
            connection.nextKeys.removeAll()
            connection.nextKeysVersion = -1  // until this save commits
        }
        guard var first = result.firstIndex(where: \.isTemporary) else { return result }
        // One table at a time, in order of first use: the table of the first ID still
        // temporary, whose rows a pass counts (noting where another table's first row is) and
        // a second pass gives keys. A save inserts into one table or a few, and needs no
        // list of tables or of positions.
        while true {
            let root = rootIndexByEntity[Int(result[first].entityIndex)]
            var count: Int64 = 0, nextFirst: Int?
            for position in first..<result.count where result[position].isTemporary {
                if rootIndexByEntity[Int(result[position].entityIndex)] == root {
                    count += 1
                } else if nextFirst == nil {
                    nextFirst = position
                }
            }
            let table = layoutByEntity[root].table
            var next: Int64 = 0
            if reserving {
                let statement = try connection.cachedStatement(tableSQLByEntity[root].reserveKeys)
                try statement.bind([.text(table), .integer(count)])
                try statement.forEachRow { row in next = row.int64(at: 0) - count + 1 }
            } else if let cached = connection.nextKeys[root] {
                next = cached
            } else {
                let statement = try connection.cachedStatement(tableSQLByEntity[root].highestKey)
                try statement.bind(.text(table), at: 1)
                try statement.forEachRow { row in next = row.int64(at: 0) + 1 }
            }
            if !reserving { connection.nextKeys[root] = next + count }
            for position in first..<result.count
            where result[position].isTemporary && rootIndexByEntity[Int(result[position].entityIndex)] == root {
                result[position] = ObjectID(entityIndex: Int(result[position].entityIndex), key: next)
                next += 1
            }
            guard let nextFirst else { return result }
            first = nextFirst
        }
    }

    /// Deletes the rows of `ids` and their many-to-many join rows: per entity, each run of
    /// consecutive keys by range, the rest in one statement with the keys bound as one JSON
    /// array (rather than one per row), a single row by the plain statement; join rows in
    /// one statement per join table.
    private func delete(_ ids: [ObjectID], _ connection: SQLiteConnection) throws {
        guard !ids.isEmpty else { return }
        var keysByEntity = [[Int64]](repeating: [], count: model.entities.count)
        for id in ids { keysByEntity[Int(id.entityIndex)].append(id.key) }
        var recorded = [Bool](repeating: false, count: model.entities.count)
        for (entityIndex, keys) in keysByEntity.enumerated() where !keys.isEmpty {
            let entity = model.entities[entityIndex]
            if !recorded[entity.root.index] {
                recorded[entity.root.index] = true
                try recordHighestKey(of: entity, connection)
            }
            try deleteRows(keys, of: entity, connection)
            let joins = entity.relationships.filter(\.isManyToMany)
            guard !joins.isEmpty else { continue }
            let single = keys.count == 1
            let argument: StoredValue = single ? .integer(keys[0]) : FetchSQL.keyList(keys, dialect: .sqlite)
            for relationship in joins {
                let join = SchemaNaming.joinTable(for: relationship)
                let statement = try connection.cachedStatement(
                    SchemaSQL.deleteJoinRows(join.table, column: join.sourceColumn, keyList: !single))
                try statement.bind(argument, at: 1)
                try statement.run()
            }
        }
    }

    /// Deletes the rows of `entity` with `keys`. Objects made together have consecutive
    /// keys (a recipe's ingredient lines, an import's batch), and a range costs SQLite a walk
    /// along the table where a key list costs it parsing the list and a temporary index of
    /// its keys: runs of at least ``shortestKeyRun`` keys go by range.
    private func deleteRows(_ keys: [Int64], of entity: EntityDescription, _ connection: SQLiteConnection) throws {
        let statements = tableSQL(for: entity)
        let sorted = keys.sorted()
        var rest: [Int64] = []
        var start = 0
        while start < sorted.count {
            var end = start + 1
            while end < sorted.count, sorted[end] == sorted[end - 1] + 1 { end += 1 }
            if end - start >= Self.shortestKeyRun {
                let statement = try connection.cachedStatement(statements.deleteKeyRange)
                try statement.bind(.integer(sorted[start]), at: 1)
                try statement.bind(.integer(sorted[end - 1]), at: 2)
                try statement.run()
            } else {
                rest += sorted[start..<end]
            }
            start = end
        }
        guard !rest.isEmpty else { return }
        let single = rest.count == 1
        let statement = try connection.cachedStatement(single ? statements.delete : statements.deleteKeyList)
        try statement.bind(single ? .integer(rest[0]) : FetchSQL.keyList(rest, dialect: .sqlite), at: 1)
        try statement.run()
    }

    /// The fewest consecutive keys a save deletes by range rather than in its key list.
    static let shortestKeyRun = 4

    /// Records the largest key of `entity`'s table as used, before rows of it are deleted.
    func recordHighestKey(of entity: EntityDescription, _ connection: SQLiteConnection) throws {
        let statement = try connection.cachedStatement(tableSQL(for: entity).recordHighestKey)
        try statement.bind(.text(layout(for: entity).table), at: 1)
        try statement.run()
    }

    /// The error for a violated uniqueness constraint of the row of `id`, inserted or
    /// updated, naming the keys and their values.
    ///
    /// An updated row's values come from the update, and those it leaves as they were (one
    /// column of a constraint over two) from the store, read after the rollback.
    private func constraintError(_ error: SQLiteError, id: ObjectID, changes: StoreChanges, values: [StoredValue]) -> ObjectGraphError {
        let entity = model.entities[Int(id.entityIndex)]
        let layout = layout(for: entity)
        var storedRow: [StoredValue]??
        func value(atColumn index: Int) -> StoredValue? {
            if let written = changes.writtenValue(ofColumn: index, of: id, in: values) { return written }
            guard changes.updates.contains(where: { $0.id == id }) else { return nil }
            if storedRow == nil { storedRow = .some(try? fetchRow(id)) }
            return storedRow??[index]
        }
        // SQLite says "UNIQUE constraint failed: Chef.name"; name the keys and their values.
        let columns = error.message.components(separatedBy: ": ").last?
            .split(separator: ",").map { $0.split(separator: ".").last.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? "" } ?? []
        let named = columns.compactMap { column -> String? in
            guard let attribute = entity.attribute(named: column), let index = layout.columnIndex[column],
                  let stored = value(atColumn: index) else { return nil }
            return "\(column) = \(attribute.type.swiftValue(from: stored).map { "\($0)" } ?? "nil")"
        }
        guard !named.isEmpty, named.count == columns.count else {
            // Not a constraint of the entity's attributes (a join table's pair): SQLite's words.
            return ObjectGraphError(.constraintViolation,
                "cannot save \(entity.name): \(error.message); nothing was saved", underlying: error)
        }
        return ObjectGraphError(.constraintViolation,
            "cannot save \(entity.name): another \(entity.root.name) already has \(named.joined(separator: ", ")); nothing was saved",
            underlying: error)
    }
}

/// Binds and runs the INSERTs of one save's rows: one row at a time, or several rows of one
/// entity in one statement.
///
/// Each entity's one-row INSERT is looked up once per save, not whenever the rows switch
/// tables (a parent row and its child rows alternate); per row, only the statement and the
/// row's width are read (copying the table's layout and statement texts out of the store
/// cost a retain and release each). The lookup holds them unretained, so a row costs no
/// retain and release either: the connection's statement cache keeps them until it closes.
private struct RowWriter {
    let store: SQLiteStore
    let connection: SQLiteConnection
    let inserts: [StoreChanges.Insert]
    let ids: [ObjectID]
    let values: UnsafeBufferPointer<StoredValue>
    /// The one-row INSERT used last, with its entity's index and the number of its columns
    /// after the key: rows of one entity go in one after another. (An array of every
    /// entity's, made for each save, cost a save of one row about 900 instructions.)
    private var lastSingleRow: (entityIndex: Int, statement: Unmanaged<SQLiteStatement>, width: Int)?
    /// The row going in on its own, which an error is about; nil during a multi-row INSERT.
    private(set) var current: ObjectID?

    init(store: SQLiteStore, connection: SQLiteConnection, inserts: [StoreChanges.Insert], ids: [ObjectID],
         values: UnsafeBufferPointer<StoredValue>) {
        self.store = store
        self.connection = connection
        self.inserts = inserts
        self.ids = ids
        self.values = values
    }

    /// Inserts the row at `position` of the inserts on its own.
    mutating func insert(_ position: Int) throws {
        let insert = inserts[position], id = ids[position], entityIndex = Int(id.entityIndex)
        current = insert.id
        let statement: Unmanaged<SQLiteStatement>, width: Int
        if let cached = lastSingleRow, cached.entityIndex == entityIndex {
            (statement, width) = (cached.statement, cached.width)
        } else {
            let made = try store.insertStatement(ofEntityAt: entityIndex, connection)
            width = store.layoutByEntity[entityIndex].width - 2
            assert(made.parameterCount == width + 1, "an INSERT binds every placeholder of a row")
            statement = .passUnretained(made)
            lastSingleRow = (entityIndex, statement, width)
        }
        try statement._withUnsafeGuaranteedRef { statement in
            statement.reset(rebindsAll: true)  // the key and every column below
            try statement.bind(.integer(id.key), at: 1)
            for column in 0..<width {
                try statement.bind(values[insert.start + column], at: Int32(column + 2))
            }
            try statement.run()
        }
    }

    /// Inserts the rows at `positions` of the inserts, as many as the entity with model
    /// index `entityIndex` puts in one statement and all of that entity, in one statement.
    mutating func insert(_ positions: [Int], entityIndex: Int) throws {
        current = nil
        let statement = try store.insertRowsStatement(ofEntityAt: entityIndex, connection)
        let width = store.layoutByEntity[entityIndex].width - 2
        assert(statement.parameterCount == (width + 1) * positions.count, "an INSERT binds every placeholder of its rows")
        var parameter: Int32 = 1
        for position in positions {
            let start = inserts[position].start
            try statement.bind(.integer(ids[position].key), at: parameter)
            for column in 0..<width {
                try statement.bind(values[start + column], at: parameter + Int32(column + 1))
            }
            parameter += Int32(width + 1)
        }
        try statement.run()
    }

    /// The positions among `positions` (rows of the entity with model index `entityIndex`)
    /// from the first whose row is not in the table: where a multi-row INSERT stopped.
    func notInserted(_ positions: [Int], entityIndex: Int) throws -> ArraySlice<Int> {
        let statement = try connection.cachedStatement(SchemaSQL.selectVersion(table: store.layoutByEntity[entityIndex].table))
        for (offset, position) in positions.enumerated() {
            statement.reset()
            try statement.bind(.integer(ids[position].key), at: 1)
            if try !statement.step() { return positions[offset...] }
        }
        return []
    }
}
