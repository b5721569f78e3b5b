import CSQLiteBaseline

/// The write workloads: bulk inserts in batches, and inserts committed one by one.
extension RawSQLite {
    /// The user table, laid out as ObjectGraph lays out its `User` entity.
    static let createUsers = #"CREATE TABLE "User" ("_pk" INTEGER PRIMARY KEY, "_ent" INTEGER NOT NULL, "name" TEXT, "city" TEXT)"#

    /// Inserts `count` users with two strings into a new file, committing every `batch` rows
    /// (a batch of 1 leaves each insert to its own autocommit transaction), then checks the count.
    static func insertUsers(path: String, count: Int, batch: Int) -> Sample {
        let db = open(path)
        defer { close(db) }
        exec(db, createUsers)
        let insert = prepare(db, #"INSERT INTO "User" ("_ent", "name", "city") VALUES (?, ?, ?)"#)
        let sample = Sample.measure {
            if batch > 1 { exec(db, "BEGIN") }
            for index in 0..<count {
                sqlite3_bind_int64(insert, 1, 0)
                bind(insert, 2, "User \(index)")
                bind(insert, 3, BenchmarkData.city(index))
                precondition(sqlite3_step(insert) == SQLITE_DONE)
                sqlite3_reset(insert)
                if batch > 1, (index + 1) % batch == 0 {
                    exec(db, "COMMIT")
                    exec(db, "BEGIN")
                }
            }
            if batch > 1 { exec(db, "COMMIT") }
        }
        sqlite3_finalize(insert)
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
