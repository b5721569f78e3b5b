internal import CSQLite

/// An error reported by SQLite: its extended result code, message and the SQL that failed.
///
/// Bound values are never included, so errors can be logged without leaking data.
struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_BUSY`, …).
    let code: Int32
    let message: String
    let sql: String?

    /// The primary result code (the low byte of the extended one).
    var primaryCode: Int32 { code & 0xFF }

    /// The statement stopped because the task running it was cancelled (`SQLITE_INTERRUPT`).
    var isInterrupt: Bool { primaryCode == SQLITE_INTERRUPT }

    var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " (while running: \(sql))" }
        return text
    }
}
