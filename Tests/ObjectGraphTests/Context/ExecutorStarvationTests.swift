import Foundation
import Synchronization
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Private contexts block on SQLite on their own serial queues, never on Swift's cooperative
/// pool (two threads on a 2-core machine), so busy contexts cannot starve other tasks.
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

        // Each context saves until both watchers have ticked a few times, or gives up after
        // 100,000 saves (tens of seconds: other tests may keep the pool busy meanwhile).
        // Nothing here waits on a clock.
        let saved = try await withThrowingTaskGroup(of: (saves: Int, sawTicks: Bool).self) { group in
            for index in 0..<3 {
                group.addTask {
                    let context = PrivateContext(coordinator: coordinator)
                    return try await context.perform { context in
                        counters.contextsWorking.add(1, ordering: .relaxed)
                        var saves = 0
                        while saves < 100_000 {
                            if counters.mainActorTicks.load(ordering: .relaxed) >= 3,
                               counters.poolTicks.load(ordering: .relaxed) >= 3 {
                                return (saves, true)
                            }
                            try context.insert("Tag")["label"] = "context \(index) tag \(saves)"
                            try context.save()
                            context.reset()
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

        #expect(saved.count == 3)
        let saves = saved.map(\.saves)
        #expect(saved.allSatisfy { $0.sawTicks }, "a context saved \(saves) times without seeing both watchers tick")
        #expect(counters.mainActorTicks.load(ordering: .relaxed) >= 3)
        #expect(counters.poolTicks.load(ordering: .relaxed) >= 3)
    }
}
