import Foundation
import ObjectGraphSQLite
import Testing
@testable import RecipeCatalog

/// The context-stack experiment at a small size: every stack imports every object, the
/// main context sees them all, and the report and chart name each stack.
@MainActor
struct StacksExperimentTests {
    @Test("Each of the four stacks imports every object, and the main context sees all of them", arguments: StacksExperiment.Strategy.allCases)
    func everyStackImportsEverything(_ strategy: StacksExperiment.Strategy) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("og-stacks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("stack.sqlite").path
        let run = try await StacksExperiment.run(strategy, count: 2_500, batch: 500, path: path)
        #expect(run.mainSawAll)
        #expect(!run.memory.isEmpty)
        let reader = MainContext(coordinator: {
            let coordinator = PersistentStoreCoordinator(model: try! StacksExperiment.model())
            try! coordinator.addStore(at: path)
            return coordinator
        }())
        #expect(try reader.count(for: FetchRequest(entityName: "Item")) == 2_500, "not everything reached the store")
    }

    @Test("The table has one row per stack starting with its numeral; the chart draws one line per stack")
    func reportAndChart() {
        let runs = StacksExperiment.Strategy.allCases.map { strategy in
            StacksExperiment.Run(strategy: strategy, count: 10, seconds: 1, peakMemoryBytes: 1_048_576, latenessP99: 1,
                                 latenessWorst: 2, mainSawAll: true,
                                 memory: [.init(seconds: 0, bytes: 0), .init(seconds: 1, bytes: 1_048_576)])
        }
        let rows = StacksExperiment.table(runs).split(separator: "\n").dropFirst()
        #expect(rows.map { $0.split(separator: " ").first.map(String.init) } == ["I", "II", "III", "IV"])
        let svg = StacksExperiment.svg(runs)
        #expect(svg.hasPrefix("<svg") && svg.components(separatedBy: "<polyline").count == 5)
    }
}
