/// Everything one invocation measured, as the report and the JSON file show it.
struct RunResults: Codable {
    /// Rounds per workload.
    var rounds: Int
    /// The size factor.
    var scale: Double
    /// When the run started (ISO 8601).
    var started: String
    /// The 1-, 5- and 15-minute load averages before the run: the machine may be shared.
    var loadAverageBefore: [Double]
    /// The load averages after the run.
    var loadAverageAfter: [Double] = []
    /// Whether the memory peak could be reset before each phase (otherwise peaks are since process start).
    var peakResetWorks: Bool
    /// The workloads, in the order they ran.
    var workloads: [WorkloadResult] = []
}

/// One workload's results.
struct WorkloadResult: Codable {
    /// The short name.
    var name: WorkloadName
    /// What was measured, with the sizes.
    var title: String
    /// How every run checked its result.
    var check: String
    /// Each variant's results, in order.
    var variants: [VariantResult]
    /// The workload's extra ratios.
    var comparisons: [ComparisonResult]
}

/// One variant's results: each engine's samples and the ratios between engines.
struct VariantResult: Codable {
    /// The variant's name.
    var name: String
    /// Each engine's samples and summary, in the order ``Engine`` lists them.
    var engines: [EngineResult]
    /// Median ratios: `ObjectGraph/raw`, `ObjectGraph/GRDB`, `GRDB/raw`, `PostgreSQL/SQLite`,
    /// `PostgreSQL/PostgresNIO`, where both engines ran.
    var ratios: [String: Double]
    /// The operations one run does, for statements per operation.
    var operations: Operations?

    /// The result of `engine`, if it ran this variant.
    func result(of engine: Engine) -> EngineResult? { engines.first { $0.engine == engine } }
}

/// One engine's samples of one variant, with their summary.
struct EngineResult: Codable {
    /// The engine.
    var engine: Engine
    /// Every round's sample, in run order.
    var samples: [Sample]
    /// The median time.
    var medianSeconds: Double
    /// The fastest time.
    var minSeconds: Double
    /// The slowest time.
    var maxSeconds: Double
    /// The median over samples of the phase's peak growth, in bytes.
    var medianPeakGrowth: Int

    /// Summarizes `samples` (at least one).
    init(engine: Engine, samples: [Sample]) {
        self.engine = engine
        self.samples = samples
        let seconds = samples.map(\.seconds)
        medianSeconds = Self.median(seconds)
        minSeconds = seconds.min()!
        maxSeconds = seconds.max()!
        medianPeakGrowth = Int(Self.median(samples.map { Double($0.peakGrowth) }))
    }

    /// The middle value (the mean of the two middle ones for an even count).
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted(), middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// A ratio between two medians of a workload.
struct ComparisonResult: Codable {
    /// What the ratio says.
    var label: String
    /// The numerator's median ÷ the denominator's median.
    var ratio: Double
    /// The numerator's median time.
    var numeratorSeconds: Double
    /// The denominator's median time.
    var denominatorSeconds: Double
}

/// Summaries and ratios from raw samples.
extension VariantResult {
    /// The ratios reported for every variant, as (key, numerator, denominator, the summary's
    /// column heading).
    static let ratioPairs: [(key: String, numerator: Engine, denominator: Engine, heading: String)] = [
        ("ObjectGraph/raw", .objectGraph, .raw, "ObjectGraph ÷ raw"),
        ("ObjectGraph/GRDB", .objectGraph, .grdb, "ObjectGraph ÷ GRDB"),
        ("GRDB/raw", .grdb, .raw, "GRDB ÷ raw"),
        ("PostgreSQL/SQLite", .objectGraphPostgres, .objectGraph, "on PostgreSQL ÷ on SQLite"),
        ("PostgreSQL/PostgresNIO", .objectGraphPostgres, .rawPostgres, "on PostgreSQL ÷ PostgresNIO"),
    ]

    /// Statements per operation of `engine` (from its last sample), if it counts statements
    /// and the variant has operations.
    func statementsPerOperation(of engine: Engine) -> Double? {
        guard let operations, operations.count > 0,
              let counts = result(of: engine)?.samples.last?.objectGraph else { return nil }
        return Double(counts.statements) / Double(operations.count)
    }

    /// Summarizes the samples of each engine, in the order `Engine` lists them.
    init(name: String, samples: [Engine: [Sample]], operations: Operations?) {
        self.name = name
        self.operations = operations
        engines = Engine.allCases.compactMap { engine in samples[engine].map { EngineResult(engine: engine, samples: $0) } }
        ratios = [:]
        for pair in Self.ratioPairs {
            if let top = samples[pair.numerator].map({ EngineResult.median($0.map(\.seconds)) }),
               let bottom = samples[pair.denominator].map({ EngineResult.median($0.map(\.seconds)) }) {
                ratios[pair.key] = top / bottom
            }
        }
    }
}
