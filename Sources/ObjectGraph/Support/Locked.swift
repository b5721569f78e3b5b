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
// Safe because `value` is read and written only between `pthread_mutex_lock` and
// `pthread_mutex_unlock` on `mutex`, which lives at a fixed address for the object's life.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// A lock around `value`.
    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
