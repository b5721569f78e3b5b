import Foundation
import Glibc

/// Starts every child process of the tests (`recipes` through ``RecipesBinary``,
/// ``ShellProcess`` and ``TracedProcess``, `sqlite3` through ``SQLiteShell``, tmux, psql)
/// with `posix_spawn`, closing every inherited descriptor above 2 in the child and
/// unblocking all signals, and reaps them with `waitpid`.
///
/// Foundation's `Process` is not used, for two reasons. On Linux it notices a child's exit
/// through a descriptor that the child inherits, and `tmux new-session` forks a server that
/// keeps every inherited descriptor for its whole life, so `waitUntilExit()` never returned
/// and the client stayed a zombie. And `Process.run()` in the Swift 6.3 toolchain reads past
/// the end of a `readdir` buffer while it lists `/proc/self/fd`, which crashed a soak run
/// that starts hundreds of children (fixed upstream in swift-corelibs-foundation #5472); it
/// also changes the whole test process's working directory while it starts a child.
enum ChildProcess {
    /// Where one of a child's standard streams goes.
    enum Stream {
        /// A file, opened for reading (input) or appending (output), created if missing.
        case file(String)
        /// A descriptor of this process, such as one end of a ``makePipe()``.
        case descriptor(Int32)
    }

    /// A pipe whose two ends close when this process starts a program (the spawn hands the
    /// child its own copy of the end it uses).
    static func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw TestFailure("no pipe: \(String(cString: strerror(errno)))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// Writes `text` to `descriptor` (a child's standard input), all of it unless the
    /// child has gone; a write to a child that has gone fails instead of ending the tests
    /// with SIGPIPE once the caller ignores that signal.
    static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes = bytes.dropFirst(count)
            } else if errno != EINTR {
                return
            }
        }
    }

    /// Everything written to `descriptor` until its last writer closes it, handed on to
    /// `consume` as it arrives (a blocking read: call it on a thread of its own); closes it.
    static func read(_ descriptor: Int32, _ consume: (Data) -> Void) {
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                consume(Data(buffer[..<count]))
            } else if count == 0 || errno != EINTR {
                return
            }
        }
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    /// `posix_spawn_file_actions_addclosefrom_np`, found at run time.
    private static let addCloseFrom: AddCloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }
    /// `posix_spawn_file_actions_addchdir_np` (glibc 2.29), found at run time like the other.
    private static let addChdir: AddChdir? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np")
        .map { unsafeBitCast($0, to: AddChdir.self) }

    /// Starts `executable` (a path, or a name looked up in `PATH`) with `arguments` (without
    /// the program name) and `environment`, in `directory`, reading `input` and writing
    /// `output` and `error` (`error` nil: into `output`, in the order written); every other
    /// descriptor is closed in the child and no signal is blocked. Returns the child's
    /// process ID; ``exitStatus(of:)`` reaps it.
    static func spawn(
        _ executable: String, arguments: [String], environment: [String: String], directory: String,
        input: Stream, output: Stream, error: Stream?
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, stream) in [(Int32(0), input), (1, output), (2, error)] {
            switch stream {
            case .file(let path)?:
                let flags = target == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_APPEND
                posix_spawn_file_actions_addopen(&actions, target, path, flags, 0o600)
            case .descriptor(let descriptor)?:
                posix_spawn_file_actions_adddup2(&actions, descriptor, target)
            case nil:
                posix_spawn_file_actions_adddup2(&actions, 1, 2)
            }
        }
        // Closed in the child, at the spawn itself: a list of open descriptors taken before
        // it would miss one another thread opens in between (another test's pipe).
        // (glibc has both; Swift's Glibc module does not import them, so they are looked up.)
        guard let closeFrom = Self.addCloseFrom, let chdir = Self.addChdir else {
            throw TestFailure("glibc lacks posix_spawn_file_actions_addclosefrom_np or _addchdir_np")
        }
        _ = closeFrom(&actions, 3)
        _ = chdir(&actions, directory)

        // The calling thread blocks signals (libdispatch does that on its workers), and a
        // spawned child inherits the mask: a tmux server with SIGCHLD blocked never reaps
        // its pane, so the pane's exit status never appears. Start from an empty mask.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
        guard code == 0 else { throw TestFailure("cannot run \(executable): \(String(cString: strerror(code)))") }
        return pid
    }

    /// The child's status once it has ended, reaping it (nil while it runs): its exit code,
    /// or the number of the signal that ended it, as `Process.terminationStatus` reports;
    /// -1 if it cannot be waited for (something else reaped it).
    static func exitStatus(of pid: pid_t) -> Int32? { termination(of: pid)?.status }

    /// How the child ended, reaping it (nil while it runs): ``exitStatus(of:)`` and whether
    /// a signal ended it.
    static func termination(of pid: pid_t) -> (status: Int32, wasSignalled: Bool)? {
        var status: Int32 = 0
        var reaped = waitpid(pid, &status, WNOHANG)
        while reaped < 0 && errno == EINTR { reaped = waitpid(pid, &status, WNOHANG) }
        if reaped < 0 { return (-1, false) }
        guard reaped == pid else { return nil }
        return (code(of: status, signalBase: 0), status & 0x7f != 0)
    }

    /// Polls until the child ends and reaps it; nil if it still runs at `deadline`.
    /// - Throws: `CancellationError` when the waiting task is cancelled (the child runs on).
    static func termination(of pid: pid_t, before deadline: ContinuousClock.Instant) async throws -> (status: Int32, wasSignalled: Bool)? {
        while true {
            if let ending = termination(of: pid) { return ending }
            if ContinuousClock.now > deadline { return nil }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Blocks until the child ends and reaps it; returns its raw `waitpid` status. For a
    /// child known to be ending (killed, or told to quit), or on a thread that may block.
    @discardableResult
    static func waitForExit(of pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    /// A `waitpid` status as a number: the exit code, or `signalBase` plus the number of
    /// the signal that ended the child.
    private static func code(of status: Int32, signalBase: Int32) -> Int32 {
        (status & 0x7f) == 0 ? (status >> 8) & 0xff : signalBase + (status & 0x7f)
    }

    /// ``run(_:)`` on a thread outside Swift's cooperative pool, for async tests: starting
    /// and waiting for a child blocks, and the pool has a thread per core, which other
    /// tests (and the Ctrl-C tests' timing) need.
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await offPool { try run(arguments) }
    }

    /// Runs blocking `body` on a thread of its own (neither the cooperative pool's nor
    /// Dispatch's) and waits for it without blocking a thread.
    ///
    /// Not on a Dispatch queue: on Linux its concurrent queues share a pool of a few threads
    /// per core, which other tests' long blocking work (migrations, child processes waited
    /// for minutes) filled for longer than a Ctrl-C test's command ran, so its watch for
    /// the command never ran while it did. A thread per call costs microseconds; every call
    /// here starts or waits for a process.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// Runs `arguments[0]` (looked up in `PATH`) and returns its exit status and standard output.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let directory = try TemporaryDirectory()
        let outputPath = directory.url.appendingPathComponent("out").path
        var environment = ProcessInfo.processInfo.environment
        environment["TMUX"] = nil
        let pid = try spawn(arguments[0], arguments: Array(arguments.dropFirst()), environment: environment,
                            directory: FileManager.default.currentDirectoryPath,
                            input: .file("/dev/null"), output: .file(outputPath), error: .file("/dev/null"))
        let exitStatus = code(of: waitForExit(of: pid), signalBase: 128)  // as a shell reports it
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return (exitStatus, output)
    }
}
