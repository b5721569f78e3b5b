/// A cursor over command-line arguments that knows about `--` and option values.
struct ArgumentReader {
    private let arguments: [String]
    private var index = 0
    /// True once `--` was read: later arguments are never options.
    private(set) var isPastSeparator = false

    /// Creates a reader over `arguments` (without the program name).
    init(_ arguments: [String]) { self.arguments = arguments }

    /// The next argument, skipping (and remembering) the first `--`.
    mutating func next() -> String? {
        guard index < arguments.count else { return nil }
        defer { index += 1 }
        if arguments[index] == "--" && !isPastSeparator {
            isPastSeparator = true
            index += 1
            guard index < arguments.count else { return nil }
        }
        return arguments[index]
    }

    /// The value that follows `option`.
    ///
    /// - Throws: ``InvocationError`` when the arguments end first.
    mutating func value(for option: String) throws(InvocationError) -> String {
        guard index < arguments.count else {
            let what = switch option {
            case "-c": "a COMMAND"
            case "-f": "a SCRIPT path"
            case "--output": "a FILE"
            case "--tutorial": "a tutorial FILE (Markdown)"
            case "--count", "--seed": "a whole number"
            case "--plot": "a FILE.svg path"
            case "--only": "a stack's numeral (I, II, III or IV)"
            default: "a value"
            }
            throw InvocationError(message: "option '\(option)' needs \(what)")
        }
        defer { index += 1 }
        return arguments[index]
    }
}
