/// Where a batch line came from: `script.rec:12`, or `-c:2` for the second `-c` command.
struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    /// The script path as given, or `-c`.
    var source: String
    /// The 1-based line in the script, or the 1-based index of the `-c` command.
    var line: Int

    /// A line of a script file.
    static func script(_ path: String, line: Int) -> SourceLocation {
        SourceLocation(source: path, line: line)
    }

    /// The `index`-th `-c` command (1-based).
    static func command(_ index: Int) -> SourceLocation {
        SourceLocation(source: "-c", line: index)
    }

    var description: String { "\(source):\(line)" }
}
