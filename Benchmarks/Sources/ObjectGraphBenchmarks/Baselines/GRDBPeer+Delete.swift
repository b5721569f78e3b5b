import GRDB

/// The delete workload: parents with three children each, deleted with the children.
extension GRDBPeer {
    /// A parent row as a GRDB record, deleted by its primary key.
    final class Parent: FetchableRecord, PersistableRecord {
        /// The fixture's parent table.
        static let databaseTableName = "Parent"
        /// The row's key.
        let id: Int64
        /// The parent's name.
        let name: String

        /// Decodes a row.
        init(row: Row) {
            id = row["_pk"]
            name = row["name"]
        }

        /// Encodes the row (the key is what `delete` uses).
        func encode(to container: inout PersistenceContainer) {
            container["_pk"] = id
            container["name"] = name
        }
    }

    /// The children table, which has no record type: only requests delete from it.
    static let children = Table("Child")

    /// Deletes every parent's children with one request and every parent with another, in
    /// one write (timed); checks the rows each request deleted and that both tables are empty.
    static func deleteAllParents(path: String, parents: Int) throws -> Sample {
        let queue = try open(path)
        defer { try? queue.close() }
        var deleted: [Int] = []
        let sample = try Sample.measure {
            deleted = try queue.write { db in
                let parentKeys = Parent.select(Column("_pk"))
                return [try children.filter(parentKeys.contains(Column("parent"))).deleteAll(db),
                        try Parent.deleteAll(db)]
            }
        }
        precondition(deleted == [parents * 3, parents])
        try checkEmpty(queue)
        return sample
    }

    /// Deletes the parent records one by one, each after its children, one write per
    /// `batch` parents (timed; the records are fetched first); checks that both tables are empty.
    static func deleteParentsOneByOne(path: String, parents: Int, batch: Int) throws -> Sample {
        let queue = try open(path)
        defer { try? queue.close() }
        let records = try queue.read { db in try Parent.fetchAll(db) }
        precondition(records.count == parents)
        var deletedChildren = 0
        let sample = try Sample.measure {
            for start in stride(from: 0, to: records.count, by: batch) {
                try queue.write { db in
                    for parent in records[start..<min(start + batch, records.count)] {
                        deletedChildren += try children.filter(Column("parent") == parent.id).deleteAll(db)
                        let deleted = try parent.delete(db)
                        precondition(deleted)
                    }
                }
            }
        }
        precondition(deletedChildren == parents * 3)
        try checkEmpty(queue)
        return sample
    }

    /// Traps unless the parent and child tables are both empty.
    private static func checkEmpty(_ queue: DatabaseQueue) throws {
        let counts = try queue.read { db in (try Parent.fetchCount(db), try children.fetchCount(db)) }
        precondition(counts == (0, 0))
    }
}
