public import ObjectGraph
internal import ObjectGraphSQLite
internal import Synchronization

/// What one piece of work cost, as the framework's instrumentation saw it.
public struct Figures: Sendable {
    /// Counters during the work (statements, rows, transactions, faults, objects created);
    /// the gauges (registered, live) as they were after it.
    public var statistics = ContextStatistics()
    /// The statements the store ran, by their first keyword (`SELECT`, `INSERT`, `DELETE`, …).
    public var statementsByKind: [String: Int] = [:]
    /// The most managed objects alive at once during the work.
    public var peakLiveObjects = 0
    /// Managed objects alive before the work started.
    public var liveObjectsBefore = 0
    /// Managed objects alive once the work had returned and dropped its own references.
    public var liveObjectsAfter = 0
    /// Wall time, in seconds: advisory only.
    public var seconds = 0.0

    /// The number of statements whose first keyword is `kind` (upper case).
    public func statements(_ kind: String) -> Int { statementsByKind[kind, default: 0] }

    /// Faults fired of both kinds: objects and to-many relationships.
    public var allFaultsFired: Int { statistics.faultsFired + statistics.relationshipFaultsFired }
}

/// Runs a learner's work on a context and measures it: ``ContextStatistics`` before and
/// after, every statement the store ran (through its SQL debug hook), and the peak of
/// live managed objects.
///
/// ```swift
/// let (_, figures) = try await Probe.measure(on: context, store: catalog.store) { context in
///     try saver.save(records, in: context)
/// }
/// print(figures.statistics.transactions, figures.statements("SELECT"))
/// ```
public enum Probe {
    /// Runs `work` on `context` and returns its result with what it cost.
    ///
    /// Live objects are a process-wide gauge, so measure one piece of work at a time and
    /// hold no managed objects of your own across the call.
    public static func measure<T: Sendable>(
        on context: PrivateContext, store: any PersistentStore,
        _ work: @Sendable (isolated PrivateContext) throws -> T
    ) async throws -> (T, Figures) {
        // The statements are counted from the SQLite store's debug log; the exercises' catalogues are SQLite.
        guard let store = store as? SQLiteStore else {
            throw ExerciseSetupError("the exercise's catalogue must be a SQLite store to count its statements")
        }
        let tally = StatementTally()
        store.setSQLDebugLevel(.statements, includesTimings: false) { line in tally.record(line) }
        defer { store.setSQLDebugLevel(.off) { _ in } }
        let before = await context.perform { $0.statistics }
        ContextStatistics.resetPeakLiveObjects()
        let start = ContinuousClock.now
        let value = try await context.perform { context in try work(context) }
        let elapsed = ContinuousClock.now - start
        let after = await context.perform { $0.statistics }
        var figures = Figures()
        figures.statistics = after - before
        figures.statementsByKind = tally.counts
        figures.peakLiveObjects = after.peakLiveObjects
        figures.liveObjectsBefore = before.liveObjects
        figures.liveObjectsAfter = after.liveObjects
        figures.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return (value, figures)
    }
}

/// Counts the statements a store's SQL debug hook reports, by first keyword.
final class StatementTally: Sendable {
    private let storage = Mutex<[String: Int]>([:])

    /// Records one line of the hook's output; only `sql: …` lines are statements.
    func record(_ line: String) {
        guard line.hasPrefix("sql: ") else { return }
        let keyword = line.dropFirst(5).prefix { $0.isLetter }.uppercased()
        storage.withLock { $0[keyword, default: 0] += 1 }
    }

    /// The counts so far.
    var counts: [String: Int] { storage.withLock { $0 } }
}
