import ObjectGraph
internal import CSQLite

/// An error reported by SQLite: its extended result code, message and the SQL that failed.
///
/// Bound values are never included, so errors can be logged without leaking data.
struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_BUSY`, …).
    let code: Int32
    let message: String
    let sql: String?

    /// The primary result code (the low byte of the extended one), by name.
    var result: ResultCode { ResultCode(rawValue: code & 0xFF) }

    /// The statement stopped because the task running it was cancelled (`SQLITE_INTERRUPT`).
    var isInterrupt: Bool { result == .interrupt }

    /// SQLite's primary result codes that the store tells apart, named so no caller
    /// compares magic numbers.
    struct ResultCode: RawRepresentable, Hashable, Sendable {
        let rawValue: Int32
        init(rawValue: Int32) { self.rawValue = rawValue }

        /// Another connection holds a lock the statement needs (`SQLITE_BUSY`).
        static let busy = ResultCode(rawValue: SQLITE_BUSY)
        /// A table is locked by this connection's other work (`SQLITE_LOCKED`).
        static let locked = ResultCode(rawValue: SQLITE_LOCKED)
        /// The file is damaged (`SQLITE_CORRUPT`).
        static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
        /// The disk is full (`SQLITE_FULL`).
        static let full = ResultCode(rawValue: SQLITE_FULL)
        /// The file cannot be opened (`SQLITE_CANTOPEN`).
        static let cannotOpen = ResultCode(rawValue: SQLITE_CANTOPEN)
        /// A constraint failed: unique, not null, check, foreign key (`SQLITE_CONSTRAINT`).
        static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
        /// The file is not a database (`SQLITE_NOTADB`).
        static let notADatabase = ResultCode(rawValue: SQLITE_NOTADB)
        /// The statement was interrupted (`SQLITE_INTERRUPT`).
        static let interrupt = ResultCode(rawValue: SQLITE_INTERRUPT)
        /// The database is read-only (`SQLITE_READONLY`).
        static let readOnly = ResultCode(rawValue: SQLITE_READONLY)
        /// A generic error: SQL that does not prepare, one of SQLite's size limits among
        /// the causes (`SQLITE_ERROR`).
        static let generic = ResultCode(rawValue: SQLITE_ERROR)
    }

    var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " (while running: \(sql))" }
        return text
    }
}
