import Foundation
import Testing
@testable import ObjectGraph

/// The core's behaviour through the store protocol on every store type: the memory store
/// (no SQL), the atomic stores (files written whole) and SQLite. (The predicate conformance
/// table, the property test and the batch-delete rules run on each too.)
@MainActor
struct MemoryStoreTests {
    /// A coordinator on a store of `kind` with two recipes of one chef, and a context on it.
    struct Fixture {
        let coordinator: PersistentStoreCoordinator
        let context: MainContext
        var pair: (PersistentStoreCoordinator, MainContext) { (coordinator, context) }
    }

    static func fixture(_ kind: StoreKind) throws -> Fixture {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        try kind.addStore(to: coordinator)
        let context = MainContext(coordinator: coordinator)
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
        return Fixture(coordinator: coordinator, context: context)
    }

    /// For an atomic store, checks that a new coordinator reads the same graph from its file.
    static func expectFileMatches(_ coordinator: PersistentStoreCoordinator, _ kind: StoreKind) throws {
        guard let store = coordinator.stores[0] as? any AtomicStorePath else { return }
        let reopened = PersistentStoreCoordinator(model: coordinator.model)
        try reopened.addStore(type: kind.type, at: store.path)
        #expect(try graphSnapshot(reopened) == graphSnapshot(coordinator))
    }

    @Test("Saved objects come back as faults, fire, follow relationships and sort", arguments: StoreKind.allCases)
    func roundTrip(kind: StoreKind) throws {
        let (coordinator, context) = try Self.fixture(kind).pair
        defer { StoreKind.removeFiles(of: coordinator) }
        let recipes = try context.fetch(FetchRequest(entityName: "Recipe", sortKeys: [SortKey("rating", ascending: false)]))
        #expect(recipes.map { $0["name"] as? String } == ["Soup", "Stew"])
        let chef = try #require(recipes[0]["chef"] as? ManagedObject)
        #expect(chef["name"] as? String == "Ana")
        #expect(try chef.objects(forKey: "recipes").count == 2)
        #expect(try context.count(for: FetchRequest(entityName: "Line", predicate: try FetchPredicate("recipe.chef.name == 'Ana'"))) == 2)
        #expect(!recipes[0].objectID.isTemporary)
        try Self.expectFileMatches(coordinator, kind)
    }

    @Test("Updates, deletes with cascade, and a uniqueness constraint", arguments: StoreKind.allCases)
    func writes(kind: StoreKind) throws {
        let (coordinator, context) = try Self.fixture(kind).pair
        defer { StoreKind.removeFiles(of: coordinator) }
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
        reader.rollback()
        try Self.expectFileMatches(coordinator, kind)
    }

    @Test("A uniqueness violation names the attribute and the value, from an insert and from an update",
          arguments: StoreKind.allCases)
    func uniquenessViolationsNameTheValue(kind: StoreKind) throws {
        let (coordinator, context) = try Self.fixture(kind).pair
        defer { StoreKind.removeFiles(of: coordinator) }
        let expected = "cannot save Chef: another Chef already has name = Ana; nothing was saved"
        let duplicate = try context.insert("Chef")
        duplicate["name"] = "Ana"
        let inserting = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(inserting.code == .constraintViolation && inserting.message == expected, "\(inserting.message)")
        duplicate["name"] = "Bea"
        try context.save()
        duplicate["name"] = "Ana"
        let updating = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(updating.code == .constraintViolation && updating.message == expected, "\(updating.message)")
        context.rollback()
        #expect(try MainContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Chef", predicate: try FetchPredicate("name == 'Bea'"))) == 1)
    }

    @Test("An update that repeats a two-attribute key names both values, the one it left as it was too",
          arguments: StoreKind.allCases)
    func compositeUniquenessViolationFromAnUpdate(kind: StoreKind) throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Edition",
                attributes: [AttributeDescription("title", .string), AttributeDescription("number", .integer32)],
                uniquenessConstraints: [["title", "number"]]),
        ])
        let coordinator = PersistentStoreCoordinator(model: model)
        try kind.addStore(to: coordinator)
        defer { StoreKind.removeFiles(of: coordinator) }
        let context = MainContext(coordinator: coordinator)
        var editions: [ManagedObject] = []
        for number in [1, 2] {
            let edition = try context.insert("Edition")
            edition["title"] = "Dune"
            edition["number"] = Int32(number)
            editions.append(edition)
        }
        try context.save()
        editions[1]["number"] = Int32(1)
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.code == .constraintViolation)
        #expect(error.message == "cannot save Edition: another Edition already has title = Dune, number = 1; nothing was saved",
                "\(error.message)")
    }

    @Test("Optimistic locking works the same: a second context's stale save conflicts", arguments: StoreKind.allCases)
    func conflicts(kind: StoreKind) throws {
        let (coordinator, context) = try Self.fixture(kind).pair
        defer { StoreKind.removeFiles(of: coordinator) }
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

    @Test("Metadata lands with the save; explain says how the store runs a fetch", arguments: StoreKind.allCases)
    func metadataAndExplain(kind: StoreKind) throws {
        let (coordinator, context) = try Self.fixture(kind).pair
        defer { StoreKind.removeFiles(of: coordinator) }
        context.setMetadata("line 42", forKey: "position")
        try context.insert("Tag")["label"] = "winter"
        try context.save()
        #expect(coordinator.stores[0].metadata["position"] == "line 42")
        let explanation = try context.explain(FetchRequest(entityName: "Tag"))
        #expect(explanation.isSQL == [.sqlite, .postgres].contains(kind), "\(explanation.sql)")
        let plan = explanation.plan
        switch kind {
        case .sqlite: #expect(plan.first?.contains("SCAN") == true)
        case .memory: #expect(plan == ["SCAN Tag (in memory)"])
        case .xml: #expect(plan == ["SCAN Tag (in memory, loaded from XMLStore file)"])
        case .binary: #expect(plan == ["SCAN Tag (in memory, loaded from BinaryStore file)"])
        case .html: #expect(plan == ["SCAN Tag (in memory, loaded from HTMLStore file)"])
        case .postgres: #expect(plan.first?.contains("Seq Scan on \"Tag\"") == true)
        }
        try Self.expectFileMatches(coordinator, kind)
        if let store = coordinator.stores[0] as? any AtomicStorePath {
            let reopened = PersistentStoreCoordinator(model: coordinator.model)
            #expect(try reopened.addStore(type: kind.type, at: store.path).metadata["position"] == "line 42")
        }
    }
}
