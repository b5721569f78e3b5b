import Foundation
import ObjectGraph
import Glibc
import Synchronization

/// The built `recipes` run with SQL tracing on (`OBJECTGRAPH_SQL_DEBUG=1`, one `sql: …` line
/// on standard error per statement), killed with SIGKILL as soon as it has traced a chosen
/// number of statements.
///
/// A thread of its own reads the trace as it comes and sends the signal itself, so the kill
/// lands a moment after that statement: wherever the process has got to by then (inside a
/// transaction, in its commit, between two). After the process has died, the rest of the
/// pipe is read too, so ``Outcome/trace`` ends with the last statement the process started.
///
/// ```swift
/// let outcome = try await TracedProcess.run([store, "-f", script], home: home, killAfter: 120)
/// #expect(outcome.wasKilled)
/// ```
enum TracedProcess {
    /// What a run did.
    struct Outcome {
        /// Whether SIGKILL ended it (else it finished before the chosen statement).
        var wasKilled: Bool
        var status: Int32
        var trace: TransactionTrace
        var standardOutput: String
        /// Standard error without the trace lines.
        var messages: String
        /// From the start to the end of the process (and of its output).
        var duration: Duration
    }

    /// Runs `recipes arguments` with `HOME` set to `home` and kills it after it traced
    /// `killAfter` statements, once `killAfterDelay` has passed since it started (for work
    /// that runs no SQL, such as an atomic store's save), or as soon as it writes a message
    /// containing `killOnMessage` to standard error; never, when all are nil.
    ///
    /// - Throws: ``TestFailure`` if it does not end within `timeout`.
    static func run(_ arguments: [String], home: URL, killAfter: Int?, killAfterDelay: Duration? = nil,
                    killOnMessage: String? = nil, timeout: Duration = .seconds(120)) async throws -> Outcome {
        let scratch = try TemporaryDirectory()
        let outputURL = scratch.url.appendingPathComponent("stdout")
        let environment = RecipesBinary.environment(home: home, ["OBJECTGRAPH_SQL_DEBUG": "1"])
        let errors = try ChildProcess.makePipe()
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(
                RecipesBinary.path, arguments: arguments, environment: environment,
                directory: FileManager.default.currentDirectoryPath,
                input: .file("/dev/null"), output: .file(outputURL.path), error: .descriptor(errors.write))
        } catch {
            close(errors.read)
            close(errors.write)
            throw error
        }
        close(errors.write)  // the child holds its own copy

        let reader = TraceReader(pid: pid, killAfter: killAfter, killOnMessage: killOnMessage)
        let reading = errors.read
        let done = Atomic<Bool>(false)
        Thread {
            ChildProcess.read(reading) { reader.consume($0) }  // until end of file: the child has gone
            done.store(true, ordering: .releasing)
        }.start()

        let started = ContinuousClock.now
        let deadline = HangLimit.deadline(after: timeout, from: started)
        var ending = reader.reapIfEnded()
        while ending == nil || !done.load(ordering: .acquiring) {
            if let killAfterDelay, ending == nil, ContinuousClock.now >= started + killAfterDelay {
                Glibc.kill(pid, SIGKILL)
            }
            if ContinuousClock.now > deadline {
                if ending == nil {
                    Glibc.kill(pid, SIGKILL)
                    // Reaped through the reader, under the lock its kills take.
                    while reader.reapIfEnded() == nil { try? await Task.sleep(for: .milliseconds(1)) }
                }
                throw TestFailure("recipes \(arguments) did not finish within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(killAfterDelay == nil ? 5 : 1))
            if ending == nil { ending = reader.reapIfEnded() }
        }
        let result = reader.result
        return Outcome(wasKilled: ending!.wasSignalled, status: ending!.status,
                       trace: result.trace, standardOutput: try String(contentsOf: outputURL, encoding: .utf8),
                       messages: result.messages, duration: ContinuousClock.now - started)
    }
}

/// The transactions a traced run started and finished, read from its `sql:` lines.
struct TransactionTrace {
    /// Statements traced.
    var statements = 0
    /// `COMMIT`s traced (the last may not have finished when the process died).
    var commits = 0
    /// `BEGIN`s traced after the last `COMMIT`: a later `BEGIN` proves the commit before it finished.
    var beginsAfterLastCommit = 0
    /// Whether a transaction was open: a `BEGIN` with no `COMMIT` or `ROLLBACK` after it.
    var isInsideTransaction = false
    /// The last statement traced.
    var lastStatement = ""

    mutating func record(_ statement: String) {
        statements += 1
        lastStatement = statement
        switch statement {
        case "BEGIN IMMEDIATE", "BEGIN":
            isInsideTransaction = true
            if commits > 0 { beginsAfterLastCommit += 1 }
        case "COMMIT":
            commits += 1
            beginsAfterLastCommit = 0
            isInsideTransaction = false
        case "ROLLBACK":
            isInsideTransaction = false
        default:
            break
        }
    }

    /// The numbers of committed transactions the store may show after the process died.
    ///
    /// A `COMMIT` is traced before it runs, so the last one may or may not have reached the
    /// file: both counts are possible, unless something proves it finished. With
    /// `isSequential` (one thread wrote every statement, as in a script) any later statement
    /// proves it; otherwise only a later `BEGIN` on the one writer connection does.
    func possibleCommitCounts(isSequential: Bool) -> ClosedRange<Int> {
        guard commits > 0 else { return 0...0 }
        let finished = isSequential ? lastStatement != "COMMIT" : beginsAfterLastCommit > 0
        return finished ? commits...commits : (commits - 1)...commits
    }

    /// Where the kill landed, for the report: inside a transaction, at a commit, or between.
    var moment: String {
        if lastStatement == "COMMIT" { return "commit" }
        return isInsideTransaction ? "transaction" : "between"
    }
}

/// Reads the trace lines of one child as they arrive, and kills it after a number of statements.
private final class TraceReader: Sendable {
    private struct State {
        var trace = TransactionTrace()
        var partial: [UInt8] = []
        var messages = ""
        var hasKilled = false
        /// How the child ended, once reaped: from then on its ID may name another process.
        var ending: (status: Int32, wasSignalled: Bool)?
    }

    private let pid: pid_t
    private let killAfter: Int?
    private let killOnMessage: String?
    private let state = Locked(State())

    init(pid: pid_t, killAfter: Int?, killOnMessage: String?) {
        self.pid = pid
        self.killAfter = killAfter
        self.killOnMessage = killOnMessage
    }

    /// Splits `data` into lines, records each statement, and kills the child at the chosen one.
    func consume(_ data: Data) {
        state.withLock { state in
            for byte in data {
                guard byte == 0x0A else {
                    state.partial.append(byte)
                    continue
                }
                let line = String(decoding: state.partial, as: UTF8.self)
                state.partial.removeAll(keepingCapacity: true)
                if line.hasPrefix("sql: ") {
                    state.trace.record(String(line.dropFirst(5)))
                    if let killAfter, !state.hasKilled, state.ending == nil, state.trace.statements >= killAfter {
                        state.hasKilled = true
                        Glibc.kill(pid, SIGKILL)
                    }
                } else if !line.hasPrefix("  ") {  // a statement's rows, values or plan
                    state.messages += line + "\n"
                    if let killOnMessage, !state.hasKilled, state.ending == nil, line.contains(killOnMessage) {
                        state.hasKilled = true
                        Glibc.kill(pid, SIGKILL)
                    }
                }
            }
        }
    }

    var result: (trace: TransactionTrace, messages: String) { state.withLock { ($0.trace, $0.messages) } }

    /// Reaps the child if it has ended, under the lock the kills take, and says how it ended
    /// (nil while it runs).
    func reapIfEnded() -> (status: Int32, wasSignalled: Bool)? {
        state.withLock { state in
            if state.ending == nil { state.ending = ChildProcess.termination(of: pid) }
            return state.ending
        }
    }
}
