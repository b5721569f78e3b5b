import Foundation
import Glibc
import ObjectGraph

/// A program the shell starts and waits for: `swift build` and an exercise's checker for
/// `exercise check`, and each stack's run for `bench stacks`.
///
/// The child is started with `posix_spawn`, not Foundation's `Process`: in this toolchain
/// `Process.run()` reads past the end of a `readdir` buffer while it lists the open
/// descriptors, which can crash the shell (fixed upstream in swift-corelibs-foundation
/// #5472). The child reads `/dev/null`, writes its standard error to the shell's and its
/// standard output there too or into a pipe the shell reads; it inherits no other
/// descriptor, handles every signal the default way and blocks none (the shell blocks
/// Ctrl-C on most of its threads, and a mask is inherited). Reading the pipe and waiting
/// happen on a thread of their own, never on Swift's cooperative pool. Cancelling the
/// waiting task terminates the child.
enum ChildProgram {
    /// How a child ended.
    struct Outcome: Sendable {
        /// The exit status, or the signal number when ``wasSignalled``.
        var status: Int32
        /// Whether a signal stopped it.
        var wasSignalled: Bool
        /// Its standard output, when captured.
        var output: Data

        /// `exit status 1` or `signal 4`.
        var outcome: String { wasSignalled ? "signal \(status)" : "exit status \(status)" }
    }

    /// Runs `arguments[0]` (a path, or a name looked up in `PATH`) with the rest as its
    /// arguments and waits for it; `environment` adds variables the shell's environment does
    /// not set. With `capturingOutput` the child's standard output is collected and returned;
    /// without, it goes to standard error, where the child's messages stream as they come, or,
    /// given `lines`, each of its lines (without the newline) is handed to `lines` as it comes,
    /// on a thread of its own.
    /// - Throws: ``CommandError`` when it cannot start; `CancellationError` when cancelled.
    static func run(_ arguments: [String], capturingOutput: Bool, environment extra: [String: String] = [:],
                    lines: (@Sendable (String) -> Void)? = nil) async throws -> Outcome {
        let environment = ProcessInfo.processInfo.environment.merging(extra) { current, _ in current }
        let readsOutput = capturingOutput || lines != nil
        var pipe: [Int32] = [-1, -1]
        if readsOutput {
            guard Glibc.pipe(&pipe) == 0 else {
                throw CommandError("cannot start \(arguments[0]): no pipe for its output (\(String(cString: strerror(errno))))")
            }
            // (Glibc's pipe2 is not imported.) The spawn closes what it does not hand on;
            // this keeps the pipe out of any other child started meanwhile.
            for end in pipe { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        }
        let child: Child
        do {
            child = Child(pid: try spawn(arguments, environment: environment, output: readsOutput ? pipe[1] : 2))
        } catch {
            if readsOutput { close(pipe[0]); close(pipe[1]) }
            throw error
        }
        if readsOutput { close(pipe[1]) }
        let reader = pipe[0]
        let (status, output) = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    var output = Data()
                    if capturingOutput {
                        output = readToEnd(reader)
                    } else if let lines {
                        forEachLine(reader, lines)
                    }
                    continuation.resume(returning: (child.waitForExit(), output))
                }
            }
        } onCancel: {
            child.terminate()
        }
        try Task.checkCancellation()
        let signalled = (status & 0x7f) != 0
        return Outcome(status: signalled ? status & 0x7f : (status >> 8) & 0xff, wasSignalled: signalled, output: output)
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34), which Swift's Glibc module
    /// does not import, found at run time.
    private static let addCloseFrom: AddCloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }

    /// Starts the child with `/dev/null` as input and `output` as its standard output; returns its process ID.
    private static func spawn(_ arguments: [String], environment: [String: String], output: Int32) throws(CommandError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        // Without it, the descriptors the shell opened without close-on-exec stay open in
        // the child (SQLite opens its files with it).
        _ = addCloseFrom.map { $0(&actions, 3) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard code == 0 else { throw CommandError("cannot start \(arguments[0]): \(String(cString: strerror(code)))") }
        return pid
    }

    /// Everything written to `descriptor` until its last writer closes it; closes it.
    private static func readToEnd(_ descriptor: Int32) -> Data {
        defer { close(descriptor) }
        var data = Data(), buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[..<count])
            } else if count == 0 || errno != EINTR {
                return data
            }
        }
    }

    /// Hands each line written to `descriptor` to `body` until its last writer closes it
    /// (the last line even without a newline); closes it.
    private static func forEachLine(_ descriptor: Int32, _ body: (String) -> Void) {
        defer { close(descriptor) }
        var pending = [UInt8](), buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                pending.append(contentsOf: buffer[..<count])
                while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    body(String(decoding: pending[..<end], as: UTF8.self))
                    pending.removeSubrange(...end)
                }
            } else if count == 0 || errno != EINTR {
                if !pending.isEmpty { body(String(decoding: pending, as: UTF8.self)) }
                return
            }
        }
    }

    /// A started child. It is reaped once, under a lock that ``terminate()`` takes too, so
    /// a signal never reaches another process that was given the same ID afterwards.
    private final class Child: Sendable {
        let pid: pid_t
        /// Whether the child has been reaped.
        private let reaped = Locked(false)

        init(pid: pid_t) { self.pid = pid }

        /// Blocks until the child ends, reaps it and returns its raw `waitpid` status.
        func waitForExit() -> Int32 {
            var info = siginfo_t()
            // Wait without reaping, so the ID stays the child's until the lock is held.
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
            return reaped.withLock { reaped in
                var status: Int32 = 0, result: pid_t
                repeat { result = waitpid(pid, &status, 0) } while result < 0 && errno == EINTR
                reaped = true
                // Only a child reaped by someone else has no status; call that exit status 255.
                return result == pid ? status : 255 << 8
            }
        }

        /// Asks the child to stop (SIGTERM) unless it has been reaped.
        func terminate() {
            reaped.withLock { reaped in
                if !reaped { kill(pid, SIGTERM) }
            }
        }
    }
}
