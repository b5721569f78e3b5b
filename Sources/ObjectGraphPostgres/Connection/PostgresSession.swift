import ObjectGraph
import ObjectGraphSQL
import Foundation
import PostgresNIO

/// One connection to the server, used synchronously: the store protocol is synchronous and
/// runs on the calling context's own thread (the main thread, or a private context's
/// dispatch queue), as the SQLite store's calls do.
///
/// PostgresNIO is asynchronous on its own event loops. Each call here sends its query and
/// then waits for the answer with `EventLoopFuture.wait()`, which parks the calling thread
/// on a condition variable. That is only safe on a thread that is neither an event loop
/// (NIO traps if it is: the answer could never arrive) nor one of Swift's cooperative pool
/// threads (two on this machine: parking one stalls every task). The store is only called
/// from contexts' queues and the main thread, never from a task, so neither happens; code
/// inside `async` functions must hop to a dispatch queue before calling a store.
///
/// Calls are serialized by a recursive lock, so one thread can hold the connection across
/// a transaction (``withLock(_:)``) and still run queries inside it.
final class PostgresSession: @unchecked Sendable {
    // @unchecked: `connection` and `isInTransaction` are only read and written while `lock`
    // is held; PostgresConnection itself is Sendable, and the counters are in a Locked.
    private var connection: PostgresConnection
    private let lock = NSRecursiveLock()
    private let logger: Logger
    let location: PostgresLocation
    private let counters = Locked(StoreStatistics())
    /// Whether this connection is inside a transaction the store began.
    var isInTransaction = false

    /// Connects and logs in.
    /// - Throws: ``ObjectGraphError`` naming the server, the user or the database at fault.
    init(_ location: PostgresLocation) throws {
        self.location = location
        var logger = Logger(label: "ObjectGraphPostgres")
        logger.logLevel = .critical
        self.logger = logger
        connection = try Self.connect(location, logger: logger)
    }

    private static func connect(_ location: PostgresLocation, logger: Logger) throws -> PostgresConnection {
        var configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user,
            password: location.password, database: location.database, tls: .disable)
        configuration.options.connectTimeout = .seconds(10)
        do {
            return try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration,
                id: 1, logger: logger
            ).wait()
        } catch {
            throw PostgresErrors.translate(error, location: location, connecting: true)
        }
    }

    /// Statements, rows and transactions run so far.
    var statistics: StoreStatistics {
        get { counters.withLock { $0 } }
        set { counters.withLock { $0 = newValue } }
    }

    /// Settings every (re)connection gets, such as the schema's search path.
    var settings: [String] = []

    deinit {
        // PostgresNIO requires a connection closed before it is released: the closure keeps
        // it alive until the close completes (without blocking this thread).
        let connection = self.connection
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// Whether the connection is closed (the server ended it, or it was given up): the next
    /// statement outside a transaction connects again.
    var isClosed: Bool { withLock { connection.isClosed } }

    /// Runs `body` holding the connection: calls from other threads wait.
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Runs one statement and returns its rows and the number of rows it changed.
    ///
    /// A connection the server closed is opened again by the next statement outside a
    /// transaction (a transaction that lost its connection is gone: the server rolled it back,
    /// and the statement that noticed failed).
    @discardableResult
    func run(_ sql: String, _ arguments: [StoredValue] = []) throws -> (rows: [[StoredValue]], changed: Int) {
        try runAll([(sql, arguments)])[0]
    }

    /// The rows of one statement, each converted to stored values only when it is reached:
    /// a large fetch never holds every row twice (as PostgresNIO's rows and as values).
    struct Rows: Sequence {
        fileprivate let rows: [PostgresRow]

        func makeIterator() -> some IteratorProtocol<[StoredValue]> {
            rows.lazy.map { $0.map(PostgresSession.value) }.makeIterator()
        }
    }

    /// Runs one statement that reads, and returns its rows to walk once.
    func rows(_ sql: String, _ arguments: [StoredValue] = []) throws -> Rows {
        Rows(rows: try results([(sql, arguments)])[0].rows)
    }

    /// Runs `statements` in order on this connection and returns each one's rows and the
    /// number of rows it changed.
    ///
    /// They are all handed to PostgresNIO at once, which sends each as soon as the one before
    /// is answered, on its event loop: this thread waits once for the lot instead of once per
    /// statement (a wait costs two thread switches, more than the server's answer on loopback).
    /// The first statement that failed throws. The ones after it still run outside a
    /// transaction (inside one, the server refuses them), so batch reads, or statements of
    /// one transaction. `failed` hears the position of the statement that failed.
    @discardableResult
    func runAll(_ statements: [(sql: String, arguments: [StoredValue])],
                failed: (Int) -> Void = { _ in }) throws -> [(rows: [[StoredValue]], changed: Int)] {
        try results(statements, failed: failed).map { result in
            (Array(Rows(rows: result.rows)), result.metadata.rows ?? 0)
        }
    }

    /// ``runAll(_:failed:)``'s statements, answered as PostgresNIO's results (counted in
    /// ``statistics``).
    private func results(_ statements: [(sql: String, arguments: [StoredValue])],
                         failed: (Int) -> Void = { _ in }) throws -> [PostgresQueryResult] {
        guard !statements.isEmpty else { return [] }
        return try withLock {
            try reconnectIfClosed()
            var futures: [EventLoopFuture<PostgresQueryResult>] = []
            for (sql, arguments) in statements {
                var bindings = PostgresBindings()
                for argument in arguments {
                    switch argument {
                    case .null: bindings.appendNull()
                    case .integer(let value): bindings.append(value)
                    // SQLite stores a NaN as NULL, and the evaluator reads a NaN as nil: so here.
                    case .real(let value) where value.isNaN: bindings.appendNull()
                    // SQLite reads a -0.0 back as 0.0 (it keeps a whole double as an integer): so here.
                    case .real(let value): bindings.append(value == 0 ? 0.0 : value)
                    case .text(let value): bindings.append(value)
                    case .blob(let data): bindings.append(ByteBuffer(bytes: data))
                    }
                }
                futures.append(connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger))
            }
            let all = EventLoopFuture.whenAllComplete(futures, on: futures[0].eventLoop)
            let outcomes = try Self.wait(for: all, closing: connection)
            var results: [PostgresQueryResult] = []
            for (position, (outcome, statement)) in zip(outcomes, statements).enumerated() {
                do {
                    let result = try outcome.get()
                    counters.withLock {
                        $0.statements += 1
                        $0.rows += result.rows.count
                    }
                    results.append(result)
                } catch {
                    failed(position)
                    throw PostgresErrors.translate(error, location: location, sql: statement.sql)
                }
            }
            return results
        }
    }

    /// Connects again when the server closed the connection, outside a transaction; inside
    /// one, the transaction is gone, and the statement fails at once (sent on the closed
    /// connection, it would wait for ``answerTimeout``).
    private func reconnectIfClosed() throws {
        guard connection.isClosed else { return }
        if isInTransaction { throw PostgresErrors.lostConnection(location) }
        connection = try Self.connect(location, logger: logger)
        for setting in settings { _ = try Self.wait(for: connection.query(PostgresQuery(unsafeSQL: setting), logger: logger), closing: connection) }
    }

    /// How long a statement's answer is waited for before the connection is given up.
    static let answerTimeout: DispatchTimeInterval = .seconds(120)

    /// The result of `future`, waited for on this thread with a semaphore (never call it on
    /// an event loop or a cooperative-pool thread); after ``answerTimeout`` the connection is
    /// closed and the wait fails, so a lost answer is an error, not a hang.
    private static func wait<T: Sendable>(for future: EventLoopFuture<T>, closing connection: PostgresConnection) throws -> T {
        let semaphore = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<T, any Error>?>(nil)
        future.whenComplete { result in
            outcome.withLock { $0 = result }
            semaphore.signal()
        }
        guard semaphore.wait(timeout: .now() + answerTimeout) == .success else {
            let closing: EventLoopFuture<Void> = connection.close()
            _ = closing
            throw ObjectGraphError(.storeFailure, "no answer from the PostgreSQL server within \(answerTimeout); the connection was closed")
        }
        return try outcome.withLock { $0! }.get()
    }

    /// Runs `body` in a transaction (`BEGIN` … `COMMIT`, or `ROLLBACK` when it throws);
    /// inside a transaction already, runs it as it is.
    ///
    /// `opening` statements run right after `BEGIN`, sent with it.
    func inTransaction<T>(readOnly: Bool = false, opening: [(sql: String, arguments: [StoredValue])] = [],
                          _ body: () throws -> T) throws -> T {
        try withLock {
            if isInTransaction { return try body() }
            do {
                try runAll([(readOnly ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN", [])] + opening)
            } catch {
                _ = try? run("ROLLBACK")
                throw error
            }
            isInTransaction = true
            do {
                let result = try body()
                isInTransaction = false
                try run("COMMIT")
                if !readOnly { counters.withLock { $0.transactions += 1 } }
                return result
            } catch {
                isInTransaction = false
                _ = try? run("ROLLBACK")
                throw error
            }
        }
    }

    /// Hands each notification on `channel` to `handler` (on PostgresNIO's event loop: keep
    /// it short), from now on, until the session is released.
    ///
    /// When the server ends the connection (it restarted, or an administrator ended the
    /// backend), the session connects and listens again on `queue` at once and, when that
    /// fails, after each of ``relistenDelays`` in turn (the last one repeated while the server
    /// stays away), then calls
    /// `relistened` on `queue`: notifications sent while the connection was down are lost.
    func listen(_ channel: String, on queue: DispatchQueue, _ handler: @escaping @Sendable (String) -> Void,
                relistened: @escaping @Sendable () -> Void) throws {
        try withLock {
            try reconnectIfClosed()
            connection.addListener(channel: channel) { _, notification in handler(notification.payload) }
            try run("LISTEN \(SQLIdentifier(channel).quoted)")
            connection.closeFuture.whenComplete { [weak self] _ in
                guard let self else { return }  // released: it stopped listening
                queue.async { self.relisten(channel, on: queue, handler, relistened: relistened, attempt: 0) }
            }
        }
    }

    /// The waits between tries to listen again after the server closed a listening connection.
    static let relistenDelays: [DispatchTimeInterval] = [.milliseconds(100), .milliseconds(500), .seconds(1), .seconds(5)]

    /// One try to listen again after the connection closed; on failure, the next try is
    /// scheduled. Runs on the listener's queue (connecting blocks it, never an event loop).
    private func relisten(_ channel: String, on queue: DispatchQueue, _ handler: @escaping @Sendable (String) -> Void,
                          relistened: @escaping @Sendable () -> Void, attempt: Int) {
        do {
            try listen(channel, on: queue, handler, relistened: relistened)
            relistened()
        } catch {
            let delay = Self.relistenDelays[min(attempt, Self.relistenDelays.count - 1)]
            queue.asyncAfter(deadline: .now() + delay) { [weak self] in
                self?.relisten(channel, on: queue, handler, relistened: relistened, attempt: attempt + 1)
            }
        }
    }

    /// A cell as a stored value, by the type the server sent.
    fileprivate static func value(_ cell: PostgresCell) -> StoredValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int8, .int4, .int2: return (try? cell.decode(Int64.self)).map(StoredValue.integer) ?? .null
        case .bool: return (try? cell.decode(Bool.self)).map { .integer($0 ? 1 : 0) } ?? .null
        case .float8, .float4: return (try? cell.decode(Double.self)).map(StoredValue.real) ?? .null
        case .numeric:
            // SUM over integers: an integer when it is one (as SQLite gives), else a double.
            guard let decimal = try? cell.decode(Decimal.self) else { return .null }
            let number = NSDecimalNumber(decimal: decimal)
            if let integer = Int64(number.stringValue) { return .integer(integer) }
            return .real(number.doubleValue)
        case .bytea: return .blob(Data(cell.bytes!.readableBytesView))
        default: return (try? cell.decode(String.self)).map(StoredValue.text) ?? .null
        }
    }
}
