import ObjectGraph
internal import CSQLite
import Foundation

/// A prepared statement, finalized in `deinit`.
///
/// It refers to its connection without retaining it: the connection's statement cache
/// holds its statements, and a strong reference back would keep every connection (and its
/// file) open forever. Statements never outlive their connection: cached ones are dropped
/// in the connection's `deinit` before it closes, and the one uncached kind (the query plan
/// of `.explain`) lives inside one call on the connection. That invariant is what makes the
/// unchecked reference safe. It is `Unmanaged`, read through ``withConnection(_:)`` on the
/// paths every row takes: a checked `unowned` reference, and even an `unowned(unsafe)` one
/// whose methods are called, cost an atomic retain and release per use, three for each
/// statement a save runs and one for each value it binds.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private let connectionReference: Unmanaged<SQLiteConnection>
    let sql: String
    /// The values bound since the last reset, kept only while SQL is traced. Checked on
    /// every reset, so without dynamic exclusivity checks (a statement is confined to its
    /// connection's user, and nothing re-enters it during an access).
    @exclusivity(unchecked) private var tracedArguments: [StoredValue] = []

    /// The bytes of text and blob values bound since the bindings were last cleared, which
    /// SQLite reads in place (`SQLITE_STATIC`) instead of copying each value into memory
    /// of its own (a malloc, a copy and a free per bound string, about 600 instructions).
    /// Space is only ever appended to, so every binding that points here stays valid, until
    /// `reset()` clears the bindings (or its caller binds every placeholder anew) and the
    /// space is reused; a value that does not fit is copied by SQLite as before. Allocated
    /// on the first bind, freed after finalizing.
    @exclusivity(unchecked) private var scratch: UnsafeMutableRawPointer?
    @exclusivity(unchecked) private var scratchUsed = 0
    private static let scratchCapacity = 8_192

    init(handle: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.handle = handle
        self.connectionReference = .passUnretained(connection)
        self.sql = sql
    }

    /// The connection, for the paths that run once per statement at most (a trace, an error).
    private var connection: SQLiteConnection { connectionReference.takeUnretainedValue() }

    /// Calls `body` with the connection, without retaining it.
    @inline(__always)
    private func withConnection<Result>(_ body: (SQLiteConnection) -> Result) -> Result {
        connectionReference._withUnsafeGuaranteedRef(body)
    }

    /// Whether the connection traces its statements.
    private var isTraced: Bool { withConnection { $0.trace != nil } }

    deinit {
        sqlite3_finalize(handle)
        scratch?.deallocate()  // no statement points into it any more
    }

    /// Resets the statement so it can run again, and clears its bindings, unless the caller
    /// binds every placeholder again before the next run (`rebindsAll`): then each new
    /// binding replaces one that may point into the scratch space before SQLite reads
    /// either, and clearing them first would only cost a call per row.
    func reset(rebindsAll: Bool = false) {
        sqlite3_reset(handle)
        if !rebindsAll { sqlite3_clear_bindings(handle) }
        scratchUsed = 0  // no binding that SQLite will read points into the scratch space now
        if !tracedArguments.isEmpty { tracedArguments.removeAll() }
    }

    /// The number of placeholders in the statement.
    var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    /// Binds `count` bytes at `bytes` to placeholder `index`: from a copy in the scratch
    /// space when they fit, else copied by SQLite. `bind` receives the pointer to hand
    /// SQLite, and the destructor that goes with it.
    @inline(__always)
    private func bindBytes(
        _ bytes: UnsafeRawPointer?, count: Int,
        _ bind: (UnsafeRawPointer?, sqlite3_destructor_type?) -> Int32
    ) -> Int32 {
        guard count > 0, let bytes else { return bind(bytes, csqlite_transient()) }
        if scratch == nil { scratch = .allocate(byteCount: Self.scratchCapacity, alignment: 8) }
        guard scratchUsed + count <= Self.scratchCapacity, let base = scratch else {
            return bind(bytes, csqlite_transient())
        }
        let copy = base + scratchUsed
        copy.copyMemory(from: bytes, byteCount: count)
        scratchUsed += count
        return bind(UnsafeRawPointer(copy), nil)  // nil: SQLITE_STATIC
    }

    /// The number of result columns.
    var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// Binds `values` to the placeholders, in order.
    func bind(_ values: [StoredValue]) throws(SQLiteError) {
        for (index, value) in values.enumerated() { try bind(value, at: Int32(index + 1)) }
    }

    /// Binds one value to the 1-based placeholder `index`.
    @inline(__always)
    func bind(_ value: StoredValue, at index: Int32) throws(SQLiteError) {
        if isTraced {
            while tracedArguments.count < Int(index) { tracedArguments.append(.null) }
            tracedArguments[Int(index) - 1] = value
        }
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(handle, index)
        case .integer(let v): code = sqlite3_bind_int64(handle, index, v)
        case .real(let v): code = sqlite3_bind_double(handle, index, v)
        case .text(var v):
            code = v.withUTF8 { buffer in
                bindBytes(UnsafeRawPointer(buffer.baseAddress), count: buffer.count) { bytes, destructor in
                    sqlite3_bind_text(handle, index, bytes?.assumingMemoryBound(to: CChar.self) ?? emptyCString,
                                      Int32(buffer.count), destructor)
                }
            }
        case .blob(let v):
            code = v.withUnsafeBytes { buffer in
                bindBytes(buffer.baseAddress, count: buffer.count) { bytes, destructor in
                    sqlite3_bind_blob(handle, index, bytes ?? UnsafeRawPointer(bitPattern: 1),
                                      Int32(buffer.count), destructor)
                }
            }
        }
        guard code == SQLITE_OK else { throw error(code) }
    }

    /// Steps once; true when a row is available.
    @inline(__always)
    func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw error(code)
    }

    /// Runs the statement to completion, ignoring rows; returns the number of rows changed.
    @discardableResult
    func run() throws(SQLiteError) -> Int {
        withConnection { $0.statistics.statements += 1 }
        // Untraced runs take no clock reading: an optional `ContinuousClock.Instant` (a
        // resilient type) cost about 100 instructions per statement through its value witnesses.
        guard isTraced else {
            while try step() {}
            return withConnection { $0.changes }
        }
        let start = ContinuousClock.now
        while try step() {}
        report(rows: 0, since: start)
        return withConnection { $0.changes }
    }

    /// Hands one executed statement to the connection's trace.
    private func report(rows: Int, since start: ContinuousClock.Instant) {
        guard let trace = connection.trace else { return }
        let duration = ContinuousClock.now - start
        let plan = connection.tracesQueryPlans ? ((try? queryPlan(arguments: tracedArguments)) ?? []) : []
        trace(SQLTraceEvent(sql: sql, arguments: tracedArguments, rows: rows, duration: duration, plan: plan))
    }

    /// A reader of the row the statement stands on (valid after a step that returned one).
    var currentRow: SQLiteRow { SQLiteRow(handle: handle) }

    /// Steps through every row, handing a reader for it to `body`.
    func forEachRow(_ body: (SQLiteRow) throws -> Void) throws(SQLiteError) {
        withConnection { $0.statistics.statements += 1 }
        var count = 0
        // As in `run()`, only a traced statement reads the clock.
        guard isTraced else { return try stepRows(counting: &count, body) }
        let start = ContinuousClock.now
        defer { report(rows: count, since: start) }
        try stepRows(counting: &count, body)
    }

    /// `forEachRow`'s loop: counts the rows into `count`, also when `body` throws.
    private func stepRows(counting count: inout Int, _ body: (SQLiteRow) throws -> Void) throws(SQLiteError) {
        let row = currentRow
        defer { withConnection { [count] in $0.statistics.rows += count } }
        do {
            while try step() {
                count += 1
                try body(row)
            }
        } catch let error as SQLiteError {
            sqlite3_reset(handle)
            throw error
        } catch {
            sqlite3_reset(handle)
            throw SQLiteError(code: SQLITE_ABORT, message: "\(error)", sql: sql)
        }
    }

    /// SQLite's query plan for this statement, one line per step (`EXPLAIN QUERY PLAN`).
    func queryPlan(arguments: [StoredValue]) throws(SQLiteError) -> [String] {
        let trace = connection.trace
        connection.trace = nil  // the plan's own statement is not traced
        defer { connection.trace = trace }
        let explain = try connection.makeStatement("EXPLAIN QUERY PLAN " + sql)
        try explain.bind(arguments)
        var lines: [String] = []
        var depthByID: [Int64: Int] = [:]
        try explain.forEachRow { row in
            let id = row.int64(at: 0), parent = row.int64(at: 1)
            let depth = (depthByID[parent] ?? -1) + 1
            depthByID[id] = depth
            lines.append(String(repeating: "  ", count: depth) + (row.string(at: 3) ?? ""))
        }
        return lines
    }

    private func error(_ code: Int32) -> SQLiteError {
        SQLiteError(code: code, message: connection.errorMessage(), sql: sql)
    }

    // MARK: Values

    static func storedValue(of value: OpaquePointer) -> StoredValue {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            let count = Int(sqlite3_value_bytes(value))
            guard let text = sqlite3_value_text(value) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            guard count > 0, let base = sqlite3_value_blob(value) else { return .blob(Data()) }
            return .blob(Data(bytes: base, count: count))
        default: return .null
        }
    }

    static func setResult(_ value: StoredValue, context: OpaquePointer?) {
        switch value {
        case .null: sqlite3_result_null(context)
        case .integer(let v): sqlite3_result_int64(context, v)
        case .real(let v): sqlite3_result_double(context, v)
        case .text(var v):
            v.withUTF8 { buffer in
                buffer.withMemoryRebound(to: CChar.self) { chars in
                    sqlite3_result_text(context, chars.baseAddress ?? emptyCString,
                                        Int32(chars.count), csqlite_transient())
                }
            }
        case .blob(let v):
            v.withUnsafeBytes { buffer in
                sqlite3_result_blob(context, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                                    Int32(buffer.count), csqlite_transient())
            }
        }
    }
}

/// A pointer to an empty C string, for binding empty text (whose buffer has no base address).
// Written once at initialization and only read afterwards, so sharing it is safe.
nonisolated(unsafe) private let emptyCString: UnsafePointer<CChar> = {
    let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
    pointer.initialize(to: 0)
    return UnsafePointer(pointer)
}()

/// Reads the columns of the current row; valid only inside ``SQLiteStatement/forEachRow(_:)``.
struct SQLiteRow {
    fileprivate let handle: OpaquePointer

    var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// The value of column `index`, copied out of SQLite's memory.
    @inline(__always)
    func value(at index: Int) -> StoredValue {
        // One sqlite3_column_value and cheap sqlite3_value_* accessors cost less than
        // sqlite3_column_type + _text + _bytes (measured by the benchmarks).
        SQLiteStatement.storedValue(of: sqlite3_column_value(handle, Int32(index)))
    }

    /// The value of column `index` as a slot.
    @inline(__always)
    func slot(at index: Int) -> Slot {
        let value = sqlite3_column_value(handle, Int32(index))!
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            let count = Int(sqlite3_value_bytes(value))
            guard let text = sqlite3_value_text(value) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            guard count > 0, let base = sqlite3_value_blob(value) else { return .blob(Data()) }
            return .blob(Data(bytes: base, count: count))
        default: return .null
        }
    }

    @inline(__always)
    func int64(at index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }

    @inline(__always)
    func isNull(at index: Int) -> Bool { sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL }

    func string(at index: Int) -> String? {
        guard let text = sqlite3_column_text(handle, Int32(index)) else { return nil }
        return String(cString: text)
    }
}
