import Foundation
import ObjectGraph
import Glibc
import Synchronization

/// The built `recipes` running as a child process with its standard input and output on
/// pipes: a test types commands one at a time, reads the answers as they arrive (standard
/// output and error merged), and can kill the process at a moment it chooses by what it read.
///
/// The output is read on a thread of its own (the read blocks), never on Swift's
/// cooperative pool; waits poll what was read so far with a generous deadline.
///
/// ```swift
/// let shell = try ShellProcess(["catalog.sqlite"])
/// shell.send("count Recipe")
/// try await shell.waitFor("the count") { $0.hasSuffix("0\n") }
/// shell.kill()
/// ```
final class ShellProcess {
    /// The child's process ID (after an `exec`, the program it became).
    let processIdentifier: pid_t
    /// The write end of the child's standard input.
    private let input: Int32
    private let received = Received()
    /// How the child ended, once reaped.
    private var ending: (status: Int32, wasSignalled: Bool)?

    /// Starts `recipes arguments` with `HOME` set to `home`, and the variables of `environment`.
    convenience init(_ arguments: [String], home: URL, environment: [String: String] = [:]) throws {
        try self.init(executable: RecipesBinary.path, arguments, home: home, environment: environment)
    }

    /// Starts `executable arguments` (a program that runs `recipes`, such as a shell that
    /// prepares a file system first and then `exec`s it) with `HOME` set to `home`, and the
    /// variables of `environment`.
    init(executable: String, _ arguments: [String], home: URL, environment: [String: String] = [:]) throws {
        signal(SIGPIPE, SIG_IGN)  // a write after the child died must fail, not end the test runner
        let input = try ChildProcess.makePipe(), output = try ChildProcess.makePipe()
        defer {
            close(input.read)  // the child holds its own copies
            close(output.write)
        }
        processIdentifier = try ChildProcess.spawn(
            executable, arguments: arguments, environment: RecipesBinary.environment(home: home, environment),
            directory: FileManager.default.currentDirectoryPath,
            input: .descriptor(input.read), output: .descriptor(output.write), error: nil)
        self.input = input.write
        let received = self.received, reading = output.read
        Thread {
            ChildProcess.read(reading) { received.append($0) }  // until end of file
            received.finish()
        }.start()
    }

    deinit {
        close(input)
        guard ending == nil else { return }
        // Still running, or ended and not reaped yet: kill and reap it off this thread.
        let pid = processIdentifier
        Glibc.kill(pid, SIGKILL)
        Thread { ChildProcess.waitForExit(of: pid) }.start()
    }

    /// Types `line` and Enter.
    func send(_ line: String) { ChildProcess.write(line + "\n", to: input) }

    /// Everything the process wrote so far.
    var output: String { received.text }

    /// Polls the output until `condition` holds, and returns it.
    ///
    /// - Throws: ``TestFailure`` with the output so far after `timeout`.
    @discardableResult
    func waitFor(_ description: String, timeout: Duration = .seconds(120),
                 _ condition: (String) -> Bool) async throws -> String {
        let deadline = HangLimit.deadline(after: timeout)
        while true {
            let text = output
            if condition(text) { return text }
            guard ContinuousClock.now < deadline else {
                throw TestFailure("timed out waiting for \(description); output:\n\(text)")
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Sends `signal` from the thread that reads the output, the moment the output first
    /// satisfies `condition` (at once if it does already): for a signal that must land while
    /// a quick run still goes on, which a wait on Swift's cooperative pool, kept busy by the
    /// tests in parallel, can miss.
    func send(signal: Int32, when condition: @escaping @Sendable (String) -> Bool) {
        let pid = processIdentifier
        received.whenText(condition) { _ = Glibc.kill(pid, signal) }
    }

    /// Types `line` again and again, each time once `answered` says the output holds its
    /// answer (it is given the output and how many times the line was typed), until the
    /// output satisfies `ready`; then sends `signal` at once and returns the output. All on
    /// a thread of its own: a wait on Swift's cooperative pool, kept busy by the tests in
    /// parallel, once did not run for 13 s, long enough for a background import to end
    /// before the moment it waited for.
    ///
    /// - Throws: ``TestFailure`` with the output so far after `timeout`.
    @discardableResult
    func send(signal: Int32, repeating line: String, answered: @escaping @Sendable (String, Int) -> Bool,
              until ready: @escaping @Sendable (String) -> Bool, timeout: Duration = .seconds(120)) async throws -> String {
        let input = self.input, received = self.received, pid = processIdentifier
        let deadline = HangLimit.deadline(after: timeout)
        return try await ChildProcess.offPool {
            var typed = 0
            while true {
                ChildProcess.write(line + "\n", to: input)
                typed += 1
                var text = received.text
                while !answered(text, typed) {
                    guard ContinuousClock.now < deadline else {
                        throw TestFailure("timed out waiting for answer \(typed) to '\(line)'; output:\n\(text)")
                    }
                    usleep(2_000)
                    text = received.text
                }
                if ready(text) {
                    _ = Glibc.kill(pid, signal)
                    return text
                }
                usleep(50_000)  // pacing, not a measurement
            }
        }
    }

    /// Kills the process with SIGKILL: no handler runs, nothing is flushed or rolled back.
    func kill() {
        if ending == nil { Glibc.kill(processIdentifier, SIGKILL) }
    }

    /// Polls until the process has ended, and reaps it; returns whether a signal ended it.
    func waitForExit(timeout: Duration = .seconds(120)) async throws -> (status: Int32, wasSignalled: Bool) {
        if ending == nil {
            ending = try await ChildProcess.termination(of: processIdentifier, before: HangLimit.deadline(after: timeout))
        }
        guard let ending else { throw TestFailure("recipes did not exit; output:\n\(output)") }
        // The reading thread may not have read the last lines yet (on a loaded machine it
        // lagged behind the exit): ``output`` is whole once it has read to the end.
        let deadline = HangLimit.deadline(after: .seconds(60))
        while !received.isFinished && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        return ending
    }
}

/// Bytes read from a child, appended by the reading thread and read by the test.
private final class Received: Sendable {
    private let data = Locked(Data())
    /// What to do, on the reading thread, once the text satisfies a condition.
    private let trigger = Locked<(condition: @Sendable (String) -> Bool, action: @Sendable () -> Void)?>(nil)

    /// Appends `chunk`, and runs the trigger whose condition the text now meets.
    func append(_ chunk: Data) {
        data.withLock { $0.append(chunk) }
        fireTriggerIfMet()
    }

    /// Runs `action` once, as soon as the text satisfies `condition`.
    func whenText(_ condition: @escaping @Sendable (String) -> Bool, _ action: @escaping @Sendable () -> Void) {
        trigger.withLock { $0 = (condition, action) }
        fireTriggerIfMet()
    }

    private func fireTriggerIfMet() {
        guard let (condition, action) = trigger.withLock({ $0 }), condition(text) else { return }
        guard trigger.withLock({ current in defer { current = nil }; return current != nil }) else { return }
        action()
    }

    /// Everything so far, as UTF-8 text.
    var text: String { data.withLock { String(decoding: $0, as: UTF8.self) } }

    private let finished = Atomic<Bool>(false)
    /// Whether the reading thread has read to the end: every process holding the pipe ended.
    var isFinished: Bool { finished.load(ordering: .acquiring) }
    /// Called by the reading thread at the end of the output.
    func finish() { finished.store(true, ordering: .releasing) }
}
