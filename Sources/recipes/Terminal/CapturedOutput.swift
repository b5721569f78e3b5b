import ObjectGraph

/// A ``ShellOutput`` that keeps everything written, in order, for in-process tests.
///
/// ```swift
/// let output = CapturedOutput()
/// output.write("hi\n", to: .standardOutput)
/// output.text(of: .standardOutput)   // "hi\n"
/// ```
final class CapturedOutput: ShellOutput {
    private let chunks = Locked<[(channel: OutputChannel, text: String)]>([])

    /// Creates an empty capture.
    init() {}

    func write(_ text: String, to channel: OutputChannel) {
        chunks.withLock { $0.append((channel, text)) }
    }

    /// Everything written to `channel`, concatenated.
    func text(of channel: OutputChannel) -> String {
        chunks.withLock { $0.filter { $0.channel == channel }.map(\.text).joined() }
    }

    /// Both streams merged in the order written, as a terminal would show them.
    var merged: String { chunks.withLock { $0.map(\.text).joined() } }
}
