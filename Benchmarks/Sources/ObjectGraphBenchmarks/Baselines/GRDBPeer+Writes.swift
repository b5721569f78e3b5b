import GRDB

/// The write workloads: bulk inserts in batches, and inserts committed one by one.
extension GRDBPeer {
    /// Inserts `count` users with two strings into a new file, one `write` per `batch` rows
    /// (a batch of 1 is one write per insert), then checks the rows as
    /// ``RawSQLite/checkUsers(path:count:)`` does.
    static func insertUsers(path: String, count: Int, batch: Int) throws -> Sample {
        let queue = try open(path)
        try queue.write { db in try db.execute(sql: RawSQLite.createUsers) }
        let sample = try Sample.measure {
            var index = 0
            while index < count {
                let end = min(index + batch, count)
                try queue.write { db in
                    for row in index..<end {
                        try User(name: "User \(row)", city: BenchmarkData.city(row)).insert(db)
                    }
                }
                index = end
            }
        }
        try queue.close()
        RawSQLite.checkUsers(path: path, count: count)
        return sample
    }
}
