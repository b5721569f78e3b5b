import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// `count(for:)` counts in SQL and corrects by the unsaved changes, creating no objects for
/// saved rows.
@MainActor
struct CountTests {
    let coordinator: PersistentStoreCoordinator
    let context: MainContext

    init() throws {
        coordinator = try TestModel.coordinator()
        context = MainContext(coordinator: coordinator)
        let chef = try context.insert("Chef")
        chef["name"] = "Ana"
        for index in 0..<50 {
            let recipe = try context.insert("Recipe")
            recipe["name"] = "recipe \(index)"
            recipe["rating"] = Double(index % 5)
            if index < 10 { recipe["chef"] = chef }
        }
        try context.save()
        context.reset()
    }

    func recipe(named name: String) throws -> ManagedObject {
        try context.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name == %@", name)))[0]
    }

    @Test("Counting with an unsaved insert creates no objects for the saved rows")
    func countCreatesNoObjects() throws {
        try context.insert("Recipe")["name"] = "new"
        let before = context.statistics
        #expect(try context.count(for: FetchRequest(entityName: "Recipe")) == 51)
        #expect((context.statistics - before).objectsCreated == 0)
        #expect((context.statistics - before).statements == 1)
    }

    @Test("Inserts, updates in and out of the predicate, and deletes correct the store's count")
    func correctionsMatchTheFetch() throws {
        let request = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("rating >= 3"))
        #expect(try context.count(for: request) == 20)
        let leaving = try recipe(named: "recipe 4")    // rating 4 → 1
        leaving["rating"] = 1.0
        let entering = try recipe(named: "recipe 0")   // rating 0 → 5
        entering["rating"] = 5.0
        context.delete(try recipe(named: "recipe 3"))  // rating 3, deleted
        context.delete(try recipe(named: "recipe 1"))  // rating 1, deleted: no change
        let new = try context.insert("Recipe")
        new["name"] = "new"
        new["rating"] = 4.5
        try context.insert("Recipe")["name"] = "unrated"
        let before = context.statistics
        let counted = try context.count(for: request)
        #expect((context.statistics - before).objectsCreated == 0)
        #expect(counted == 20 - 1 + 1 - 1 + 1)
        #expect(counted == (try context.fetch(request)).count)
    }

    @Test("Changes to a related object move unchanged objects in and out of the count")
    func relatedChanges() throws {
        let request = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("chef.name == 'Ana'"))
        #expect(try context.count(for: request) == 10)
        let chef = try context.fetch(FetchRequest(entityName: "Chef"))[0]
        chef["name"] = "Bea"
        #expect(try context.count(for: request) == 0)
        chef["name"] = "Ana"
        #expect(try context.count(for: request) == 10)
    }

    @Test("Limit and offset apply to the corrected count")
    func window() throws {
        var request = FetchRequest(entityName: "Recipe")
        try context.insert("Recipe")["name"] = "new"
        request.fetchOffset = 45
        #expect(try context.count(for: request) == 6)
        request.fetchLimit = 4
        #expect(try context.count(for: request) == 4)
    }
}

/// Every way to read matches agrees with `fetch` about an object whose row went while it
/// held unsaved changes (a count-only batch delete elsewhere, merged here).
@MainActor
struct GoneRowTests {
    let coordinator: PersistentStoreCoordinator
    let context: MainContext
    let changed: ManagedObject
    let kept: ManagedObject

    init() throws {
        coordinator = try TestModel.coordinator()
        context = MainContext(coordinator: coordinator)
        for (name, rating) in [("Soup", 5.0), ("Stew", 2.0)] {
            let recipe = try context.insert("Recipe")
            recipe["name"] = name
            recipe["rating"] = rating
        }
        try context.save()
        let recipes = try context.fetch(FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")]))
        changed = recipes[0]
        kept = recipes[1]
        changed["rating"] = 4.0  // unsaved, and still matching
        let other = MainContext(coordinator: coordinator)
        let result = try other.execute(BatchDeleteRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Soup'"),
                                                          resultType: .count))
        context.mergeChanges(from: result)
    }

    var request: FetchRequest {
        get throws { FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("rating >= 1"), sortKeys: [SortKey("name")]) }
    }

    @Test("count(for:) does not count it")
    func count() throws {
        #expect(try context.count(for: request) == 1)
        #expect(changed.isInaccessible)
        #expect(try context.fetch(request).map(\.objectID) == [kept.objectID])
    }

    @Test("count(for:) without a predicate does not count it either")
    func countAll() throws {
        #expect(try context.count(for: FetchRequest(entityName: "Recipe")) == 1)
    }

    @Test("fetchObjectIDs and fetchLazily do not list it")
    func objectIDs() throws {
        #expect(try context.fetchObjectIDs(request) == [kept.objectID])
        #expect(try context.fetchLazily(request).map(\.objectID) == [kept.objectID])
    }

    @Test("fetchDictionaries does not list it")
    func dictionaries() throws {
        var request = try request
        request.propertiesToFetch = ["name"]
        #expect(try context.fetchDictionaries(request).map { $0["name"] as? String } == ["Stew"])
    }
}
