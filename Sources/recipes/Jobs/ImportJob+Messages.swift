import Foundation
import RecipeCatalog

extension ImportJob {
    /// The line that says how the job ended (or that it runs), such as
    /// `import #1: imported 169 recipes from recipes.jsonl (0.84 s)` or
    /// `import #1: cancelled after line 400 of big.jsonl; 400 recipes imported; run the same import to resume`.
    var endMessage: String {
        let took = isDeterministic ? "" : " in " + Self.seconds(elapsed)
        switch state {
        case .running:
            return "\(name): running, \(progressText) of \(fileName)"
        case .done(let report):
            var text = "\(name): imported \(Self.recipes(report.imported, grouped: false)) from \(fileName)"
            if report.resumedAfterLine > 0 { text += ", resuming after line \(report.resumedAfterLine)" }
            if report.changedSinceLine > 0 { text += ", " + Self.changedNote(report.changedSinceLine) }
            if report.skippedExisting > 0 { text += "; \(report.skippedExisting) already in the catalogue were skipped" }
            if !report.errors.isEmpty {
                text += "; \(report.errors.count) line\(report.errors.count == 1 ? "" : "s") could not be imported (listed above)"
            }
            return text + (isDeterministic ? "" : " (\(Self.seconds(elapsed)))")
        case .cancelled(let report):
            let line = max(progress.snapshot.savedThroughLine, report.resumedAfterLine)
            return "\(name): cancelled after line \(line) of \(fileName); \(Self.recipes(report.imported, grouped: false)) imported\(took);"
                + (readsPipe ? " a pipe is read once: it cannot resume" : " run the same import to resume")
        case .failed(let message):
            let line = progress.snapshot.savedThroughLine
            return "\(name): failed after line \(line) of \(fileName): \(message);"
                + " every saved batch is kept" + (readsPipe ? "" : ", run the same import to resume")
        }
    }

    /// The lines that could not be imported, as `warning: file:line: …`, once the job is done.
    var warnings: [String] {
        guard case .done(let report) = state else { return [] }
        return report.errors.map { "warning: \($0)" }
    }

    /// `import 42%`, for the prompt.
    var promptTag: String { "import \(progressText)" }

    /// How far the job got: `42%` of the file, or `1,000 recipes` from a pipe, whose size is unknown.
    var progressText: String {
        readsPipe ? Self.recipes(progress.snapshot.imported) : "\(progress.snapshot.percent)%"
    }

    /// The columns of the job's line in `.jobs`: number, file, state, percentage (`-` while a
    /// pipe is read), recipes,
    /// then (without `--deterministic`) the rate and the time left or taken, and a failure's reason.
    var listingColumns: [String] {
        let snapshot = progress.snapshot
        let seconds = Self.seconds(of: elapsed)
        var columns = ["#\(number)", "import \(fileName)"]
        var percent = snapshot.percent
        var reason: String?
        switch state {
        case .running:
            columns.append(progress.isStopRequested ? "stopping" : "running")
        case .done(let report):
            columns.append("done")
            percent = 100
            if !report.errors.isEmpty { reason = "\(report.errors.count) line\(report.errors.count == 1 ? "" : "s") not imported" }
        case .cancelled:
            columns.append("cancelled")
        case .failed(let message):
            columns.append("failed")
            reason = message
        }
        columns.append(readsPipe && isRunning ? "-" : "\(percent)%")
        columns.append(Self.recipes(snapshot.imported))
        if !isDeterministic {
            let rate = seconds > 0.001 ? Double(snapshot.imported) / seconds : 0
            columns.append("\(ProgressBar.grouped(Int(rate.rounded())))/s")
            if isRunning {
                // The time left, from the bytes read so far and how fast they were read.
                let byteRate = seconds > 0.001 ? Double(snapshot.bytesRead) / seconds : 0
                let left = byteRate > 0 && !readsPipe ? Double(max(0, snapshot.totalBytes - snapshot.bytesRead)) / byteRate : nil
                columns.append(left.map { "\(ProgressBar.clock(Int($0.rounded(.up)))) left" } ?? "")
            } else {
                columns.append("took \(ProgressBar.clock(Int(seconds.rounded())))")
            }
        }
        if let reason { columns.append(reason) }
        return columns
    }

    /// `1 recipe`, `2,500 recipes` (`2500 recipes` when not `grouped`, as the import's summary prints it).
    static func recipes(_ count: Int, grouped: Bool = true) -> String {
        "\(grouped ? ProgressBar.grouped(count) : String(count)) recipe\(count == 1 ? "" : "s")"
    }

    /// Why an import read its file from the start instead of resuming:
    /// `read from line 1: the file changed before line 2500, where an earlier import of it stopped`.
    static func changedNote(_ line: Int) -> String {
        "read from line 1: the file changed before line \(line), where an earlier import of it stopped"
    }

    /// A duration in seconds, as a number.
    static func seconds(of duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// A duration as `0.84 s`.
    static func seconds(_ duration: Duration) -> String { String(format: "%.2f s", seconds(of: duration)) }
}
