
/// Writes: each one builds the new contents aside, under the store's lock, and swaps them in
/// only when everything succeeded.
extension MemoryStore {
    package func save(_ changes: StoreChanges, beforeCommit: () throws -> Void) throws -> [ObjectID] {
        try save(changes, beforeCommit: beforeCommit, backing: nil)
    }

    /// Writes a save's rows; with a `backing`, keys and the staged file come from it.
    func save(_ changes: StoreChanges, beforeCommit: () throws -> Void, backing: (any MemoryStoreBacking)?) throws -> [ObjectID] {
        let ids = try write(backing, beforeCommit: beforeCommit) { next in
            let ids = try assignKeys(changes.inserts.map(\.id), in: &next, backing) { position in
                let insert = changes.inserts[position]
                let width = layout(for: model.entities[Int(insert.id.entityIndex)]).width
                return [.null, .integer(Int64(insert.id.entityIndex))] + changes.values[insert.start..<insert.start + width - 2] + [.integer(0)]
            }
            let keys = StoreChanges.Keys(changes, ids: ids, model: model)
            let values = try changes.resolvedValues(keys)
            for id in changes.deletes { remove(id, from: &next) }
            var touched: [ObjectID] = []
            for (insert, id) in zip(changes.inserts, ids) {
                let layout = layout(for: model.entities[Int(id.entityIndex)])
                let row = [.integer(id.key), .integer(Int64(id.entityIndex))]
                    + values[insert.start..<insert.start + layout.width - 2] + [.integer(0)]
                next.tables[layout.root.index, default: [:]][id.key] = Array(row)
                touched.append(id)
            }
            var conflicts: [ObjectID] = []
            for update in changes.updates {
                let layout = layout(for: model.entities[Int(update.id.entityIndex)])
                guard var row = next.tables[layout.root.index]?[update.id.key] else {
                    throw ObjectGraphError(.objectNotFound,
                        "cannot save the changes to \(model.describe(update.id)): its row is no longer in the store (deleted by another context or process); nothing was saved")
                }
                guard case .integer(let version) = row[layout.versionColumn] else { continue }
                if let expected = update.version, expected != version {
                    conflicts.append(update.id)
                    continue
                }
                for (offset, column) in update.columns.enumerated() { row[column] = values[update.start + offset] }
                row[layout.versionColumn] = .integer(version + 1)
                next.tables[layout.root.index]![update.id.key] = row
                touched.append(update.id)
            }
            if !conflicts.isEmpty { throw SaveConflicts(ids: conflicts) }
            for join in changes.joins {
                let (name, owned) = Self.join(of: join.relationship)
                // Both sides record the change; the side that owns the join writes it.
                guard owned else { continue }
                let pair = Pair(source: try keys.key(of: join.source), destination: try keys.key(of: join.destination))
                if join.isInsertion { next.joins[name, default: []].insert(pair) } else { next.joins[name]?.remove(pair) }
            }
            for (rootIndex, keys) in changes.referencedSavedKeys(model: model) where keys.contains(where: { next.tables[rootIndex]?[$0] == nil }) {
                throw changes.danglingReferenceError(model: model, layout: layout(for:)) { id in
                    self.model.entities[Int(id.entityIndex)].root.index == rootIndex && next.tables[rootIndex]?[id.key] == nil
                }
            }
            try checkUniqueness(of: touched, in: next)
            for (key, value) in changes.metadata { next.metadata[key] = value }
            return ids
        }
        return ids
    }

    package func reservePermanentIDs(for ids: [ObjectID]) throws -> [ObjectID] { try reservePermanentIDs(for: ids, backing: nil) }

    /// Reserves keys; a `backing` chooses them and keeps nothing (no row was written).
    func reservePermanentIDs(for ids: [ObjectID], backing: (any MemoryStoreBacking)?) throws -> [ObjectID] {
        try write(nil) { next in try assignKeys(ids, in: &next, backing) }
    }

    package func batchInsert(_ entity: EntityDescription, rows: [[String: any Sendable]]) throws -> [ObjectID] {
        try batchInsert(entity, rows: rows, backing: nil)
    }

    /// Inserts rows; with a `backing`, keys and the staged file come from it.
    func batchInsert(_ entity: EntityDescription, rows: [[String: any Sendable]], backing: (any MemoryStoreBacking)?) throws -> [ObjectID] {
        let layout = layout(for: entity)
        let prepared = try layout.batchRows(rows, of: entity)
        return try write(backing) { next in
            let ids = try assignKeys(prepared.map { _ in ObjectID(entityIndex: entity.index, key: 0, temporaryTag: 1) },
                                     in: &next, backing) { prepared[$0] }
            for (id, var row) in zip(ids, prepared) {
                row[0] = .integer(id.key)
                next.tables[layout.root.index, default: [:]][id.key] = row
            }
            try checkUniqueness(of: ids, in: next) { failed, constraint, values, detail in
                // The batch's last row with those values is the one that repeats them, as in SQL.
                let columns = constraint.map { layout.columnIndex[$0]! }
                let row = prepared.lastIndex { row in columns.map { row[$0] } == values }
                return .batchInsertUniqueness(entity: failed, row: row.map { $0 + 1 }, detail: detail)
            }
            return ids
        }
    }

    package func batchUpdate(_ entity: EntityDescription, plan: FetchPlan, values: [String: StoredValue]) throws -> [ObjectID] {
        try batchUpdate(entity, plan: plan, values: values, backing: nil)
    }

    /// Sets values on the rows a plan selects; with a `backing`, the staged file comes from it.
    func batchUpdate(
        _ entity: EntityDescription, plan: FetchPlan, values: [String: StoredValue], backing: (any MemoryStoreBacking)?
    ) throws -> [ObjectID] {
        let layout = layout(for: entity)
        var assignments: [(Int, StoredValue)] = []
        for (key, value) in values {
            assignments.append((layout.columnIndex[key]!, value))
            for target in entity.attribute(named: key)?.derivedTargets ?? [] {
                assignments.append((layout.columnIndex[target.name]!, Derivations.derive(value, target.derivation!)))
            }
        }
        return try write(backing) { next in
            let ids = try fetchIDs(plan, in: next)
            for id in ids {
                guard var row = next.tables[layout.root.index]?[id.key], case .integer(let version) = row[layout.versionColumn] else { continue }
                for (column, value) in assignments { row[column] = value }
                row[layout.versionColumn] = .integer(version + 1)
                next.tables[layout.root.index]![id.key] = row
            }
            try checkUniqueness(of: ids, in: next) { entity, constraint, _, detail in
                let error = ObjectGraphError(.constraintViolation, "another \(entity.root.name) already has \(detail)")
                return .batchUpdateUniqueness(entity: entity, columns: constraint, values: values, storeMessage: error.message,
                                              underlying: error)
            }
            return ids
        }
    }

    /// Lists every deleted row whatever `listingIDs` says: the keys are at hand.
    package func batchDelete(_ entity: EntityDescription, plan: FetchPlan, listingIDs: Bool) throws -> BatchResult {
        try batchDelete(entity, plan: plan, backing: nil)
    }

    /// Deletes the rows a plan selects; with a `backing`, the staged file comes from it.
    func batchDelete(_ entity: EntityDescription, plan: FetchPlan, backing: (any MemoryStoreBacking)?) throws -> BatchResult {
        try write(backing) { next in
            var deletion = Deletion()
            try deleteRows(try fetchIDs(plan, in: next), from: &next, &deletion)
            var result = BatchResult()
            for id in deletion.touched.subtracting(deletion.seen).sorted() {
                let entity = model.entities[Int(id.entityIndex)]
                guard !entity.relationshipDerivedAttributes.isEmpty,
                      var row = next.tables[entity.root.index]?[id.key] else { continue }
                let object = RowObject(row, self, next)
                let layout = layout(for: entity)
                for attribute in entity.relationshipDerivedAttributes {
                    let relationship = attribute.sourceRelationship!
                    row[layout.columnIndex[attribute.name]!] = .integer(relationship.isToMany
                        ? Int64(object.rows(of: relationship).count)
                        : object.evaluationObject(of: relationship) == nil ? 0 : 1)
                }
                next.tables[entity.root.index]![id.key] = row
                result.recomputedIDs.append(id)
            }
            result.deletedIDs = deletion.deleted
            result.deletedCount = deletion.deleted.count
            result.nullifiedIDs = deletion.nullified
            return result
        }
    }

    // MARK: Helpers

    /// Runs `body` on a copy of the contents under the lock; the copy replaces the contents
    /// only when `body` returns, a `backing` has staged it, and `beforeCommit` (the other
    /// stores of a save) succeeded; the backing then commits its staged copy.
    func write<T>(
        _ backing: (any MemoryStoreBacking)?, beforeCommit: () throws -> Void = {}, _ body: (inout Contents) throws -> T
    ) throws -> T {
        let result = try contents.withLock { contents -> T in
            var next = contents
            let result = try body(&next)
            let staged = try backing?.stage(next, replacing: contents)
            do {
                try beforeCommit()
            } catch {
                staged?.discard()
                throw error
            }
            try staged?.commit()
            contents = next
            return result
        }
        count(transactions: 1)
        return result
    }

    /// The IDs a plan selects, on contents being written.
    private func fetchIDs(_ plan: FetchPlan, in contents: Contents) throws -> [ObjectID] {
        var keys = plan
        keys.output = .keys
        return select(keys, in: contents).map { row in
            guard case .integer(let key) = row[0], case .integer(let entity) = row[1] else { preconditionFailure("a row without keys") }
            return ObjectID(entityIndex: Int(entity), key: key)
        }
    }

    /// Permanent IDs for the temporary ones among `ids`: from each table's last key, or
    /// from `backing`, which must give keys no row of the table has.
    /// `row(i)` is the row inserted with `ids[i]` (its references maybe not yet resolved), for the backing.
    private func assignKeys(
        _ ids: [ObjectID], in next: inout Contents, _ backing: (any MemoryStoreBacking)?, row: (Int) -> Row? = { _ in nil }
    ) throws -> [ObjectID] {
        // The keys given so far, per table: the rows they go with are not in `next` yet.
        var given: [Int: Set<Int64>] = [:]
        return try ids.enumerated().map { position, id in
            guard id.isTemporary else { return id }
            let entity = model.entities[Int(id.entityIndex)]
            let root = entity.root.index
            let last = next.lastKey[root] ?? (next.tables[root]?.keys.max() ?? 0)
            guard let backing else {
                next.lastKey[root] = last + 1
                return ObjectID(entityIndex: entity.index, key: last + 1)
            }
            let key = try backing.newKey(for: entity, row: row(position), in: next)
            if next.tables[root]?[key] != nil || !given[root, default: []].insert(key).inserted {
                throw ObjectGraphError(.storeFailure,
                    "\(backing.storeName) gave a new \(entity.name) the key \(key), which another \(entity.root.name) has; nothing was saved")
            }
            next.lastKey[root] = max(last, key)
            return ObjectID(entityIndex: entity.index, key: key)
        }
    }

    /// Removes a row and its pairs in every many-to-many relationship.
    private func remove(_ id: ObjectID, from next: inout Contents) {
        let entity = model.entities[Int(id.entityIndex)]
        next.tables[entity.root.index]?[id.key] = nil
        for relationship in entity.relationships where relationship.isManyToMany {
            let (name, owned) = Self.join(of: relationship)
            next.joins[name] = next.joins[name]?.filter { (owned ? $0.source : $0.destination) != id.key }
        }
    }

    /// Throws `constraintViolation` when a touched row repeats another row's values of a
    /// uniqueness constraint (rows with a nil among them never conflict, as in SQL); a save's
    /// error unless `failure` makes another from the entity, the constraint's attributes,
    /// their values, and those said as `name = Ana`.
    private func checkUniqueness(
        of touched: [ObjectID], in contents: Contents,
        failure: (EntityDescription, [String], [StoredValue], String) -> ObjectGraphError = { entity, _, _, detail in
            ObjectGraphError(.constraintViolation, "cannot save \(entity.name): another \(entity.root.name) already has \(detail); nothing was saved")
        }
    ) throws {
        let roots = Set(touched.map { model.entities[Int($0.entityIndex)].root.index })
        for root in roots {
            let rows = contents.tables[root] ?? [:]
            for entity in model.entities[root].selfAndDescendants {
                let members = Set(entity.selfAndDescendants.map(\.index))
                let layout = layout(for: entity)
                for constraint in entity.uniquenessConstraints {
                    let columns = constraint.map { layout.columnIndex[$0]! }
                    var seen = Set<[StoredValue]>()
                    for row in rows.values {
                        guard case .integer(let index) = row[1], members.contains(Int(index)) else { continue }
                        let values = columns.map { row[$0] }
                        guard !values.contains(where: \.isNull) else { continue }
                        if !seen.insert(values).inserted {
                            throw failure(entity, constraint, values, entity.describe(constraint, values))
                        }
                    }
                }
            }
        }
    }

    /// What a batch delete did so far.
    private struct Deletion {
        var deleted: [ObjectID] = []
        var nullified: [ObjectID] = []
        var seen = Set<ObjectID>()
        /// Rows that lost a related row or a reference and derive a value from that relationship.
        var touched = Set<ObjectID>()
    }

    /// Deletes rows, applying each relationship's delete rule in every direction.
    private func deleteRows(_ ids: [ObjectID], from next: inout Contents, _ deletion: inout Deletion) throws {
        let fresh = ids.filter { deletion.seen.insert($0).inserted }
        guard !fresh.isEmpty else { return }
        deletion.deleted += fresh
        for (entityIndex, group) in Dictionary(grouping: fresh, by: \.entityIndex).sorted(by: { $0.key < $1.key }) {
            let entity = model.entities[Int(entityIndex)]
            for relationship in entity.relationships {
                let derives = relationship.inverse.isDerivationSource
                let pointsBack = !relationship.inverse.isToMany
                let snapshot = next
                var targets: [ObjectID] = []
                for id in group {
                    let object = RowObject(key: id.key, entity: entity, row: snapshot.tables[entity.root.index]?[id.key], self, snapshot)
                    if relationship.isToMany {
                        targets += object.rows(of: relationship).map { RowObject($0, self, snapshot).evaluationObjectID }
                    } else if let destination = object.evaluationObject(of: relationship) {
                        targets.append(destination.evaluationObjectID)
                    }
                }
                targets = targets.filter { !deletion.seen.contains($0) }
                if relationship.isManyToMany {
                    if relationship.deleteRule == .deny, !targets.isEmpty { throw denied(entity, relationship, targets.count) }
                    if derives { deletion.touched.formUnion(targets) }
                    if relationship.deleteRule == .cascade { try deleteRows(targets, from: &next, &deletion) }
                    continue
                }
                guard !targets.isEmpty else { continue }
                if derives && !pointsBack { deletion.touched.formUnion(targets) }
                switch relationship.deleteRule {
                case .cascade:
                    try deleteRows(targets, from: &next, &deletion)
                case .nullify:
                    guard pointsBack else { break }
                    let layout = layout(for: relationship.destination)
                    let columns = [relationship.inverse.name] + (TableLayout.entityColumn(for: relationship.inverse).map { [$0] } ?? [])
                    for id in targets {
                        guard var row = next.tables[layout.root.index]?[id.key] else { continue }
                        for column in columns { row[layout.columnIndex[column]!] = .null }
                        next.tables[layout.root.index]![id.key] = row
                    }
                    deletion.nullified += targets
                    if derives { deletion.touched.formUnion(targets) }
                case .deny:
                    throw denied(entity, relationship, targets.count)
                case .noAction:
                    break
                }
            }
            for id in group { remove(id, from: &next) }
        }
    }

    private func denied(_ entity: EntityDescription, _ relationship: RelationshipDescription, _ count: Int) -> ObjectGraphError {
        ObjectGraphError(.validation,
            "cannot delete \(entity.name): '\(relationship.name)' denies deletion while it holds \(count) \(relationship.destination.name) object\(count == 1 ? "" : "s"); nothing was deleted")
    }
}
