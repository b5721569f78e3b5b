internal import CLibEdit
import Glibc
import Synchronization

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

    var standardErrorColumns: Int? { TerminalSize.columns(of: STDERR_FILENO) }

    /// Writes all of `text` to `descriptor`, retrying after `EINTR` (Ctrl-C does not
    /// restart system calls in this process). A write to standard output that fails (a full
    /// disk, an I/O error) is remembered for ``exitStatus(after:)``.
    static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                if descriptor == STDOUT_FILENO { noteOutputError(written < 0 ? errno : EIO) }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }

    /// The `errno` of the first write to standard output that failed, or 0.
    private static let outputError = Atomic<Int32>(0)

    /// Keeps `error` as the output error unless one is kept already.
    private static func noteOutputError(_ error: Int32) {
        _ = outputError.compareExchange(expected: 0, desired: error, ordering: .relaxed)
    }

    /// The program's exit status once it ran with `status`: at least 1, with a message on
    /// standard error, when some output could not be written, so that a script writing to a
    /// full disk does not take an incomplete file for a complete one.
    static func exitStatus(after status: Int32) -> Int32 {
        clibedit_flush_output()
        let error = outputError.load(ordering: .relaxed)
        guard error != 0 else { return status }
        write("recipes: error: cannot write to standard output (\(String(cString: strerror(error)))); the output is incomplete\n",
              to: STDERR_FILENO)
        return status == 0 ? 1 : status
    }

    /// Whether `descriptor` is a terminal.
    static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) != 0 }

    /// Whether `path` names this process's standard input: the same file, pipe or terminal
    /// as descriptor 0, as `/dev/stdin` and `/proc/self/fd/0` do.
    static func isStandardInput(_ path: String) -> Bool {
        var input = stat(), named = stat()
        guard fstat(STDIN_FILENO, &input) == 0, stat(path, &named) == 0 else { return false }
        return input.st_dev == named.st_dev && input.st_ino == named.st_ino
    }
}
