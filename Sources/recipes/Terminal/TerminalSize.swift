import Glibc

/// The width of the terminal a file descriptor shows on.
///
/// Read it again for each command rather than once at start-up, so a terminal that was
/// resized meanwhile is honoured.
///
/// ```swift
/// TerminalSize.columns(of: STDOUT_FILENO)   // 150 in a wide window, nil in a pipe
/// ```
enum TerminalSize {
    /// The width used when the terminal does not tell, and `$COLUMNS` is not set.
    static let fallbackColumns = 80

    /// The number of columns of the terminal that `descriptor` writes to, or `nil` when it
    /// is not a terminal.
    ///
    /// Asks the terminal (`ioctl(TIOCGWINSZ)`); when that fails or reports no width, uses
    /// the environment variable `COLUMNS`, then ``fallbackColumns``.
    static func columns(of descriptor: Int32) -> Int? {
        guard isatty(descriptor) != 0 else { return nil }
        var size = winsize()
        if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return Int(size.ws_col)
        }
        return columns(fromEnvironment: getenv("COLUMNS").map { String(cString: $0) })
    }

    /// The width given by a `COLUMNS` value, or ``fallbackColumns`` when it is missing or
    /// not a positive number.
    static func columns(fromEnvironment value: String?) -> Int {
        guard let value, let number = Int(value), number > 0 else { return fallbackColumns }
        return number
    }
}
