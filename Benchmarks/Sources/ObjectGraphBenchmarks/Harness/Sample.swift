import ObjectGraphSQLite

/// One engine's measured phase: its wall-clock time, the memory it grew by, and for
/// ObjectGraph the framework's own counters.
struct Sample: Codable, Sendable {
    /// Wall-clock seconds of the measured phase.
    var seconds: Double
    /// Resident bytes just before the phase (after freed heap went back to the system).
    var residentBefore: Int
    /// Resident bytes just after the phase, with its results still alive.
    var residentAfter: Int
    /// The peak resident bytes during the phase.
    var peakResident: Int
    /// How far the resident set rose above where it started, at its peak.
    var peakGrowth: Int
    /// ObjectGraph's counters for the phase; nil for the other engines.
    var objectGraph: ObjectGraphCounts?
    /// How much the program's heap grew from a tenth of the way through the phase to its
    /// end (``HeapWatch``); nil where the phase is not watched.
    var heapGrowth: Int?

    /// Runs `body` once as a measured phase: resets the memory peak, times `body`, then
    /// reads the peak and the resident set. Set-up belongs before the call, checks after it.
    static func measure(_ body: () throws -> Void) rethrows -> Sample {
        ProcessMemory.resetPeak()
        let before = ProcessMemory.read()
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        let after = ProcessMemory.read()
        let peak = max(after.peak, after.resident, before.resident)
        return Sample(
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            residentBefore: before.resident, residentAfter: after.resident, peakResident: peak,
            peakGrowth: peak - before.resident, objectGraph: nil, heapGrowth: nil)
    }
}

/// ObjectGraph's counters after a measured phase: the objects it holds and the work it did.
struct ObjectGraphCounts: Codable, Sendable {
    /// Managed objects alive in the process after the phase.
    var liveObjects: Int
    /// Managed objects alive in the process before the phase (left over from earlier runs, if any).
    var liveObjectsBefore: Int
    /// Objects registered in the phase's context after the phase.
    var registeredObjects: Int
    /// SQL statements the store ran during the phase.
    var statements: Int
    /// Faults fired during the phase.
    var faultsFired: Int
    /// Transactions the store committed during the phase.
    var transactions: Int

    /// The counters of `context` now, with the work counted since `start`.
    @MainActor
    init(_ context: MainContext, since start: ContextStatistics) {
        let now = context.statistics, work = now - start
        liveObjects = now.liveObjects
        liveObjectsBefore = start.liveObjects
        registeredObjects = now.registeredObjects
        statements = work.statements
        faultsFired = work.faultsFired
        transactions = work.transactions
    }
}

/// Measuring ObjectGraph phases.
extension Sample {
    /// Measures `body` as a phase of `context`'s work and records the context's counters after it.
    @MainActor
    static func measure(_ context: MainContext, _ body: () throws -> Void) rethrows -> Sample {
        let start = context.statistics
        var sample = try measure(body)
        sample.objectGraph = ObjectGraphCounts(context, since: start)
        return sample
    }
}
