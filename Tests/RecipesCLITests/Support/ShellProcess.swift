import Foundation
import ObjectGraph
import Glibc

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
    private let process = Process()
    private let input = Pipe()
    private let received = Received()

    /// Starts `recipes arguments` with `HOME` set to `home`.
    convenience init(_ arguments: [String], home: URL) throws {
        try self.init(executable: RecipesBinary.path, arguments, home: home)
    }

    /// Starts `executable arguments` (a program that runs `recipes`, such as a shell that
    /// prepares a file system first and then `exec`s it) with `HOME` set to `home`.
    init(executable: String, _ arguments: [String], home: URL) throws {
        signal(SIGPIPE, SIG_IGN)  // a write after the child died must fail, not end the test runner
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        environment["LANG"] = "C.UTF-8"
        environment["XDG_DATA_HOME"] = nil
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        try? output.fileHandleForWriting.close()  // the child holds its own copy
        let reading = output.fileHandleForReading, received = self.received
        Thread {
            while true {
                let data = reading.availableData
                if data.isEmpty { return }  // end of file: the child has gone
                received.append(data)
            }
        }.start()
    }

    deinit {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    /// Types `line` and Enter.
    func send(_ line: String) {
        try? input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

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

    /// The child's process ID (after an `exec`, the program it became).
    var processIdentifier: Int32 { process.processIdentifier }

    /// Kills the process with SIGKILL: no handler runs, nothing is flushed or rolled back.
    func kill() { Glibc.kill(process.processIdentifier, SIGKILL) }

    /// Polls until the process has ended; returns whether a signal ended it.
    func waitForExit(timeout: Duration = .seconds(120)) async throws -> (status: Int32, wasSignalled: Bool) {
        let deadline = HangLimit.deadline(after: timeout)
        while process.isRunning {
            guard ContinuousClock.now < deadline else { throw TestFailure("recipes did not exit; output:\n\(output)") }
            try await Task.sleep(for: .milliseconds(10))
        }
        return (process.terminationStatus, process.terminationReason == .uncaughtSignal)
    }
}

/// Bytes read from a child, appended by the reading thread and read by the test.
private final class Received: Sendable {
    private let data = Locked(Data())

    /// Appends `chunk`.
    func append(_ chunk: Data) { data.withLock { $0.append(chunk) } }

    /// Everything so far, as UTF-8 text.
    var text: String { data.withLock { String(decoding: $0, as: UTF8.self) } }
}
