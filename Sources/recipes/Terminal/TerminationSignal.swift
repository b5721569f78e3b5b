import Foundation
import Glibc
import ObjectGraph
import Synchronization

/// SIGTERM and SIGHUP (`kill`, a closed terminal window): removes what was registered with
/// ``removeOnTermination(_:)``, puts the terminal back as the program found it, then ends
/// the program by the same signal, as it would have ended without a handler (so a parent
/// still sees "terminated by SIGTERM"). The line editor installs it when it starts, so a
/// shell killed at its prompt does not leave the terminal in the editor's mode.
///
/// Nothing else is done on the way out: a save under way stops where it is, as it would
/// by the default action, and the store's own journal undoes it (SQLite's rollback
/// journal; an atomic store's file is replaced only by a rename of a complete copy).
///
/// The handler only records the signal and posts a semaphore (both async-signal-safe); a
/// watcher thread of its own does the rest, outside any signal context and off Swift's
/// cooperative pool. A handler, unlike `SIG_IGN`, is not inherited by the programs the
/// shell starts: `exec` resets it.
enum TerminationSignal {
    /// The signal received, or 0.
    private static let received = Atomic<Int32>(0)

    /// Posted by the handler to wake the watcher thread.
    ///
    /// `nonisolated(unsafe)`: the pointer never changes after initialisation, and the
    /// `sem_t` it points to is made for concurrent use from threads and handlers.
    nonisolated(unsafe) private static let wakeUp: UnsafeMutablePointer<sem_t> = {
        let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
        sem_init(semaphore, 0, 0)
        return semaphore
    }()

    /// The files and folders to remove.
    private static let paths = Locked<[String]>([])
    /// The terminal's settings when the handlers were installed, if standard input is one.
    private static let terminal = Locked<termios?>(nil)
    private static let isInstalled = Atomic<Bool>(false)

    /// Removes `url` (a file, or a folder with everything in it) if SIGTERM or SIGHUP ends
    /// the program; installs the handlers the first time.
    static func removeOnTermination(_ url: URL) {
        paths.withLock { $0.append(url.path) }
        install()
    }

    /// Records the terminal's settings, to be restored, and installs the handlers; later
    /// calls do nothing. Call it before anything changes the terminal.
    static func install() {
        guard isInstalled.compareExchange(expected: false, desired: true,
                                          ordering: .sequentiallyConsistent).exchanged else { return }
        // Initialise every global the handler reads, now, outside any signal context.
        _ = received.load(ordering: .sequentiallyConsistent)
        _ = wakeUp
        var settings = termios()
        if isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &settings) == 0 {
            terminal.withLock { $0 = settings }
        }
        let watcher = Thread {
            Thread.current.name = "termination-watcher"
            while sem_wait(wakeUp) != 0 {}  // EINTR: wait again
            finish(received.load(ordering: .sequentiallyConsistent))
        }
        watcher.start()

        var action = sigaction()
        action.__sigaction_handler.sa_handler = handleTermination
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART  // a read the signal lands in goes on until the watcher ends the program
        sigaction(SIGTERM, &action, nil)
        sigaction(SIGHUP, &action, nil)
    }

    /// On the watcher thread: cleans up, then ends the program by `signal`.
    private static func finish(_ signal: Int32) {
        for path in paths.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
        // Only from the foreground: a background process that sets the terminal is stopped.
        if var settings = terminal.withLock({ $0 }), tcgetpgrp(STDIN_FILENO) == getpgrp() {
            tcsetattr(STDIN_FILENO, TCSANOW, &settings)
        }
        Glibc.signal(signal, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(signal)
        _exit(128 + signal)  // not reached: the default action ends the program
    }
}

/// The SIGTERM and SIGHUP handler: async-signal-safe calls only (an atomic, `sem_post`).
private let handleTermination: @convention(c) (Int32) -> Void = { signal in
    TerminationSignal.receive(signal)
}

extension TerminationSignal {
    /// Records `signal` and wakes the watcher; called by the handler.
    fileprivate static func receive(_ signal: Int32) {
        received.store(signal, ordering: .sequentiallyConsistent)
        sem_post(wakeUp)
    }
}
