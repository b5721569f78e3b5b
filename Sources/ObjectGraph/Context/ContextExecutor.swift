import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The serial executor of a ``PrivateContext``: its jobs run one at a time on a dispatch
/// queue of its own, never on Swift's cooperative thread pool.
///
/// A private context does blocking work (SQLite statements, file reads, waits on a
/// busy store) that can last seconds. On the cooperative pool, which has one thread per
/// core, two such contexts would leave no thread for anything else: tasks, timers, the
/// delivery of Ctrl-C to a shell. A serial queue that a program creates is served by
/// libdispatch's overcommitting threads, which grow when others block.
final class ContextExecutor: SerialExecutor {
    private let queue: DispatchQueue

    /// The label of the executor's queue.
    var label: String { queue.label }

    /// Creates an executor whose queue carries `label` (shown by debuggers and `top -H`).
    init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: Self.key, value: ObjectIdentifier(self))
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { self.holding { job.runSynchronously(on: executor) } }
    }

    func checkIsolated() { dispatchPrecondition(condition: .onQueue(queue)) }

    /// Runs `work` on the queue later, after the jobs already waiting.
    func async(_ work: @escaping @Sendable () -> Void) { queue.async { self.holding(work) } }

    /// Runs `work` on the queue and waits for it: at once when the caller is already on it,
    /// or when the calling thread runs it further out (a child's `performAndWait` inside
    /// its parent's, whose reads then come back to the parent: the parent's job is waiting
    /// on this very thread, so waiting for its queue could never end).
    func sync<T>(_ work: () throws -> T) rethrows -> T {
        if isCurrent { return try work() }
        return try queue.sync { try holding(work) }
    }

    /// Whether the calling code runs on this executor's queue: directly, or in a
    /// synchronous call (``sync(_:)`` of another executor) made from it on this thread.
    var isCurrent: Bool {
        DispatchQueue.getSpecific(key: Self.key) == ObjectIdentifier(self) || Self.isHeldByCurrentThread(self)
    }

    /// Marks each executor's queue, so ``sync(_:)`` can tell it is already on it.
    private static let key = DispatchSpecificKey<ObjectIdentifier>()

    // MARK: Executors the calling thread runs work of

    /// One entry of the calling thread's list of executors it runs work of, innermost first;
    /// each lives on the stack of ``holding(_:)`` while its work runs.
    private struct Held {
        let executor: ObjectIdentifier
        let outer: UnsafeRawPointer?
    }

    /// The thread-specific slot holding the innermost ``Held`` of each thread.
    private static let heldKey: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "ContextExecutor could not create its thread-specific key")
        return key
    }()

    /// Runs `work` with this executor on the calling thread's list, so that a synchronous
    /// call back into it from a nested `sync` of another executor runs at once.
    private func holding<T>(_ work: () throws -> T) rethrows -> T {
        let key = Self.heldKey
        var held = Held(executor: ObjectIdentifier(self), outer: UnsafeRawPointer(pthread_getspecific(key)))
        return try withUnsafePointer(to: &held) { pointer in
            pthread_setspecific(key, pointer)
            defer { pthread_setspecific(key, pointer.pointee.outer) }
            return try work()
        }
    }

    /// Whether the calling thread runs work of `executor`, at any depth.
    private static func isHeldByCurrentThread(_ executor: ContextExecutor) -> Bool {
        let id = ObjectIdentifier(executor)
        var entry = pthread_getspecific(heldKey).map { UnsafeRawPointer($0) }
        while let current = entry {
            let held = current.assumingMemoryBound(to: Held.self).pointee
            if held.executor == id { return true }
            entry = held.outer
        }
        return false
    }
}
