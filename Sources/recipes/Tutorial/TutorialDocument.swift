/// A tutorial read for walking through at the terminal: its prose, a section at a time,
/// and the commands of its ```` ```repl ```` blocks.
///
/// Only the typed lines of a block (`recipes> …`) are kept; the output shown in the file
/// is what the learner's own run prints. A `## ` heading starts a new prose section.
///
/// ```swift
/// let document = TutorialDocument(markdown: "# 1. Hello\nWhy.\n```repl\nrecipes> count Recipe\n0\n```\n")
/// // document.steps == [.prose("# 1. Hello\nWhy."), .command("count Recipe")]
/// ```
struct TutorialDocument: Equatable {
    /// One thing the walk shows or offers.
    enum Step: Equatable {
        /// Text to read.
        case prose(String)
        /// A command to put on the edit line.
        case command(String)
    }

    /// The first heading, without its `#`s.
    let title: String
    /// The prose sections and commands, in order.
    let steps: [Step]

    /// The number of commands the walk offers.
    var commandCount: Int { steps.count(where: { if case .command = $0 { true } else { false } }) }

    /// Reads a tutorial's Markdown.
    init(markdown: String) {
        var steps: [Step] = []
        var prose: [String] = []
        var fence: String?  // the opening fence of the block being read
        func flushProse() {
            let text = prose.drop { $0.isBlank }.reversed().drop { $0.isBlank }.reversed().joined(separator: "\n")
            if !text.isEmpty { steps.append(.prose(text)) }
            prose = []
        }
        // A line ends at LF, CRLF or a lone CR: in Swift, "\r\n" is one Character, not "\n".
        let lines = markdown.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        for line in lines {
            switch fence {
            case "```repl":
                if line == "```" {
                    fence = nil
                } else if line.hasPrefix("recipes> ") {
                    steps.append(.command(String(line.dropFirst("recipes> ".count))))
                }
            case .some:
                if line.hasPrefix("```") { fence = nil }
                prose.append(line)
            case nil:
                if line == "```repl" {
                    flushProse()
                    fence = line
                } else {
                    if line.hasPrefix("## ") { flushProse() }
                    if line.hasPrefix("```") { fence = line }
                    prose.append(line)
                }
            }
        }
        flushProse()
        self.steps = steps
        let heading = lines.first { $0.hasPrefix("# ") }
        self.title = heading.map { String($0.drop { $0 == "#" || $0 == " " }) } ?? "Tutorial"
    }
}

private extension String {
    var isBlank: Bool { allSatisfy(\.isWhitespace) }
}
