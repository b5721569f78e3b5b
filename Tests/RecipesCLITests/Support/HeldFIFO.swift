import Foundation
import Glibc
import ObjectGraph

/// A named pipe (FIFO) that the shell imports as its file, held open by the test: the import
/// reads the lines written so far, then waits for more, so it is still running, however long
/// a loaded machine keeps the shell from its next command, until the test calls
/// ``finish(writing:)``.
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
    /// What to write after the head before closing, once ``finish(writing:)`` was called.
    private let tail = Locked<String?>(nil)

    /// Makes the FIFO `name` in `directory` and starts the thread that writes `head` to it
    /// once the shell opens it, then holds it open.
    init(named name: String, in directory: URL, head: String) throws {
        path = directory.appendingPathComponent(name).path
        guard mkfifo(path, 0o600) == 0 else { throw TestFailure("mkfifo \(path): \(String(cString: strerror(errno)))") }
        signal(SIGPIPE, SIG_IGN)  // a write after the shell has gone must fail, not end the test runner
        let path = self.path, tail = self.tail
        Thread {
            let descriptor = open(path, O_WRONLY)  // waits for the shell to open it for reading
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            ChildProcess.write(head, to: descriptor)
            while true {
                if let rest = tail.withLock({ $0 }) {
                    ChildProcess.write(rest, to: descriptor)
                    return
                }
                usleep(2_000)  // pacing, not a measurement
            }
        }.start()
    }

    deinit { finish() }

    /// Writes `rest` after the head and closes the FIFO, so the import reads to its end; a
    /// second call does nothing.
    func finish(writing rest: String = "") {
        guard tail.withLock({ tail in defer { tail = tail ?? rest }; return tail == nil }) else { return }
        // Frees the writer if the shell never opened the FIFO: its open waits for a reader.
        close(open(path, O_RDONLY | O_NONBLOCK))
    }

    /// Calls ``finish(writing:)`` once the file at `file` contains `text`, polled on a thread
    /// of its own (for a shell whose standard error goes to `file`), or after `timeout`.
    func finish(writing rest: String = "", once file: String, contains text: String,
                timeout: Duration = .seconds(600)) {
        let deadline = HangLimit.deadline(after: timeout)
        Thread { [self] in
            while ContinuousClock.now < deadline,
                  !((try? String(contentsOfFile: file, encoding: .utf8))?.contains(text) ?? false) {
                usleep(2_000)  // pacing, not a measurement
            }
            finish(writing: rest)
        }.start()
    }
}
