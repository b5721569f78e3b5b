/// The outcome of a lesson demo: a short table of numbers and one line on what they show.
public struct DemoReport: Sendable {
    /// The demo's title.
    public var title: String
    /// Column headers.
    public var columns: [String]
    /// Rows of formatted cells.
    public var rows: [[String]]
    /// What the numbers show, in one line.
    public var explanation: String
}

/// One measured variant of a demo.
struct DemoMeasurement: Sendable {
    var label: String
    var seconds: Double
    var statistics: ContextStatistics

    func cells(_ deterministic: Bool, baseline: Double?) -> [String] {
        var cells = [label, deterministic ? "-" : Demos.formatSeconds(seconds)]
        cells.append(baseline.map { deterministic ? "-" : String(format: "%.1f×", seconds / max($0, 1e-9)) } ?? "")
        cells += [String(statistics.statements), String(statistics.faultsFired + statistics.relationshipFaultsFired)]
        return cells
    }
}

import Foundation
import ObjectGraph
