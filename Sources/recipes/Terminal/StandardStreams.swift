internal import CLibEdit
import Glibc

/// The process's real standard output and standard error.
///
/// Writes go straight to the file descriptors, after the C buffers of stdout and stderr
/// are emptied (for instance text that a command wrote with `print`), so piped stdout and
/// stderr keep their relative order — a transcript merges both. Not `fflush(nil)`: that
/// also locks stdin, which the input thread holds while it waits for a piped line, so
/// every write (a job's end, the notice that Ctrl-C cancels it) waited for the next line.
struct StandardStreams: ShellOutput {
    /// Creates the sink.
    init() {}

    func write(_ text: String, to channel: OutputChannel) {
        clibedit_flush_output()
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
