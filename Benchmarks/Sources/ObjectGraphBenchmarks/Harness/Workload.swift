/// The engines a workload compares.
enum Engine: String, Codable, Sendable, CaseIterable {
    /// Hand-written sqlite3 C calls filling plain Swift values: the limit.
    case raw
    /// The framework under test.
    case objectGraph = "ObjectGraph"
    /// GRDB records: the peer.
    case grdb = "GRDB"
    /// The framework under test on a PostgreSQL store, over loopback.
    case objectGraphPostgres = "ObjectGraph on PostgreSQL"
    /// Hand-written PostgresNIO queries filling plain Swift classes: the limit on PostgreSQL.
    case rawPostgres = "raw PostgresNIO"
}

/// One workload: a family of variants, each run by up to five engines.
///
/// A workload is built only when it is selected, so building it may make its fixture.
struct Workload {
    /// The short name `--only` accepts.
    let name: WorkloadName
    /// What is measured, with the sizes: one line.
    let title: String
    /// How every run checks its own result: one line.
    let check: String
    /// The ways of doing the work.
    let variants: [Variant]
    /// Ratios between medians worth printing beyond the per-variant ones.
    var comparisons: [Comparison] = []
}

/// One engine's run of a variant: set-up, the measured phase, then the checks.
typealias EngineRun = (engine: Engine, run: @MainActor () throws -> Sample)

/// One way of doing a workload, and the engines that do it.
struct Variant {
    /// A few words: `save per 1,000`.
    let name: String
    /// Each engine's run; each run does its own set-up, measures, then checks its result.
    let runs: [(engine: Engine, run: @MainActor () throws -> Sample)]
    /// How many operations one run does and what one is called (30 saves), for the report's
    /// statements per operation; nil when the variant has no natural unit.
    var operations: Operations? = nil
}

/// A count of operations of one kind: `30 saves`, `1 fetch`.
struct Operations: Codable, Sendable {
    /// How many.
    var count: Int
    /// What one is called: `save`.
    var unit: String
}

/// A ratio of two medians within one workload, such as dictionaries ÷ objects.
struct Comparison: Sendable {
    /// What the ratio says: `dictionaries ÷ raw objects`.
    let label: String
    /// The variant and engine whose median is divided.
    let numerator: (variant: String, engine: Engine)
    /// The variant and engine whose median divides.
    let denominator: (variant: String, engine: Engine)
}
