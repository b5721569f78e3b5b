import ObjectGraph
@testable import recipes

/// A ``LineEditor`` that plays back a list of events, for driving the interactive session
/// in-process: each read returns the next event (then end of input), and the prompts it
/// was shown are kept for the test to read.
///
/// ```swift
/// let prompts = PromptLog()
/// let events: [LineEditorEvent] = [.line("job 600"), .line(".quit"), .line("c")]
/// _ = await session.runInteractive { ScriptedEditor(events, prompts: prompts) }
/// #expect(prompts.all.contains { $0.hasPrefix("job #1 is still running") })
/// ```
final class ScriptedEditor: LineEditor {
    private var events: [LineEditorEvent]
    private let prompts: PromptLog

    /// Creates an editor that returns `events` in order.
    init(_ events: [LineEditorEvent], prompts: PromptLog) {
        self.events = events
        self.prompts = prompts
    }

    /// Not interruptible: the test's own interrupt counter stands in for Ctrl-C.
    var isInterruptible: Bool { false }

    func readLine(prompt: String, recordsHistory: Bool) -> LineEditorEvent {
        prompts.append(prompt)
        return events.isEmpty ? .endOfInput : events.removeFirst()
    }

    func close() {}
}

/// The prompts a ``ScriptedEditor`` showed, in order; written on the input thread.
final class PromptLog: Sendable {
    private let prompts = Locked<[String]>([])

    /// Creates an empty log.
    init() {}

    /// Records one prompt.
    func append(_ prompt: String) { prompts.withLock { $0.append(prompt) } }

    /// Every prompt so far.
    var all: [String] { prompts.withLock { $0 } }
}
