import CSQLiteBaseline

/// The write workloads: bulk inserts in batches, and inserts committed one by one.
extension RawSQLite {
    /// The user table, laid out as ObjectGraph lays out its `User` entity.
    static let createUsers = #"CREATE TABLE "User" ("_pk" INTEGER PRIMARY KEY, "_ent" INTEGER NOT NULL, "name" TEXT, "city" TEXT)"#

    /// Inserts `count` users with two strings into a new file, committing every `batch` rows
    /// (a batch of 1 leaves each insert to its own autocommit transaction), then checks the count.
    /// Each INSERT writes one row, or `rowsPerStatement` rows where the batch has that many left.
    static func insertUsers(path: String, count: Int, batch: Int, rowsPerStatement: Int = 1) -> Sample {
        let db = open(path)
        defer { close(db) }
        exec(db, createUsers)
        /// The INSERT of `rows` users.
        func insertSQL(rows: Int) -> String {
            #"INSERT INTO "User" ("_ent", "name", "city") VALUES "# + Array(repeating: "(?, ?, ?)", count: rows).joined(separator: ", ")
        }
        let insert = prepare(db, insertSQL(rows: 1)), insertMany = prepare(db, insertSQL(rows: rowsPerStatement))
        let sample = Sample.measure {
            if batch > 1 { exec(db, "BEGIN") }
            var index = 0
            while index < count {
                // As many rows as fit before the batch's end, up to `rowsPerStatement`.
                let batchEnd = batch > 1 ? min(count, (index / batch + 1) * batch) : index + 1
                let rows = batchEnd - index >= rowsPerStatement ? rowsPerStatement : 1
                let statement = rows == 1 ? insert : insertMany
                for row in 0..<Int32(rows) {
                    sqlite3_bind_int64(statement, 3 * row + 1, 0)
                    bind(statement, 3 * row + 2, "User \(index)")
                    bind(statement, 3 * row + 3, BenchmarkData.city(index))
                    index += 1
                }
                precondition(sqlite3_step(statement) == SQLITE_DONE)
                sqlite3_reset(statement)
                if batch > 1, index % batch == 0 {
                    exec(db, "COMMIT")
                    exec(db, "BEGIN")
                }
            }
            if batch > 1 { exec(db, "COMMIT") }
        }
        sqlite3_finalize(insert)
        sqlite3_finalize(insertMany)
        checkUsers(path: path, count: count)
        return sample
    }

    /// Traps unless the file at `path` holds users 0…`count` − 1: the row count and the sum of
    /// the names' lengths. Every engine's insert is checked this way.
    static func checkUsers(path: String, count: Int) {
        let db = open(path)
        defer { close(db) }
        precondition(scalar(db, #"SELECT count(*) FROM "User""#) == Int64(count), "\(path): wrong user count")
        precondition(scalar(db, #"SELECT sum(length("name")) FROM "User""#) == Int64(BenchmarkData.userNameBytes(count)),
                     "\(path): wrong user names")
    }
}
