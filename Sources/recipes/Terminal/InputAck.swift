import ObjectGraph
import Dispatch

/// The session's answer to one input event: read another line (with which prompt), or stop.
///
/// The input thread waits on it after every event, so it never prompts while a command
/// still writes to the terminal: command output and the prompt cannot interleave.
///
/// ```swift
/// case .line(let text):
///     await run(text)
///     event.ack.readNext(prompt: handler.prompt)
/// ```
final class InputAck: Sendable {
    /// What the input thread does next.
    enum Request: Sendable, Equatable {
        /// Show `prompt` and read a line, with `prefill` on the edit line; add it to the
        /// history if `recordsHistory`.
        case read(prompt: String, recordsHistory: Bool, prefill: String = "")
        /// Close the editor (saving history, restoring the terminal) and end the stream.
        case stop
    }

    private let semaphore = DispatchSemaphore(value: 0)
    private let request = Locked<Request?>(nil)

    /// Creates an unanswered ack.
    init() {}

    /// Asks the input thread to read one more line.
    func readNext(prompt: String, recordsHistory: Bool = true, prefill: String = "") {
        answer(.read(prompt: prompt, recordsHistory: recordsHistory, prefill: prefill))
    }

    /// Asks the input thread to close the editor and finish the stream.
    func stop() { answer(.stop) }

    private func answer(_ value: Request) {
        let isFirst = request.withLock { current in
            guard current == nil else { return false }
            current = value
            return true
        }
        if isFirst { semaphore.signal() }  // later answers are ignored
    }

    /// Blocks the calling (input) thread until the session answers.
    func wait() -> Request {
        semaphore.wait()
        return request.withLock { $0 } ?? .stop
    }
}
