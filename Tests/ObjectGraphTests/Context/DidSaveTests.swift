import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Did-save notifications, merging another context's saves, automatic merging and
/// `performAndWait`. Waits are for events, with generous deadlines; nothing is timed.
@MainActor
struct DidSaveTests {
    let directory: URL
    /// Removes the test's directory when the suite value goes, after the test.
    private let scratch: ScratchDirectory
    let coordinator: PersistentStoreCoordinator

    init() throws {
        scratch = try ScratchDirectory("og-didsave")
        directory = scratch.url
        coordinator = try TestModel.coordinator(path: directory.appendingPathComponent("store.sqlite").path)
    }

    /// The notifications a coordinator posted, collected from its callback.
    final class Notes: Sendable {
        let all = Locked<[DidSave]>([])
        var count: Int { all.withLock { $0.count } }
        var last: DidSave? { all.withLock { $0.last } }
    }

    /// Waits (without blocking the main actor) until `condition` holds; fails after a minute.
    func waitUntil(_ what: String, _ condition: () throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while try !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("\(what) did not happen within a minute")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Saves, on a private context, a chef with recipes of the given names and ratings.
    func seed(_ recipes: [(String, Double)]) async throws -> [String: ObjectID] {
        let writer = PrivateContext(coordinator: coordinator)
        return try await writer.perform { context in
            let chef = try context.insert("Chef")
            chef["name"] = "Ana"
            var ids: [String: ManagedObject] = ["Ana": chef]
            for (name, rating) in recipes {
                let recipe = try context.insert("Recipe")
                recipe["name"] = name
                recipe["rating"] = rating
                recipe["chef"] = chef
                ids[name] = recipe
            }
            try context.save()
            return ids.mapValues(\.objectID)
        }
    }

    @Test("A save announces its inserted, updated and deleted IDs, the changed keys and who saved")
    func aSaveAnnouncesWhatChanged() async throws {
        let ids = try await seed([("Soup", 3), ("Stew", 4)])
        let notes = Notes()
        let observation = coordinator.addDidSaveObserver { note in notes.all.withLock { $0.append(note) } }
        let context = MainContext(coordinator: coordinator)
        let soup = context.object(with: ids["Soup"]!)
        soup["rating"] = 5.0
        context.delete(context.object(with: ids["Stew"]!))
        let pie = try context.insert("Recipe")
        pie["name"] = "Pie"
        pie["chef"] = context.object(with: ids["Ana"]!)
        try context.save()

        let note = try #require(notes.last)
        #expect(notes.count == 1)
        #expect(note.origin == context.identifier)
        #expect(note.insertedIDs == [pie.objectID])
        #expect(note.deletedIDs == [ids["Stew"]!])
        #expect(Set(note.updatedIDs) == [ids["Soup"]!, ids["Ana"]!])  // the chef's recipes changed
        #expect(note.changedKeys[ids["Soup"]!] == ["rating"])
        #expect(note.changedKeys[ids["Ana"]!] == ["recipes"])

        observation.cancel()
        soup["rating"] = 1.0
        try context.save()
        #expect(notes.count == 1, "a cancelled observation still heard a save")
    }

    @Test("Batch updates and deletes are announced too; the async sequence delivers in order")
    func batchRequestsAreAnnouncedInOrder() async throws {
        let ids = try await seed([("Soup", 3), ("Stew", 4), ("Pie", 5)])
        let stream = coordinator.didSaveNotifications
        let context = MainContext(coordinator: coordinator)
        try context.execute(BatchUpdateRequest(entityName: "Recipe", predicate: try FetchPredicate("rating < 4"),
                                               propertiesToUpdate: ["rating": 4.5]))
        try context.execute(BatchDeleteRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Pie'")))
        var iterator = stream.makeAsyncIterator()
        let first = try #require(await iterator.next())
        let second = try #require(await iterator.next())
        #expect(first.updatedIDs == [ids["Soup"]!])
        #expect(second.deletedIDs == [ids["Pie"]!])
    }

    @Test("Merging refreshes updated objects (keeping unsaved changes), drops deleted ones, and the next fetch sees new and newly matching objects")
    func mergingBringsAContextUpToDate() async throws {
        let ids = try await seed([("Soup", 5), ("Stew", 2), ("Pie", 5), ("Tart", 1)])
        let main = MainContext(coordinator: coordinator)
        let popular = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("rating > 4"), sortKeys: [SortKey("name")])
        let shown = try main.fetch(popular)
        #expect(shown.map { $0["name"] as? String } == ["Pie", "Soup"])
        let chef = main.object(with: ids["Ana"]!)
        #expect(chef.objects(of: main.model.entity(named: "Chef")!.relationship(named: "recipes")!).count == 4)
        let soup = shown[1]
        soup["name"] = "Soup of the day"  // an unsaved change of main's own

        // Another context: Soup drops out, Stew (never fetched by main) now matches, Tart is
        // deleted, and a new recipe matches.
        let writer = PrivateContext(coordinator: coordinator)
        let note = try await writer.perform { context -> DidSave in
            let notes = Notes()
            let observation = context.coordinator.addDidSaveObserver { note in notes.all.withLock { $0.append(note) } }
            defer { observation.cancel() }
            context.object(with: ids["Soup"]!)["rating"] = 1.0
            context.object(with: ids["Stew"]!)["rating"] = 5.0
            context.delete(context.object(with: ids["Tart"]!))
            let cake = try context.insert("Recipe")
            cake["name"] = "Cake"
            cake["rating"] = 4.5
            cake["chef"] = context.object(with: ids["Ana"]!)
            try context.save()
            return notes.last!
        }

        #expect(soup["rating"] as? Double == 5.0, "merged before asked to")
        main.mergeChanges(fromContextDidSave: note)
        #expect(soup["rating"] as? Double == 1.0)
        #expect(soup["name"] as? String == "Soup of the day", "the merge lost an unsaved change")
        #expect(!main.registeredObjects.contains { $0.objectID == ids["Tart"]! })
        let names = try main.fetch(popular).map { $0["name"] as? String }
        #expect(names == ["Cake", "Pie", "Stew"])
        let recipes = chef.objects(of: main.model.entity(named: "Chef")!.relationship(named: "recipes")!)
        #expect(Set(recipes.map { $0["name"] as? String }) == ["Soup of the day", "Stew", "Pie", "Cake"])
    }

    @Test("A main context that merges automatically sees a private context's save without being asked")
    func mainContextMergesAutomatically() async throws {
        let ids = try await seed([("Soup", 3)])
        let main = MainContext(coordinator: coordinator)
        main.automaticallyMergesChanges = true
        let soup = main.object(with: ids["Soup"]!)
        #expect(soup["rating"] as? Double == 3.0)
        let writer = PrivateContext(coordinator: coordinator)
        try await writer.perform { context in
            context.object(with: ids["Soup"]!)["rating"] = 4.0
            try context.save()
        }
        try await waitUntil("the merge") { soup["rating"] as? Double == 4.0 }
        main.automaticallyMergesChanges = false
        try await writer.perform { context in
            context.object(with: ids["Soup"]!)["rating"] = 2.0
            try context.save()
        }
        #expect(soup["rating"] as? Double == 4.0, "merged after automatic merging was switched off")
    }

    @Test("A private context that merges automatically sees the main context's save on its own queue")
    func privateContextMergesAutomatically() async throws {
        let ids = try await seed([("Soup", 3)])
        let reader = PrivateContext(coordinator: coordinator)
        await reader.perform { context in
            context.automaticallyMergesChanges = true
            // An unsaved change keeps the object registered (and tests that it survives).
            context.object(with: ids["Soup"]!)["name"] = "Reader's soup"
        }
        let main = MainContext(coordinator: coordinator)
        main.object(with: ids["Soup"]!)["rating"] = 4.5
        try main.save()
        try await waitUntil("the merge") {
            reader.performAndWait { context in
                context.registeredObjects.first { $0.objectID == ids["Soup"]! }?["rating"] as? Double == 4.5
            }
        }
        let name = reader.performAndWait { context in
            context.registeredObjects.first { $0.objectID == ids["Soup"]! }?["name"] as? String
        }
        #expect(name == "Reader's soup")
    }

    @Test("performAndWait runs on the context from a plain thread, and at once from inside the context")
    func performAndWaitFromThreadsAndInside() async throws {
        let context = PrivateContext(coordinator: coordinator)
        let done = Locked<[String]>([])
        let thread = Thread {
            let count = context.performAndWait { context -> Int in
                let chef = try? context.insert("Chef")
                chef?["name"] = "Bo"
                _ = try? context.save()
                let nested = context.performAndWait { inner in (try? inner.count(for: FetchRequest(entityName: "Chef"))) ?? -1 }
                return nested
            }
            done.withLock { $0.append("counted \(count)") }
        }
        thread.start()
        try await waitUntil("the thread") { !done.withLock { $0 }.isEmpty }
        #expect(done.withLock { $0 } == ["counted 1"])
        #expect(try MainContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Chef")) == 1)
    }
}
