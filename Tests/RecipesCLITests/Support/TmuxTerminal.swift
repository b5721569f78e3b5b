import Foundation

/// A real terminal for end-to-end tests: `recipes` running in a detached tmux session.
///
/// Each instance has its own tmux server (its own socket in a temporary directory), so
/// tests can run in parallel and never touch the user's tmux. The pane is 120×30 unless
/// asked otherwise, and stays open after the program exits, so its last screen and exit
/// status can be read. Waits poll the pane with a generous timeout; no fixed long sleeps.
/// Every tmux call starts a tmux client and waits for it, so it runs outside Swift's
/// cooperative pool (``ChildProcess/offPool(_:)``): hence the `await` on each.
///
/// ```swift
/// let terminal = try await TmuxTerminal(arguments: [], home: home.url)
/// try await terminal.waitFor { $0.contains("recipes> ") }
/// await terminal.type("echo hi"); await terminal.press("Enter")
/// try await terminal.waitFor { $0.contains("\nhi\n") }
/// ```
final class TmuxTerminal {
    /// Whether tmux can be run here (`make test` installs it; a missing tmux fails the tests).
    static let isAvailable: Bool = (try? ChildProcess.run(["tmux", "-V"]).status) == 0

    private let directory: TemporaryDirectory
    private let socket: String
    private let statusPath: String
    /// The file whose creation lets a program started held (`held: true`) begin.
    private let releasePath: String
    /// The tmux server's process ID, which ends it without a client (0 if unknown).
    private let serverPID: pid_t

    /// Starts `recipes arguments` in a new pane of `columns` × `rows`, with `HOME` set to `home`
    /// and `environment` added. With `held`, the program waits to begin until
    /// ``press(_:after:when:settle:description:timeout:)`` releases it (``Start/release``).
    /// `executable` runs instead of `recipes` when given (an interactive shell, for job control).
    init(executable: String = RecipesBinary.path, arguments: [String] = [], home: URL, columns: Int = 120, rows: Int = 30,
         environment: [String: String] = [:], held: Bool = false) async throws {
        guard Self.isAvailable else {
            throw TestFailure("tmux is not installed: run `make test` (it installs tmux) or `apt-get install tmux`")
        }
        directory = try TemporaryDirectory()
        socket = directory.url.appendingPathComponent("tmux.sock").path
        statusPath = directory.url.appendingPathComponent("status").path
        releasePath = directory.url.appendingPathComponent("release").path
        if !held { _ = FileManager.default.createFile(atPath: releasePath, contents: nil) }
        // A tiny sh wrapper records the exit status in a file: tmux's #{pane_dead_status}
        // stayed empty in parallel runs (the server had not reaped the pane's process).
        // It survives Ctrl-C itself (`trap : INT`; the program starts with the default
        // disposition, since exec resets caught signals), so the status of a program that
        // Ctrl-C ended is still written; and it stays alive afterwards, because tmux blanks
        // a dead pane's screen.
        // A held program waits for the release file (polled every 10 ms) first.
        let command = ["sh", "-c",
                       #"trap : INT; status="$1"; release="$2"; shift 2; while [ ! -e "$release" ]; do sleep 0.01; done; "$@"; echo $? > "$status"; exec sleep 3600"#,
                       "sh", statusPath, releasePath,
                       "env", "-u", "XDG_DATA_HOME", "HOME=\(home.path)", "LANG=C.UTF-8"]
            + environment.map { "\($0.key)=\($0.value)" } + [executable] + arguments
        try await Self.tmux(["-f", "/dev/null", "new-session", "-d", "-x", String(columns), "-y", String(rows)] + command,
                            socket: socket)
        let pid = try? await Self.tmux(["display-message", "-p", "#{pid}"], socket: socket)
        serverPID = pid.flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
    }

    /// Ends the tmux server and with it the pane's programs, which see their terminal hang
    /// up. The server is not this process's child (tmux detaches it), so a signal does
    /// what `tmux kill-server` does without waiting for a client here.
    deinit {
        if serverPID > 0 { kill(serverPID, SIGTERM) } else { _ = try? Self.tmuxNow(["kill-server"], socket: socket) }
    }

    /// Types `text` literally (no key names).
    func type(_ text: String) async { _ = try? await Self.tmux(["send-keys", "-l", text], socket: socket) }

    /// Presses keys by tmux name: `Enter`, `Left`, `BSpace`, `Tab`, `Up`, `C-c`, `C-d`.
    func press(_ keys: String...) async { _ = try? await Self.tmux(["send-keys"] + keys, socket: socket) }

    /// Resizes the window, as a user dragging the terminal's edge would.
    func resize(columns: Int, rows: Int = 30) async {
        _ = try? await Self.tmux(["resize-window", "-x", String(columns), "-y", String(rows)], socket: socket)
    }

    /// The visible text of the pane.
    func screen() async -> String { (try? await Self.tmux(["capture-pane", "-p"], socket: socket)) ?? "" }

    /// Everything the pane showed so far, scrolled-off lines included, with each line the
    /// terminal wrapped joined back whole, as the program wrote it (so its width can be
    /// measured; trailing spaces are kept).
    func transcript() async -> String {
        (try? await Self.tmux(["capture-pane", "-p", "-J", "-S", "-"], socket: socket)) ?? ""
    }

    /// The exit status once the program has exited, else `nil`.
    func exitStatus() async -> Int32? {
        let path = statusPath
        guard let text = try? await ChildProcess.offPool({ try String(contentsOfFile: path, encoding: .utf8) })
        else { return nil }
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Polls the pane until `condition` holds, and returns the screen (or, with
    /// `transcript`, everything the pane showed so far; see ``transcript()``).
    ///
    /// - Throws: ``TestFailure`` with the last screen after `timeout`.
    @discardableResult
    func waitFor(_ description: String = "the expected screen", transcript: Bool = false,
                 timeout: Duration = .seconds(120), _ condition: (String) -> Bool) async throws -> String {
        let deadline = HangLimit.deadline(after: timeout)
        while true {
            let text = transcript ? await self.transcript() : await screen()
            if condition(text) { return text }
            guard ContinuousClock.now < deadline else {
                throw TestFailure("timed out waiting for \(description); screen:\n\(await screen())")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// What ``press(_:after:when:settle:description:timeout:)`` does first, on its thread.
    enum Start: Sendable {
        /// Nothing: the command runs already.
        case nothing
        /// Types a line and presses Enter.
        case line(String)
        /// Lets the program of a terminal started with `held: true` begin.
        case release
    }

    /// Does `start`, polls the pane until `ready` holds of its screen, waits `settle`, then
    /// presses `keys` at once, all on one thread off the cooperative pool; returns the screen
    /// from just before the press and the moment of it.
    ///
    /// For keys that must land while a command still runs (Ctrl-C): the tests in parallel
    /// can keep the cooperative pool busy for longer than such a command takes (a generator
    /// of 2,000,000 recipes once finished before the test's wait for it ran), so starting
    /// the command, watching it and pressing the keys never wait for the pool in between.
    /// - Throws: ``TestFailure`` with the last screen after `timeout`.
    @discardableResult
    func press(
        _ keys: String, after start: Start = .nothing, when ready: @escaping @Sendable (String) -> Bool,
        settle: Duration = .zero, description: String, timeout: Duration = .seconds(120)
    ) async throws -> (screen: String, pressed: ContinuousClock.Instant) {
        let socket = socket, releasePath = releasePath, deadline = HangLimit.deadline(after: timeout)
        return try await ChildProcess.offPool {
            switch start {
            case .nothing: break
            case .line(let text):
                try Self.tmuxNow(["send-keys", "-l", text], socket: socket)
                try Self.tmuxNow(["send-keys", "Enter"], socket: socket)
            case .release:
                _ = FileManager.default.createFile(atPath: releasePath, contents: nil)
            }
            while true {
                let screen = (try? Self.tmuxNow(["capture-pane", "-p"], socket: socket)) ?? ""
                if ready(screen) { break }
                guard ContinuousClock.now < deadline else {
                    throw TestFailure("timed out waiting for \(description); screen:\n\(screen)")
                }
                usleep(20_000)
            }
            if settle > .zero { usleep(UInt32(settle / .microseconds(1))) }
            let screen = (try? Self.tmuxNow(["capture-pane", "-p"], socket: socket)) ?? ""
            let pressed = ContinuousClock.now
            try Self.tmuxNow(["send-keys", keys], socket: socket)
            return (screen, pressed)
        }
    }

    /// The process ID of the program in the pane (the pane's shell wrapper's child), or `nil`
    /// before it has started or after it has ended.
    func programID() async -> pid_t? {
        let socket = socket
        return try? await ChildProcess.offPool {
            let shell = try Self.tmuxNow(["list-panes", "-F", "#{pane_pid}"], socket: socket)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
            return children.split(separator: " ").first.flatMap { pid_t($0) }
        }
    }

    /// The words of `stty -a` for the pane's terminal (`icanon`, `-echo`, …): the mode the
    /// program left it in.
    func terminalModes() async throws -> Set<String> {
        let socket = socket
        return try await ChildProcess.offPool {
            let tty = try Self.tmuxNow(["list-panes", "-F", "#{pane_tty}"], socket: socket)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let result = try ChildProcess.run(["stty", "-a", "-F", tty])
            guard result.status == 0 else { throw TestFailure("stty -a -F \(tty) failed: \(result.output)") }
            return Set(result.output.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" }).map(String.init))
        }
    }

    /// Polls until the program has exited, and returns its status.
    func waitForExit(timeout: Duration = .seconds(120)) async throws -> Int32 {
        let deadline = HangLimit.deadline(after: timeout)
        while ContinuousClock.now < deadline {
            if let status = await exitStatus() { return status }
            try await Task.sleep(for: .milliseconds(20))
        }
        let socket = socket
        let report = (try? await ChildProcess.offPool { Self.stuckProcessReport(socket: socket) }) ?? ""
        throw TestFailure("recipes did not exit; screen:\n\(await screen())\n\(report)")
    }

    /// Where a program that did not exit is waiting: each thread's kernel wait channel and,
    /// when gdb is installed, every thread's backtrace (a hang seen only under heavy load
    /// can then be read from the failed run's log).
    private static func stuckProcessReport(socket: String) -> String {
        guard let shell = try? tmuxNow(["list-panes", "-F", "#{pane_pid}"], socket: socket)
                .trimmingCharacters(in: .whitespacesAndNewlines),
              let children = try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8),
              let pid = children.split(separator: " ").first
        else { return "(the program's process was not found)" }
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var report = "process \(pid), threads waiting in: " + threads.sorted().map { thread in
            let channel = (try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/wchan", encoding: .utf8)) ?? "?"
            return "\(thread):\(channel)"
        }.joined(separator: " ")
        if let gdb = try? ChildProcess.run(["timeout", "60", "gdb", "-batch", "-p", String(pid),
                                            "-ex", "thread apply all bt 30"]) {
            report += "\n" + gdb.output
        }
        return report
    }

    /// Runs tmux outside the cooperative pool and returns its standard output.
    @discardableResult
    private static func tmux(_ arguments: [String], socket: String) async throws -> String {
        try await ChildProcess.offPool { try tmuxNow(arguments, socket: socket) }
    }

    /// Runs tmux on this thread (which it blocks) and returns its standard output.
    @discardableResult
    private static func tmuxNow(_ arguments: [String], socket: String) throws -> String {
        let result = try ChildProcess.run(["tmux", "-S", socket] + arguments)
        guard result.status == 0 else {
            throw TestFailure("tmux \(arguments.joined(separator: " ")) failed")
        }
        return result.output
    }
}
