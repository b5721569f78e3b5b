/// One save's changes as rows: what a context hands a store to write in one transaction.
///
/// A store sees no objects. Each inserted or updated row is a run of ``values`` in its
/// table's column order (``TableLayout``, without `_pk` and `_ent`); a value that is the key
/// of another row is listed in ``references`` by its ID instead, because that ID may still be
/// temporary: the store gives every inserted row with a temporary ID a key, writes each
/// reference with the key of its row, and returns the permanent IDs from its save.
package struct StoreChanges {
    /// A row to insert: every column, `values[start ..< start + width]`, where `width` is
    /// the number of columns of its table after `_pk` and `_ent`.
    package struct Insert {
        package let id: ObjectID
        package let start: Int
    }

    /// Changed columns of a saved row: column `columns[i]` (an index of ``TableLayout``,
    /// `_pk` being 0) takes `values[start + i]`. With a `version`, the row is written only if
    /// it is still at that version (optimistic locking); nil when it was never loaded.
    package struct Update {
        package let id: ObjectID
        package let columns: [Int]
        package let start: Int
        package let version: Int64?
    }

    /// `values[position]` is the key of the row of `id`.
    package struct Reference {
        package let position: Int
        package let id: ObjectID
    }

    /// A pair added to or removed from a many-to-many relationship.
    package struct JoinChange {
        package let relationship: RelationshipDescription
        package let source: ObjectID
        package let destination: ObjectID
        package let isInsertion: Bool
    }

    package var inserts: [Insert] = []
    package var updates: [Update] = []
    /// Rows to delete, with their rows in many-to-many join tables.
    package var deletes: [ObjectID] = []
    package var values: [StoredValue] = []
    package var references: [Reference] = []
    package var joins: [JoinChange] = []
    /// Metadata to write in the same transaction (nil removes a key).
    package var metadata: [String: String?] = [:]

    /// The keys of the saved rows (permanent IDs) this save points at through to-one values
    /// and new many-to-many pairs, by the index of their root entity (their table), sorted
    /// and each once. Each must still be in the store when the save's rows are written:
    /// another context or process may have deleted it after this context read it, and the
    /// save would then leave a key that points at nothing. Rows the save inserts are left out.
    package func referencedSavedKeys(model: ObjectModel) -> [(rootIndex: Int, keys: [Int64])] {
        guard !references.isEmpty || !joins.isEmpty else { return [] }
        var keysByRoot = [[Int64]](repeating: [], count: model.entities.count)
        func want(_ id: ObjectID) {
            guard !id.isTemporary else { return }
            keysByRoot[model.entities[Int(id.entityIndex)].root.index].append(id.key)
        }
        for reference in references { want(reference.id) }
        for join in joins where join.isInsertion {
            want(join.source)
            want(join.destination)
        }
        return keysByRoot.indices.compactMap { index in
            guard !keysByRoot[index].isEmpty else { return nil }
            keysByRoot[index].sort()
            var unique: [Int64] = []
            unique.reserveCapacity(keysByRoot[index].count)
            for key in keysByRoot[index] where key != unique.last { unique.append(key) }
            return (index, unique)
        }
    }

    /// The error for a save that points at rows no longer in the store (`isMissing`), naming
    /// the first object and relationship that does: `objectNotFound`.
    package func danglingReferenceError(
        model: ObjectModel, layout: (EntityDescription) -> TableLayout, isMissing: (ObjectID) -> Bool
    ) -> ObjectGraphError {
        let gone = " is no longer in the store (deleted by another context or process); nothing was saved"
        if let reference = references.first(where: { !$0.id.isTemporary && isMissing($0.id) }) {
            // The row whose run of values holds the reference, and the column it is in.
            let runs = inserts.map { ($0.id, $0.start, nil as [Int]?) } + updates.map { ($0.id, $0.start, $0.columns) }
            if let (owner, start, columns) = runs.filter({ $0.1 <= reference.position }).max(by: { $0.1 < $1.1 }) {
                // `columns` start after `_pk` and `_ent`, where an update's column indexes start at 2.
                let column = columns.map { $0[reference.position - start] - 2 } ?? reference.position - start
                return ObjectGraphError(.objectNotFound, "cannot save \(model.describe(owner)): its "
                    + "\(layout(model.entities[Int(owner.entityIndex)]).columns[column]), \(model.describe(reference.id)),\(gone)")
            }
        }
        if let join = joins.first(where: { join in
            join.isInsertion && [join.source, join.destination].contains { !$0.isTemporary && isMissing($0) }
        }) {
            let name = join.relationship.name, source = model.describe(join.source), destination = model.describe(join.destination)
            return ObjectGraphError(.objectNotFound, !join.destination.isTemporary && isMissing(join.destination)
                ? "cannot save \(source): its \(name) would hold \(destination), which\(gone)"
                : "cannot save \(destination): \(source) (whose \(name) would hold it)\(gone)")
        }
        return ObjectGraphError(.objectNotFound, "cannot save: a row this save points at\(gone)")
    }

    /// Whether there is nothing to write.
    var isEmpty: Bool {
        inserts.isEmpty && updates.isEmpty && deletes.isEmpty && joins.isEmpty && metadata.isEmpty
    }
}

/// Rows a save found changed by another save since they were loaded: the save wrote
/// nothing, and the context resolves the conflicts by its merge policy.
package struct SaveConflicts: Error {
    /// The objects whose rows changed underneath.
    package let ids: [ObjectID]

    /// Reports conflicts for `ids`.
    package init(ids: [ObjectID]) { self.ids = ids }
}

extension StoreChanges {
    /// The key each row of a save is written with: a permanent ID's own, or for a temporary
    /// ID the key the store gave the row inserted with it.
    package struct Keys {
        /// The key the store gave each inserted row that has a temporary ID.
        private var keys: [ObjectID: Int64] = [:]
        private let model: ObjectModel

        /// The keys of `changes`, whose inserts the store gave `ids` (in order).
        package init(_ changes: borrowing StoreChanges, ids: [ObjectID], model: ObjectModel) {
            self.model = model
            guard !changes.references.isEmpty || !changes.joins.isEmpty else { return }
            keys.reserveCapacity(changes.inserts.count)
            for (insert, id) in zip(changes.inserts, ids) where insert.id.isTemporary {
                keys[insert.id] = id.key
            }
        }

        /// The key of the row of `id`.
        /// - Throws: `validation` for a temporary ID that this save does not insert.
        package func key(of id: ObjectID) throws -> Int64 {
            guard id.isTemporary else { return id.key }
            if let key = keys[id] { return key }
            throw ObjectGraphError(.validation,
                "\(model.describe(id)) is referenced but was never saved: insert it in the same context, or remove the reference")
        }
    }

    /// The value this save writes to column `column` (a table column, from 2) of the row of
    /// `id`, taken from `values` (``values`` or their resolved copy): an insert's, or an
    /// update's for a column it changes; nil for a column the update leaves as it was, or a
    /// row the save does not write. For the messages of a violated uniqueness constraint.
    package func writtenValue(ofColumn column: Int, of id: ObjectID, in values: [StoredValue]) -> StoredValue? {
        if let insert = inserts.first(where: { $0.id == id }) { return values[insert.start + column - 2] }
        guard let update = updates.first(where: { $0.id == id }),
              let position = update.columns.firstIndex(of: column) else { return nil }
        return values[update.start + position]
    }

    /// ``values`` with every reference written as the key of its row.
    package func resolvedValues(_ keys: Keys) throws -> [StoredValue] {
        var resolved = values
        for reference in references { resolved[reference.position] = .integer(try keys.key(of: reference.id)) }
        return resolved
    }
}
