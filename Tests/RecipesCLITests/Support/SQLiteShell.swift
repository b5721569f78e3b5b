import Foundation
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
    private let process = Process()
    private let input = Pipe()
    private let text = SharedText()
    private var runs = 0

    init(_ store: String) throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [store]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let reading = output.fileHandleForReading, text = self.text
        Thread {
            while case let data = reading.availableData, !data.isEmpty {
                text.append(String(decoding: data, as: UTF8.self))
            }
        }.start()
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
        try? input.fileHandleForWriting.write(contentsOf: Data((text + "\n").utf8))
    }

    /// Quits the shell and waits for it.
    func close() {
        send(".quit")
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

/// Text a reading thread appends to and a test reads.
final class SharedText: Sendable {
    private let text = Locked("")

    func append(_ more: String) { text.withLock { $0 += more } }

    var value: String { text.withLock { $0 } }
}
