import CSQLiteBaseline
import Foundation

/// Hand-written sqlite3 C calls filling plain Swift final classes: the limit to compare with.
///
/// Statements are prepared before the clock starts and reused with bind, step and reset;
/// text is copied in when bound and copied out when read. Every database uses WAL and
/// `synchronous = NORMAL`, as ObjectGraph's stores do. Only this folder calls sqlite3.
enum RawSQLite {
    /// A fetched word row as a plain object.
    final class Word {
        /// The row's key.
        let id: Int64
        /// The word.
        let word: String
        /// The word's length in UTF-8 bytes, as stored.
        let length: Int64

        /// Makes a word row.
        init(id: Int64, word: String, length: Int64) {
            self.id = id
            self.word = word
            self.length = length
        }
    }

    /// The settings every engine's connection gets besides WAL, ObjectGraph's own: a commit
    /// that does not wait for the disk, a 32 MiB page cache, a 256 MiB memory map, and a
    /// checkpoint when the log reaches 65,536 pages.
    static let settings = """
        PRAGMA synchronous = NORMAL; PRAGMA cache_size = -32768; PRAGMA mmap_size = 268435456; \
        PRAGMA wal_autocheckpoint = 65536
        """

    /// Opens (or creates) a database file in WAL mode with ``settings``.
    static func open(_ path: String) -> OpaquePointer {
        var db: OpaquePointer?
        let code = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        precondition(code == SQLITE_OK, "cannot open \(path): \(code)")
        exec(db!, "PRAGMA journal_mode = WAL; " + settings)
        return db!
    }

    /// Closes a database opened with ``open(_:)`` once its statements are finalized.
    static func close(_ db: OpaquePointer) { sqlite3_close_v2(db) }

    /// Runs SQL without results; traps on an error.
    static func exec(_ db: OpaquePointer, _ sql: String) {
        precondition(sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK, String(cString: sqlite3_errmsg(db)))
    }

    /// Prepares one statement; traps on an error. Finalize it with `sqlite3_finalize`.
    static func prepare(_ db: OpaquePointer, _ sql: String) -> OpaquePointer {
        var statement: OpaquePointer?
        precondition(sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, String(cString: sqlite3_errmsg(db)))
        return statement!
    }

    /// The single integer a query such as `SELECT count(*) …` returns.
    static func scalar(_ db: OpaquePointer, _ sql: String) -> Int64 {
        let statement = prepare(db, sql)
        defer { sqlite3_finalize(statement) }
        precondition(sqlite3_step(statement) == SQLITE_ROW)
        return sqlite3_column_int64(statement, 0)
    }

    /// Binds `text` to parameter `index`, copied by SQLite (`SQLITE_TRANSIENT`).
    @inline(__always)
    static func bind(_ statement: OpaquePointer, _ index: Int32, _ text: String) {
        var text = text
        text.withUTF8 { buffer in
            _ = buffer.withMemoryRebound(to: CChar.self) {
                sqlite3_bind_text(statement, index, $0.baseAddress, Int32($0.count), transient)
            }
        }
    }

    /// The text of column `index` of the current row, copied into a Swift string.
    @inline(__always)
    static func text(_ statement: OpaquePointer, _ index: Int32) -> String {
        guard let text = sqlite3_column_text(statement, index) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// SQLite's "copy this value now" destructor.
    static var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

    /// Fills the `Word` table of an ObjectGraph store with `count` rows, keys 1…count (untimed fixture).
    static func fillWords(path: String, count: Int, entityIndex: Int) {
        let db = open(path)
        defer { close(db) }
        exec(db, "BEGIN")
        let insert = prepare(db, #"INSERT INTO "Word" ("_pk", "_ent", "word", "length") VALUES (?, ?, ?, ?)"#)
        for index in 1...count {
            let word = BenchmarkData.word(index)
            sqlite3_bind_int64(insert, 1, Int64(index))
            sqlite3_bind_int64(insert, 2, Int64(entityIndex))
            bind(insert, 3, word)
            sqlite3_bind_int64(insert, 4, Int64(word.utf8.count))
            precondition(sqlite3_step(insert) == SQLITE_DONE)
            sqlite3_reset(insert)
        }
        sqlite3_finalize(insert)
        exec(db, "COMMIT")
    }
}
