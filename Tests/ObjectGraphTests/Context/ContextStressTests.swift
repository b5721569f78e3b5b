import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Several contexts saving at once from threads of their own (not the cooperative pool),
/// then a check that the store and every context's view agree. Waits are for events, with
/// deadlines that fail the test instead of hanging it; nothing is timed.
@MainActor
struct ContextStressTests {
    private let scratch: ScratchDirectory
    let coordinator: PersistentStoreCoordinator

    init() throws {
        scratch = try ScratchDirectory("og-stress")
        coordinator = try TestModel.coordinator(path: scratch.url.appendingPathComponent("store.sqlite").path)
    }

    /// Waits (without blocking the main actor) until `condition` holds; fails after two minutes.
    func waitUntil(_ what: String, _ condition: () throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while try !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("\(what) did not happen within two minutes (a deadlock?)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Runs `body(i)` on `count` threads of their own; returns once they all ended, or fails.
    func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async throws {
        let ended = Locked(0)
        for index in 0..<count {
            let thread = Thread {
                body(index)
                ended.withLock { $0 += 1 }
            }
            thread.start()
        }
        try await waitUntil("\(count) threads ending") { ended.withLock { $0 } == count }
    }

    /// Saves one recipe with the given rating and returns its ID.
    func seedRecipe(rating: Double) throws -> ObjectID {
        let context = MainContext(coordinator: coordinator)
        let recipe = try context.insert("Recipe")
        recipe["name"] = "Counter"
        recipe["rating"] = rating
        try context.save()
        return recipe.objectID
    }

    @Test("Contexts on four threads incrementing one row, retrying on merge conflicts, lose no increment; a merging main context ends with the stored value")
    func concurrentIncrementsLoseNothing() async throws {
        let id = try seedRecipe(rating: 0)
        let main = MainContext(coordinator: coordinator)
        main.automaticallyMergesChanges = true
        let shown = main.object(with: id)
        #expect(shown["rating"] as? Double == 0)
        let conflicts = Locked(0), failures = Locked<[String]>([])
        let coordinator = self.coordinator
        try await onThreads(4) { _ in
            let context = PrivateContext(coordinator: coordinator)
            context.performAndWait { context in
                for _ in 0..<25 {
                    while true {
                        do {
                            let recipe = try context.existingObject(with: id)
                            recipe["rating"] = (recipe["rating"] as! Double) + 1
                            try context.save()
                            break
                        } catch let error as ObjectGraphError where error.code == .mergeConflict {
                            conflicts.withLock { $0 += 1 }
                            context.rollback()
                            context.refresh(context.object(with: id), mergeChanges: false)
                        } catch {
                            failures.withLock { $0.append("\(error)") }
                            return
                        }
                    }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let stored = try PrivateContext(coordinator: coordinator).performAndWait { try $0.existingObject(with: id)["rating"] as? Double }
        #expect(stored == 100)
        try await waitUntil("the main context merging the last save") { shown["rating"] as? Double == 100 }
        #expect(!main.hasChanges)
    }
}

extension ContextStressTests {
    @Test("A child's performAndWait inside its private parent's performAndWait reads through the parent without deadlocking")
    func childPerformAndWaitInsideParent() async throws {
        let coordinator = self.coordinator
        let result = Locked<Int?>(nil)
        try await onThreads(1) { _ in
            let parent = PrivateContext(coordinator: coordinator)
            let child = PrivateContext(parent: parent)
            let count = parent.performAndWait { parent -> Int in
                let chef = try! parent.insert("Chef")
                chef["name"] = "Ana"
                return child.performAndWait { child in (try? child.count(for: FetchRequest(entityName: "Chef"))) ?? -1 }
            }
            result.withLock { $0 = count }
        }
        #expect(result.withLock { $0 } == 1)
    }

    @Test("Children saving into a private parent from threads while the parent saves to the store: every insert reaches the store once")
    func childrenSaveWhileParentSaves() async throws {
        let coordinator = self.coordinator
        let persist = PrivateContext(coordinator: coordinator)
        let childrenDone = Locked(0), failures = Locked<[String]>([])
        try await onThreads(4) { index in
            if index == 3 {
                // The parent saves over and over while the children push into it.
                while childrenDone.withLock({ $0 }) < 3 {
                    do { try persist.performAndWait { _ = try $0.save() } } catch {
                        failures.withLock { $0.append("parent: \(error)") }
                        return
                    }
                }
                return
            }
            let child = PrivateContext(parent: persist)
            child.performAndWait { child in
                for batch in 0..<10 {
                    for item in 0..<5 {
                        let recipe = try! child.insert("Recipe")
                        recipe["name"] = "r\(index)-\(batch)-\(item)"
                    }
                    do { try child.save() } catch { failures.withLock { $0.append("child \(index): \(error)") } }
                    if batch % 3 == 2 {
                        // Edit an object saved earlier (its parent may have saved it since).
                        let earlier = try! child.fetch(FetchRequest(entityName: "Recipe",
                            predicate: try! FetchPredicate("name == %@", "r\(index)-\(batch - 1)-0")))
                        if earlier.count != 1 { failures.withLock { $0.append("child \(index) sees \(earlier.count) of its recipe: \(earlier.map(\.objectID))") } }
                        earlier.first?["servings"] = 8
                        do { try child.save() } catch { failures.withLock { $0.append("child \(index) edit: \(error)") } }
                    }
                }
            }
            childrenDone.withLock { $0 += 1 }
        }
        #expect(failures.withLock { $0 } == [])
        try await persist.perform { _ = try $0.save() }
        let main = MainContext(coordinator: coordinator)
        let recipes = try main.fetch(FetchRequest(entityName: "Recipe"))
        #expect(recipes.count == 150)
        #expect(Set(recipes.map { $0["name"] as! String }).count == 150)
        #expect(recipes.filter { $0["servings"] as? Int == 8 }.count == 9)
    }

    @Test("A main context under a private parent that saves on another thread: its fetches, IDs, lazy fetches and results controller never list an object twice, and end agreeing with the store")
    func mainChildWhileParentSaves() async throws {
        let persist = PrivateContext(coordinator: coordinator)
        let main = MainContext(parent: persist)
        main.automaticallyMergesChanges = true
        let request = FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")])
        let controller = try FetchedResultsController(fetchRequest: request, context: main)
        try controller.performFetch()
        var held: [ManagedObject] = []  // objects the main context saved into the parent, held on
        var problems: [String] = []
        func duplicates(_ names: [String], _ what: String) {
            if Set(names).count != names.count { problems.append("\(what): \(names.count) listed, \(Set(names).count) distinct") }
        }
        let finished = Locked(false)
        let thread = Thread {
            for batch in 0..<60 {
                persist.performAndWait { context in
                    for item in 0..<3 {
                        let recipe = try! context.insert("Recipe")
                        recipe["name"] = "p\(batch)-\(item)"
                    }
                    if batch % 2 == 1 { _ = try! context.save() }
                }
            }
            finished.withLock { $0 = true }
        }
        thread.start()
        var round = 0
        try await waitUntil("the parent's thread ending") {
            round += 1
            let recipe = try main.insert("Recipe")
            recipe["name"] = "m\(round)"
            held.append(recipe)
            try main.save()
            duplicates(try main.fetch(request).map { $0["name"] as? String ?? "?" }, "fetch")
            duplicates(try main.fetchObjectIDs(request).map { main.object(with: $0)["name"] as? String ?? "?" }, "IDs")
            var batched = request
            batched.fetchBatchSize = 7
            duplicates(try main.fetchLazily(batched).map { $0["name"] as? String ?? "?" }, "lazy")
            duplicates(controller.fetchedObjects.map { $0["name"] as? String ?? "?" }, "controller")
            return finished.withLock { $0 }
        }
        try await persist.perform { _ = try $0.save() }
        let last = try main.insert("Recipe")
        last["name"] = "zz"
        try main.save()
        let fresh = try main.fetch(request)
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        #expect(fresh.count == 180 + round + 1)
        #expect(try main.count(for: request) == fresh.count)
        #expect(controller.fetchedObjects.map(ObjectIdentifier.init) == fresh.map(ObjectIdentifier.init))
        #expect(held.allSatisfy { object in fresh.contains { $0 === object } }, "each held object is the one listed")
    }

    @Test("Sibling contexts saving from many tasks through async perform: every save reaches the store and a merging main context")
    func asyncPerformFromManyTasks() async throws {
        let coordinator = self.coordinator
        let main = MainContext(coordinator: coordinator)
        main.automaticallyMergesChanges = true
        let controller = try FetchedResultsController(
            fetchRequest: FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("rating >= 3"), sortKeys: [SortKey("name")]),
            context: main)
        try controller.performFetch()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    let context = PrivateContext(coordinator: coordinator)
                    for batch in 0..<5 {
                        try await context.perform { context in
                            for item in 0..<4 {
                                let recipe = try context.insert("Recipe")
                                recipe["name"] = "t\(task)-\(batch)-\(item)"
                                recipe["rating"] = Double(item)
                            }
                            try context.save()
                            context.reset()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try main.count(for: FetchRequest(entityName: "Recipe")) == 160)
        try await waitUntil("the controller showing every merged save") { controller.fetchedObjects.count == 40 }
    }
}

extension ContextStressTests {
    @Test("A child's save of an object its reset parent discarded throws, naming it, instead of stopping the program")
    func childSaveAfterParentResetThrows() async throws {
        let main = MainContext(coordinator: coordinator)
        let child = PrivateContext(parent: main)
        let id = try await child.perform { child in
            let recipe = try child.insert("Recipe")
            recipe["name"] = "Soup"
            try child.save()
            return recipe.objectID
        }
        main.reset()
        let message = await child.perform { child -> String? in
            child.object(with: id)["rating"] = 4.0
            do {
                try child.save()
                return nil
            } catch {
                return (error as? ObjectGraphError).map { "\($0.code): \($0.message)" } ?? "\(error)"
            }
        }
        #expect(message?.hasPrefix("objectNotFound: cannot save into the parent context: Recipe/t") == true, "\(message ?? "no error")")
        #expect(message?.contains("reset or rolled back") == true)
        #expect(await child.perform { $0.hasChanges }, "the failed save dropped the child's change")
        #expect(!main.hasChanges)
    }
}
