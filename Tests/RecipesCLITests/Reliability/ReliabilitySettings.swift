import Foundation
import RecipeCatalog

/// How much the reliability suites do: a bounded amount in `make test`, the long version
/// in `make soak`, which sets the environment variables.
///
/// - `RELIABILITY_KILL_TRIALS`: SIGKILL trials per workload (10 by default; the soak runs 200).
/// - `RELIABILITY_SEED`: the seed every trial's moment derives from (printed with the counts,
///   so a failing soak can be replayed).
/// - `RELIABILITY_SOAK=1`: the huge-input cases at full size.
enum ReliabilitySettings {
    static let environment = ProcessInfo.processInfo.environment

    /// SIGKILL trials per workload.
    static var killTrials: Int { environment["RELIABILITY_KILL_TRIALS"].flatMap(Int.init) ?? 10 }

    /// The seed of the trials' random moments.
    static var seed: UInt64 { environment["RELIABILITY_SEED"].flatMap(UInt64.init) ?? 20_261_125 }

    /// Whether the long version runs.
    static var isSoak: Bool { environment["RELIABILITY_SOAK"] == "1" }
}

/// A seeded generator for the trials' choices (the same seed picks the same moments).
struct TrialRandom: RandomNumberGenerator {
    private var source: SplitMix64

    init(seed: UInt64) { source = SplitMix64(seed: seed) }

    mutating func next() -> UInt64 { source.next() }
}
