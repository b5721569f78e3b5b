import Foundation
import Glibc

/// Runs a helper program (tmux) with `posix_spawn` and `waitpid`, closing every inherited
/// descriptor above 2 in the child and unblocking all signals.
///
/// Foundation's `Process` is not used here: on Linux it notices a child's exit through a
/// descriptor that the child inherits, and `tmux new-session` forks a server that keeps
/// every inherited descriptor for its whole life — so `waitUntilExit()` never returned and
/// the client stayed a zombie. Closing the descriptors also keeps the server from holding
/// other tests' `Process` descriptors open.
enum ChildProcess {
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// `posix_spawn_file_actions_addclosefrom_np`, found at run time.
    private static let addCloseFrom: AddCloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }

    /// Runs `arguments[0]` (looked up in `PATH`) and returns its exit status and standard output.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let directory = try TemporaryDirectory()
        let outputPath = directory.url.appendingPathComponent("out").path

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Closed in the child, at the spawn itself: a list of open descriptors taken before
        // it would miss one another thread opens in between (another test's pipe).
        // (glibc 2.34 has it; Swift's Glibc module does not import it, so it is looked up.)
        guard let closeFrom = Self.addCloseFrom else { throw TestFailure("glibc lacks posix_spawn_file_actions_addclosefrom_np") }
        _ = closeFrom(&actions, 3)

        var environment = ProcessInfo.processInfo.environment
        environment["TMUX"] = nil
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }

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

        var pid: pid_t = 0
        let error = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard error == 0 else {
            throw TestFailure("cannot run \(arguments[0]): \(String(cString: strerror(error)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return (exitStatus, output)
    }
}
