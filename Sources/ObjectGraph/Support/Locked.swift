#if canImport(Glibc)
import Glibc
#endif

/// A value guarded by a POSIX mutex: the project's lock, used where `Synchronization.Mutex`
/// would do.
///
/// On Linux, `Mutex` is built on futexes the thread sanitizer cannot see, so it reports
/// every access `Mutex` guards as a race; `pthread_mutex_t` it understands, which keeps
/// `make check-sanitizers` meaningful. Both cost an atomic exchange when uncontended.
///
/// ```swift
/// let seen = Locked<Set<String>>([])
/// seen.withLock { $0.insert(name) }
/// ```
// Safe because `value` is read and written only while `lock` is held.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = Lock()
    // The lock already makes every access exclusive: Swift's run-time check of the same
    // (a thread-local access set, about 300 instructions per `withLock`) adds nothing.
    @exclusivity(unchecked) private var value: Value

    /// A lock around `value`.
    package init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try lock.withLock { () throws(Failure) -> Result in try body(&value) }
    }
}

/// A POSIX mutex for state that lives elsewhere (a connection only one thread may use at a
/// time); `Locked` when the lock guards a value it can hold.
///
/// (A `Locked<Void>` would do the same, but the thread sanitizer mistakes Swift's exclusive
/// access to a value of size zero for a write to the object's header, and reports a race.)
// Safe because `mutex` is only passed to pthread functions, which synchronize themselves,
// and lives at a fixed address for the object's life.
package final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// An unlocked mutex.
    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` holding the mutex.
    package func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
