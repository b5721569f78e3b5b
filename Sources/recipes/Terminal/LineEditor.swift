/// A source of input lines, read on the input thread: the terminal line editor or plain stdin.
///
/// An editor is created, used and destroyed on one thread (``InputThread``), because
/// libedit is not thread-safe and blocks the thread that reads. It never touches
/// main-actor state.
///
/// ```swift
/// let editor: any LineEditor = PlainLineReader()
/// if case .line(let text) = editor.readLine(prompt: "", recordsHistory: false) { … }
/// ```
protocol LineEditor: AnyObject {
    /// Whether Ctrl-C should interrupt ``readLine(prompt:recordsHistory:)``.
    ///
    /// When true, ``InterruptSignal`` forwards SIGINT to the reading thread, so a
    /// half-typed line is discarded and ``LineEditorEvent/interrupted`` returned.
    /// When false, the reading thread blocks SIGINT and keeps reading.
    var isInterruptible: Bool { get }

    /// Shows `prompt` and returns the next line, without its newline.
    ///
    /// - Parameters:
    ///   - prompt: the text before the cursor, such as `recipes> `; plain readers ignore it.
    ///   - recordsHistory: whether a non-empty line is added to the history (false for
    ///     answers to questions such as "Discard unsaved changes?").
    func readLine(prompt: String, recordsHistory: Bool) -> LineEditorEvent

    /// Like ``readLine(prompt:recordsHistory:)``, with `prefill` already on the edit line,
    /// ready to run or change (the tutorial's next command). Plain readers ignore it.
    func readLine(prompt: String, recordsHistory: Bool, prefill: String) -> LineEditorEvent

    /// Releases the terminal (and saves the history); no reads follow.
    func close()
}

extension LineEditor {
    func readLine(prompt: String, recordsHistory: Bool, prefill: String) -> LineEditorEvent {
        readLine(prompt: prompt, recordsHistory: recordsHistory)
    }
}
