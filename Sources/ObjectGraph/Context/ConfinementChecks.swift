import Foundation
import Synchronization

/// The debug switch that checks, on every property access, that an object is used on its
/// context's own thread or queue (in the spirit of Core Data's concurrency debug flag).
///
/// Swift 6 keeps managed objects inside their context, but code can still smuggle one out
/// (an `@unchecked Sendable` wrapper, `nonisolated(unsafe)`, a C callback). With the switch
/// on, such a use stops the program with a message naming the object, its context and the
/// thread. Turn it on with `OBJECTGRAPH_CONCURRENCY_DEBUG=1` in the environment, or in code:
///
/// ```swift
/// ConfinementChecks.isEnabled = true
/// ```
/// Off by default: the check costs a little on every property access.
public enum ConfinementChecks {
    /// The switch, off in the binary's data: every property access reads it with one load,
    /// where a value computed from the environment cost a `swift_once` call each time.
    private static let enabled = Atomic<Bool>(false)

    /// Turns the switch on once if the environment asks. Every context calls it when it is
    /// made, before any of its objects can be read, and so does setting ``isEnabled``
    /// (after which the code's choice stands).
    private static let environmentApplied: Void = {
        if ProcessInfo.processInfo.environment["OBJECTGRAPH_CONCURRENCY_DEBUG"] == "1" {
            enabled.store(true, ordering: .relaxed)
        }
    }()

    /// Applies `OBJECTGRAPH_CONCURRENCY_DEBUG` if nothing has yet.
    static func applyEnvironment() { environmentApplied }

    /// Whether object accesses are checked.
    public static var isEnabled: Bool {
        get {
            applyEnvironment()
            return isOn
        }
        set {
            applyEnvironment()
            enabled.store(newValue, ordering: .relaxed)
        }
    }

    /// The switch as every property access reads it: one load. Objects exist only once a
    /// context does, so the environment has been applied by then.
    @inline(__always)
    static var isOn: Bool { enabled.load(ordering: .relaxed) }
}

/// Where a context's objects may be used.
enum Confinement {
    /// Anywhere: the context does not say (used by tests of the core alone).
    case unchecked
    /// The main queue, where the main actor runs (a ``MainContext``, which `context` describes).
    case mainThread(context: String)
    /// The serial queue of a ``PrivateContext``, which `context` describes.
    case executor(ContextExecutor, context: String)

    /// Whether the calling thread is the one this confinement allows.
    var holds: Bool {
        switch self {
        case .unchecked: true
        // The main queue's mark may not be set yet in the block that first asks; the main
        // thread then answers (the check is a debugging aid).
        case .mainThread: MainQueue.isCurrent || Thread.isMainThread
        case .executor(let executor, _): executor.isCurrent
        }
    }

    /// Whether the context runs on the main actor (a ``MainContext``).
    var isMainActor: Bool {
        if case .mainThread = self { return true }
        return false
    }

    /// The context as a person would name it.
    var name: String {
        switch self {
        case .unchecked: "a context"
        case .mainThread(let context): "\(context) (the main actor)"
        case .executor(let executor, let context): "\(context) (queue \(executor.label))"
        }
    }
}

extension ManagedObject {
    /// Stops the program when the object is used off its context's thread or queue; `use`
    /// names the access in the message (`setting 'name'`).
    @inline(never)
    func checkConfinement(_ use: @autoclosure () -> String) {
        guard let context = contextCore, !context.confinement.holds else { return }
        let thread = Thread.current.name.flatMap { $0.isEmpty ? nil : $0 } ?? (Thread.isMainThread ? "main" : "\(Thread.current)")
        let advice = context.confinement.isMainActor
            ? "Pass its objectID instead, and use the object on the main actor (await MainActor.run)."
            : "Pass its objectID instead, and use the object inside its context's perform or performAndWait."
        preconditionFailure("""
            ObjectGraph concurrency violation: \(use()) of \(context.model.describe(objectID)) on thread \(thread), \
            but the object belongs to \(context.confinement.name). \(advice)
            """)
    }
}

/// Tells whether code runs on the main dispatch queue, which is the main actor's executor.
///
/// `Thread.isMainThread` is not the same question: a test runner or a program may drain
/// the main queue from another thread.
enum MainQueue {
    private static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Whether the caller runs on the main queue.
    static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
}
