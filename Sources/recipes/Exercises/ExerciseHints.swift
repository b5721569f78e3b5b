import Foundation

/// The hints of an exercise: the sections of its `hint.md`, each starting `## Hint N`.
///
/// `recipes exercise hint N` shows one more each time it runs (the count is kept in the
/// progress file), so a learner can take as little help as they need.
struct ExerciseHints: Equatable {
    /// The hints' text, in order, without their headings.
    var hints: [String]

    /// Splits `text` at its `## Hint` headings; text before the first heading is ignored.
    init(parsing text: String) {
        var hints: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## Hint") {
                if let current { hints.append(Self.joined(current)) }
                current = []
            } else {
                current?.append(line)
            }
        }
        if let current { hints.append(Self.joined(current)) }
        self.hints = hints.filter { !$0.isEmpty }
    }

    private static func joined(_ lines: [Substring]) -> String {
        lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
