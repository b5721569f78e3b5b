import Synchronization

/// Counters that make the cost of object-graph work visible: statements run, rows read,
/// faults fired, objects registered and alive.
///
/// Take one before and one after some work and subtract (``ContextStatistics/-(_:_:)``)
/// to see what the work cost; the shell's `.stats` prints them.
public struct ContextStatistics: Sendable, Equatable {
    /// SQL statements the store ran.
    public var statements = 0
    /// Rows the store read.
    public var rows = 0
    /// Transactions the store committed.
    public var transactions = 0
    /// Object faults fired (values loaded on first access).
    public var faultsFired = 0
    /// To-many relationship faults fired.
    public var relationshipFaultsFired = 0
    /// Managed objects the context created: inserted, fetched, or made as faults.
    public var objectsCreated = 0
    /// Objects whose values the context loaded: faults fired (``faultsFired``, counted once
    /// each however they load) and objects a fetch, a prefetch or a batch filled at once.
    ///
    /// An object made and never read (a fault from `object(with:)`, or a fetch with
    /// ``FetchRequest/returnsObjectsAsFaults`` whose objects are never read) counts in
    /// ``objectsCreated`` but not here: this is how much of the graph was really read.
    public var objectsRealized = 0
    /// Objects registered in the context now.
    public var registeredObjects = 0
    /// Managed objects alive in the process now, in any context or none.
    public var liveObjects = 0
    /// The most managed objects alive in the process at once since it started, or since the
    /// last ``resetPeakLiveObjects()``: what a piece of work held in memory at its worst.
    ///
    /// ```swift
    /// ContextStatistics.resetPeakLiveObjects()
    /// try await importer.perform { context in
    ///     for record in records { try insert(record, into: context) }
    ///     try context.save()
    /// }
    /// let peak = await importer.perform { $0.statistics.peakLiveObjects }
    /// ```
    ///
    /// Like ``liveObjects`` it counts every context's objects, so measure one piece of work
    /// at a time.
    public var peakLiveObjects = 0

    /// Zero counters.
    public init() {}

    /// The difference of counters; the gauges (registered, live, peak) keep `lhs`'s values.
    public static func - (lhs: ContextStatistics, rhs: ContextStatistics) -> ContextStatistics {
        var result = lhs
        result.statements -= rhs.statements
        result.rows -= rhs.rows
        result.transactions -= rhs.transactions
        result.faultsFired -= rhs.faultsFired
        result.relationshipFaultsFired -= rhs.relationshipFaultsFired
        result.objectsCreated -= rhs.objectsCreated
        result.objectsRealized -= rhs.objectsRealized
        return result
    }

    /// Starts a new peak: ``peakLiveObjects`` becomes the number of objects alive now.
    public static func resetPeakLiveObjects() {
        peakLive.store(live.load(ordering: .relaxed), ordering: .relaxed)
    }

    /// Managed objects alive in the process.
    static let live = Atomic<Int>(0)
    /// The high-water mark of ``live``.
    static let peakLive = Atomic<Int>(0)

    /// Counts `count` more objects alive, raising the peak when it is passed. A fetch counts
    /// its new objects once, at its end: two atomic read-modify-writes per object showed
    /// in the time of a large populated fetch.
    @inline(__always)
    static func objectsDidAllocate(_ count: Int = 1) {
        let now = live.wrappingAdd(count, ordering: .relaxed).newValue
        // A plain load first: the read-modify-write happens only while the peak rises.
        if now > peakLive.load(ordering: .relaxed) { peakLive.max(now, ordering: .relaxed) }
    }
}

extension ContextCore {
    var statistics: ContextStatistics {
        var result = ContextStatistics()
        for store in coordinator.handlers {
            let counts = store.statistics
            result.statements += counts.statements
            result.rows += counts.rows
            result.transactions += counts.transactions
        }
        result.faultsFired = faultsFired
        result.relationshipFaultsFired = relationshipFaultsFired
        result.objectsCreated = objectsCreated
        result.objectsRealized = objectsRealized
        result.registeredObjects = registeredObjectCount
        result.liveObjects = ContextStatistics.live.load(ordering: .relaxed)
        result.peakLiveObjects = ContextStatistics.peakLive.load(ordering: .relaxed)
        return result
    }
}
