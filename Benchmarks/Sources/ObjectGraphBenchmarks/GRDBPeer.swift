import Foundation
import GRDB

/// GRDB records over a `DatabaseQueue`: the peer to compare with, on the same SQLite library,
/// with the same settings as the raw baseline (WAL, `synchronous = NORMAL`).
enum GRDBPeer {
    /// A user row as a GRDB record; the inserted row ID is written back, as ObjectGraph does.
    final class User: FetchableRecord, PersistableRecord {
        static let databaseTableName = "User"
        var id: Int64?
        let name: String
        let city: String

        init(name: String, city: String) {
            self.name = name
            self.city = city
        }

        init(row: Row) {
            id = row["_pk"]
            name = row["name"]
            city = row["city"]
        }

        func encode(to container: inout PersistenceContainer) {
            container["_pk"] = id
            container["_ent"] = 0
            container["name"] = name
            container["city"] = city
        }

        func didInsert(_ inserted: InsertionSuccess) {
            id = inserted.rowID
        }
    }

    /// A word row of an ObjectGraph store's `Word` table as a GRDB record.
    final class Word: FetchableRecord, TableRecord {
        static let databaseTableName = "Word"
        let id: Int64
        let word: String
        let length: Int64

        init(row: Row) {
            id = row[0]
            word = row[1]
            length = row[2]
        }
    }

    static func open(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    /// Inserts `count` users with two strings, one write transaction per `batch` rows.
    static func insertUsers(path: String, count: Int, batch: Int) throws {
        let queue = try open(path)
        try queue.write { db in
            try db.execute(sql: #"CREATE TABLE "User" ("_pk" INTEGER PRIMARY KEY, "_ent" INTEGER NOT NULL, "name" TEXT, "city" TEXT)"#)
        }
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
        let saved = try queue.read { db in try User.fetchCount(db) }
        precondition(saved == count)
    }

    /// Fetches every word of the fixture into records (the queue is opened before the clock).
    static func fetchWords(path: String) throws -> (run: () throws -> [Word], close: () throws -> Void) {
        let queue = try open(path)
        return ({
            try queue.read { db in try Word.fetchAll(db, sql: #"SELECT "_pk", "word", "length" FROM "Word""#) }
        }, {
            try queue.close()
        })
    }
}
