import Foundation

/// The text report: one block per workload (each engine's median, min–max, memory and
/// ObjectGraph's counters), then a summary of the ratios.
enum Report {
    /// Writes `text` to standard output at once, unbuffered, so progress shows through a pipe.
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    /// The whole report for `results`.
    static func text(_ results: RunResults) -> String {
        var out = ""
        for workload in results.workloads {
            out += "\n\(workload.name.rawValue): \(workload.title)\n  check: \(workload.check)\n"
            var table = [["variant", "engine", "median", "min–max", "peak RSS +", "RSS after", "live objects (+new)", "registered",
                          "statements", "faults"]]
            for variant in workload.variants {
                for (index, result) in variant.engines.enumerated() {
                    let counts = result.samples.last?.objectGraph
                    table.append([
                        index == 0 ? variant.name : "", result.engine.rawValue,
                        seconds(result.medianSeconds), range(result.minSeconds, result.maxSeconds),
                        megabytes(result.medianPeakGrowth),
                        megabytes(Int(EngineResult.median(result.samples.map { Double($0.residentAfter) }))),
                        counts.map { "\(grouped($0.liveObjects)) (+\(grouped($0.liveObjects - $0.liveObjectsBefore)))" } ?? "",
                        counts.map { grouped($0.registeredObjects) } ?? "",
                        counts.map { grouped($0.statements) } ?? "", counts.map { grouped($0.faultsFired) } ?? "",
                    ])
                }
            }
            out += aligned(table, rightAligned: 2...9, indent: "  ")
            for variant in workload.variants where !variant.ratios.isEmpty {
                out += "  \(variant.name): " + ratioLine(variant.ratios) + "\n"
            }
            for variant in workload.variants {
                if let line = statementsLine(variant) { out += "  \(variant.name): \(line)\n" }
                if let line = heapLine(variant) { out += "  \(variant.name): \(line)\n" }
            }
            for comparison in workload.comparisons {
                out += "  \(comparison.label): \(ratio(comparison.ratio)) (\(seconds(comparison.numeratorSeconds)) vs \(seconds(comparison.denominatorSeconds)))\n"
            }
        }
        out += "\nSummary: ratios of medians (time ÷ time; below 1 means the first engine is faster)\n"
        // The PostgreSQL columns only when PostgreSQL ran.
        let pairs = VariantResult.ratioPairs.filter { pair in
            pair.numerator != .objectGraphPostgres
                || results.workloads.contains { $0.variants.contains { $0.ratios[pair.key] != nil } }
        }
        var summary = [["workload", "variant"] + pairs.map(\.heading) + ["ObjectGraph peak RSS +"]]
        for workload in results.workloads {
            for variant in workload.variants {
                summary.append([workload.name.rawValue, variant.name]
                    + pairs.map { variant.ratios[$0.key].map(ratio) ?? "–" }
                    + [variant.result(of: .objectGraph).map { megabytes($0.medianPeakGrowth) } ?? "–"])
            }
        }
        out += aligned(summary, rightAligned: 2...(pairs.count + 2), indent: "  ")
        var statements = [["workload", "variant", "per", "ObjectGraph", "on PostgreSQL"]]
        for workload in results.workloads {
            for variant in workload.variants {
                guard let operations = variant.operations else { continue }
                let counts = [Engine.objectGraph, .objectGraphPostgres].map { variant.statementsPerOperation(of: $0) }
                guard counts.contains(where: { $0 != nil }) else { continue }
                statements.append([workload.name.rawValue, variant.name, operations.unit]
                    + counts.map { $0.map(perOperation) ?? "–" })
            }
        }
        if statements.count > 1 {
            out += "\nStatements per operation (ObjectGraph's statistics: `statements` ÷ operations)\n"
                + aligned(statements, rightAligned: 3...4, indent: "  ")
        }
        var others = [["workload", "ratio of medians", ""]]
        for workload in results.workloads {
            others += workload.comparisons.map { [workload.name.rawValue, $0.label, ratio($0.ratio)] }
        }
        if others.count > 1 { out += "\nOther ratios\n" + aligned(others, rightAligned: 2...2, indent: "  ") }
        out += "\nrounds \(results.rounds), scale \(results.scale); load average before \(results.loadAverageBefore.map { String($0) }.joined(separator: " ")), after \(results.loadAverageAfter.map { String($0) }.joined(separator: " "))"
        if !results.peakResetWorks { out += "\nwarning: the memory peak could not be reset; peaks count from process start" }
        return out + "\n"
    }

    /// `0.391 s`, `12.3 ms` or `0.42 ms`.
    static func seconds(_ value: Double) -> String {
        if value >= 1 { return String(format: "%.3f s", value) }
        return String(format: value >= 0.01 ? "%.1f ms" : "%.2f ms", value * 1000)
    }

    /// `380.1–402.3 ms`: both ends in the unit of the larger.
    static func range(_ low: Double, _ high: Double) -> String {
        if high >= 1 { return String(format: "%.3f–%.3f s", low, high) }
        let format = high >= 0.01 ? "%.1f–%.1f ms" : "%.2f–%.2f ms"
        return String(format: format, low * 1000, high * 1000)
    }

    /// `1.64×`.
    static func ratio(_ value: Double) -> String { String(format: value >= 10 ? "%.1f×" : "%.2f×", value) }

    /// `+5.3 MB` for a growth, `5.3 MB` otherwise (1 MB = 2^20 bytes).
    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }

    /// `300,000`.
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var text = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { text += "," }
            text.append(digit)
        }
        return (value < 0 ? "-" : "") + text
    }

    /// `statements per save (30 saves): ObjectGraph 1,003, ObjectGraph on PostgreSQL 1,006`,
    /// or nil when no engine of `variant` counted statements or it has no operations.
    private static func statementsLine(_ variant: VariantResult) -> String? {
        guard let operations = variant.operations else { return nil }
        let counts = variant.engines.compactMap { result in
            variant.statementsPerOperation(of: result.engine).map { "\(result.engine.rawValue) \(perOperation($0))" }
        }
        guard !counts.isEmpty else { return nil }
        let unit = operations.unit
        let plural = operations.count == 1 ? unit : unit + (unit.hasSuffix("ch") || unit.hasSuffix("s") ? "es" : "s")
        return "statements per \(operations.unit) (\(grouped(operations.count)) \(plural)): " + counts.joined(separator: ", ")
    }

    /// `heap from a tenth of the way to the end (median): ObjectGraph +0.1 MB`, or nil when
    /// no engine of `variant` watched its heap (``HeapWatch``).
    private static func heapLine(_ variant: VariantResult) -> String? {
        let growths = variant.engines.compactMap { result -> String? in
            let values = result.samples.compactMap(\.heapGrowth)
            guard !values.isEmpty else { return nil }
            let median = Int(EngineResult.median(values.map(Double.init)))
            return "\(result.engine.rawValue) \(median < 0 ? "" : "+")\(megabytes(median))"
        }
        guard !growths.isEmpty else { return nil }
        return "heap from a tenth of the way to the end (median): " + growths.joined(separator: ", ")
    }

    /// `1,003`, `3.02` or `1.5`: whole numbers grouped, fractions to two places below 10.
    static func perOperation(_ value: Double) -> String {
        if value >= 100 || value == value.rounded() { return grouped(Int(value.rounded())) }
        return String(format: value >= 10 ? "%.1f" : "%.2f", value)
    }

    /// `ObjectGraph ÷ raw 1.64×, ObjectGraph ÷ GRDB 0.26×`, over the ratios present.
    private static func ratioLine(_ ratios: [String: Double]) -> String {
        VariantResult.ratioPairs.compactMap { pair in
            ratios[pair.key].map { "\(pair.numerator.rawValue) ÷ \(pair.denominator.rawValue) \(ratio($0))" }
        }.joined(separator: ", ")
    }

    /// The rows as columns padded to their widest cell; columns in `rightAligned` are padded on the left.
    private static func aligned(_ rows: [[String]], rightAligned: ClosedRange<Int>, indent: String) -> String {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max()! }
        return rows.map { row in
            indent + row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return rightAligned.contains(column) ? padding + cell : cell + padding
            }.joined(separator: "  ").replacingOccurrences(of: " +$", with: "", options: .regularExpression) + "\n"
        }.joined()
    }
}
