package import ObjectGraph

/// What a batch delete asks of its store, inside the store's write transaction.
package protocol BatchDeleteSession {
    /// The IDs of the rows a `SELECT` of `_pk` and `_ent` returns; `soleEntity`, when the
    /// table holds one entity (``TableLayout/soleEntityIndex``), is every row's entity.
    func keys(_ select: SQLFragment, soleEntity: Int?) throws -> [ObjectID]
    /// Runs a statement and returns how many rows it changed.
    @discardableResult
    func run(_ statement: SQLFragment) throws -> Int
    /// Runs before rows are first deleted from `entity`'s table (the SQLite store records the
    /// table's largest key there, so that no key is handed out twice).
    func willDelete(from entity: EntityDescription) throws
    /// Whether ``deleteListingKeys(_:of:appendingTo:)`` can tell the rows it deletes from `layout`'s table.
    func listsDeletedKeys(of layout: TableLayout) -> Bool
    /// Runs `delete`, a `DELETE` of rows of `layout`'s table, and appends the IDs of the rows
    /// it deleted to `ids`, learnt while it runs, where a `SELECT` beforehand would read them
    /// twice. Appending spares a second list as long as the first (hundreds of thousands of
    /// cascaded rows) and the copy between them.
    func deleteListingKeys(_ delete: SQLFragment, of layout: TableLayout, appendingTo ids: inout [ObjectID]) throws
}

/// A batch delete in SQL, one algorithm for both stores: deletes the rows a plan selected,
/// applies every delete rule with statements over whole sets of rows (cascade, nullify,
/// deny, and the pairs of many-to-many relationships), and recomputes the derived attributes
/// (`ingredients.@count`, `photo != nil`) of the rows that remain but lost a related row.
package struct BatchDelete<Session: BatchDeleteSession> {
    private let model: ObjectModel
    private let layouts: [TableLayout]
    private let dialect: SQLDialect
    private let session: Session
    private var deletion: Deletion
    /// Whether every deleted row's ID is read, for ``BatchResult/deletedIDs``.
    private let listsIDs: Bool
    /// Rows deleted by a condition without reading their keys.
    private var unlisted = 0

    /// Deletes the rows that `plan` selects, and what the rules reach from them.
    ///
    /// Without `listingIDs`, rows that go wholesale are deleted without reading their keys,
    /// and only counted: every row of the plan's entity, when there is no predicate, limit
    /// or offset and the entity has no sub-entities; and the rows a cascade reaches through
    /// a reference back to deleted rows, when none of their own rules has work to do.
    /// - Parameters:
    ///   - layouts: each entity's table layout, by entity index.
    ///   - selectedIDs: reads the IDs of the rows `plan` selects, when they are needed.
    /// - Throws: ``ObjectGraphError`` `validation` when a deny rule holds; the store's errors.
    package static func run(
        selectedBy plan: FetchPlan, listingIDs: Bool, model: ObjectModel, layouts: [TableLayout], dialect: SQLDialect,
        session: Session, selectedIDs: () throws -> [ObjectID]
    ) throws -> BatchResult {
        var delete = BatchDelete(model: model, layouts: layouts, dialect: dialect, session: session,
                                 deletion: Deletion(model: model), listsIDs: listingIDs)
        // Without a predicate, limit or offset the rows are all of the entity's: they go by the
        // entity's restriction (none when it owns its table), which no delete rule changes, so
        // the statements that apply the rules find them by it too. A predicate is not
        // repeated: the cascades may change what it matches.
        let removal: Removal
        if plan.predicate == nil && plan.limit == 0 && plan.offset == 0 {
            let restriction = { alias in
                SchemaNaming.entityRestriction(for: plan.entity, alias: alias, includesSubentities: plan.includesSubentities)
            }
            removal = .matching(restriction(FetchSQL.alias),
                                rows: FetchSQL.SelectedRows(of: layouts[plan.entity.index].table, where: restriction("d")))
        } else {
            removal = .byKeys
        }
        if !listingIDs, case .matching(let condition, let rows?) = removal,
           plan.entity.subentities.isEmpty || !plan.includesSubentities {
            try delete.deleteEvery(plan.entity, condition, rows: rows)
        } else {
            try delete.deleteRows(try selectedIDs(), removal)
        }
        var result = BatchResult()
        result.deletedIDs = delete.deletion.deleted
        result.deletedCount = delete.deletion.deleted.count + delete.unlisted
        result.nullifiedIDs = delete.deletion.nullified
        result.recomputedIDs = try delete.recomputeDerivedAttributes()
        return result
    }

    /// How rows found by a statement go: by their keys, bound as one list; or, when they are
    /// the rows of one table that a condition selected, by the same condition (`nil`: every
    /// row), which spares building and parsing a list of their keys, and lets SQLite empty a
    /// whole table at once. `rows`, when the condition stays true of exactly these rows
    /// while the delete rules run, is the membership test that finds them for the rules.
    private enum Removal {
        case byKeys
        case matching(SQLFragment?, rows: FetchSQL.SelectedRows? = nil)
    }

    /// The rows of one entity that a batch delete removes, as the membership test that
    /// statements find them by: a subquery that selects them, or the bound list of their
    /// keys, made once and only if a statement needs it.
    private final class Rows {
        private let keys: [Int64]
        private let dialect: SQLDialect
        private var test: SQLFragment?
        /// The rows as a condition selected them, when it did.
        let selected: FetchSQL.SelectedRows?

        init(_ keys: [Int64], selected: FetchSQL.SelectedRows?, dialect: SQLDialect) {
            self.keys = keys
            self.dialect = dialect
            self.selected = selected
            test = selected?.membership
        }

        /// `IN (…)`, or the dialect's test against a bound list.
        var membership: SQLFragment {
            if let test { return test }
            let list = FetchSQL.inKeys(FetchSQL.keyList(keys, dialect: dialect), dialect: dialect)
            test = list
            return list
        }
    }

    /// Deletes rows (grouped by concrete entity), cascading and nullifying by the model's rules.
    /// `ids` holds each row once (every statement that finds rows selects distinct ones).
    private mutating func deleteRows(_ ids: [ObjectID], _ removal: Removal) throws {
        let fresh = deletion.notDeleted(ids)
        guard !fresh.isEmpty else { return }
        // The condition also selects rows deleted already, which a cycle of cascades may
        // still be working on: then every row goes by its key, as the rules say.
        let removal = fresh.count == ids.count ? removal : .byKeys
        deletion.record(fresh)
        var keysByEntity = [[Int64]](repeating: [], count: model.entities.count)
        for id in fresh { keysByEntity[Int(id.entityIndex)].append(id.key) }
        // A subquery selects the rows of one entity only if they are all of one entity.
        var selected: FetchSQL.SelectedRows?
        if case .matching(_, let rows?) = removal, keysByEntity.count(where: { !$0.isEmpty }) == 1 { selected = rows }
        for (entityIndex, group) in keysByEntity.enumerated() where !group.isEmpty {
            let entity = model.entities[entityIndex]
            let rows = Rows(group, selected: selected, dialect: dialect)
            for relationship in entity.relationships {
                try apply(relationship, of: entity, rows: rows)
            }
            guard case .byKeys = removal else { continue }
            try session.willDelete(from: entity)
            try session.run("DELETE FROM \(table: layouts[entityIndex].table) WHERE \"_pk\" \(rows.membership)")
        }
        guard case .matching(let condition, _) = removal else { return }
        let entity = model.entities[Int(fresh[0].entityIndex)]
        let deleted = try deleteMatching(entity, condition)
        // Only the cascades' own deletes ran since the rows were selected, and no delete rule
        // sets a reference: a condition that now matches other rows is a defect, stopped here.
        guard deleted == fresh.count else {
            throw ObjectGraphError(.storeFailure,
                "batch delete of \(entity.root.name): \(deleted) rows matched where \(fresh.count) were selected; nothing was deleted")
        }
    }

    /// Deletes every row of `entity` (no sub-entity's) that `condition` selects, and what
    /// the rules reach from them, without reading their keys; `rows` is the membership
    /// test that finds them while the rules run.
    private mutating func deleteEvery(_ entity: EntityDescription, _ condition: SQLFragment?, rows: FetchSQL.SelectedRows) throws {
        // Every row of the entity goes: a rule that reaches one of them finds it deleted.
        deletion.deletesEvery(entity)
        let members = Rows([], selected: rows, dialect: dialect)
        for relationship in entity.relationships {
            try apply(relationship, of: entity, rows: members)
        }
        unlisted += try deleteMatching(entity, condition)
    }

    /// Deletes the rows of `entity`'s table that `condition` (on the alias ``FetchSQL/alias``)
    /// selects, every row when nil; returns how many went.
    private func deleteMatching(_ entity: EntityDescription, _ condition: SQLFragment?) throws -> Int {
        try session.run(deleteStatement(entity, condition))
    }

    /// The `DELETE` of the rows of `entity`'s table that `condition` selects, after telling
    /// the session that rows of the table go.
    private func deleteStatement(_ entity: EntityDescription, _ condition: SQLFragment?) throws -> SQLFragment {
        try session.willDelete(from: entity)
        var delete: SQLFragment = "DELETE FROM \(table: layouts[entity.index].table) AS \(raw: FetchSQL.alias)"
        if let condition { delete.append(" WHERE " + condition) }
        return delete
    }

    /// Whether rows of `entity` (or its sub-entities) that a cascade reaches through `back`,
    /// their reference to the rows being deleted, can go by that reference before their
    /// keys are read: none of their other relationships has work to do when they go (no
    /// pairs to remove, no rows pointing back at them, no rule that cascades or denies, no
    /// derived value to recompute).
    private static func goesUnread(_ entity: EntityDescription, reachedThrough back: RelationshipDescription) -> Bool {
        entity.selfAndDescendants.allSatisfy { member in
            member.relationships.allSatisfy { relationship in
                relationship === back
                    || (!relationship.isManyToMany && relationship.inverse.isToMany && !relationship.inverse.isDerivationSource
                        && relationship.deleteRule != .cascade && relationship.deleteRule != .deny)
            }
        }
    }

    /// Applies the delete rule of `relationship` to `rows` of `entity`, which are about to go.
    private mutating func apply(_ relationship: RelationshipDescription, of entity: EntityDescription, rows: Rows) throws {
        let destination = relationship.destination!
        let destinationLayout = layouts[destination.index]
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
                targets = deletion.notDeleted(try session.keys(
                    FetchSQL.selectJoinedDestinations(of: relationship, layout: destinationLayout, rows: rows.membership),
                    soleEntity: destinationLayout.soleEntityIndex))
            }
            if relationship.deleteRule == .deny, !targets.isEmpty { throw denied(entity, relationship, targets.count) }
            try session.run("DELETE FROM \(table: join.table) WHERE \(column: join.sourceColumn) \(rows.membership)")
            if derives { deletion.touched.formUnion(targets) }
            if relationship.deleteRule == .cascade, !targets.isEmpty { try deleteRows(targets, .byKeys) }
            return
        }
        // Such rows go by one statement that finds them by their reference: only counted, or
        // listed as it deletes them where the session can tell them. Not while rows of their
        // table are recorded as deleted: those may still be in the table (a cascade back to
        // where it began), and would be deleted, and counted, twice.
        if pointsBack, relationship.deleteRule == .cascade, Self.goesUnread(destination, reachedThrough: relationship.inverse),
           !deletion.hasRecordedRows(inTableOf: destination), !listsIDs || session.listsDeletedKeys(of: destinationLayout) {
            let condition = FetchSQL.referencing(destination, column: relationship.inverse.name, rows: rows.membership)
            if listsIDs {
                let delete = try deleteStatement(destination, condition), session = session
                try deletion.recordAppended { try session.deleteListingKeys(delete, of: destinationLayout, appendingTo: &$0) }
            } else {
                unlisted += try deleteMatching(destination, condition)
            }
            return
        }
        let select: SQLFragment
        if pointsBack {
            // Rows a condition selected are joined; a list of keys is a membership test.
            let column = relationship.inverse.name
            select = rows.selected.map { FetchSQL.selectReferencing(destinationLayout, entity: destination, column: column, joining: $0, dialect: dialect) }
                ?? FetchSQL.selectReferencing(destinationLayout, entity: destination, column: column, rows: rows.membership, dialect: dialect)
        } else {
            guard relationship.deleteRule == .cascade || relationship.deleteRule == .deny || derives else { return }
            select = FetchSQL.selectReferenced(layouts[entity.index], relationship: relationship, rows: rows.membership, distinct: true)
        }
        let found = try session.keys(select, soleEntity: destinationLayout.soleEntityIndex)
        let targets = deletion.notDeleted(found)
        guard !targets.isEmpty else { return }
        // A to-many inverse loses these rows whatever the rule.
        if derives && !pointsBack { deletion.touched.formUnion(targets) }
        switch relationship.deleteRule {
        case .cascade:
            // Rows that point back at the deleted ones go by that same condition.
            try deleteRows(found, pointsBack
                ? .matching(FetchSQL.referencing(destination, column: relationship.inverse.name, rows: rows.membership))
                : .byKeys)
        case .nullify:
            guard pointsBack else { break }
            let assignments = ([relationship.inverse.name] + (SchemaNaming.entityColumn(for: relationship.inverse).map { [$0] } ?? []))
                .map { "\(SQLIdentifier($0).quoted) = NULL" }.joined(separator: ", ")
            try session.run("UPDATE \(table: destinationLayout.table) SET \(raw: assignments) WHERE \"_pk\" "
                + FetchSQL.inKeys(FetchSQL.keyList(targets.map(\.key), dialect: dialect), dialect: dialect))
            deletion.nullified += targets
            if derives { deletion.touched.formUnion(targets) }
        case .deny:
            throw denied(entity, relationship, targets.count)
        case .noAction:
            break
        }
    }

    /// Recomputes the derived attributes of the rows that lost a related row and remain;
    /// returns their IDs.
    private mutating func recomputeDerivedAttributes() throws -> [ObjectID] {
        var survivors: [ObjectID] = []
        for id in deletion.touched where !deletion.contains(id) { survivors.append(id) }
        var recomputed: [ObjectID] = []
        for (entityIndex, group) in Dictionary(grouping: survivors, by: \.entityIndex).sorted(by: { $0.key < $1.key }) {
            let entity = model.entities[Int(entityIndex)]
            guard !entity.relationshipDerivedAttributes.isEmpty else { continue }
            let rows = "\"_pk\" " + FetchSQL.inKeys(FetchSQL.keyList(group.map(\.key), dialect: dialect), dialect: dialect)
            try session.run(SchemaSQL.recomputeDerived(entity.relationshipDerivedAttributes, table: layouts[entity.index].table,
                                                       destinationTable: { layouts[$0.index].table }, rows: rows))
            recomputed += group
        }
        return recomputed
    }

    private func denied(_ entity: EntityDescription, _ relationship: RelationshipDescription, _ count: Int) -> ObjectGraphError {
        ObjectGraphError(.validation,
            "cannot delete \(entity.name): '\(relationship.name)' denies deletion while it holds \(count) \(relationship.destination.name) object\(count == 1 ? "" : "s"); nothing was deleted")
    }

    /// What a batch delete did so far: rows deleted (cascades included), rows whose
    /// references it cleared, and rows that lost a related row or a reference and derive a
    /// value from that relationship.
    private struct Deletion {
        var deleted: [ObjectID] = []
        var nullified: [ObjectID] = []
        var touched = Set<ObjectID>()
        /// Whether rows of a table (its root entity's index) were recorded as deleted.
        private var recorded: [Bool]
        /// The keys of a table's rows in `deleted`, as a set, so a cycle of cascades stops
        /// at rows already deleted: made when a table's rows are first checked against them
        /// and kept in step afterwards. Most deletes never check (a cascade into another
        /// table finds only rows not deleted yet), and hashing hundreds of thousands of IDs
        /// cost more than the statements.
        private var deletedSets: [Set<Int64>?]
        /// Entities whose every row goes (``BatchDelete/deleteEvery(_:_:rows:)``), unread.
        private var everyRow: [Bool]
        private let rootOf: [Int]

        init(model: ObjectModel) {
            rootOf = model.entities.map(\.root.index)
            recorded = Array(repeating: false, count: rootOf.count)
            deletedSets = Array(repeating: nil, count: rootOf.count)
            everyRow = Array(repeating: false, count: rootOf.count)
        }

        /// Whether rows of `entity`'s table were recorded as deleted.
        func hasRecordedRows(inTableOf entity: EntityDescription) -> Bool { recorded[rootOf[entity.index]] }

        /// Records that every row of `entity` (not of its sub-entities) goes.
        mutating func deletesEvery(_ entity: EntityDescription) { everyRow[entity.index] = true }

        /// Whether the row of `id` was deleted already, or goes with every row of its entity.
        mutating func contains(_ id: ObjectID) -> Bool {
            if everyRow[Int(id.entityIndex)] { return true }
            let table = rootOf[Int(id.entityIndex)]
            guard recorded[table] else { return false }
            if deletedSets[table] == nil {
                let rootOf = rootOf
                deletedSets[table] = Set(deleted.lazy.filter { rootOf[Int($0.entityIndex)] == table }.map(\.key))
            }
            return deletedSets[table]!.contains(id.key)
        }

        /// `ids` without the rows deleted already.
        mutating func notDeleted(_ ids: [ObjectID]) -> [ObjectID] {
            guard ids.contains(where: { everyRow[Int($0.entityIndex)] || recorded[rootOf[Int($0.entityIndex)]] }) else {
                return ids
            }
            return ids.filter { !contains($0) }
        }

        /// Records rows as deleted (each once: callers pass only rows not deleted yet).
        mutating func record(_ ids: [ObjectID]) {
            let start = deleted.count
            deleted += ids
            marked(from: start)
        }

        /// Records the rows `delete` appends to the deleted ones (each once: rows not deleted yet).
        mutating func recordAppended(by delete: (inout [ObjectID]) throws -> Void) rethrows {
            let start = deleted.count
            try delete(&deleted)
            marked(from: start)
        }

        /// Keeps the tables' flags and sets in step with the rows of `deleted` from `start` on, just added.
        private mutating func marked(from start: Int) {
            let keepsSets = deletedSets.contains { $0 != nil }
            for id in deleted[start...] {
                let table = rootOf[Int(id.entityIndex)]
                recorded[table] = true
                if keepsSets { deletedSets[table]?.insert(id.key) }
            }
        }
    }
}

extension SchemaSQL {
    /// Recomputes relationship-derived attributes of the `rows` of `table` (a condition on
    /// its columns) from the rows in the store: `photo != nil` tests the row's own column,
    /// `ingredients.@count` counts the rows pointing back at it (or its join-table pairs).
    package static func recomputeDerived(
        _ attributes: [AttributeDescription], table: String, destinationTable: (EntityDescription) -> String, rows: SQLFragment
    ) -> SQLFragment {
        let row = SQLIdentifier(table).quoted
        let assignments = attributes.map { attribute -> String in
            let relationship = attribute.sourceRelationship!
            let value: String
            if !relationship.isToMany {
                value = "CASE WHEN \(row).\(SQLIdentifier(SchemaNaming.column(for: relationship)).quoted) IS NULL THEN 0 ELSE 1 END"
            } else if relationship.isManyToMany {
                let join = SchemaNaming.joinTable(for: relationship)
                value = "(SELECT count(*) FROM \(SQLIdentifier(join.table).quoted) WHERE \(SQLIdentifier(join.sourceColumn).quoted) = \(row).\"_pk\")"
            } else {
                let inverse = relationship.inverse!
                var condition = "d.\(SQLIdentifier(SchemaNaming.column(for: inverse)).quoted) = \(row).\"_pk\""
                if let restriction = SchemaNaming.entityRestriction(for: inverse.entity, alias: "d") {
                    condition += " AND " + restriction.sql
                }
                value = "(SELECT count(*) FROM \(SQLIdentifier(destinationTable(relationship.destination)).quoted) AS d WHERE \(condition))"
            }
            return "\(SQLIdentifier(SchemaNaming.column(for: attribute)).quoted) = \(value)"
        }
        return "UPDATE \(raw: row) SET \(raw: assignments.joined(separator: ", ")) WHERE " + rows
    }
}
