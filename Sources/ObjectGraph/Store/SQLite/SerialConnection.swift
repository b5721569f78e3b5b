import Synchronization

/// Serializes every use of one ``SQLiteConnection``: the only Sendable face of the SQLite layer.
// Safe because `connection` is only ever touched inside `lock.withLock`, so at most one
// thread uses it at a time; `Mutex` alone cannot hold it here because callers build
// non-Sendable objects from its rows while the lock is held.
final class SerialConnection: @unchecked Sendable {
    private let lock = Mutex(())
    private let connection: SQLiteConnection

    init(_ connection: SQLiteConnection) { self.connection = connection }

    /// Runs `body` with exclusive use of the connection. Not reentrant.
    ///
    /// A read that stopped because its task was cancelled throws `CancellationError`.
    func withConnection<T>(_ body: (SQLiteConnection) throws -> T) rethrows -> T {
        do {
            return try lock.withLock { _ in try body(connection) }
        } catch let error as SQLiteError where error.isInterrupt {
            throw CancellationError()
        }
    }
}
