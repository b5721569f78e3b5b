import ObjectGraph
import Foundation

/// How much SQL a store reports as it runs.
public enum SQLDebugLevel: Int, Sendable, Comparable, CaseIterable {
    /// Nothing.
    case off = 0
    /// Each statement, the rows it returned and its time.
    case statements = 1
    /// Also the values bound to its placeholders.
    case values = 2
    /// Also SQLite's query plan.
    case plans = 3

    /// Orders levels by how much they report.
    public static func < (lhs: SQLDebugLevel, rhs: SQLDebugLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension SQLiteStore {
    /// Reports every statement at `level` to `handler`, or stops reporting with `.off`.
    ///
    /// It applies to every connection of the store: the writer and the readers, those
    /// opened later included.
    ///
    /// The environment variable `OBJECTGRAPH_SQL_DEBUG=1|2|3` switches this on for every
    /// store at open, writing to standard error.
    /// ```swift
    /// store.setSQLDebugLevel(.values) { line in print(line) }
    /// ```
    public func setSQLDebugLevel(
        _ level: SQLDebugLevel, includesTimings: Bool = true, handler: @escaping @Sendable (String) -> Void
    ) {
        let trace: (@Sendable (SQLTraceEvent) -> Void)?
        if level == .off {
            trace = nil
        } else {
            trace = { event in
                for line in SQLiteStore.format(event, level: level, includesTimings: includesTimings) { handler(line) }
            }
        }
        pool.setTrace(trace, tracesQueryPlans: level >= .plans)
    }

    /// The lines one traced statement prints at `level`.
    static func format(_ event: SQLTraceEvent, level: SQLDebugLevel, includesTimings: Bool = true) -> [String] {
        let milliseconds = Double(event.duration.components.attoseconds) / 1e15
            + Double(event.duration.components.seconds) * 1000
        var lines = ["sql: \(event.sql)"]
        if level >= .values, !event.arguments.isEmpty {
            lines.append("  values: " + event.arguments.map(\.description).joined(separator: ", "))
        }
        let rows = "  \(event.rows) row\(event.rows == 1 ? "" : "s")"
        lines.append(includesTimings ? rows + String(format: " in %.3f ms", milliseconds) : rows)
        if level >= .plans { lines += event.plan.map { "  plan: " + $0 } }
        return lines
    }

    /// Applies `OBJECTGRAPH_SQL_DEBUG` from the environment.
    func applyEnvironmentDebugLevel() {
        guard let text = ProcessInfo.processInfo.environment["OBJECTGRAPH_SQL_DEBUG"],
              let raw = Int(text), let level = SQLDebugLevel(rawValue: min(3, max(0, raw))), level != .off else { return }
        setSQLDebugLevel(level) { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }
}
