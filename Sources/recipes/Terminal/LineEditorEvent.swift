/// What one read from a ``LineEditor`` produced.
enum LineEditorEvent: Sendable, Equatable {
    /// A complete line, without its newline.
    case line(String)
    /// Ctrl-C at the prompt: the half-typed line was discarded.
    case interrupted
    /// Ctrl-D on an empty line, or the end of the input stream.
    case endOfInput
}
