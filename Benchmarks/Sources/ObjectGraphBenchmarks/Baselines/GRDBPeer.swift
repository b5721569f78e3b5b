import Foundation
import GRDB

/// GRDB records over a `DatabaseQueue`: the peer to compare with, on the same SQLite library,
/// with the same settings as the raw baseline (WAL, `synchronous = NORMAL`).
///
/// Each run opens its queue before the clock starts; writes go through `queue.write`,
/// reads through `queue.read`, as an app written with GRDB would do them.
enum GRDBPeer {
    /// A user row as a GRDB record; the inserted row ID is written back, as ObjectGraph does.
    final class User: FetchableRecord, PersistableRecord {
        /// The table, laid out as ObjectGraph lays out its `User` entity.
        static let databaseTableName = "User"
        /// The row ID, once inserted.
        var id: Int64?
        /// The user's name.
        let name: String
        /// The user's city.
        let city: String

        /// Makes an unsaved user.
        init(name: String, city: String) {
            self.name = name
            self.city = city
        }

        /// Decodes a row.
        init(row: Row) {
            id = row["_pk"]
            name = row["name"]
            city = row["city"]
        }

        /// Encodes the columns to insert.
        func encode(to container: inout PersistenceContainer) {
            container["_pk"] = id
            container["_ent"] = 0
            container["name"] = name
            container["city"] = city
        }

        /// Keeps the row ID the insert made.
        func didInsert(_ inserted: InsertionSuccess) {
            id = inserted.rowID
        }
    }

    /// A word row of an ObjectGraph store's `Word` table as a GRDB record.
    final class Word: FetchableRecord, TableRecord {
        /// The fixture's table.
        static let databaseTableName = "Word"
        /// The row's key.
        let id: Int64
        /// The word.
        let word: String
        /// The word's length in UTF-8 bytes, as stored.
        let length: Int64

        /// Decodes a row of `SELECT _pk, word, length`.
        init(row: Row) {
            id = row[0]
            word = row[1]
            length = row[2]
        }
    }

    /// Opens a queue on `path` in WAL mode with ``RawSQLite/settings``.
    static func open(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in try db.execute(sql: RawSQLite.settings) }
        return try DatabaseQueue(path: path, configuration: configuration)
    }
}
