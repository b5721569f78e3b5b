import Foundation
import ObjectGraphSQLite

/// The seeds' context-stack experiment: importing many objects through four stacks of
/// contexts, measuring time, memory and how late the main actor's ticks come.
///
/// - I: nested contexts (a private worker, child of the main context, child of a private
///   persist context), one save at the end;
/// - II: nested, the worker saving and resetting after every batch;
/// - III: sibling contexts on one coordinator, one save and one merge into the main context;
/// - IV: siblings, the worker saving and resetting after every batch, merged as it goes.
public enum StacksExperiment {
    /// One of the four stacks, named by its numeral.
    public enum Strategy: String, CaseIterable, Sendable, Codable {
        /// I: nested contexts, one save at the end.
        case nestedOneSave = "I"
        /// II: nested contexts, the worker saving and resetting after every batch.
        case nestedPeriodic = "II"
        /// III: sibling contexts, one save and one merge.
        case siblingOneSave = "III"
        /// IV: sibling contexts, saved, reset and merged after every batch.
        case siblingPeriodic = "IV"

        /// What the stack does, in a few words.
        public var summary: String {
            switch self {
            case .nestedOneSave: "nested, one save"
            case .nestedPeriodic: "nested, save + reset per batch"
            case .siblingOneSave: "siblings, one save, one merge"
            case .siblingPeriodic: "siblings, save + reset + merge per batch"
            }
        }
    }

    /// What one run measured.
    public struct Run: Sendable, Codable {
        /// The stack.
        public var strategy: Strategy
        /// Objects imported.
        public var count: Int
        /// From the first insert until the main context can count every object.
        public var seconds: Double
        /// The largest resident set above the one measured just before the import.
        public var peakMemoryBytes: Int
        /// How late the main actor's ticks came, in ms: the 99th percentile.
        public var latenessP99: Double
        /// How late the main actor's ticks came, in ms: the worst.
        public var latenessWorst: Double
        /// Whether the main context counted every imported object at the end.
        public var mainSawAll: Bool
        /// Resident memory above the baseline over time: (seconds, bytes).
        public var memory: [MemorySample]
    }

    /// Resident memory above the baseline at a moment of a run.
    public struct MemorySample: Sendable, Codable {
        /// Seconds since sampling began, just before the import.
        public var seconds: Double
        /// Resident memory above the baseline, in bytes.
        public var bytes: Int
    }

    /// The model: one entity with two strings, as in the seeds.
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Item", attributes: [AttributeDescription("name", .string), AttributeDescription("city", .string)]),
        ])
    }

    /// Imports `count` objects through `strategy` into a new store at `path`, in batches of
    /// `batch`, and measures it. Run it on the main actor with nothing else going on.
    @MainActor
    public static func run(_ strategy: Strategy, count: Int, batch: Int = 1_000, path: String) async throws -> Run {
        let coordinator = PersistentStoreCoordinator(model: try model())
        try coordinator.addStore(at: path)
        let sampler = MemorySampler()
        let probe = LatenessProbe()
        let start = ContinuousClock.now
        sampler.start()
        probe.start()
        let main: MainContext
        switch strategy {
        case .nestedOneSave, .nestedPeriodic:
            let persist = PrivateContext(coordinator: coordinator)
            main = MainContext(parent: persist)
            let worker = PrivateContext(parent: main)
            let periodic = strategy == .nestedPeriodic
            try await worker.perform { context in try insert(count, batch: batch, into: context, savingEachBatch: periodic) }
            try main.save()
            try await persist.perform { context in _ = try context.save() }
        case .siblingOneSave, .siblingPeriodic:
            main = MainContext(coordinator: coordinator)
            let worker = PrivateContext(coordinator: coordinator)
            if strategy == .siblingPeriodic {
                main.automaticallyMergesChanges = true
                try await worker.perform { context in try insert(count, batch: batch, into: context, savingEachBatch: true) }
            } else {
                let notes = coordinator.didSaveNotifications
                try await worker.perform { context in try insert(count, batch: batch, into: context, savingEachBatch: false) }
                for await note in notes {
                    main.mergeChanges(fromContextDidSave: note)
                    break
                }
            }
        }
        let seen = try main.count(for: FetchRequest(entityName: "Item"))
        let seconds = (ContinuousClock.now - start).seconds
        probe.stop()
        let lateness = probe.summary
        let memory = sampler.stop()
        return Run(strategy: strategy, count: count, seconds: seconds,
                   peakMemoryBytes: memory.map(\.bytes).max() ?? 0,
                   latenessP99: Double(lateness.p99) / 1_000, latenessWorst: Double(lateness.worst) / 1_000,
                   mainSawAll: seen == count, memory: memory)
    }

    /// Inserts `count` items on `context`, saving (and resetting) after each batch or once.
    private static func insert(_ count: Int, batch: Int, into context: isolated PrivateContext, savingEachBatch: Bool) throws {
        let entity = context.model.entities[0]
        let name = entity.attribute(named: "name")!, city = entity.attribute(named: "city")!
        for index in 0..<count {
            let item = context.insert(entity)
            item[name] = "Item \(index)"
            item[city] = cities[index % cities.count]
            if savingEachBatch && (index + 1) % batch == 0 {
                try context.save()
                context.reset()
            }
        }
        try context.save()
        if savingEachBatch { context.reset() }
    }

    private static let cities = ["Lyon", "Oaxaca", "Bangkok", "Tbilisi", "Kraków", "São Paulo", "Osaka", "Hanoi"]

    // MARK: Reports

    /// The table of runs: one row per stack, starting with its numeral.
    public static func table(_ runs: [Run]) -> String {
        var lines = ["stack  what                                     import    peak memory  main p99   main worst  main saw all"]
        for run in runs {
            let what = run.strategy.summary.padding(toLength: 40, withPad: " ", startingAt: 0)
            lines.append(String(format: "%@%@ %7.2f s  %8.1f MB  %6.1f ms  %8.1f ms   %@",
                                run.strategy.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0) as NSString,
                                what as NSString, run.seconds, Double(run.peakMemoryBytes) / 1_048_576,
                                run.latenessP99, run.latenessWorst, (run.mainSawAll ? "yes" : "NO") as NSString))
        }
        return lines.joined(separator: "\n")
    }

    /// An SVG chart of memory above the baseline over time, one line per stack.
    public static func svg(_ runs: [Run]) -> String {
        let width = 860.0, height = 400.0, left = 70.0, bottom = 40.0, top = 30.0, right = 290.0
        let maxSeconds = max(runs.flatMap { $0.memory.map(\.seconds) }.max() ?? 1, 0.001)
        let maxMB = max(Double(runs.flatMap { $0.memory.map(\.bytes) }.max() ?? 1) / 1_048_576, 1)
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        func x(_ seconds: Double) -> Double { left + seconds / maxSeconds * plotWidth }
        func y(_ megabytes: Double) -> Double { top + plotHeight - megabytes / maxMB * plotHeight }
        let colors = ["#d62728", "#ff7f0e", "#1f77b4", "#2ca02c"]
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(left)" y="18" font-size="14">Memory above baseline during the import (\(runs.first?.count ?? 0) objects)</text>
            <line x1="\(left)" y1="\(top + plotHeight)" x2="\(left + plotWidth)" y2="\(top + plotHeight)" stroke="black"/>
            <line x1="\(left)" y1="\(top)" x2="\(left)" y2="\(top + plotHeight)" stroke="black"/>
            <text x="\(left + plotWidth / 2)" y="\(height - 8)" text-anchor="middle">seconds</text>
            <text x="16" y="\(top + plotHeight / 2)" transform="rotate(-90 16 \(top + plotHeight / 2))" text-anchor="middle">MB</text>

            """
        for step in 0...4 {
            let megabytes = maxMB * Double(step) / 4, seconds = maxSeconds * Double(step) / 4
            svg += String(format: "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>\n", left - 6, y(megabytes) + 4, megabytes)
            svg += String(format: "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.1f</text>\n", x(seconds), top + plotHeight + 16, seconds)
        }
        for (index, run) in runs.enumerated() {
            let color = colors[index % colors.count]
            let points = run.memory.map { String(format: "%.1f,%.1f", x($0.seconds), y(Double($0.bytes) / 1_048_576)) }
            svg += "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\"/>\n"
            let legendY = top + 16 + Double(index) * 20
            svg += "<line x1=\"\(left + plotWidth + 12)\" y1=\"\(legendY - 4)\" x2=\"\(left + plotWidth + 32)\" y2=\"\(legendY - 4)\" stroke=\"\(color)\" stroke-width=\"2\"/>\n"
            svg += "<text x=\"\(left + plotWidth + 38)\" y=\"\(legendY)\">\(run.strategy.rawValue): \(run.strategy.summary)</text>\n"
        }
        return svg + "</svg>\n"
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
