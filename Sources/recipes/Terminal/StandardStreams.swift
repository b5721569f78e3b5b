import Glibc

/// The process's real standard output and standard error.
///
/// Writes go straight to the file descriptors, after `fflush(nil)` has emptied any C
/// buffer (for instance text that a command wrote with `print`), so piped stdout and
/// stderr keep their relative order — a transcript merges both.
struct StandardStreams: ShellOutput {
    /// Creates the sink.
    init() {}

    func write(_ text: String, to channel: OutputChannel) {
        fflush(nil)
        StandardStreams.write(text, to: channel == .standardOutput ? STDOUT_FILENO : STDERR_FILENO)
    }

    var standardOutputColumns: Int? { TerminalSize.columns(of: STDOUT_FILENO) }

    /// Writes all of `text` to `descriptor`, retrying after `EINTR` (Ctrl-C does not
    /// restart system calls in this process).
    static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Whether `descriptor` is a terminal.
    static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) != 0 }
}
