package import ObjectGraph
import ObjectGraphSQL
import Foundation

extension PostgresStore {
    /// Inserts rows of `entity`, one transaction; derived attributes are computed here too.
    package func batchInsert(_ entity: EntityDescription, rows: [[String: any Sendable]]) throws -> [ObjectID] {
        let layout = layout(for: entity)
        let prepared = try layout.batchRows(rows, of: entity)
        return try write { session in
            let first = try reserveKeys(count: rows.count, table: layout.table, session)
            let statements = insertStatements(of: entity, count: prepared.count) { index in
                (first + Int64(index), prepared[index][2..<layout.width])
            }
            do {
                try session.runAll(statements.map { ($0.sql, $0.arguments) })
            } catch let error as ObjectGraphError where error.code == .constraintViolation {
                throw Self.insertUniquenessError(error, entity: entity)
            }
            let ids = prepared.indices.map { ObjectID(entityIndex: entity.index, key: first + Int64($0)) }
            try announce(inserted: ids, updated: [], deleted: [], session)
            return ids
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
        return try write { session in
            let ids = try keys(of: plan, session)
            guard !ids.isEmpty else { return [] }
            do {
                try session.run(SchemaSQL.updateRows(table: layout.table, columns: assignments.map(\.0)),
                                assignments.map(\.1) + [FetchSQL.keyList(ids.map(\.key), dialect: .postgreSQL)])
            } catch let error as ObjectGraphError where error.code == .constraintViolation {
                throw Self.updateUniquenessError(error, entity: entity, values: values)
            }
            try announce(inserted: [], updated: ids, deleted: [], session)
            return ids
        }
    }

    /// A batch insert that would give two rows the same unique values, said as the other
    /// stores say it (the server's detail is only "Key (name)=(Ada) already exists.").
    private static func insertUniquenessError(_ error: ObjectGraphError, entity: EntityDescription) -> ObjectGraphError {
        guard let key = keyDetail(error.message) else {
            return ObjectGraphError(.constraintViolation, "cannot insert \(entity.name): \(error.message); nothing was inserted",
                                    underlying: error)
        }
        let listed = key.columns.count == 1 ? "\(key.columns[0]) = \(key.values)" : "(\(key.columns.joined(separator: ", "))) = (\(key.values))"
        return .batchInsertUniqueness(entity: entity, row: nil, detail: listed, underlying: error)
    }

    /// A batch update that would give two rows the same unique values, said with the keys
    /// and values it set, as the SQLite store says it.
    private static func updateUniquenessError(
        _ error: ObjectGraphError, entity: EntityDescription, values: [String: StoredValue]
    ) -> ObjectGraphError {
        .batchUpdateUniqueness(entity: entity, columns: keyDetail(error.message)?.columns ?? [], values: values,
                               storeMessage: error.message, underlying: error)
    }

    /// Deletes the rows `plan` selects and what the delete rules reach from them
    /// (``BatchDelete``), in one transaction that also announces the changes. Lists every
    /// deleted row whatever `listingIDs` says: other processes are told of each one.
    package func batchDelete(_ entity: EntityDescription, plan: FetchPlan, listingIDs: Bool) throws -> BatchResult {
        try write { connection in
            let result = try BatchDelete.run(selectedBy: plan, listingIDs: true, model: model, layouts: layoutByEntity,
                                             dialect: .postgreSQL, session: BatchSession(store: self, session: connection)) {
                try keys(of: plan, connection)
            }
            try announce(inserted: [], updated: result.nullifiedIDs + result.recomputedIDs, deleted: result.deletedIDs, connection)
            return result
        }
    }

    /// A batch delete's statements, run on the writing session.
    private struct BatchSession: BatchDeleteSession {
        let store: PostgresStore
        let session: PostgresSession

        /// PostgreSQL's rows arrive as values: the entity column is read whatever `soleEntity` says.
        func keys(_ select: SQLFragment, soleEntity: Int?) throws -> [ObjectID] { try store.keys(select, session) }

        func run(_ statement: SQLFragment) throws -> Int { try session.run(statement.text, statement.arguments).changed }

        /// Every key is recorded when it is reserved (``PostgresStore/reserveKeys(count:table:_:)``):
        /// a delete has nothing to record.
        func willDelete(from entity: EntityDescription) throws {}

        func listsDeletedKeys(of layout: TableLayout) -> Bool { true }

        /// The statement returns the keys itself (`RETURNING`).
        func deleteListingKeys(_ delete: SQLFragment, of layout: TableLayout, appendingTo ids: inout [ObjectID]) throws {
            ids += try store.keys(delete + SQLFragment(sql: FetchSQL.returningKeys(of: layout)), session)
        }
    }

    /// The IDs a plan selects, read on `session` (inside the batch's transaction).
    private func keys(of plan: FetchPlan, _ session: PostgresSession) throws -> [ObjectID] {
        var keysPlan = plan
        keysPlan.output = .keys
        guard let select = statement(for: keysPlan) else { return try fetchIDs(keysPlan) }
        return try keys(select, session)
    }

    private func keys(_ select: SQLFragment, _ session: PostgresSession) throws -> [ObjectID] {
        try session.run(select.text, select.arguments).rows.compactMap { row in
            guard case .integer(let key) = row[0], case .integer(let entity) = row[1] else { return nil }
            return ObjectID(entityIndex: Int(entity), key: key)
        }
    }
}
