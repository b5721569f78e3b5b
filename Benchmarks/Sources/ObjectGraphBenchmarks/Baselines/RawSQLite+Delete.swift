import CSQLiteBaseline

/// The delete workload: parents with three children each, deleted with the children.
extension RawSQLite {
    /// Fills the `Parent` and `Child` tables of an ObjectGraph store: parents 1…`parents`,
    /// children 1…3×`parents`, child k belonging to parent (k − 1) / 3 + 1 (untimed fixture).
    static func fillParents(path: String, parents: Int, parentEntity: Int, childEntity: Int) {
        let db = open(path)
        defer { close(db) }
        exec(db, "BEGIN")
        let parent = prepare(db, #"INSERT INTO "Parent" ("_pk", "_ent", "name") VALUES (?, ?, ?)"#)
        let child = prepare(db, #"INSERT INTO "Child" ("_pk", "_ent", "position", "parent") VALUES (?, ?, ?, ?)"#)
        for key in 1...parents {
            sqlite3_bind_int64(parent, 1, Int64(key))
            sqlite3_bind_int64(parent, 2, Int64(parentEntity))
            bind(parent, 3, "Parent \(key)")
            precondition(sqlite3_step(parent) == SQLITE_DONE)
            sqlite3_reset(parent)
            for position in 0..<3 {
                sqlite3_bind_int64(child, 1, Int64((key - 1) * 3 + position + 1))
                sqlite3_bind_int64(child, 2, Int64(childEntity))
                sqlite3_bind_int64(child, 3, Int64(position))
                sqlite3_bind_int64(child, 4, Int64(key))
                precondition(sqlite3_step(child) == SQLITE_DONE)
                sqlite3_reset(child)
            }
        }
        sqlite3_finalize(parent)
        sqlite3_finalize(child)
        exec(db, "COMMIT")
    }

    /// Deletes every parent with one `DELETE`, and their children with one more, in one
    /// transaction (timed); checks the rows each statement deleted and that both tables are empty.
    static func deleteAllParents(path: String, parents: Int) -> Sample {
        let db = open(path)
        defer { close(db) }
        let children = prepare(db, #"DELETE FROM "Child" WHERE "parent" IN (SELECT "_pk" FROM "Parent")"#)
        let all = prepare(db, #"DELETE FROM "Parent""#)
        defer {
            sqlite3_finalize(children)
            sqlite3_finalize(all)
        }
        var deleted: [Int32] = []
        let sample = Sample.measure {
            exec(db, "BEGIN")
            for statement in [children, all] {
                precondition(sqlite3_step(statement) == SQLITE_DONE)
                deleted.append(sqlite3_changes(db))
            }
            exec(db, "COMMIT")
        }
        precondition(deleted == [Int32(parents * 3), Int32(parents)])
        checkEmpty(db)
        return sample
    }

    /// Deletes the parents one by one, each after its children, committing every `batch`
    /// parents (timed; the keys are read first); checks that both tables are empty.
    static func deleteParentsOneByOne(path: String, parents: Int, batch: Int) -> Sample {
        let db = open(path)
        defer { close(db) }
        let select = prepare(db, #"SELECT "_pk" FROM "Parent""#)
        var keys: [Int64] = []
        while sqlite3_step(select) == SQLITE_ROW { keys.append(sqlite3_column_int64(select, 0)) }
        sqlite3_finalize(select)
        precondition(keys.count == parents)
        let children = prepare(db, #"DELETE FROM "Child" WHERE "parent" = ?"#)
        let parent = prepare(db, #"DELETE FROM "Parent" WHERE "_pk" = ?"#)
        defer {
            sqlite3_finalize(children)
            sqlite3_finalize(parent)
        }
        var deletedChildren = 0
        let sample = Sample.measure {
            exec(db, "BEGIN")
            for (index, key) in keys.enumerated() {
                sqlite3_bind_int64(children, 1, key)
                precondition(sqlite3_step(children) == SQLITE_DONE)
                deletedChildren += Int(sqlite3_changes(db))
                sqlite3_reset(children)
                sqlite3_bind_int64(parent, 1, key)
                precondition(sqlite3_step(parent) == SQLITE_DONE && sqlite3_changes(db) == 1)
                sqlite3_reset(parent)
                if (index + 1) % batch == 0 {
                    exec(db, "COMMIT")
                    exec(db, "BEGIN")
                }
            }
            exec(db, "COMMIT")
        }
        precondition(deletedChildren == parents * 3)
        checkEmpty(db)
        return sample
    }

    /// Traps unless the parent and child tables are both empty.
    private static func checkEmpty(_ db: OpaquePointer) {
        precondition(scalar(db, #"SELECT count(*) FROM "Parent""#) == 0 && scalar(db, #"SELECT count(*) FROM "Child""#) == 0)
    }
}
