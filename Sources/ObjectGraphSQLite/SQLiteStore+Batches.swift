import ObjectGraph
import ObjectGraphSQL
import Foundation

extension SQLiteStore {
    /// Inserts rows of `entity`, one transaction; derived attributes are computed here too.
    package func batchInsert(_ entity: EntityDescription, rows: [[String: any Sendable]]) throws -> [ObjectID] {
        let layout = layout(for: entity)
        let prepared = try layout.batchRows(rows, of: entity)
        return try perform { connection in
            try connection.inTransaction {
                // The rows take the keys past the largest used, and past any the writer keeps
                // for its next save (see assignKeys), which then reads the keys again.
                let highest = try connection.cachedStatement(tableSQL(for: entity).highestKey)
                try highest.bind(.text(layout.table), at: 1)
                var key: Int64 = 1
                try highest.forEachRow { key = $0.int64(at: 0) + 1 }
                key = max(key, connection.nextKeys[rootIndexByEntity[entity.index]] ?? 1)
                connection.nextKeys.removeAll()
                var ids: [ObjectID] = []
                let statement = try insertStatement(ofEntityAt: entity.index, connection)
                for (index, values) in prepared.enumerated() {
                    statement.reset()
                    try statement.bind(.integer(key), at: 1)
                    for column in 2..<layout.width { try statement.bind(values[column], at: Int32(column)) }
                    do {
                        try statement.run()
                    } catch let error as SQLiteError where error.result == .constraint {
                        throw Self.insertUniquenessError(error, entity: entity, row: index + 1, values: values, layout: layout)
                    }
                    ids.append(ObjectID(entityIndex: entity.index, key: key))
                    key += 1
                }
                return ids
            }
        }
    }

    /// Sets `values` on the rows `plan` selects.
    package func batchUpdate(_ entity: EntityDescription, plan: FetchPlan, values: [String: StoredValue]) throws -> [ObjectID] {
        let layout = layout(for: entity)
        var assignments: [(String, StoredValue)] = []
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            assignments.append((key, value))
            for target in entity.attribute(named: key)?.derivedTargets ?? [] {
                assignments.append((target.name, Derivations.derive(value, target.derivation!)))
            }
        }
        return try perform { connection in
            try connection.inTransaction {
                let ids = try keys(FetchSQL.statement(for: plan, layout: layout, dialect: .sqlite), layout.soleEntityIndex, connection)
                guard !ids.isEmpty else { return [] }
                let statement = try connection.cachedStatement(SchemaSQL.updateRows(table: layout.table, columns: assignments.map(\.0)))
                try statement.bind(assignments.map(\.1) + [FetchSQL.keyList(ids.map(\.key), dialect: .sqlite)])
                do {
                    try statement.run()
                } catch let error as SQLiteError where error.result == .constraint {
                    throw Self.uniquenessError(error, entity: entity, values: values)
                }
                return ids
            }
        }
    }

    /// A batch update that would give two rows the same unique values, said with the keys
    /// and values it set (SQLite says "UNIQUE constraint failed: Author.name").
    private static func uniquenessError(_ error: SQLiteError, entity: EntityDescription, values: [String: StoredValue]) -> ObjectGraphError {
        let columns = error.message.components(separatedBy: ": ").last?.split(separator: ",")
            .compactMap { $0.split(separator: ".").last.map { $0.trimmingCharacters(in: .whitespaces) } } ?? []
        return .batchUpdateUniqueness(entity: entity, columns: columns, values: values, storeMessage: error.message, underlying: error)
    }

    /// A batch insert's row that repeats the unique values of another row, of the store or
    /// of the batch, said with its values; in SQLite's words for another constraint.
    private static func insertUniquenessError(
        _ error: SQLiteError, entity: EntityDescription, row: Int, values: [StoredValue], layout: TableLayout
    ) -> ObjectGraphError {
        let columns = error.message.components(separatedBy: ": ").last?.split(separator: ",")
            .compactMap { $0.split(separator: ".").last.map { $0.trimmingCharacters(in: .whitespaces) } } ?? []
        let named = columns.compactMap { column -> String? in
            guard let attribute = entity.attribute(named: column), let index = layout.columnIndex[column] else { return nil }
            return "\(column) = \(attribute.type.swiftValue(from: values[index]).map { "\($0)" } ?? "nil")"
        }
        guard !named.isEmpty, named.count == columns.count else {
            return ObjectGraphError(.constraintViolation, "cannot insert \(entity.name): row \(row): \(error.message); nothing was inserted",
                                    underlying: error)
        }
        return .batchInsertUniqueness(entity: entity, row: row, detail: named.joined(separator: ", "), underlying: error)
    }

    /// Deletes the rows `plan` selects and what the delete rules reach from them
    /// (``BatchDelete``), in one transaction.
    package func batchDelete(_ entity: EntityDescription, plan: FetchPlan, listingIDs: Bool) throws -> BatchResult {
        try perform { connection in
            try connection.inTransaction {
                try BatchDelete.run(selectedBy: plan, listingIDs: listingIDs, model: model, layouts: layoutByEntity, dialect: .sqlite,
                                    session: BatchSession(store: self, connection: connection)) {
                    let layout = layout(for: entity)
                    return try keys(FetchSQL.statement(for: plan, layout: layout, dialect: .sqlite), layout.soleEntityIndex, connection)
                }
            }
        }
    }

    /// A batch delete's statements, run on the writer's connection.
    private struct BatchSession: BatchDeleteSession {
        let store: SQLiteStore
        let connection: SQLiteConnection

        func keys(_ select: SQLFragment, soleEntity: Int?) throws -> [ObjectID] { try store.keys(select, soleEntity, connection) }

        func run(_ statement: SQLFragment) throws -> Int {
            let prepared = try connection.cachedStatement(statement.sql)
            try prepared.bind(statement.arguments)
            return try prepared.run()
        }

        func willDelete(from entity: EntityDescription) throws { try store.recordHighestKey(of: entity, connection) }

        /// The update hook reports keys, not entities: only for a table of one entity.
        func listsDeletedKeys(of layout: TableLayout) -> Bool { layout.soleEntityIndex != nil }

        /// Collects the deleted rows' keys with the update hook as the statement runs, a
        /// callback per row where a `SELECT` beforehand read them again (not `RETURNING`,
        /// which made a 300,000-row `DELETE` four times slower in SQLite).
        func deleteListingKeys(_ delete: SQLFragment, of layout: TableLayout, appendingTo ids: inout [ObjectID]) throws {
            let before = ids.count
            let changed = try connection.collectingDeletedRows(from: layout.table, entityIndex: layout.soleEntityIndex!, into: &ids) {
                try run(delete)
            }
            guard ids.count - before == changed else {
                throw ObjectGraphError(.storeFailure,
                    "batch delete from \(layout.table): \(changed) rows deleted, \(ids.count - before) reported; nothing was deleted")
            }
        }
    }

    private func keys(_ select: SQLFragment, _ soleEntity: Int?, _ connection: SQLiteConnection) throws -> [ObjectID] {
        let statement = try connection.cachedStatement(select.sql)
        try statement.bind(select.arguments)
        var ids: [ObjectID] = []
        try statement.forEachRow { ids.append($0.objectID(soleEntity)) }
        return ids
    }
}
