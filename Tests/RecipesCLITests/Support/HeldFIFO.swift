import Foundation
import Glibc
import ObjectGraph

/// A named pipe (FIFO) that the shell imports as its file, held open by the test: the import
/// reads the lines written so far, then waits for more, so it is still running, however long
/// a loaded machine keeps the shell from its next command, until the test calls
/// ``finish(writing:)``; ``write(_:)`` gives it more lines to read meanwhile.
///
/// Opening a FIFO and writing to it block (until the shell opens it to read, and while the
/// pipe is full), so the writing runs on a thread of its own, never on Swift's cooperative pool.
///
/// ```swift
/// let fifo = try HeldFIFO(named: "jobs.jsonl", in: directory.url, head: firstLines)
/// defer { fifo.finish() }
/// let run = try await RecipesBinary.run([store, "-c", "import \(fifo.path) --background", "-c", ".jobs"])
/// ```
final class HeldFIFO: Sendable {
    /// The FIFO's path.
    let path: String
    /// What to write after the head and not written yet, whether ``finish(writing:)`` was
    /// called (the FIFO closes once the pending text is written), and whether the test is over
    /// (so a writer still waiting for the shell gives up).
    private let state = Locked<State>(([], false, false))
    private typealias State = (pending: [String], isFinished: Bool, isAbandoned: Bool)

    /// Makes the FIFO `name` in `directory` and starts the thread that writes `head` to it
    /// once the shell opens it, then holds it open.
    init(named name: String, in directory: URL, head: String) throws {
        path = directory.appendingPathComponent(name).path
        guard mkfifo(path, 0o600) == 0 else { throw TestFailure("mkfifo \(path): \(String(cString: strerror(errno)))") }
        signal(SIGPIPE, SIG_IGN)  // a write after the shell has gone must fail, not end the test runner
        let path = self.path, state = self.state
        Thread {
            // Waits for the shell to open the FIFO for reading, which a background job may do
            // after the script has ended. A blocking open could be freed only by opening the
            // FIFO to read, which could pair with this writer before the shell does.
            var descriptor = Int32(-1)
            while descriptor < 0 {
                descriptor = open(path, O_WRONLY | O_NONBLOCK)
                guard descriptor < 0 else { break }
                guard errno == ENXIO || errno == EINTR, !state.withLock({ $0.isAbandoned }) else { return }
                usleep(2_000)  // pacing, not a measurement
            }
            defer { close(descriptor) }
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
            ChildProcess.write(head, to: descriptor)
            while true {
                let (texts, isFinished) = state.withLock { state in
                    defer { state.pending = [] }
                    return (state.pending, state.isFinished)
                }
                for text in texts { ChildProcess.write(text, to: descriptor) }
                if isFinished { return }
                if texts.isEmpty { usleep(2_000) }  // pacing, not a measurement
            }
        }.start()
    }

    /// Ends the writing: closes the FIFO (the test is over), or lets the writer give up if
    /// the shell never opened it.
    deinit {
        finish()
        state.withLock { $0.isAbandoned = true }
    }

    /// Writes `rest` after the head and closes the FIFO, so the import reads to its end; a
    /// second call does nothing. Keep the ``HeldFIFO`` until the shell has ended: releasing
    /// it earlier abandons a FIFO the shell has not opened yet.
    func finish(writing rest: String = "") {
        Self.finish(state, writing: rest)
    }

    /// Writes `more` after what was written so far and keeps the FIFO open, so an import that
    /// has read everything reads more, then waits again; nothing once ``finish(writing:)`` was called.
    func write(_ more: String) {
        state.withLock { state in if !state.isFinished { state.pending.append(more) } }
    }

    /// Queues `rest` as the last text of the FIFO, unless `state` has one already.
    private static func finish(_ state: Locked<State>, writing rest: String) {
        state.withLock { state in
            guard !state.isFinished else { return }
            state.pending.append(rest)
            state.isFinished = true
        }
    }

    /// Calls ``finish(writing:)`` once the file at `file` contains `text`, polled on a thread
    /// of its own (for a shell whose standard error goes to `file`), or after `timeout`.
    func finish(writing rest: String = "", once file: String, contains text: String,
                timeout: Duration = .seconds(600)) {
        let deadline = HangLimit.deadline(after: timeout)
        let state = self.state
        Thread {
            while ContinuousClock.now < deadline,
                  !((try? String(contentsOfFile: file, encoding: .utf8))?.contains(text) ?? false) {
                usleep(2_000)  // pacing, not a measurement
            }
            Self.finish(state, writing: rest)
        }.start()
    }
}
