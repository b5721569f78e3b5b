import ObjectGraph
import Foundation
import Synchronization

/// One writer connection and a pool of read-only connections to one database: the only
/// Sendable face of the SQLite layer (GRDB's `DatabasePool`).
///
/// In WAL mode a reader sees the last committed state and never waits for the writer,
/// and the writer never waits for readers; writes are serialized on the one writer.
///
/// ```swift
/// let pool = ConnectionPool(writer: writer, maximumReaderCount: 4) {
///     try SQLiteConnection(path: path, readOnly: true)
/// }
/// try pool.write { connection in try connection.inTransaction { … } }
/// let rows = try pool.read { connection in try connection.rows(sql) }
/// ```
///
/// - A `read` on the thread that is inside `write` runs on the writer, so it sees the
///   write's uncommitted rows (and cannot wait for itself).
/// - With no `makeReader` (an in-memory database, which other connections cannot see)
///   every read runs on the writer.
/// - Readers close before the writer: the last connection to a file checkpoints the WAL
///   into it and deletes it, which a read-only connection cannot do.
// Safe because every connection is used by one thread at a time: the writer only inside
// `writerLock` (or by the thread recorded in `writerThread`, which holds that lock); a
// reader either sits in `idleReaders`, touched only inside `readerLock`, or is checked out
// to the one thread that took it from there (and is listed in `pinnedReaders`, under
// `readerLock`, for that thread only). The other `var`s are touched only inside
// `readerLock`. `Locked` cannot hold the connections because callers build non-Sendable
// objects from their rows while a connection is in use.
final class ConnectionPool: @unchecked Sendable {
    private let writer: SQLiteConnection
    private let writerLock = Lock()
    /// The thread inside `write`, or 0: only that thread ever stores its own ID here.
    private let writerThread = Atomic<UInt>(0)

    /// Opens and configures one more reader; nil when reads run on the writer.
    private let makeReader: (@Sendable () throws -> SQLiteConnection)?
    /// The most readers open at once; 0 when reads run on the writer.
    let maximumReaderCount: Int
    /// One permit per reader that may be in use.
    private let readerPermits: DispatchSemaphore
    private let readerLock = Lock()
    private var idleReaders: [SQLiteConnection] = []
    /// Readers held by a thread inside ``readingOneState(_:)``, by thread.
    private var pinnedReaders: [UInt: SQLiteConnection] = [:]
    /// How many threads are inside ``readingOneState(_:)``: reads look for a pinned reader only when some are.
    private let pinnedCount = Atomic<Int>(0)
    private var openedReaders = 0
    /// What readers counted, folded in each time one is returned.
    private var returnedReaderStatistics = ConnectionStatistics()
    private var traceSettings = TraceSettings()

    /// The SQL trace every connection gets.
    private struct TraceSettings {
        var trace: (@Sendable (SQLTraceEvent) -> Void)?
        var tracesQueryPlans = false
    }

    /// Creates a pool around an open, configured `writer`.
    ///
    /// - Parameters:
    ///   - maximumReaderCount: the most readers open at once; a read waits for a free one.
    ///   - makeReader: opens a reader with every setting and SQL function it needs. With
    ///     nil, or no readers allowed, every read runs on the writer.
    init(writer: SQLiteConnection, maximumReaderCount: Int = 4,
         makeReader: (@Sendable () throws -> SQLiteConnection)?) {
        self.writer = writer
        self.maximumReaderCount = makeReader == nil ? 0 : max(0, maximumReaderCount)
        self.makeReader = self.maximumReaderCount == 0 ? nil : makeReader
        readerPermits = DispatchSemaphore(value: self.maximumReaderCount)
    }

    deinit {
        // Nothing is checked out (a read holds the pool), so every reader is idle. They
        // close here; the writer closes after, last, and checkpoints the WAL.
        idleReaders.removeAll()
    }

    // MARK: Access

    /// Runs `body` with exclusive use of the writer. Reentrant: a `write` inside a `write`
    /// on the same thread runs on the writer it already holds (its transactions nest as
    /// savepoints, see ``SQLiteConnection/inTransaction(_:)``).
    ///
    /// A statement that stopped because its task was cancelled throws `CancellationError`.
    func write<T>(_ body: (SQLiteConnection) throws -> T) rethrows -> T {
        let thread = Self.currentThread
        do {
            if writerThread.load(ordering: .relaxed) == thread { return try body(writer) }
            return try writerLock.withLock {
                writerThread.store(thread, ordering: .relaxed)
                defer { writerThread.store(0, ordering: .relaxed) }
                return try body(writer)
            }
        } catch let error as SQLiteError where error.isInterrupt {
            throw CancellationError()
        }
    }

    /// Runs `body` with a connection that sees the last committed state: a reader, or the
    /// writer when this thread is inside `write` or the pool has no readers. Not reentrant.
    ///
    /// Waits for a free reader when `maximumReaderCount` are in use; never for the writer.
    /// - Throws: what `body` throws; an opening reader's ``SQLiteError``; `CancellationError`
    ///   for a statement stopped because its task was cancelled.
    func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        if writerThread.load(ordering: .relaxed) == Self.currentThread {
            return try convertingInterrupts { try body(writer) }  // inside write on this thread
        }
        guard makeReader != nil else { return try write(body) }
        if pinnedCount.load(ordering: .relaxed) > 0, let reader = readerLock.withLock({ pinnedReaders[Self.currentThread] }) {
            return try convertingInterrupts { try body(reader) }
        }
        let reader = try checkOutReader()
        defer { checkIn(reader) }
        return try convertingInterrupts { try body(reader) }
    }

    /// Runs `body`, whose reads on this thread all see one committed state: they run on one
    /// reader inside one read transaction (or, with no readers, on the writer under its lock).
    /// Reentrant; inside ``write(_:)`` it only runs `body`.
    func readingOneState<T>(_ body: () throws -> T) throws -> T {
        let thread = Self.currentThread
        if writerThread.load(ordering: .relaxed) == thread { return try body() }
        guard makeReader != nil else { return try write { _ in try body() } }
        if readerLock.withLock({ pinnedReaders[thread] }) != nil { return try body() }
        let reader = try checkOutReader()
        defer { checkIn(reader) }
        try reader.executeUncounted("BEGIN")
        readerLock.withLock { pinnedReaders[thread] = reader }
        pinnedCount.add(1, ordering: .relaxed)
        defer {
            pinnedCount.subtract(1, ordering: .relaxed)
            readerLock.withLock { pinnedReaders[thread] = nil }
            try? reader.executeUncounted("COMMIT")  // ends the read transaction; nothing to write
        }
        return try body()
    }

    /// A free reader, opened if none is idle; waits while every reader is in use.
    private func checkOutReader() throws -> SQLiteConnection {
        readerPermits.wait()
        var reader: SQLiteConnection?
        var settings = TraceSettings()
        readerLock.withLock {
            reader = idleReaders.popLast()
            settings = traceSettings
        }
        if reader == nil {
            do {
                reader = try makeReader!()
            } catch {
                readerPermits.signal()
                throw error
            }
            readerLock.withLock { openedReaders += 1 }
        }
        reader!.trace = settings.trace
        reader!.tracesQueryPlans = settings.tracesQueryPlans
        return reader!
    }

    /// Returns a reader to the pool, keeping what it counted.
    private func checkIn(_ reader: SQLiteConnection) {
        readerLock.withLock {
            returnedReaderStatistics += reader.statistics
            reader.statistics = ConnectionStatistics()
            idleReaders.append(reader)
        }
        readerPermits.signal()
    }

    /// Runs `body` on the writer: under its lock, or directly on the thread that holds it.
    private func withWriter<T>(_ body: (SQLiteConnection) throws -> T) rethrows -> T {
        if writerThread.load(ordering: .relaxed) == Self.currentThread { return try body(writer) }
        return try writerLock.withLock { try body(writer) }
    }

    private func convertingInterrupts<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError where error.isInterrupt {
            throw CancellationError()
        }
    }

    /// An ID of the calling thread, never 0, unique among running threads.
    private static var currentThread: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }

    // MARK: Settings and counters

    /// Sends every statement of every connection (readers opened later too) to `trace`;
    /// nil stops tracing.
    func setTrace(_ trace: (@Sendable (SQLTraceEvent) -> Void)?, tracesQueryPlans: Bool) {
        readerLock.withLock { traceSettings = TraceSettings(trace: trace, tracesQueryPlans: tracesQueryPlans) }
        withWriter { writer in
            writer.trace = trace
            writer.tracesQueryPlans = tracesQueryPlans
        }
    }

    /// What the writer and every reader counted (a reader in use adds its counts when returned).
    var statistics: ConnectionStatistics { writerStatistics + readerStatistics }

    /// What the writer counted.
    var writerStatistics: ConnectionStatistics { withWriter { $0.statistics } }

    /// What the readers counted, up to their last return to the pool.
    var readerStatistics: ConnectionStatistics { readerLock.withLock { returnedReaderStatistics } }

    /// How many readers the pool has opened (for tests).
    var openedReaderCount: Int { readerLock.withLock { openedReaders } }
}
