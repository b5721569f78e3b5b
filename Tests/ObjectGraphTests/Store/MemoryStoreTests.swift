import Foundation
import Testing
@testable import ObjectGraph

/// The memory store behind the same protocol: the core's behaviour, without SQL. (The
/// predicate conformance table, the property test and the batch-delete rules run on it too.)
@MainActor
struct MemoryStoreTests {
    let coordinator: PersistentStoreCoordinator
    let context: MainContext

    init() throws {
        coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        coordinator.addMemoryStore()
        context = MainContext(coordinator: coordinator)
        let chef = try context.insert("Chef")
        chef["name"] = "Ana"
        for (name, rating) in [("Soup", 4.0), ("Stew", 2.0)] {
            let recipe = try context.insert("Recipe")
            recipe["name"] = name
            recipe["rating"] = rating
            recipe["chef"] = chef
            let line = try context.insert("Line")
            line["text"] = "salt"
            line["position"] = 1
            line["recipe"] = recipe
        }
        try context.save()
        context.reset()
    }

    @Test("Saved objects come back as faults, fire, follow relationships and sort")
    func roundTrip() throws {
        let recipes = try context.fetch(FetchRequest(entityName: "Recipe", sortKeys: [SortKey("rating", ascending: false)]))
        #expect(recipes.map { $0["name"] as? String } == ["Soup", "Stew"])
        let chef = try #require(recipes[0]["chef"] as? ManagedObject)
        #expect(chef["name"] as? String == "Ana")
        #expect(try chef.objects(forKey: "recipes").count == 2)
        #expect(try context.count(for: FetchRequest(entityName: "Line", predicate: try FetchPredicate("recipe.chef.name == 'Ana'"))) == 2)
        #expect(!recipes[0].objectID.isTemporary)
    }

    @Test("Updates, deletes with cascade, and a uniqueness constraint")
    func writes() throws {
        let soup = try #require(try context.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Soup'"))).first)
        soup["rating"] = 5.0
        context.delete(try #require(try context.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Stew'"))).first))
        try context.save()
        let reader = MainContext(coordinator: coordinator)
        #expect(try reader.fetch(FetchRequest(entityName: "Recipe")).map { $0["rating"] as? Double } == [5.0])
        #expect(try reader.count(for: FetchRequest(entityName: "Line")) == 1, "the stew's line did not cascade")
        try reader.insert("Chef")["name"] = "Ana"
        let error = try #require(throws: ObjectGraphError.self) { try reader.save() }
        #expect(error.code == .constraintViolation && error.message.contains("name"))
    }

    @Test("Optimistic locking works the same: a second context's stale save conflicts")
    func conflicts() throws {
        let other = MainContext(coordinator: coordinator)
        let mine = try #require(try context.fetch(FetchRequest(entityName: "Chef")).first)
        #expect(mine["name"] as? String == "Ana")  // loaded before the other save
        let theirs = try #require(try other.fetch(FetchRequest(entityName: "Chef")).first)
        theirs["name"] = "Ana María"
        try other.save()
        mine["name"] = "Anita"
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.code == .mergeConflict)
        context.mergePolicy = .storeWins
        try context.save()
        #expect(mine["name"] as? String == "Ana María")
    }

    @Test("Metadata lands with the save; explain says the store scans in memory")
    func metadataAndExplain() throws {
        context.setMetadata("line 42", forKey: "position")
        try context.insert("Tag")["label"] = "winter"
        try context.save()
        #expect(coordinator.stores[0].metadata["position"] == "line 42")
        #expect(try context.explain(FetchRequest(entityName: "Tag")).plan == ["SCAN Tag (in memory)"])
    }
}
