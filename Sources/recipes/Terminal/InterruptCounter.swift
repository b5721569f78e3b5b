import ObjectGraph
import Synchronization

/// Counts Ctrl-C presses and runs the actions registered for the next one.
///
/// ``InterruptSignal`` owns the process-wide counter that SIGINT increments; tests make
/// their own and call ``raise()``. A command never reads the counter directly: it polls
/// the ``InterruptFlag`` its context hands it, which compares against the count at the
/// command's start.
///
/// ```swift
/// let counter = InterruptCounter()
/// let flag = counter.makeFlag()
/// let registration = counter.whenInterrupted { task.cancel() }
/// counter.raise()          // flag.isRaised == true, task cancelled
/// registration.cancel()
/// ```
final class InterruptCounter: Sendable {
    /// The number of interrupts so far. Written by the signal handler, so it is an atomic.
    let presses = Atomic<Int>(0)
    private let listeners = Locked<(nextID: Int, actions: [Int: @Sendable () -> Void])>((0, [:]))

    /// Creates a counter at zero.
    init() {}

    /// The number of interrupts so far.
    var count: Int { presses.load(ordering: .sequentiallyConsistent) }

    /// A flag that is raised by every interrupt from now on.
    func makeFlag() -> InterruptFlag { InterruptFlag(counter: self, baseline: count) }

    /// Counts one interrupt and runs the registered actions (not async-signal-safe).
    func raise() {
        presses.add(1, ordering: .sequentiallyConsistent)
        notifyListeners()
    }

    /// Runs every registered action once per call, outside the lock.
    func notifyListeners() {
        let actions = listeners.withLock { Array($0.actions.values) }
        for action in actions { action() }
    }

    /// Registers `action` to run (on an arbitrary thread) at each interrupt until cancelled.
    func whenInterrupted(_ action: @escaping @Sendable () -> Void) -> InterruptRegistration {
        let id = listeners.withLock { state in
            defer { state.nextID += 1 }
            state.actions[state.nextID] = action
            return state.nextID
        }
        return InterruptRegistration(counter: self, id: id)
    }

    /// Removes the action registered under `id`.
    func removeListener(_ id: Int) {
        _ = listeners.withLock { $0.actions.removeValue(forKey: id) }
    }
}
