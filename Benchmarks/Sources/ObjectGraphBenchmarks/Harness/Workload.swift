/// The engines a workload compares.
enum Engine: String, Codable, Sendable, CaseIterable {
    /// Hand-written sqlite3 C calls filling plain Swift values: the limit.
    case raw
    /// The framework under test.
    case objectGraph = "ObjectGraph"
    /// GRDB records: the peer.
    case grdb = "GRDB"
}

/// One workload: a family of variants, each run by up to three engines.
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

/// One way of doing a workload, and the engines that do it.
struct Variant {
    /// A few words: `save per 1,000`.
    let name: String
    /// Each engine's run; each run does its own set-up, measures, then checks its result.
    let runs: [(engine: Engine, run: @MainActor () throws -> Sample)]
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
