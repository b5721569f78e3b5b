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
                key = max(key, connection.nextKeys[layout.table] ?? 1)
                connection.nextKeys.removeAll()
                var ids: [ObjectID] = []
                let statement = try connection.cachedStatement(tableSQL(for: entity).insert)
                for values in prepared {
                    statement.reset()
                    try statement.bind(.integer(key), at: 1)
                    try statement.bind(.integer(Int64(entity.index)), at: 2)
                    for column in 2..<layout.width { try statement.bind(values[column], at: Int32(column + 1)) }
                    try statement.run()
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
                let ids = try keys(FetchSQL.statement(for: plan, layout: layout, dialect: .sqlite), connection)
                guard !ids.isEmpty else { return [] }
                let statement = try connection.cachedStatement(SchemaSQL.updateRows(table: layout.table, columns: assignments.map(\.0)))
                try statement.bind(assignments.map(\.1) + [FetchSQL.keyList(ids.map(\.key), dialect: .sqlite)])
                try statement.run()
                return ids
            }
        }
    }

    /// What a batch delete did: rows deleted (cascades included), rows whose references it
    /// cleared, and rows whose relationship-derived attributes it recomputed.
    struct BatchDeletion {
        var deleted: [ObjectID] = []
        var nullified: [ObjectID] = []
        var recomputed: [ObjectID] = []
        /// Rows that lost a related row or a reference and derive a value from that relationship.
        fileprivate var touched = Set<ObjectID>()
        /// The keys deleted so far, by table (its root entity's index), so a cycle of
        /// cascades stops at rows already deleted.
        private var deletedKeys: [[Int64]]
        /// `deletedKeys` of a table as a set, made when a table's rows are first checked
        /// against them and kept in step afterwards: most deletes never check (a cascade
        /// into another table finds only rows not deleted yet), and hashing hundreds of
        /// thousands of IDs cost more than the statements.
        private var deletedSets: [Set<Int64>?]
        private let rootOf: [Int]

        init(model: ObjectModel) {
            rootOf = model.entities.map(\.root.index)
            deletedKeys = Array(repeating: [], count: rootOf.count)
            deletedSets = Array(repeating: nil, count: rootOf.count)
        }

        /// Whether the row of `id` was deleted already.
        fileprivate mutating func contains(_ id: ObjectID) -> Bool {
            let table = rootOf[Int(id.entityIndex)]
            guard !deletedKeys[table].isEmpty else { return false }
            if deletedSets[table] == nil { deletedSets[table] = Set(deletedKeys[table]) }
            return deletedSets[table]!.contains(id.key)
        }

        /// `ids` without the rows deleted already.
        fileprivate mutating func notDeleted(_ ids: [ObjectID]) -> [ObjectID] {
            guard ids.contains(where: { !deletedKeys[rootOf[Int($0.entityIndex)]].isEmpty }) else { return ids }
            return ids.filter { !contains($0) }
        }

        /// Records rows as deleted (each once: callers pass only rows not deleted yet).
        fileprivate mutating func record(_ ids: [ObjectID]) {
            deleted += ids
            for id in ids {
                let table = rootOf[Int(id.entityIndex)]
                deletedKeys[table].append(id.key)
                deletedSets[table]?.insert(id.key)
            }
        }
    }

    /// Deletes the rows `plan` selects, applies every delete rule in SQL, and
    /// recomputes the derived attributes (`ingredients.@count`, `photo != nil`) of the rows
    /// that remain but lost a related row.
    package func batchDelete(_ entity: EntityDescription, plan: FetchPlan) throws -> BatchResult {
        try perform { connection in
            try connection.inTransaction {
                var deletion = BatchDeletion(model: model)
                try deleteRows(try keys(FetchSQL.statement(for: plan, layout: layout(for: entity), dialect: .sqlite), connection), connection, &deletion)
                var survivors: [ObjectID] = []
                for id in deletion.touched where !deletion.contains(id) { survivors.append(id) }
                for (entityIndex, group) in Dictionary(grouping: survivors, by: \.entityIndex).sorted(by: { $0.key < $1.key }) {
                    let entity = model.entities[Int(entityIndex)]
                    guard !entity.relationshipDerivedAttributes.isEmpty else { continue }
                    try run(SchemaSQL.recomputeDerived(entity.relationshipDerivedAttributes, table: layout(for: entity).table,
                                                       destinationTable: { self.layout(for: $0).table }),
                            [FetchSQL.keyList(group.map(\.key), dialect: .sqlite)], connection)
                    deletion.recomputed += group
                }
                var result = BatchResult()
                result.deletedIDs = deletion.deleted
                result.nullifiedIDs = deletion.nullified
                result.recomputedIDs = deletion.recomputed
                return result
            }
        }
    }

    private func keys(_ select: SQLFragment, _ connection: SQLiteConnection) throws -> [ObjectID] {
        let statement = try connection.cachedStatement(select.sql)
        try statement.bind(select.arguments)
        var ids: [ObjectID] = []
        try statement.forEachRow { ids.append(ObjectID(entityIndex: Int($0.int64(at: 1)), key: $0.int64(at: 0))) }
        return ids
    }

    /// Deletes rows (grouped by concrete entity), cascading and nullifying by the model's rules.
    /// `ids` holds each row once (every statement that finds rows selects distinct ones).
    private func deleteRows(_ ids: [ObjectID], _ connection: SQLiteConnection, _ deletion: inout BatchDeletion) throws {
        let fresh = deletion.notDeleted(ids)
        guard !fresh.isEmpty else { return }
        deletion.record(fresh)
        var keysByEntity = [[Int64]](repeating: [], count: model.entities.count)
        for id in fresh { keysByEntity[Int(id.entityIndex)].append(id.key) }
        for (entityIndex, group) in keysByEntity.enumerated() where !group.isEmpty {
            let entity = model.entities[entityIndex]
            let keys = FetchSQL.keyList(group, dialect: .sqlite)
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
                        targets = deletion.notDeleted(try self.keys(
                            FetchSQL.selectJoinedDestinations(of: relationship, layout: destinationLayout, keys: keys, dialect: .sqlite), connection))
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
                    select = FetchSQL.selectReferencing(destinationLayout, entity: destination, column: relationship.inverse.name, keys: keys, dialect: .sqlite)
                } else {
                    guard relationship.deleteRule == .cascade || relationship.deleteRule == .deny || derives else { continue }
                    select = FetchSQL.selectReferenced(layout(for: entity), relationship: relationship, keys: keys, distinct: true, dialect: .sqlite)
                }
                let targets = deletion.notDeleted(try self.keys(select, connection))
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
                            [FetchSQL.keyList(targets.map(\.key), dialect: .sqlite)], connection)
                    deletion.nullified += targets
                    if derives { deletion.touched.formUnion(targets) }
                case .deny:
                    throw denied(entity, relationship, targets.count)
                case .noAction:
                    break
                }
            }
            try recordHighestKey(of: entity, connection)
            try run(SchemaSQL.deleteRows(table: layout(for: entity).table), [keys], connection)
        }
    }

    private func denied(_ entity: EntityDescription, _ relationship: RelationshipDescription, _ count: Int) -> ObjectGraphError {
        ObjectGraphError(.validation,
            "cannot delete \(entity.name): '\(relationship.name)' denies deletion while it holds \(count) \(relationship.destination.name) object\(count == 1 ? "" : "s"); nothing was deleted")
    }

    private func run(_ sql: String, _ arguments: [StoredValue], _ connection: SQLiteConnection) throws {
        let statement = try connection.cachedStatement(sql)
        try statement.bind(arguments)
        try statement.run()
    }
}
