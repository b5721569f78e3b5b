import Foundation
import Glibc

/// Runs a ``LineEditor`` on a dedicated thread and delivers what it reads as an `AsyncStream`.
///
/// libedit blocks the thread that reads, and on Linux the main actor runs on a libdispatch
/// worker: reading there would stall every main-actor job between keystrokes (merges,
/// timers). So the editor lives on its own thread, from creation to destruction, and
/// lines reach the main actor through the stream. After each event the thread waits for
/// the ``InputAck`` before prompting again.
///
/// ```swift
/// let events = InputThread.start(prompt: "recipes> ") { EditLineEditor(...) }
/// for await event in events {
///     if case .line(let text) = event.kind { print(text) }
///     event.ack.readNext(prompt: "recipes> ")
/// }
/// ```
enum InputThread {
    /// Starts the thread; the stream ends after an ack says ``InputAck/Request/stop`` (the
    /// editor is then already closed and the terminal restored).
    ///
    /// - Parameters:
    ///   - prompt: the first prompt.
    ///   - prefill: text already on the first edit line.
    ///   - interrupts: the Ctrl-C counter whose count each event records as its read ends
    ///     (``InputEvent/interruptsAtRead``).
    ///   - makeEditor: creates the editor *on the input thread* (it is not `Sendable`).
    static func start(prompt: String, prefill: String = "", interrupts: InterruptCounter? = nil,
                      makeEditor: @escaping @Sendable () -> any LineEditor) -> AsyncStream<InputEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: InputEvent.self)
        let thread = Thread {
            Thread.current.name = "input"  // cosmetic; pthread_setname_np is not imported
            run(makeEditor(), first: .read(prompt: prompt, recordsHistory: true, prefill: prefill),
                interrupts: interrupts, into: continuation)
            continuation.finish()
        }
        thread.start()
        return stream
    }

    private static func run(_ editor: any LineEditor, first: InputAck.Request, interrupts: InterruptCounter?,
                            into continuation: AsyncStream<InputEvent>.Continuation) {
        if editor.isInterruptible {
            InterruptSignal.registerReadingThread()
        } else {
            InterruptSignal.setSIGINT(blocked: true)
        }
        defer { if editor.isInterruptible { InterruptSignal.unregisterReadingThread() } }
        var request = first
        while case .read(let prompt, let recordsHistory, let prefill) = request {
            let ack = InputAck()
            let kind = editor.readLine(prompt: prompt, recordsHistory: recordsHistory, prefill: prefill)
            continuation.yield(InputEvent(kind: kind, ack: ack, interruptsAtRead: interrupts?.count))
            request = ack.wait()
        }
        editor.close()
    }
}
