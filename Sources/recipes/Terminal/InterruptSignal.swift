import Foundation
import Glibc
import Synchronization

/// Process-wide Ctrl-C handling: SIGINT cancels the running command or the half-typed line,
/// never the shell.
///
/// How a press travels (measured on Linux):
///
/// ```
/// tty ^C -> kernel -> usually the process main thread (parked in sigsuspend by dispatch_main)
///        -> handler: not the reading thread? pthread_kill(reading thread, SIGINT); return
///        -> handler on the reading thread: presses += 1; sem_post(wake-up)
///             the blocked read() in el_gets() fails with EINTR (no SA_RESTART), so the
///             editor returns .interrupted and the line is discarded
///        -> watcher thread wakes from sem_wait and runs the counter's listeners:
///             the session's listener cancels the Task running the current command
/// ```
///
/// Blocking SIGINT in `main` and unblocking it on the input thread does not work here:
/// `dispatch_main()` parks the main thread in `sigsuspend()` with an empty mask, and
/// libdispatch workers (which run the main actor) block all async signals. So the
/// handler forwards. On glibc `pthread_kill` is `tgkill(getpid(), tid, sig)`, which is
/// what the prototype used; Swift cannot import `tgkill` itself.
///
/// Everything the handler touches is initialised in ``install()``, before the handler
/// exists: lazily initialised globals go through `swift_once`, which is not
/// async-signal-safe.
enum InterruptSignal {
    /// The process-wide interrupt counter.
    static let counter = InterruptCounter()

    /// The thread blocked in an interruptible read (`pthread_t` bits), or 0.
    static let readingThread = Atomic<UInt>(0)

    /// Posted by the handler (`sem_post` is async-signal-safe) to wake the watcher thread.
    ///
    /// `nonisolated(unsafe)`: the pointer itself never changes after initialisation, and
    /// the `sem_t` it points to is designed for concurrent use from threads and handlers.
    nonisolated(unsafe) static let wakeUp: UnsafeMutablePointer<sem_t> = {
        let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
        sem_init(semaphore, 0, 0)
        return semaphore
    }()

    private static let isInstalled = Atomic<Bool>(false)

    /// Installs the SIGINT handler and starts the watcher thread; later calls do nothing.
    ///
    /// Call it once at start-up, before any thread that reads input exists.
    static func install() {
        guard isInstalled.compareExchange(expected: false, desired: true,
                                          ordering: .sequentiallyConsistent).exchanged else { return }
        // Initialise every global the handler reads, now, outside any signal context.
        _ = counter.count
        _ = readingThread.load(ordering: .sequentiallyConsistent)
        _ = wakeUp

        let watcher = Thread {
            setSIGINT(blocked: true)
            Thread.current.name = "sigint-watcher"
            while true {
                if sem_wait(wakeUp) == 0 { counter.notifyListeners() }  // else EINTR: wait again
            }
        }
        watcher.start()

        var action = sigaction()
        action.__sigaction_handler.sa_handler = handleInterrupt
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: the read in el_gets() must fail with EINTR
        sigaction(SIGINT, &action, nil)
    }

    /// Makes the calling thread the one that Ctrl-C interrupts (and unblocks SIGINT on it:
    /// threads started from the main actor inherit libdispatch's all-blocked mask).
    static func registerReadingThread() {
        setSIGINT(blocked: false)
        readingThread.store(UInt(pthread_self()), ordering: .sequentiallyConsistent)
    }

    /// Stops forwarding to the calling thread; call it before that thread ends.
    static func unregisterReadingThread() {
        readingThread.store(0, ordering: .sequentiallyConsistent)
        setSIGINT(blocked: true)
    }

    /// Blocks or unblocks SIGINT on the calling thread.
    static func setSIGINT(blocked: Bool) {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        pthread_sigmask(blocked ? SIG_BLOCK : SIG_UNBLOCK, &set, nil)
    }
}

/// The SIGINT handler: async-signal-safe calls only (atomics, `pthread_self`,
/// `pthread_kill`, `sem_post`).
private let handleInterrupt: @convention(c) (Int32) -> Void = { signal in
    let target = InterruptSignal.readingThread.load(ordering: .sequentiallyConsistent)
    if target != 0, pthread_equal(pthread_self(), pthread_t(target)) == 0 {
        _ = pthread_kill(pthread_t(target), signal)
        return
    }
    InterruptSignal.counter.presses.add(1, ordering: .sequentiallyConsistent)
    sem_post(InterruptSignal.wakeUp)
}
