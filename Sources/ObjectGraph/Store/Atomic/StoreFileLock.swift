import Foundation
import Glibc

/// The advisory lock (`flock`) that an atomic store's save holds from its last check of the
/// file to the rename that replaces it, so that two processes saving one file cannot both
/// pass the check. The atomic stores' only `flock` calls.
///
/// The lock is on a hidden file beside the store's (`.catalog.xml.lock` beside
/// `catalog.xml`), removed again before the lock is released: the folder looks as it did.
/// A waiter that gets the lock of a file already removed (or replaced by a newer one)
/// locks again, so two holders never lock different files. The system releases the lock
/// of a process that dies; only a live process (a stopped one, say) can hold it long.
///
/// ```swift
/// try StoreFileLock.withLock(of: path, timeout: .seconds(10)) { try check(); try rename() }
/// ```
enum StoreFileLock {
    /// Runs `body` holding the lock of the store file at `path`, waiting up to `timeout`
    /// for another process that holds it. The wait polls (with backoff up to 20 ms): a save
    /// holds the lock for a check and a rename only.
    /// - Throws: `storeLocked` when another process holds the lock longer than `timeout`;
    ///   `storeFailure` when the lock file cannot be created; whatever `body` throws.
    static func withLock<T>(of path: String, timeout: Duration, _ body: () throws -> T) throws -> T {
        let lockPath = AtomicFile.folder(of: path) + "/.\(URL(fileURLWithPath: path).lastPathComponent).lock"
        let descriptor = try acquire(lockPath, storePath: path, timeout: timeout)
        defer {
            unlink(lockPath)  // before the release: a waiter then finds its file gone and locks again
            close(descriptor)  // which releases the lock
        }
        return try body()
    }

    /// Opens and locks the lock file, and returns its descriptor once the lock is held on the
    /// file that is at `lockPath`.
    private static func acquire(_ lockPath: String, storePath: String, timeout: Duration) throws -> Int32 {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var pause: UInt32 = 500  // microseconds, doubled up to 20 ms
        while true {
            let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw AtomicFile.error("cannot create the lock file '\(lockPath)' for", storePath)
            }
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
                var held = stat(), current = stat()
                if fstat(descriptor, &held) == 0, stat(lockPath, &current) == 0,
                   held.st_ino == current.st_ino, held.st_dev == current.st_dev {
                    return descriptor
                }
                close(descriptor)  // the holder before removed it: lock the file there now
                continue
            }
            let reason = errno
            close(descriptor)
            guard reason == EWOULDBLOCK || reason == EINTR else {
                errno = reason
                throw AtomicFile.error("cannot lock the lock file '\(lockPath)' for", storePath)
            }
            guard clock.now < deadline else {
                throw ObjectGraphError(.storeLocked, """
                    the store at '\(storePath)' is being saved by another process: waited \(describe(timeout)) for its \
                    lock ('\(lockPath)'); nothing was written (let the other process finish, or stop it, and save again)
                    """)
            }
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
    }

    /// `10 s`, `0.25 s` or `50 ms`.
    static func describe(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds < 0.1 ? "\(Int((seconds * 1000).rounded())) ms" : String(format: "%g s", seconds)
    }
}
