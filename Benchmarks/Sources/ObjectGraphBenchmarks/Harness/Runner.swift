import Foundation

/// Runs workloads round by round: each round runs every variant of every workload once per
/// engine, rotating the engines' order so that none always runs first.
@MainActor
struct Runner {
    /// The workloads, in the order they run within a round.
    let workloads: [Workload]
    /// How many rounds.
    let rounds: Int

    /// Runs every round, printing progress, and returns each workload's results.
    func run() throws -> [WorkloadResult] {
        // samples[workload][variant][engine]
        var samples = workloads.map { $0.variants.map { _ in [Engine: [Sample]]() } }
        for round in 0..<rounds {
            var line = "round \(round + 1)/\(rounds):"
            for (w, workload) in workloads.enumerated() {
                let start = ContinuousClock.now
                for (v, variant) in workload.variants.enumerated() {
                    let runs = variant.runs
                    for offset in runs.indices {
                        let (engine, body) = runs[(offset + round) % runs.count]
                        samples[w][v][engine, default: []].append(try body())
                    }
                }
                line += " \(workload.name.rawValue) \(Report.seconds(Self.seconds(since: start)))"
            }
            Report.write(line)
        }
        return workloads.enumerated().map { w, workload in
            let variants = workload.variants.enumerated().map { v, variant in
                VariantResult(name: variant.name, samples: samples[w][v], operations: variant.operations)
            }
            let comparisons = workload.comparisons.compactMap { comparison -> ComparisonResult? in
                /// The median time of one variant and engine, if it ran.
                func median(_ key: (variant: String, engine: Engine)) -> Double? {
                    variants.first { $0.name == key.variant }?.result(of: key.engine)?.medianSeconds
                }
                guard let top = median(comparison.numerator), let bottom = median(comparison.denominator) else { return nil }
                return ComparisonResult(label: comparison.label, ratio: top / bottom,
                                        numeratorSeconds: top, denominatorSeconds: bottom)
            }
            return WorkloadResult(name: workload.name, title: workload.title, check: workload.check,
                                  variants: variants, comparisons: comparisons)
        }
    }

    /// Seconds since `start`.
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
