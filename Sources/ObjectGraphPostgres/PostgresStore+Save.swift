package import ObjectGraph
import ObjectGraphSQL
import Foundation

extension PostgresStore {
    /// Writes one save's rows in one transaction and returns the permanent ID of each
    /// inserted row, in the order of `changes.inserts`.
    ///
    /// `beforeCommit` runs after this store's rows are written, inside its transaction. When
    /// the connection is lost part-way, the server rolls the transaction back: nothing of the
    /// save lands and the context keeps its changes to save again.
    /// - Throws: ``ObjectGraphError`` (`constraintViolation` naming the entity and the
    ///   values at fault; `objectNotFound` for an updated row that is gone; `validation` for
    ///   a reference to an object that is not being saved; `storeFailure`), or
    ///   `SaveConflicts` for rows another save changed since they were loaded.
    package func save(_ changes: StoreChanges, beforeCommit: () throws -> Void = {}) throws -> [ObjectID] {
        var current: ObjectID?
        /// The inserts (positions in `changes.inserts`) of the statement that failed, when it
        /// wrote several rows.
        var currentInserts: [Int] = []
        var values = changes.values
        try checkTextHasNoNUL(changes)
        do {
            let ids = try write { session in
                let ids = try assignKeys(changes.inserts.map(\.id), session)
                let keys = StoreChanges.Keys(changes, ids: ids, model: model)
                values = try changes.resolvedValues(keys)
                // Every statement of the save, sent at once (``PostgresSession/runAll(_:failed:)``),
                // each with the object it writes, to name it when the statement fails.
                var statements: [(sql: String, arguments: [StoredValue])] = []
                var owners: [ObjectID?] = []
                var insertsOf: [Int: [Int]] = [:]  // statement → the inserts it writes
                func add(_ sql: String, _ arguments: [StoredValue], for id: ObjectID?) {
                    statements.append((sql, arguments))
                    owners.append(id)
                }
                for id in changes.deletes {
                    let entity = model.entities[Int(id.entityIndex)]
                    add(tableSQL(for: entity).delete, [.integer(id.key)], for: id)
                    for relationship in entity.relationships where relationship.isManyToMany {
                        let join = SchemaNaming.joinTable(for: relationship)
                        add(SchemaSQL.deleteJoinRows(join.table, column: join.sourceColumn), [.integer(id.key)], for: id)
                    }
                }
                // The inserts of each entity in multi-row INSERTs (the tables have no foreign
                // keys, so the order between entities does not matter).
                var positionsByEntity: [Int: [Int]] = [:]
                for (position, id) in ids.enumerated() { positionsByEntity[Int(id.entityIndex), default: []].append(position) }
                for (entityIndex, positions) in positionsByEntity.sorted(by: { $0.key < $1.key }) {
                    let entity = model.entities[entityIndex], width = layout(for: entity).width
                    for insert in insertStatements(of: entity, count: positions.count, row: { index in
                        let start = changes.inserts[positions[index]].start
                        return (ids[positions[index]].key, values[start..<start + width - 2])
                    }) {
                        let chunk = Array(positions[insert.rows])
                        insertsOf[statements.count] = chunk
                        add(insert.sql, insert.arguments, for: chunk.count == 1 ? changes.inserts[chunk[0]].id : nil)
                    }
                }
                let firstUpdate = statements.count
                for update in changes.updates {
                    let layout = layout(for: model.entities[Int(update.id.entityIndex)])
                    let sql = SchemaSQL.update(layout, columns: update.columns.map { layout.columns[$0 - 2] }, checksVersion: update.version != nil)
                    add(sql, Array(values[update.start..<update.start + update.columns.count])
                        + [.integer(update.id.key)] + (update.version.map { [.integer($0)] } ?? []), for: update.id)
                }
                for join in changes.joins {
                    let table = SchemaNaming.joinTable(for: join.relationship)
                    // Both sides record the change; the side that names the join table writes it.
                    guard table.sourceColumn == "_source" else { continue }
                    add(join.isInsertion ? SchemaSQL.insertJoin(table.table) : SchemaSQL.deleteJoin(table.table),
                        [.integer(try keys.key(of: join.source)), .integer(try keys.key(of: join.destination))], for: join.source)
                }
                for (key, value) in changes.metadata.sorted(by: { $0.key < $1.key }) {
                    add(value == nil ? SchemaSQL.deleteMetadata : SchemaSQL.upsertMetadata,
                        [.text(key)] + (value.map { [.text($0)] } ?? []), for: nil)
                }
                let inserted = Set(ids)
                var touched = changes.updates.map(\.id)
                for join in changes.joins {
                    for end in [join.source, join.destination] {
                        touched.append(ObjectID(entityIndex: Int(end.entityIndex), key: try keys.key(of: end)))
                    }
                }
                for payload in Self.payloads(sender: sender, inserted: ids, updated: Array(Set(touched).subtracting(inserted)),
                                             deleted: changes.deletes) {
                    add(SchemaSQL.notify, [.text(channel), .text(payload)], for: nil)
                }
                let results = try session.runAll(statements) { position in
                    current = owners[position]
                    currentInserts = insertsOf[position] ?? []
                }
                // An update that changed no row lost a race (optimistic locking), or its row is gone.
                var conflicts: [ObjectID] = []
                for (update, result) in zip(changes.updates, results[firstUpdate...]) where result.changed == 0 {
                    let layout = layout(for: model.entities[Int(update.id.entityIndex)])
                    guard try !session.run(SchemaSQL.selectVersion(table: layout.table), [.integer(update.id.key)]).rows.isEmpty else {
                        throw ObjectGraphError(.objectNotFound,
                            "cannot save the changes to \(model.describe(update.id)): its row is no longer in the store (deleted by another context or process); nothing was saved")
                    }
                    conflicts.append(update.id)
                }
                if !conflicts.isEmpty { throw SaveConflicts(ids: conflicts) }
                try checkReferencedRowsExist(changes, session)
                if losesConnectionBeforeNextCommit.withLock({ flag in defer { flag = false }; return flag }) {
                    try session.run("SELECT pg_terminate_backend(pg_backend_pid())")
                }
                current = nil  // errors from here on belong to the other stores
                try beforeCommit()
                return ids
            }
            didCommitMetadata(changes.metadata)
            return ids
        } catch let error as ObjectGraphError {
            if PostgresErrors.sqlState(of: error) == "54000" {
                // program_limit_exceeded: a value too large for an index, which the server
                // says without naming the index, the row or the column.
                let rows = currentInserts.isEmpty ? current.map { [$0] } ?? [] : currentInserts.map { changes.inserts[$0].id }
                if let refused = indexLimitError(error, rows: rows, changes: changes) { throw refused }
            }
            if error.code == .constraintViolation, currentInserts.count > 1 {
                // Which of the statement's rows: the one holding the values the server names.
                let inserts = currentInserts.map { changes.inserts[$0] }
                let row = inserts.first { constraintDetail(error, matches: $0, values: values) } ?? inserts[0]
                throw constraintError(error, id: row.id, changes: changes, values: values)
            }
            if let id = current, error.code == .constraintViolation {
                throw constraintError(error, id: id, changes: changes, values: values)
            }
            throw error
        }
    }

    /// Each written value of `changes`, with the object and the column it is written to.
    private func writtenValues(_ changes: StoreChanges, _ body: (ObjectID, String, StoredValue) throws -> Void) rethrows {
        for insert in changes.inserts {
            let columns = layout(for: model.entities[Int(insert.id.entityIndex)]).columns
            for (offset, column) in columns.enumerated() { try body(insert.id, column, changes.values[insert.start + offset]) }
        }
        for update in changes.updates {
            let columns = layout(for: model.entities[Int(update.id.entityIndex)]).columns
            for (offset, column) in update.columns.enumerated() { try body(update.id, columns[column - 2], changes.values[update.start + offset]) }
        }
    }

    /// Throws `invalidValue`, before anything is sent, for text holding a NUL character,
    /// which PostgreSQL's text cannot hold (SQLite's can), naming the object and the attribute.
    private func checkTextHasNoNUL(_ changes: StoreChanges) throws {
        func holdsNUL(_ value: StoredValue) -> Bool {
            if case .text(let text) = value { text.utf8.contains(0) } else { false }
        }
        // One pass over the values; the objects and columns are looked up only for a NUL found.
        guard changes.values.contains(where: holdsNUL) else { return }
        try writtenValues(changes) { id, column, value in
            guard holdsNUL(value) else { return }
            throw ObjectGraphError(.invalidValue,
                "cannot save \(model.describe(id)): its \(column) holds a NUL character (U+0000), which PostgreSQL text cannot hold; "
                + "remove it, or store the value as binary data; nothing was saved")
        }
    }

    /// The error for a value too large for an index of its table (SQLSTATE 54000), naming the
    /// object and the attribute: the largest text or binary value, among the indexed
    /// columns of `rows` (the failed statement's), that the save writes. Nil when none is.
    private func indexLimitError(_ error: ObjectGraphError, rows: [ObjectID], changes: StoreChanges) -> ObjectGraphError? {
        let candidates = Set(rows)
        var largest: (id: ObjectID, column: String, size: Int)?
        writtenValues(changes) { id, column, value in
            guard candidates.contains(id) else { return }
            let tree = model.entities[Int(id.entityIndex)].root.selfAndDescendants
            guard tree.contains(where: { entity in
                entity.uniquenessConstraints.contains { $0.contains(column) } || entity.indexes.contains { $0.contains(column) }
                    || entity.declaredAttributes.contains { $0.name == column && $0.isIndexed }
            }) else { return }
            let size: Int
            switch value {
            case .text(let text): size = text.utf8.count
            case .blob(let data): size = data.count
            default: return
            }
            if size > largest?.size ?? 0 { largest = (id, column, size) }
        }
        guard let largest else { return nil }
        return ObjectGraphError(.invalidValue,
            "cannot save \(model.describe(largest.id)): its \(largest.column) (\(largest.size) bytes) is too large for "
            + "PostgreSQL to index: an indexed or unique value is limited to about 2,700 bytes; nothing was saved",
            underlying: error)
    }

    /// Gives objects with temporary IDs permanent ones now, in their own transaction.
    package func reservePermanentIDs(for ids: [ObjectID]) throws -> [ObjectID] {
        try write { session in try assignKeys(ids, session) }
    }

    /// The permanent ID for each of `ids`: reserved keys for temporary ones, in order per table.
    func assignKeys(_ ids: [ObjectID], _ session: PostgresSession) throws -> [ObjectID] {
        var result = ids
        var positionsByTable: [Int: [Int]] = [:]
        for (position, id) in ids.enumerated() where id.isTemporary {
            positionsByTable[model.entities[Int(id.entityIndex)].root.index, default: []].append(position)
        }
        for (rootIndex, positions) in positionsByTable.sorted(by: { $0.key < $1.key }) {
            var next = try reserveKeys(count: positions.count, table: layout(for: model.entities[rootIndex]).table, session)
            for position in positions {
                result[position] = ObjectID(entityIndex: Int(ids[position].entityIndex), key: next)
                next += 1
            }
        }
        return result
    }

    /// The multi-row `INSERT`s (``TableSQL/rowsPerInsert`` rows each at most) that write
    /// `count` rows of `entity`; `row(i)` gives row `i`'s key and its values after `_pk` and
    /// `_ent`. Each statement comes with the rows it writes.
    func insertStatements(of entity: EntityDescription, count: Int, row: (Int) -> (key: Int64, values: ArraySlice<StoredValue>))
        -> [(sql: String, arguments: [StoredValue], rows: Range<Int>)]
    {
        let sql = tableSQL(for: entity), width = layout(for: entity).width
        return stride(from: 0, to: count, by: sql.rowsPerInsert).map { start in
            let rows = start..<min(start + sql.rowsPerInsert, count)
            var arguments: [StoredValue] = []
            arguments.reserveCapacity(rows.count * width)
            for index in rows {
                let (key, values) = row(index)
                arguments += [.integer(key), .integer(Int64(entity.index))]
                arguments += values
            }
            return (sql.insert(rows: rows.count), arguments, rows)
        }
    }

    /// Reserves `count` keys of `table` and returns the first.
    func reserveKeys(count: Int, table: String, _ session: PostgresSession) throws -> Int64 {
        let rows = try session.run(SchemaSQL.reserveKeys(table: table), [.text(table), .integer(Int64(count))]).rows
        guard case .integer(let maximum)? = rows.first?.first else {
            throw ObjectGraphError(.storeFailure, "reserving keys of \(table) returned nothing")
        }
        return maximum - Int64(count) + 1
    }

    /// The columns and the values, as the server printed them, of a unique-key violation's
    /// detail: `Key (name)=(Ada) already exists.` gives `["name"]` and `Ada`.
    static func keyDetail(_ detail: String) -> (columns: [String], values: Substring)? {
        guard let open = detail.range(of: "("), let equals = detail.range(of: ")=("),
              let close = detail.range(of: ") already exists", options: .backwards),
              open.upperBound <= equals.lowerBound, equals.upperBound <= close.lowerBound
        else { return nil }
        let columns = detail[open.upperBound..<equals.lowerBound].split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "\"", with: "") }
        return (columns, detail[equals.upperBound..<close.lowerBound])
    }

    /// Whether the server's detail names the values of `row`.
    private func constraintDetail(_ error: ObjectGraphError, matches row: StoreChanges.Insert, values: [StoredValue]) -> Bool {
        guard let key = Self.keyDetail(error.message) else { return false }
        let layout = layout(for: model.entities[Int(row.id.entityIndex)])
        let rendered = key.columns.map { column -> String in
            guard let index = layout.columnIndex[column] else { return "?" }
            switch values[row.start + index - 2] {
            case .text(let text): return text
            case .integer(let number): return String(number)
            case .real(let number): return String(number)
            case .null, .blob: return "?"
            }
        }
        return rendered.joined(separator: ", ") == key.values
    }

    /// The error for a violated uniqueness constraint, naming the keys and their values:
    /// an inserted row's, or an updated row's from the update and, for those it leaves as
    /// they were, from the store (read after the rollback); else as the server printed them.
    private func constraintError(
        _ error: ObjectGraphError, id: ObjectID, changes: StoreChanges, values: [StoredValue]
    ) -> ObjectGraphError {
        let entity = model.entities[Int(id.entityIndex)]
        let layout = layout(for: entity)
        let detail = error.message
        let key = Self.keyDetail(detail)
        let columns = key?.columns ?? []
        var storedRow: [StoredValue]??
        let named = columns.compactMap { column -> String? in
            guard let attribute = entity.attribute(named: column), let index = layout.columnIndex[column] else { return nil }
            let stored: StoredValue
            if let written = changes.writtenValue(ofColumn: index, of: id, in: values) {
                stored = written
            } else if changes.updates.contains(where: { $0.id == id }) {
                if storedRow == nil { storedRow = .some(try? fetchRow(id)) }
                guard let value = storedRow??[index] else { return nil }
                stored = value
            } else {
                return nil
            }
            return "\(column) = \(attribute.type.swiftValue(from: stored).map { "\($0)" } ?? "nil")"
        }
        let listed: String
        if !named.isEmpty && named.count == columns.count {
            listed = named.joined(separator: ", ")
        } else if let key {
            listed = columns.count == 1 ? "\(columns[0]) = \(key.values)" : "(\(columns.joined(separator: ", "))) = (\(key.values))"
        } else {
            listed = detail
        }
        return ObjectGraphError(.constraintViolation,
            "cannot save \(entity.name): another \(entity.root.name) already has \(listed); nothing was saved",
            underlying: error)
    }
}

extension PostgresStore {
    /// Throws `objectNotFound` when a saved row this save points at (``StoreChanges/referencedSavedKeys(model:)``)
    /// is not in the store once the save's rows are written: one statement per table pointed at.
    fileprivate func checkReferencedRowsExist(_ changes: StoreChanges, _ session: PostgresSession) throws {
        for (rootIndex, keys) in changes.referencedSavedKeys(model: model) {
            let table = layout(for: model.entities[rootIndex]).table
            let rows = try session.run(SchemaSQL.selectKeys(table: table), [FetchSQL.keyList(keys, dialect: .postgreSQL)]).rows
            let found = Set(rows.compactMap { row -> Int64? in if case .integer(let key)? = row.first { key } else { nil } })
            guard found.count < keys.count else { continue }
            throw changes.danglingReferenceError(model: model, layout: layout(for:)) { id in
                model.entities[Int(id.entityIndex)].root.index == rootIndex && !found.contains(id.key)
            }
        }
    }
}
