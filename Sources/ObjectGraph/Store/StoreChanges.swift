/// One save's changes as rows: what a context hands a store to write in one transaction.
///
/// A store sees no objects. Each inserted or updated row is a run of ``values`` in its
/// table's column order (``TableLayout``, without `_pk` and `_ent`); a value that is the key
/// of another row is listed in ``references`` by its ID instead, because that ID may still be
/// temporary: the store gives every inserted row with a temporary ID a key, writes each
/// reference with the key of its row, and returns the permanent IDs from its save.
struct StoreChanges {
    /// A row to insert: every column, `values[start ..< start + width]`, where `width` is
    /// the number of columns of its table after `_pk` and `_ent`.
    struct Insert {
        let id: ObjectID
        let start: Int
    }

    /// Changed columns of a saved row: column `columns[i]` (an index of ``TableLayout``,
    /// `_pk` being 0) takes `values[start + i]`.
    struct Update {
        let id: ObjectID
        let columns: [Int]
        let start: Int
    }

    /// `values[position]` is the key of the row of `id`.
    struct Reference {
        let position: Int
        let id: ObjectID
    }

    /// A pair added to or removed from a many-to-many relationship.
    struct JoinChange {
        let relationship: RelationshipDescription
        let source: ObjectID
        let destination: ObjectID
        let isInsertion: Bool
    }

    var inserts: [Insert] = []
    var updates: [Update] = []
    /// Rows to delete, with their rows in many-to-many join tables.
    var deletes: [ObjectID] = []
    var values: [StoredValue] = []
    var references: [Reference] = []
    var joins: [JoinChange] = []
    /// Metadata to write in the same transaction (nil removes a key).
    var metadata: [String: String?] = [:]

    /// Whether there is nothing to write.
    var isEmpty: Bool {
        inserts.isEmpty && updates.isEmpty && deletes.isEmpty && joins.isEmpty && metadata.isEmpty
    }
}
