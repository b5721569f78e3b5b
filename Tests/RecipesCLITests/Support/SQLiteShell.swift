import Foundation
import Glibc
import ObjectGraph

/// The `sqlite3` shell on a store file, kept running: a test runs SQL in it and waits for
/// it to finish, and can hold a transaction (and its lock) open across other processes'
/// work. Its output is read on a thread of its own (the read blocks).
///
/// ```swift
/// let shell = try SQLiteShell(store)
/// try await shell.run("BEGIN IMMEDIATE;")   // holds the write lock
/// shell.send("ROLLBACK;")
/// ```
final class SQLiteShell {
    private let pid: pid_t
    /// The write end of the shell's standard input; -1 once closed.
    private var input: Int32
    private let text = SharedText()
    private var runs = 0

    init(_ store: String) throws {
        signal(SIGPIPE, SIG_IGN)  // a write after the shell died must fail, not end the test runner
        let input = try ChildProcess.makePipe(), output = try ChildProcess.makePipe()
        defer {
            Glibc.close(input.read)  // the child holds its own copies
            Glibc.close(output.write)
        }
        pid = try ChildProcess.spawn(
            "/usr/bin/sqlite3", arguments: [store], environment: ProcessInfo.processInfo.environment,
            directory: FileManager.default.currentDirectoryPath,
            input: .descriptor(input.read), output: .descriptor(output.write), error: nil)
        self.input = input.write
        let text = self.text, reading = output.read
        Thread { ChildProcess.read(reading) { text.append(String(decoding: $0, as: UTF8.self)) } }.start()
    }

    deinit {
        guard input >= 0 else { return }
        Glibc.close(input)  // end of input: the shell quits (rolling back an open transaction)
        let pid = self.pid
        Thread { ChildProcess.waitForExit(of: pid) }.start()
    }

    /// Runs `sql` and returns once the shell has done it (it prints a marker after).
    func run(_ sql: String) async throws {
        runs += 1
        let marker = "done \(runs)"
        send(sql + "\n.print " + marker)
        let deadline = HangLimit.deadline(after: .seconds(60))
        while !text.value.contains(marker) {
            guard ContinuousClock.now < deadline else { throw TestFailure("sqlite3 did not run \(sql): \(text.value)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Everything the shell printed.
    var output: String { text.value }

    /// Sends `text` and a newline without waiting.
    func send(_ text: String) {
        if input >= 0 { ChildProcess.write(text + "\n", to: input) }
    }

    /// Quits the shell and waits for it.
    func close() {
        send(".quit")
        guard input >= 0 else { return }
        Glibc.close(input)
        input = -1
        ChildProcess.waitForExit(of: pid)
    }
}

/// Text a reading thread appends to and a test reads.
final class SharedText: Sendable {
    private let text = Locked("")

    func append(_ more: String) { text.withLock { $0 += more } }

    var value: String { text.withLock { $0 } }
}
