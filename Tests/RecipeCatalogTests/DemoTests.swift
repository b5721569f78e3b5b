import Foundation
import Testing
@testable import RecipeCatalog
import ObjectGraph

/// Each lesson demo, small, asserting its counts (never its times).
struct DemoTests {
    func column(_ report: DemoReport, _ name: String) -> [String] {
        let index = report.columns.firstIndex(of: name)!
        return report.rows.map { $0[index] }
    }

    @Test("Variants that disagree stop the demo with an error the shell can print, not a crash")
    func disagreementIsAnError() {
        #expect(throws: Never.self) { try Demos.checkAgreement(true, "unused") }
        let error = #expect(throws: DemoDisagreement.self) { try Demos.checkAgreement(1 == 2, "the counts were 1 and 2") }
        #expect(error?.description == "the demo's variants disagree: the counts were 1 and 2")
    }

    @Test func prefetchTurnsNPlusOneIntoTwo() async throws {
        let report = try await Demos.run("prefetch", size: 200, deterministic: true)
        let statements = column(report, "statements").compactMap(Int.init)
        #expect(statements[0] > 150)   // one per distinct chef, plus the fetch
        #expect(statements[1] == 2)
        #expect(column(report, "time") == ["-", "-"])
    }

    @Test func searchGivesTheSameMatchesEitherWay() async throws {
        let report = try await Demos.run("search", size: 500, deterministic: true)
        #expect(report.rows.count == 5)   // the demo itself checks both ways agree
        #expect(Int(column(report, "matches")[2])! > 0)
    }

    @Test func deleteCostsFewStatementsAsABatch() async throws {
        let report = try await Demos.run("delete", size: 100, deterministic: true)
        let statements = column(report, "statements").compactMap(Int.init)
        let faults = column(report, "faults fired").compactMap(Int.init)
        #expect(report.rows.count == 4)
        #expect(statements[3] <= 10 && faults[3] == 0)  // the batch request loads no object
        #expect(faults[0] > faults[2] && statements[0] > statements[2])  // prefetched: loaded before the deletes
        // In one call the rules load what they visit a level at a time: as few statements
        // as prefetching, where one call per recipe costs a few per recipe.
        #expect(statements[1] <= statements[2] + 1 && statements[0] > 10 * statements[1])
    }

    @Test func lazyMakesOnlyTheObjectsRead() async throws {
        let report = try await Demos.run("lazy", size: 300, deterministic: true)
        let statements = column(report, "statements").compactMap(Int.init)
        let made = column(report, "objects made").compactMap(Int.init)
        #expect(report.rows.count == 4)
        #expect(made == [300, 300, 3, 100], "a fetch makes every object; a lazy fetch those read, or their batch")
        #expect(statements == [1, 4, 4, 2], "keys first, then a row per element read, or one batch")
    }

    @Test func refreshReleasesTheCycles() async throws {
        let report = try await Demos.run("refresh", size: 100, deterministic: true)
        // Registered objects are the context's live ones (it holds them weakly); the
        // process-wide live count is shown too, but other tests running alongside move it.
        let registered = column(report, "registered").compactMap(Int.init)
        #expect(registered[1] > 100 && registered[2] == registered[1])
        #expect(registered[3] == 0 && registered[0] == 0)
    }

    @Test("The refresh demo counts its own objects alive, not those other work in the process makes and frees meanwhile")
    func refreshCountsOnlyItsOwnObjects() async throws {
        let noise = ObjectNoise()
        defer { noise.stop() }
        while noise.made < 1_000 { try await Task.sleep(for: .milliseconds(1)) }
        let report = try await Demos.run("refresh", size: 100, deterministic: true)
        #expect(column(report, "live objects") == column(report, "registered"), "\(report.rows)")
        #expect(report.explanation.hasSuffix("so dropping the results frees nothing; refreshing turns them back into faults and the cycles go."))
    }

    @Test("The refresh demo's explanation says what its counts show, also when they do not bear the lesson out")
    func refreshExplanationFollowsTheCounts() {
        #expect(Demos.refreshExplanation(walked: 819, dropped: 819, refreshed: 0)
                == "A recipe holds its lines and each line its recipe, so dropping the results frees nothing; refreshing turns them back into faults and the cycles go.")
        #expect(Demos.refreshExplanation(walked: 819, dropped: 800, refreshed: 3)
                == "A recipe holds its lines and each line its recipe, yet dropping the results freed 19 of 819 objects; after refreshing, 3 of them are still alive.")
    }

    @Test func uniquingMakesTheSameCatalogueWithFewerStatements() async throws {
        let report = try await Demos.run("uniquing", size: 300, deterministic: true)
        let statements = column(report, "statements").compactMap(Int.init)
        #expect(statements[0] > statements[1])
    }

    @Test func resettingKeepsMemoryFlat() async throws {
        let report = try await Demos.run("import", size: 3_000, deterministic: true)
        let peaks = column(report, "peak objects alive in the context").compactMap(Int.init)
        #expect(peaks[1] > 2 * peaks[0])
    }

    @Test("An import demo that Ctrl-C stops throws, where its importer returns the batches it saved",
          arguments: ["uniquing", "import"])
    func cancelledImportsThrow(name: String) async throws {
        let workspace = try DemoWorkspace(count: 20)
        defer { workspace.remove() }
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }  // as Ctrl-C does, once the data is generated
            return name == "uniquing" ? try await Demos.uniquing(workspace, true) : try await Demos.importing(workspace, true)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test("Below one batch of the importer, the import demo saves in two batches, so the missing reset shows",
          arguments: [10, 100])
    func resettingShowsOnASmallFile(size: Int) async throws {
        let report = try await Demos.run("import", size: size, deterministic: true)
        let peaks = column(report, "peak objects alive in the context").compactMap(Int.init)
        #expect(peaks[1] > peaks[0], "\(report.rows)")
        #expect(column(report, "variant") == ["save + reset every \(size / 2)", "save every \(size / 2), never reset"])
    }

    @Test("Times under a millisecond print in microseconds, not as 0.0 ms",
          arguments: [(0.000_04, "40 µs"), (0.000_95, "950 µs"), (0.0123, "12.3 ms"), (2.5, "2.50 s")])
    func timesKeepTheirFigures(seconds: Double, text: String) {
        #expect(Demos.formatSeconds(seconds) == text)
    }

    @Test("An error a demo throws after Ctrl-C is reported as the interruption, not as a store failure")
    func errorsAfterCancellationAreInterruptions() async throws {
        let task = Task {
            try await Demos.stoppingOnCancellation {
                withUnsafeCurrentTask { $0?.cancel() }
                throw ObjectGraphError(.storeFailure, "could not load RecipeIngredient/p1 while reading it: CancellationError()")
            }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        await #expect(throws: ObjectGraphError.self) {
            try await Demos.stoppingOnCancellation { throw ObjectGraphError(.storeFailure, "a real failure") }
        }
    }

    @Test func unknownDemosNameTheKnownOnes() async throws {
        await #expect(throws: (any Error).self) { try await Demos.run("nope") }
    }
}

/// A thread that keeps inserting objects into a context of its own and resetting it every
/// thousand, so the process's count of live objects keeps rising and falling, as it does
/// while the shell runs a background import.
final class ObjectNoise: Sendable {
    private let state = Locked((running: true, made: 0))

    init() {
        let context = PrivateContext(coordinator: try! Catalog.inMemory().coordinator)
        Thread { [state] in
            while state.withLock({ $0.running }) {
                context.performAndWait { context in
                    _ = try? context.insert(CatalogModel.chef)
                    if context.statistics.registeredObjects >= 1_000 { context.reset() }
                }
                state.withLock { $0.made += 1 }
            }
        }.start()
    }

    /// How many objects the thread has made.
    var made: Int { state.withLock { $0.made } }

    /// Ends the thread after its current object.
    func stop() { state.withLock { $0.running = false } }
}
