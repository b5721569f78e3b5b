import CSQLiteBaseline
import Foundation

/// Hand-written sqlite3 C calls filling plain Swift final classes: the limit to compare with.
enum RawSQLite {
    /// A fetched row as a plain object.
    final class Word {
        let id: Int64
        let word: String
        let length: Int64
        init(id: Int64, word: String, length: Int64) {
            self.id = id
            self.word = word
            self.length = length
        }
    }

    static func open(_ path: String) -> OpaquePointer {
        var db: OpaquePointer?
        precondition(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK)
        exec(db!, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        return db!
    }

    static func exec(_ db: OpaquePointer, _ sql: String) {
        precondition(sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK, String(cString: sqlite3_errmsg(db)))
    }

    static func prepare(_ db: OpaquePointer, _ sql: String) -> OpaquePointer {
        var statement: OpaquePointer?
        precondition(sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, String(cString: sqlite3_errmsg(db)))
        return statement!
    }

    /// Fills the `Word` table of an ObjectGraph store with `count` rows (untimed fixture).
    static func fillWords(path: String, count: Int, entityIndex: Int) {
        let db = open(path)
        defer { sqlite3_close_v2(db) }
        exec(db, "BEGIN")
        let insert = prepare(db, #"INSERT INTO "Word" ("_pk", "_ent", "word", "length") VALUES (?, ?, ?, ?)"#)
        for index in 1...count {
            let word = BenchmarkData.word(index)
            sqlite3_bind_int64(insert, 1, Int64(index))
            sqlite3_bind_int64(insert, 2, Int64(entityIndex))
            sqlite3_bind_text(insert, 3, word, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            sqlite3_bind_int64(insert, 4, Int64(word.utf8.count))
            precondition(sqlite3_step(insert) == SQLITE_DONE)
            sqlite3_reset(insert)
        }
        sqlite3_finalize(insert)
        exec(db, "COMMIT")
    }

    /// Fetches every word into plain objects; the statement is prepared before the clock starts.
    static func fetchWords(path: String) -> (prepare: () -> Void, run: () -> [Word], close: () -> Void) {
        let db = open(path)
        let statement = prepare(db, #"SELECT "_pk", "word", "length" FROM "Word""#)
        return ({}, {
            var words: [Word] = []
            while sqlite3_step(statement) == SQLITE_ROW {
                let id = sqlite3_column_int64(statement, 0)
                let text = sqlite3_column_text(statement, 1)!
                let count = Int(sqlite3_column_bytes(statement, 1))
                let word = String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
                words.append(Word(id: id, word: word, length: sqlite3_column_int64(statement, 2)))
            }
            sqlite3_reset(statement)
            return words
        }, {
            sqlite3_finalize(statement)
            sqlite3_close_v2(db)
        })
    }

    /// Inserts `count` users with two strings, committing every `batch` rows.
    static func insertUsers(path: String, count: Int, batch: Int) {
        let db = open(path)
        defer { sqlite3_close_v2(db) }
        exec(db, #"CREATE TABLE "User" ("_pk" INTEGER PRIMARY KEY, "_ent" INTEGER NOT NULL, "name" TEXT, "city" TEXT)"#)
        let insert = prepare(db, #"INSERT INTO "User" ("_ent", "name", "city") VALUES (?, ?, ?)"#)
        exec(db, "BEGIN")
        for index in 0..<count {
            var name = "User \(index)"
            let city = BenchmarkData.city(index)
            sqlite3_bind_int64(insert, 1, 0)
            name.withUTF8 { buffer in
                _ = buffer.withMemoryRebound(to: CChar.self) {
                    sqlite3_bind_text(insert, 2, $0.baseAddress, Int32($0.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
                }
            }
            sqlite3_bind_text(insert, 3, city, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            precondition(sqlite3_step(insert) == SQLITE_DONE)
            sqlite3_reset(insert)
            if (index + 1) % batch == 0 {
                exec(db, "COMMIT")
                exec(db, "BEGIN")
            }
        }
        exec(db, "COMMIT")
        sqlite3_finalize(insert)
        let check = prepare(db, #"SELECT count(*) FROM "User""#)
        precondition(sqlite3_step(check) == SQLITE_ROW && sqlite3_column_int64(check, 0) == Int64(count))
        sqlite3_finalize(check)
    }
}
