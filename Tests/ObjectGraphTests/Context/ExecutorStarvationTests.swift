import Foundation
import Synchronization
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Private contexts block on SQLite on their own serial queues, never on Swift's cooperative
/// pool (two threads on a 2-core machine), so busy contexts cannot starve other tasks.
///
/// The scenario runs in a process of its own (an exit test): in the shared test process,
/// other tests' main-actor work could keep the main-actor watcher from ticking for minutes,
/// which says nothing about the contexts.
struct ExecutorStarvationTests {
    /// Ticks of the two watchers, and how many contexts have started their work.
    final class Counters: Sendable {
        let mainActorTicks = Atomic<Int>(0)
        let poolTicks = Atomic<Int>(0)
        let contextsWorking = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
    }

    @Test("Three private contexts saving in a loop starve neither the main actor nor the cooperative pool")
    func busyContextsStarveNothing() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            print(try await ExecutorStarvationTests.saveWhileWatching())
        }
        let report = result.map { String(decoding: $0.standardOutputContent, as: UTF8.self) }
        #expect(report?.hasPrefix("ok:") == true, "\(report ?? "")")
    }

    /// Three contexts save in a loop while a main-actor task and a pool task tick; returns
    /// `ok: …`, or what went wrong when a context saved 100,000 times without seeing both tick.
    static func saveWhileWatching() async throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("og-starve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        try coordinator.addStore(at: directory.appendingPathComponent("starve.sqlite").path)
        let counters = Counters()

        // The watchers start once two contexts are inside their (blocking) work: were that
        // work on the cooperative pool, both of its threads would be taken, and the pool
        // watcher could not tick until a context gave up.
        func watch(_ ticks: @Sendable () -> Void) async {
            while counters.contextsWorking.load(ordering: .relaxed) < 2 { await Task.yield() }
            while !counters.stop.load(ordering: .relaxed) {
                ticks()
                await Task.yield()
            }
        }
        let mainWatcher = Task { @MainActor in await watch { counters.mainActorTicks.add(1, ordering: .relaxed) } }
        let poolWatcher = Task.detached { await watch { counters.poolTicks.add(1, ordering: .relaxed) } }

        // Each context saves a change to its own object until both watchers have ticked a few
        // times, or gives up after 100,000 saves. Nothing here waits on a clock.
        let saved = try await withThrowingTaskGroup(of: (saves: Int, sawTicks: Bool).self) { group in
            for index in 0..<3 {
                group.addTask {
                    let context = PrivateContext(coordinator: coordinator)
                    return try await context.perform { context in
                        let tag = try context.insert("Tag")
                        counters.contextsWorking.add(1, ordering: .relaxed)
                        var saves = 0
                        while saves < 100_000 {
                            if counters.mainActorTicks.load(ordering: .relaxed) >= 3,
                               counters.poolTicks.load(ordering: .relaxed) >= 3 {
                                return (saves, true)
                            }
                            tag["label"] = "context \(index) save \(saves)"
                            try context.save()
                            saves += 1
                        }
                        return (saves, false)
                    }
                }
            }
            var results: [(saves: Int, sawTicks: Bool)] = []
            for try await result in group { results.append(result) }
            return results
        }
        counters.stop.store(true, ordering: .relaxed)
        await mainWatcher.value
        await poolWatcher.value

        let main = counters.mainActorTicks.load(ordering: .relaxed), pool = counters.poolTicks.load(ordering: .relaxed)
        let figures = "contexts saved \(saved.map(\.saves)) times; the main actor ticked \(main) times, the pool \(pool)"
        return saved.count == 3 && saved.allSatisfy(\.sawTicks) && main >= 3 && pool >= 3 ? "ok: " + figures : "starved: " + figures
    }
}
