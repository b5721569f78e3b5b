import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Sibling contexts on one coordinator: what a merge does to a results controller and to
/// an object the merging context edited.
@MainActor
struct SiblingMergeTests {
    let coordinator: PersistentStoreCoordinator
    let main: MainContext
    let ids: [String: ObjectID]

    init() throws {
        coordinator = try TestModel.coordinator()
        main = MainContext(coordinator: coordinator)
        let chef = try main.insert("Chef")
        chef["name"] = "Ana"
        var ids = ["Ana": chef]
        for (name, rating) in [("Soup", 5.0), ("Stew", 2.0)] {
            let recipe = try main.insert("Recipe")
            recipe["name"] = name
            recipe["rating"] = rating
            recipe["chef"] = chef
            ids[name] = recipe
        }
        try main.save()
        self.ids = ids.mapValues(\.objectID)
    }

    /// Runs `body` on a background sibling, saves it, and returns what the save announced.
    func saveInBackground(_ body: @escaping @Sendable (isolated PrivateContext) throws -> Void) async throws -> DidSave {
        let notes = Locked<[DidSave]>([])
        let observation = coordinator.addDidSaveObserver { note in notes.withLock { $0.append(note) } }
        defer { observation.cancel() }
        try await PrivateContext(coordinator: coordinator).perform { context in
            try body(context)
            try context.save()
        }
        return try #require(notes.withLock { $0.last })
    }

    @Test("A merged insert that matches and an update into the match both appear in a results controller as insertions")
    func mergeBringsNewMatchesIn() async throws {
        let controller = try FetchedResultsController(
            fetchRequest: FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("rating > 4"), sortKeys: [SortKey("name")]),
            context: main)
        try controller.performFetch()
        var changes = controller.changes.makeAsyncIterator()
        let stew = main.object(with: ids["Stew"]!)
        #expect(stew["rating"] as? Double == 2.0)  // held and loaded
        let ids = self.ids
        let note = try await saveInBackground { context in
            context.object(with: ids["Stew"]!)["rating"] = 4.5
            let pie = try context.insert("Recipe")
            pie["name"] = "Pie"
            pie["rating"] = 5.0
            pie["chef"] = context.object(with: ids["Ana"]!)
        }
        main.mergeChanges(fromContextDidSave: note)
        #expect(controller.fetchedObjects.map { $0["name"] as? String } == ["Pie", "Soup", "Stew"])
        #expect(controller.fetchedObjects.last === stew)
        let delivered = try #require(await changes.next())
        #expect(delivered.objectChanges == [
            .init(.insert, note.insertedIDs[0], old: nil, new: .init(section: 0, item: 0)),
            .init(.insert, ids["Stew"]!, old: nil, new: .init(section: 0, item: 2)),
        ])
    }

    @Test("A merged deletion of an object the context edited takes it out, edits and all: the context's save then writes nothing for it")
    func mergeOfADeletionOfAnEditedObject() async throws {
        let controller = try FetchedResultsController(
            fetchRequest: FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")]), context: main)
        try controller.performFetch()
        let soup = main.object(with: ids["Soup"]!)
        soup["rating"] = 1.0
        let chef = main.object(with: ids["Ana"]!)
        #expect(try chef.objects(forKey: "recipes").count == 2)
        #expect(main.hasChanges)
        let ids = self.ids
        let note = try await saveInBackground { context in context.delete(context.object(with: ids["Soup"]!)) }
        main.mergeChanges(fromContextDidSave: note)
        #expect(controller.fetchedObjects.map { $0["name"] as? String } == ["Stew"])
        #expect(!main.hasChanges && main.updatedObjects.isEmpty)
        #expect(try chef.objects(forKey: "recipes").map { $0["name"] as? String } == ["Stew"])
        #expect(main.object(with: ids["Soup"]!) !== soup)
        try main.save()
        #expect(try MainContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Recipe")) == 1)
    }

    @Test("A save of an edit to an object a sibling deleted, before merging, fails naming the object")
    func saveOfAnEditToWhatASiblingDeleted() async throws {
        let soup = main.object(with: ids["Soup"]!)
        soup["rating"] = 1.0
        let ids = self.ids
        _ = try await saveInBackground { context in context.delete(context.object(with: ids["Soup"]!)) }
        let error = #expect(throws: ObjectGraphError.self) { try main.save() }
        #expect("\(error.map { "\($0)" } ?? "")".contains(coordinator.model.describe(ids["Soup"]!)), "\(String(describing: error))")
        #expect(main.hasChanges)
    }
}
