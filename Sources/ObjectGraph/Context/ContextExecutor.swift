import Dispatch

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

    /// Creates an executor whose queue carries `label` (shown by debuggers and `top -H`).
    init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: Self.key, value: ObjectIdentifier(self))
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    func checkIsolated() { dispatchPrecondition(condition: .onQueue(queue)) }

    /// Runs `work` on the queue later, after the jobs already waiting.
    func async(_ work: @escaping @Sendable () -> Void) { queue.async(execute: work) }

    /// Runs `work` on the queue and waits for it: at once when the caller is already on it.
    func sync<T>(_ work: () throws -> T) rethrows -> T {
        if isCurrent { return try work() }
        return try queue.sync(execute: work)
    }

    /// Whether the calling code runs on this executor's queue.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: Self.key) == ObjectIdentifier(self) }

    /// Marks each executor's queue, so ``sync(_:)`` can tell it is already on it.
    private static let key = DispatchSpecificKey<ObjectIdentifier>()
}
