/// A sink for the shell's two output streams.
///
/// The session and the commands write through it, never with `print`, so an in-process
/// test (or the tutorial checker) can swap in ``CapturedOutput`` and see both streams
/// merged in call order. `Sendable`: background work may write notes through it.
///
/// ```swift
/// output.write("3 recipes\n", to: .standardOutput)
/// output.write("error: no such entity 'Recipie'\n", to: .standardError)
/// ```
protocol ShellOutput: Sendable {
    /// Writes `text` exactly as given (add the newline yourself).
    func write(_ text: String, to channel: OutputChannel)

    /// The width of the terminal that standard output shows on, read now (so a resize is
    /// honoured), or `nil` when standard output is not a terminal.
    var standardOutputColumns: Int? { get }

    /// The same for standard error, where progress is redrawn in place.
    var standardErrorColumns: Int? { get }
}

extension ShellOutput {
    /// Not a terminal: sinks that capture output (tests, the tutorial checker) say so.
    var standardOutputColumns: Int? { nil }

    /// Not a terminal either.
    var standardErrorColumns: Int? { nil }

    /// Writes `line` and a newline to standard output.
    func printLine(_ line: String) { write(line + "\n", to: .standardOutput) }

    /// Writes `line` and a newline to standard error.
    func printErrorLine(_ line: String) { write(line + "\n", to: .standardError) }
}
