/// Reads lines from standard input when it is not a terminal: no prompt, no editing, no history.
///
/// Ctrl-C does not interrupt the read (the reading thread blocks SIGINT); it cancels the
/// running command instead, through ``InterruptSignal``.
final class PlainLineReader: LineEditor {
    /// Whether the next line is the first of the input, where a byte-order mark is dropped.
    private var isAtStart = true

    /// Creates a reader over standard input.
    init() {}

    var isInterruptible: Bool { false }

    func readLine(prompt: String, recordsHistory: Bool) -> LineEditorEvent {
        guard var line = Swift.readLine(strippingNewline: true) else { return .endOfInput }
        if isAtStart {
            isAtStart = false
            line = ScriptFile.droppingByteOrderMark(line)
        }
        return .line(line.hasSuffix("\r") ? String(line.dropLast()) : line)
    }

    func close() {}
}
