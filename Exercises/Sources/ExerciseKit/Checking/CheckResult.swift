internal import Foundation

/// What one run of an exercise's checker found: correctness first, then the budgets.
///
/// The checker prints ``rendered()``; `recipes exercise check N` keeps the JSON form
/// (``Codable``) as the exercise's last figures.
public struct CheckResult: Codable, Sendable {
    /// The exercise's number.
    public var number: Int
    /// The exercise's title.
    public var title: String
    /// What was checked: the learner's file or the reference solution.
    public var subject: String
    /// What the correctness checks confirmed, when they passed.
    public var facts: [String] = []
    /// What the correctness checks found wrong; empty when the result is right.
    public var problems: [String] = []
    /// The gated figures.
    public var measurements: [Measurement] = []
    /// Extra lines worth seeing (a query plan), never gated.
    public var details: [String] = []
    /// Wall time of the measured work, in seconds: advisory only.
    public var seconds: Double = 0

    /// Creates an empty result for `exercise`.
    public init(_ exercise: ExerciseInfo, subject: String) {
        number = exercise.number
        title = exercise.title
        self.subject = subject
    }

    /// Whether the result is correct and every measurement is within its budget.
    public var isPassing: Bool { problems.isEmpty && measurements.allSatisfy(\.isWithinBudget) }

    /// The measurements over budget.
    public var exceeded: [Measurement] { measurements.filter { !$0.isWithinBudget } }

    /// The report the checker prints: one line per check, the figures against their budgets,
    /// and the verdict last.
    public func rendered() -> String {
        var lines = ["Exercise \(number < 10 ? "0" : "")\(number) · \(title) — \(subject)"]
        let nameWidth = max("incorrect".count, measurements.map(\.name.count).max() ?? 0)
        let label = { (text: String) in text.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  " }
        if problems.isEmpty {
            lines.append("  ✓ " + label("correct") + facts.joined(separator: "; "))
        } else {
            lines += problems.map { "  ✗ " + label("incorrect") + $0 }
        }
        let valueWidth = max(5, measurements.map(\.value.grouped.count).max() ?? 0)
        for measurement in measurements {
            let mark = measurement.isWithinBudget ? "✓" : "✗"
            var line = "  \(mark) " + label(measurement.name)
                + String(repeating: " ", count: valueWidth - measurement.value.grouped.count) + measurement.value.grouped
                + "   budget ≤ " + measurement.budget.grouped
            if !measurement.isWithinBudget { line += "   " + measurement.advice }
            lines.append(line)
        }
        lines += details.map { "  · " + $0 }
        lines.append("  · wall time " + String(format: "%.2f s", seconds) + " (advisory: it never decides the result)")
        if isPassing {
            lines.append("PASSING: correct and within every budget.")
        } else if !problems.isEmpty {
            lines.append("FAILING: the result is not right yet (budgets count only once it is).")
        } else {
            let count = exceeded.count
            lines.append("FAILING: \(count) of \(measurements.count) budget\(measurements.count == 1 ? "" : "s") exceeded.")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
