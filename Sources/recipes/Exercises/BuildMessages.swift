/// `swift build`'s output for `exercise check`, on its way to standard error: each compiler
/// message once, and on a terminal the `[12/345] Compiling …` steps on one line redrawn in
/// place, as `swift build` shows them itself.
///
/// `swift build` type-checks a checker's `main.swift` twice (once to emit its module, once
/// to compile it), so an error there, which a renamed type in the learner's file causes,
/// came out twice. Such an error is remembered (``blamesChecker``): the command then says
/// what the checker expects instead of leaving the learner to read the checker's code.
///
/// ```swift
/// var messages = BuildMessages(checkers: "/…/Exercises/Checkers/", columns: 120)
/// write(messages.text(for: "[4/5] Compiling check_01 main.swift"))  // "\r[4/5] Compiling …\u{1B}[K"
/// write(messages.finish())
/// ```
struct BuildMessages {
    /// The checkers' folder, ending in `/`.
    let checkers: String
    /// The terminal's width, or `nil` when standard error is not a terminal.
    let columns: Int?
    /// Whether an error was located in a checker's file.
    private(set) var blamesChecker = false
    /// The message lines (`FILE:LINE:COLUMN: error: …`) shown so far.
    private var shown: Set<String> = []
    /// Whether the lines now belong to a message shown before (its source excerpt): left out.
    private var isRepeating = false
    /// Whether a step is on the terminal's last line, without a newline.
    private var isStepShown = false

    /// Creates the filter for a build whose checkers are in `checkers` (a folder).
    init(checkers: String, columns: Int?) {
        self.checkers = checkers.hasSuffix("/") ? checkers : checkers + "/"
        self.columns = columns
    }

    /// What to write for `line` (without its newline): the line, nothing, or a redrawn step.
    mutating func text(for line: String) -> String {
        if let message = line.firstMatch(of: #/^(.+?):\d+:\d+: (error|warning|note): /#) {
            if message.2 == "error" && message.1.hasPrefix(checkers) { blamesChecker = true }
            isRepeating = !shown.insert(line).inserted
        } else if isRepeating && line.contains(#/^ *\d* *[|+]/#) {
            return ""  // the excerpt under a repeated message: `4 | let x = …`, `  | `- error: …`
        } else {
            isRepeating = false
        }
        if isRepeating { return "" }
        if let columns, line.contains(#/^\[\d+\/\d+\] /#) {
            isStepShown = true
            return "\r" + line.prefix(max(columns - 1, 1)) + "\u{1B}[K"
        }
        return finish() + line + "\n"
    }

    /// What to write once the build has ended: clears a step left on the terminal's last line.
    mutating func finish() -> String {
        guard isStepShown else { return "" }
        isStepShown = false
        return "\r\u{1B}[K"
    }
}
