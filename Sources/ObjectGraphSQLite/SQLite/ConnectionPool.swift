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
/// - A ``Freshness/recent`` read (a fault's row, a relationship's destinations) may run in
///   the read transaction its reader kept from its last read, skipping the two file locks
///   and the check of the log every read transaction costs. That transaction ends at the
///   next write to the file in this process (any pool's), when it is older than
///   `snapshotLifetime`, and when the reader has sat idle that long (the readers hold the
///   log's read locks meanwhile, which a checkpoint must wait for). A ``Freshness/latest``
///   read always begins a new one.
/// - Readers close before the writer: the last connection to a file checkpoints the WAL
///   into it and deletes it, which a read-only connection cannot do.
// Safe because every connection is used by one thread at a time: the writer only inside
// `writerLock` (or by the thread recorded in `writerThread`, which holds that lock); a
// reader either sits in `idleReaders`, touched only inside `readerLock` (where the release
// of idle read transactions ends them too), or is checked out to the one thread that took
// it from there (and is listed in `pinnedReaders`, under `readerLock`, for that thread
// only). The other `var`s are touched only inside `readerLock`. `Locked` cannot hold the
// connections because callers build non-Sendable objects from their rows while a
// connection is in use.
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
    /// Touched only inside `readerLock`, so without dynamic exclusivity checks (every write
    /// walks it to end idle read transactions, and nothing there reaches the pool).
    @exclusivity(unchecked) private var idleReaders: [Reader] = []
    /// How long a reader may keep one read transaction for ``Freshness/recent`` reads, in
    /// nanoseconds; 0 ends each read's transaction with it.
    private let snapshotLifetime: UInt64
    /// Whether a release of idle readers' read transactions is scheduled.
    private var releaseScheduled = false
    /// Readers held by a thread inside ``readingOneState(_:)``, by thread.
    private var pinnedReaders: [UInt: SQLiteConnection] = [:]
    /// How many threads are inside ``readingOneState(_:)``: reads look for a pinned reader only when some are.
    private let pinnedCount = Atomic<Int>(0)
    private var openedReaders = 0
    /// What readers counted, folded in each time one is returned.
    private var returnedReaderStatistics = ConnectionStatistics()
    private var traceSettings = TraceSettings()

    /// How many writes the pools of this database file have finished: a reader's read
    /// transaction that began before the last one may miss its rows.
    private let finishedWrites: FileWrites

    /// How current the state a read sees must be.
    enum Freshness {
        /// The last committed state: the read begins a read transaction of its own. Fetches.
        case latest
        /// A state no older than the file's last write in this process, nor than
        /// `snapshotLifetime`: the read may run in its reader's earlier read transaction.
        /// Loads of faults and relationships, which Core Data serves from its row cache, as
        /// stale as its `stalenessInterval` allows.
        case recent
    }

    /// A reader and the read transaction it keeps between reads.
    private struct Reader {
        let connection: SQLiteConnection
        /// When its read transaction began (uptime, nanoseconds), or nil when none is open.
        var began: UInt64?
        /// The pool's count of finished writes when it began.
        var writes: UInt64 = 0

        /// Begins a read transaction for a read of `freshness`, unless the one it has will do:
        /// one no older than `lifetime` nanoseconds that began after the `writes`th write.
        mutating func prepare(_ freshness: Freshness, lifetime: UInt64, writes: UInt64) throws(SQLiteError) {
            let now = DispatchTime.now().uptimeNanoseconds
            if let began {
                if freshness == .recent, writes == self.writes, now &- began < lifetime, connection.isInTransaction { return }
                end()
            }
            guard lifetime > 0 else { return }  // each statement runs in its own transaction
            try connection.beginReading()
            (began, self.writes) = (now, writes)
        }

        /// Ends its read transaction, if it has one.
        mutating func end() {
            guard began != nil else { return }
            connection.endReading()
            began = nil
        }
    }

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
    ///   - snapshotLifetime: how long a reader may keep one read transaction for
    ///     ``Freshness/recent`` reads; zero gives every read a transaction of its own.
    ///   - file: the database file, whose other pools in this process end these read
    ///     transactions when they write.
    init(writer: SQLiteConnection, maximumReaderCount: Int = 4, snapshotLifetime: Duration = .zero, file: String? = nil,
         makeReader: (@Sendable () throws -> SQLiteConnection)?) {
        self.writer = writer
        finishedWrites = file.map(FileWrites.shared) ?? FileWrites()
        let (seconds, attoseconds) = max(snapshotLifetime, .zero).components
        self.snapshotLifetime = UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
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
                // Idle readers let go of the log first, so the checkpoint after this write's
                // commit can copy every page, as it could with no reader kept open.
                endIdleReads()
                writerThread.store(thread, ordering: .relaxed)
                defer {
                    writerThread.store(0, ordering: .relaxed)
                    finishedWrites.count.add(1, ordering: .releasing)
                }
                return try body(writer)
            }
        } catch let error as SQLiteError where error.isInterrupt {
            throw CancellationError()
        }
    }

    /// Runs `body` with a connection that sees the last committed state (or, for a
    /// ``Freshness/recent`` read, a recent one): a reader, or the writer when this thread is
    /// inside `write` or the pool has no readers. Not reentrant.
    ///
    /// Waits for a free reader when `maximumReaderCount` are in use; never for the writer.
    /// - Throws: what `body` throws; an opening reader's ``SQLiteError``; `CancellationError`
    ///   for a statement stopped because its task was cancelled.
    func read<T>(_ freshness: Freshness = .latest, _ body: (SQLiteConnection) throws -> T) throws -> T {
        if writerThread.load(ordering: .relaxed) == Self.currentThread {
            return try convertingInterrupts { try body(writer) }  // inside write on this thread
        }
        guard makeReader != nil else { return try write(body) }
        if pinnedCount.load(ordering: .relaxed) > 0, let reader = readerLock.withLock({ pinnedReaders[Self.currentThread] }) {
            return try convertingInterrupts { try body(reader) }
        }
        var reader = try checkOutReader()
        defer { checkIn(reader) }
        do {
            try reader.prepare(freshness, lifetime: snapshotLifetime, writes: finishedWrites.count.load(ordering: .acquiring))
            return try convertingInterrupts { try body(reader.connection) }
        } catch {
            reader.end()
            throw error
        }
    }

    /// Runs `body`, whose reads on this thread all see one committed state: they run on one
    /// reader inside one read transaction (or, with no readers, on the writer under its lock).
    /// Reentrant; inside ``write(_:)`` it only runs `body`.
    func readingOneState<T>(_ body: () throws -> T) throws -> T {
        let thread = Self.currentThread
        if writerThread.load(ordering: .relaxed) == thread { return try body() }
        guard makeReader != nil else { return try write { _ in try body() } }
        if readerLock.withLock({ pinnedReaders[thread] }) != nil { return try body() }
        var reader = try checkOutReader()
        defer { checkIn(reader) }
        reader.end()
        try reader.connection.beginReading()
        readerLock.withLock { pinnedReaders[thread] = reader.connection }
        pinnedCount.add(1, ordering: .relaxed)
        defer {
            pinnedCount.subtract(1, ordering: .relaxed)
            readerLock.withLock { pinnedReaders[thread] = nil }
            reader.connection.endReading()
        }
        return try body()
    }

    /// A free reader, opened if none is idle; waits while every reader is in use.
    private func checkOutReader() throws -> Reader {
        readerPermits.wait()
        var reader: Reader?
        var settings = TraceSettings()
        readerLock.withLock {
            reader = idleReaders.popLast()
            settings = traceSettings
        }
        if reader == nil {
            do {
                reader = Reader(connection: try makeReader!())
            } catch {
                readerPermits.signal()
                throw error
            }
            readerLock.withLock { openedReaders += 1 }
        }
        reader!.connection.trace = settings.trace
        reader!.connection.tracesQueryPlans = settings.tracesQueryPlans
        return reader!
    }

    /// Returns a reader to the pool, keeping what it counted; schedules the end of its read
    /// transaction, should it sit idle.
    private func checkIn(_ reader: Reader) {
        let schedulesRelease = readerLock.withLock {
            returnedReaderStatistics += reader.connection.statistics
            reader.connection.statistics = ConnectionStatistics()
            idleReaders.append(reader)
            guard reader.began != nil, !releaseScheduled else { return false }
            releaseScheduled = true
            return true
        }
        readerPermits.signal()
        if schedulesRelease {
            // On a Dispatch queue, not Swift's cooperative pool: ending a transaction unlocks the file.
            DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .nanoseconds(Int(snapshotLifetime))) { [weak self] in
                self?.endIdleReads(scheduled: true)
            }
        }
    }

    /// Ends the read transactions of the idle readers (a reader in use ends its own later).
    private func endIdleReads(scheduled: Bool = false) {
        readerLock.withLock {
            if scheduled { releaseScheduled = false }
            for index in idleReaders.indices { idleReaders[index].end() }
        }
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

    /// How many idle readers keep a read transaction open (for tests).
    var idleReadersInTransaction: Int { readerLock.withLock { idleReaders.count { $0.connection.isInTransaction } } }
}

/// How many writes the pools of one database file in this process have finished, shared by
/// those pools (a file that two coordinators opened has two pools).
final class FileWrites: Sendable {
    /// The count, raised after each write.
    let count = Atomic<UInt64>(0)

    /// The file's identity (device and inode, as two paths can name one file) and the count
    /// its pools share, while any of them is open.
    private static let byFile = Mutex<[FileIdentity: Weak]>([:])

    private struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    private struct Weak {
        weak var writes: FileWrites?
    }

    /// The count of the file at `path`, shared with the other pools open on it; a count of
    /// its own when the file cannot be examined.
    static func shared(_ path: String) -> FileWrites {
        var status = stat()
        guard stat(path, &status) == 0 else { return FileWrites() }
        let identity = FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        return byFile.withLock { byFile in
            if let writes = byFile[identity]?.writes { return writes }
            byFile = byFile.filter { $0.value.writes != nil }  // forgets files whose pools all closed
            let writes = FileWrites()
            byFile[identity] = Weak(writes: writes)
            return writes
        }
    }
}
