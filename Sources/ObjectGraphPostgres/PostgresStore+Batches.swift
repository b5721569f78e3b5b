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
            try session.runAll(statements.map { ($0.sql, $0.arguments) })
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
            try session.run(SchemaSQL.updateRows(table: layout.table, columns: assignments.map(\.0)),
                            assignments.map(\.1) + [FetchSQL.keyList(ids.map(\.key), dialect: .postgreSQL)])
            try announce(inserted: [], updated: ids, deleted: [], session)
            return ids
        }
    }

    /// What a batch delete did: rows deleted (cascades included), rows whose references it
    /// cleared, and rows whose relationship-derived attributes it recomputed.
    struct BatchDeletion {
        var deleted: [ObjectID] = []
        var nullified: [ObjectID] = []
        var recomputed: [ObjectID] = []
        fileprivate var seen = Set<ObjectID>()
        /// Rows that lost a related row or a reference and derive a value from that relationship.
        fileprivate var touched = Set<ObjectID>()
    }

    /// Deletes the rows `plan` selects, applies every delete rule in SQL, and
    /// recomputes the derived attributes (`ingredients.@count`, `photo != nil`) of the rows
    /// that remain but lost a related row.
    package func batchDelete(_ entity: EntityDescription, plan: FetchPlan) throws -> BatchResult {
        try write { connection in
            do {
                var deletion = BatchDeletion()
                try deleteRows(try keys(of: plan, connection), connection, &deletion)
                let survivors = deletion.touched.subtracting(deletion.seen)
                for (entityIndex, group) in Dictionary(grouping: survivors, by: \.entityIndex).sorted(by: { $0.key < $1.key }) {
                    let entity = model.entities[Int(entityIndex)]
                    guard !entity.relationshipDerivedAttributes.isEmpty else { continue }
                    try run(SchemaSQL.recomputeDerived(entity.relationshipDerivedAttributes, table: layout(for: entity).table,
                                                       destinationTable: { self.layout(for: $0).table }),
                            [FetchSQL.keyList(group.map(\.key), dialect: .postgreSQL)], connection)
                    deletion.recomputed += group
                }
                var result = BatchResult()
                result.deletedIDs = deletion.deleted
                result.nullifiedIDs = deletion.nullified
                result.recomputedIDs = deletion.recomputed
                try announce(inserted: [], updated: deletion.nullified + deletion.recomputed, deleted: deletion.deleted, connection)
                return result
            }
        }
    }

    /// The IDs a plan selects, read on `session` (inside the batch's transaction).
    private func keys(of plan: FetchPlan, _ session: PostgresSession) throws -> [ObjectID] {
        var keysPlan = plan
        keysPlan.output = .keys
        guard let select = FetchSQL.exactStatement(for: keysPlan, layout: layout(for: plan.entity), dialect: .postgreSQL) else { return try fetchIDs(keysPlan) }
        return try keys(select, session)
    }

    private func keys(_ select: SQLFragment, _ session: PostgresSession) throws -> [ObjectID] {
        try session.run(select.text, select.arguments).rows.compactMap { row in
            guard case .integer(let key) = row[0], case .integer(let entity) = row[1] else { return nil }
            return ObjectID(entityIndex: Int(entity), key: key)
        }
    }

    /// Deletes rows (grouped by concrete entity), cascading and nullifying by the model's rules.
    private func deleteRows(_ ids: [ObjectID], _ connection: PostgresSession, _ deletion: inout BatchDeletion) throws {
        let fresh = ids.filter { deletion.seen.insert($0).inserted }
        guard !fresh.isEmpty else { return }
        deletion.deleted += fresh
        let byEntity = Dictionary(grouping: fresh, by: \.entityIndex)
        for (entityIndex, group) in byEntity.sorted(by: { $0.key < $1.key }) {
            let entity = model.entities[Int(entityIndex)]
            let keys = FetchSQL.keyList(group.map(\.key), dialect: .postgreSQL)
            for relationship in entity.relationships {
                let destination = relationship.destination!
                let destinationLayout = layout(for: destination)
                // The destinations derive a value (a count, a nil test) from the inverse.
                let derives = relationship.inverse.isDerivationSource
                // Where the destinations are: rows pointing back at the deleted ones through the
                // inverse's column (the inverse is a to-one); rows this relationship's own column
                // points to (a to-one whose inverse is to-many); rows of the join table (many-to-
                // many), whose pairs go with the deleted rows whatever the rule. Nullify has work
                // only in the first case; a cascade or a deny looks in all three.
                let pointsBack = !relationship.inverse.isToMany
                if relationship.isManyToMany {
                    let join = SchemaNaming.joinTable(for: relationship)
                    var targets: [ObjectID] = []
                    if relationship.deleteRule == .cascade || relationship.deleteRule == .deny || derives {
                        targets = try self.keys(FetchSQL.selectJoinedDestinations(of: relationship, layout: destinationLayout, keys: keys, dialect: .postgreSQL), connection)
                            .filter { !deletion.seen.contains($0) }
                    }
                    if relationship.deleteRule == .deny, !targets.isEmpty { throw denied(entity, relationship, targets.count) }
                    try run(SchemaSQL.deleteJoinRows(join.table, column: join.sourceColumn, keyList: true), [keys], connection)
                    if derives { deletion.touched.formUnion(targets) }
                    if relationship.deleteRule == .cascade, !targets.isEmpty {
                        try deleteRows(targets, connection, &deletion)
                    }
                    continue
                }
                let select: SQLFragment
                if pointsBack {
                    select = FetchSQL.selectReferencing(destinationLayout, entity: destination, column: relationship.inverse.name, keys: keys, dialect: .postgreSQL)
                } else {
                    guard relationship.deleteRule == .cascade || relationship.deleteRule == .deny || derives else { continue }
                    select = FetchSQL.selectReferenced(layout(for: entity), relationship: relationship, keys: keys, distinct: false, dialect: .postgreSQL)
                }
                let targets = try self.keys(select, connection).filter { !deletion.seen.contains($0) }
                guard !targets.isEmpty else { continue }
                // A to-many inverse loses these rows whatever the rule.
                if derives && !pointsBack { deletion.touched.formUnion(targets) }
                switch relationship.deleteRule {
                case .cascade:
                    try deleteRows(targets, connection, &deletion)
                case .nullify:
                    guard pointsBack else { break }
                    let columns = [relationship.inverse.name] + (SchemaNaming.entityColumn(for: relationship.inverse).map { [$0] } ?? [])
                    try run(SchemaSQL.nullify(table: destinationLayout.table, columns: columns),
                            [FetchSQL.keyList(targets.map(\.key), dialect: .postgreSQL)], connection)
                    deletion.nullified += targets
                    if derives { deletion.touched.formUnion(targets) }
                case .deny:
                    throw denied(entity, relationship, targets.count)
                case .noAction:
                    break
                }
            }
            try run(SchemaSQL.deleteRows(table: layout(for: entity).table), [keys], connection)
        }
    }

    private func denied(_ entity: EntityDescription, _ relationship: RelationshipDescription, _ count: Int) -> ObjectGraphError {
        ObjectGraphError(.validation,
            "cannot delete \(entity.name): '\(relationship.name)' denies deletion while it holds \(count) \(relationship.destination.name) object\(count == 1 ? "" : "s"); nothing was deleted")
    }

    private func run(_ sql: String, _ arguments: [StoredValue], _ session: PostgresSession) throws {
        try session.run(sql, arguments)
    }
}
