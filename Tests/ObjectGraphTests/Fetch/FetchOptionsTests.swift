import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Fetch only what you need: each option's cost in statements, faults and objects.
@MainActor
struct FetchOptionsTests {
    let coordinator: PersistentStoreCoordinator
    let context: MainContext

    /// 100 recipes, each with its own chef and 3 lines; recipes 0–9 share a tag.
    init() throws {
        coordinator = try TestModel.coordinator()
        let writer = MainContext(coordinator: coordinator)
        let tag = try writer.insert("Tag")
        tag["label"] = "quick"
        for index in 0..<100 {
            let chef = try writer.insert("Chef")
            chef["name"] = "Chef \(index)"
            let recipe = try writer.insert("Recipe")
            recipe["name"] = "Recipe \(String(format: "%03d", index))"
            recipe["rating"] = Double(index % 5)
            recipe["chef"] = chef
            for position in 0..<3 {
                let line = try writer.insert("Line")
                line["text"] = "line \(position)"
                line["position"] = position
                line["recipe"] = recipe
            }
            if index < 10 { try recipe.add(tag, toKey: "tags") }
        }
        try writer.save()
        coordinator.rowCache.removeAll()
        context = MainContext(coordinator: coordinator)
    }

    func cost(_ body: () throws -> Void) rethrows -> ContextStatistics {
        let before = context.statistics
        try body()
        return context.statistics - before
    }

    @Test func objectIDsCreateNoObjects() throws {
        var ids: [ObjectID] = []
        let spent = try cost { ids = try context.fetchObjectIDs(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("rating >= 3"))) }
        #expect(ids.count == 40)
        #expect(spent.statements == 1)
        #expect(context.registeredObjects.isEmpty)
    }

    @Test func dictionariesOfChosenPropertiesWithDistinct() throws {
        var request = FetchRequest(entityName: "Recipe", sortKeys: [SortKey("rating")])
        request.propertiesToFetch = ["rating"]
        request.returnsDistinctResults = true
        let ratings = try context.fetchDictionaries(request).map { $0["rating"] as? Double }
        #expect(ratings == [0, 1, 2, 3, 4])
        request.propertiesToFetch = ["name", "chef.name"]
        request.returnsDistinctResults = false
        request.predicate = try FetchPredicate("name == 'Recipe 007'")
        let rows = try context.fetchDictionaries(request)
        #expect(rows.count == 1 && rows[0]["chef.name"] as? String == "Chef 7")
        #expect(context.registeredObjects.isEmpty)
    }

    @Test("A key of the wrong kind says what it is: sorting by a relationship, through a to-many or by a transient, prefetching an attribute")
    func keysOfTheWrongKind() throws {
        func message(_ request: FetchRequest) -> String? {
            do { _ = try context.fetch(request) } catch let error as ObjectGraphError where error.code == .unknownKey { return error.message } catch {}
            return nil
        }
        #expect(message(FetchRequest(entityName: "Recipe", sortKeys: [SortKey("chef")]))
                == "'chef' is a relationship of 'Recipe', not an attribute; name one of its attributes, such as chef.name")
        #expect(message(FetchRequest(entityName: "Recipe", sortKeys: [SortKey("lines")]))?
                    .hasPrefix("'lines' is a to-many relationship of 'Recipe', not an attribute") == true)
        #expect(message(FetchRequest(entityName: "Recipe", sortKeys: [SortKey("lines.text")]))
                == "'lines.text' goes through 'lines', a to-many relationship of 'Recipe': sort keys, section key paths and fetched values name one value an object, through to-one relationships only")
        #expect(message(FetchRequest(entityName: "Line", sortKeys: [SortKey("recipe.tags.label")]))?
                    .hasPrefix("'recipe.tags.label' goes through 'tags', a to-many relationship of 'Recipe'") == true)
        #expect(message(FetchRequest(entityName: "Recipe", sortKeys: [SortKey("note")]))
                == "'note' is a transient attribute of 'Recipe': it is never stored, so the store cannot read it")
        var prefetching = FetchRequest(entityName: "Recipe")
        prefetching.relationshipKeyPathsForPrefetching = ["name"]
        #expect(message(prefetching)?.hasPrefix("'name' is an attribute of 'Recipe'; only relationships are prefetched (") == true)
        prefetching.relationshipKeyPathsForPrefetching = ["chef.nmae"]
        #expect(message(prefetching) == "unknown key 'nmae' on entity 'Chef'; did you mean 'name'?")
    }

    @Test func withoutPropertyValuesEachFaultCostsAStatement() throws {
        var request = FetchRequest(entityName: "Recipe")
        request.includesPropertyValues = false
        var recipes: [ManagedObject] = []
        let fetched = try cost { recipes = try context.fetch(request) }
        #expect(fetched.statements == 1 && recipes.allSatisfy(\.isFault))
        let touched = cost { for recipe in recipes.prefix(10) { _ = recipe["name"] } }
        #expect(touched.statements == 10 && touched.faultsFired == 10)
    }

    @Test("Without property values, objects already held come back as they are, values and all; only the others are new faults")
    func withoutPropertyValuesRegisteredObjectsComeBackAsTheyAre() throws {
        let byName = FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")])
        var populated = byName
        populated.returnsObjectsAsFaults = false
        populated.fetchLimit = 3
        let held = try context.fetch(populated)
        var request = byName
        request.includesPropertyValues = false
        var recipes: [ManagedObject] = []
        let fetched = try cost { recipes = try context.fetch(request) }
        #expect(recipes.count == 100 && fetched.statements == 1 && fetched.objectsCreated == 97)
        #expect(zip(recipes.prefix(3), held).allSatisfy { $0 === $1 && !$0.isFault })
        #expect(recipes.dropFirst(3).allSatisfy { $0.isFault })
        #expect(recipes.map { $0["name"] as? String } == (0..<100).map { "Recipe \(String(format: "%03d", $0))" })
    }

    @Test("Without property values and with unsaved changes, a sorted fetch places the changed objects among the faults by bisection: a few faults fire, not all")
    func withoutPropertyValuesUnsavedChangesFireFewFaults() throws {
        let renamed = try #require(try context.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Recipe 042'"))).first)
        renamed["name"] = "Recipe 0905"
        let inserted = try context.insert("Recipe")
        inserted["name"] = "Recipe 0505"
        var request = FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")])
        request.includesPropertyValues = false
        var recipes: [ManagedObject] = []
        let fetched = try cost { recipes = try context.fetch(request) }
        // Two bisections over 99 unchanged recipes compare with at most 7 of them each.
        #expect(fetched.faultsFired <= 14)
        #expect(recipes.count == 101 && recipes.filter { !$0.isFault }.count <= 16)
        var names = (0..<100).filter { $0 != 42 }.map { "Recipe \(String(format: "%03d", $0))" }
        names += ["Recipe 0905", "Recipe 0505"]
        #expect(recipes.map { $0["name"] as? String } == names.sorted { Array($0.utf8).lexicographicallyPrecedes($1.utf8) })
        #expect(recipes[50] === inserted && recipes[91] === renamed)
    }

    @Test func populatedObjectsNeedNoFaults() throws {
        var request = FetchRequest(entityName: "Recipe")
        request.returnsObjectsAsFaults = false
        let recipes = try context.fetch(request)
        let touched = cost { for recipe in recipes { _ = recipe["name"] } }
        #expect(touched.statements == 0 && touched.faultsFired == 0)
    }

    @Test func touchingAToOneWithoutPrefetchingRunsAStatementPerObject() throws {
        let recipes = try context.fetch(FetchRequest(entityName: "Recipe"))
        let spent = cost { for recipe in recipes { _ = (recipe["chef"] as? ManagedObject)?["name"] } }
        #expect(spent.statements == 100)
    }

    @Test func prefetchingToOneRunsOneExtraStatement() throws {
        var request = FetchRequest(entityName: "Recipe")
        request.relationshipKeyPathsForPrefetching = ["chef"]
        var recipes: [ManagedObject] = []
        let fetched = try cost { recipes = try context.fetch(request) }
        #expect(fetched.statements == 2)
        let touched = cost { for recipe in recipes { _ = (recipe["chef"] as? ManagedObject)?["name"] } }
        #expect(touched.statements == 0)
    }

    @Test func prefetchingToManyAndNestedPaths() throws {
        var request = FetchRequest(entityName: "Recipe")
        request.relationshipKeyPathsForPrefetching = ["lines", "tags", "chef"]
        var recipes: [ManagedObject] = []
        let fetched = try cost { recipes = try context.fetch(request) }
        #expect(fetched.statements == 1 + 1 + 2 + 1)  // lines; tags (join + rows); chef
        let touched = try cost {
            for recipe in recipes {
                #expect(try recipe.objects(forKey: "lines").map { $0["position"] as? Int } == [0, 1, 2])
                _ = try recipe.objects(forKey: "tags").first?["label"]
            }
        }
        #expect(touched.statements == 0)
        #expect(try recipes.filter { try !$0.objects(forKey: "tags").isEmpty }.count == 10)

        var chefs = FetchRequest(entityName: "Chef")
        chefs.relationshipKeyPathsForPrefetching = ["recipes.lines"]
        let fresh = MainContext(coordinator: coordinator)
        let before = fresh.statistics
        _ = try fresh.fetch(chefs)
        #expect((fresh.statistics - before).statements == 3)
    }

    @Test func batchSizeLoadsObjectsABatchAtATime() throws {
        var request = FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")])
        request.fetchBatchSize = 10
        var recipes: [ManagedObject] = []
        let fetched = try cost { recipes = try context.fetch(request) }
        #expect(fetched.statements == 1 && recipes.count == 100 && recipes.allSatisfy(\.isFault))
        let firstBatch = cost { for recipe in recipes.prefix(10) { _ = recipe["name"] } }
        #expect(firstBatch.statements == 1)
        let all = cost { for recipe in recipes { _ = recipe["name"] } }
        #expect(all.statements == 9)
        #expect(recipes[42]["name"] as? String == "Recipe 042")
    }

    /// Fetches the recipes in batches of 10, reads one, and counts the batch bookkeeping
    /// while the results are held: groups waiting, and faults waiting in them.
    func fetchBatchedAndReadOne() throws -> (groups: Int, waiting: Int) {
        var request = FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")])
        request.fetchBatchSize = 10
        let recipes = try context.fetch(request)
        return withExtendedLifetime(recipes) {
            _ = recipes[42]["name"]
            return (context.core.batchGroups.count, context.core.pendingBatch.count)
        }
    }

    @Test("A batched fetch whose faults are released unread leaves no batch behind, however often it runs")
    func releasedBatchesAreForgotten() throws {
        for _ in 0..<3 {
            let held = try fetchBatchedAndReadOne()
            #expect(held.groups == 9 && held.waiting == 90, "the batch read loaded; nine wait")
            // The results are released: nothing is left to load (a results controller
            // refetches after every save, and kept every batch of every refetch).
            #expect(context.core.batchGroups.isEmpty && context.core.pendingBatch.isEmpty)
        }
        // A refetch while the first results are held moves their faults to its own batches.
        var request = FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")])
        request.fetchBatchSize = 10
        let first = try context.fetch(request)
        let second = try context.fetch(request)
        withExtendedLifetime((first, second)) {
            #expect(context.core.batchGroups.count == 10 && context.core.pendingBatch.count == 100)
            #expect(first[5]["name"] as? String == "Recipe 005")
            #expect(second.prefix(10).allSatisfy { !$0.isFault }, "a batch of the refetch loaded together")
            #expect(context.core.batchGroups.count == 9 && context.core.pendingBatch.count == 90)
        }
    }

    @Test func batchInsertWritesRowsWithoutObjects() throws {
        let result = try context.execute(BatchInsertRequest(entityName: "Chef",
            objects: (0..<50).map { ["name": "Batch \($0)"] }))
        #expect(result.insertedIDs.count == 50 && context.registeredObjects.isEmpty)
        #expect(try context.count(for: FetchRequest(entityName: "Chef")) == 150)
        let error = try #require(throws: ObjectGraphError.self) {
            try context.execute(BatchInsertRequest(entityName: "Chef", objects: [["nmae": "x"]]))
        }
        #expect(error.code == .unknownKey)
    }

    @Test func batchUpdateRefreshesLiveObjects() throws {
        let recipe = try context.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Recipe 001'")))[0]
        #expect(recipe["rating"] as? Double == 1)
        let other = MainContext(coordinator: coordinator)
        let stale = try other.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Recipe 001'")))[0]
        _ = stale["rating"]
        let result = try context.execute(BatchUpdateRequest(entityName: "Recipe",
            predicate: try FetchPredicate("rating == 1"), propertiesToUpdate: ["rating": 1.5]))
        #expect(result.updatedIDs.count == 20)
        #expect(recipe["rating"] as? Double == 1.5)           // this context merged at once
        #expect(stale["rating"] as? Double == 1)              // another context until it merges
        other.mergeChanges(from: result)
        #expect(stale["rating"] as? Double == 1.5)
    }

    @Test func batchDeleteAppliesDeleteRulesInSQL() throws {
        let live = try context.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Recipe 003'")))[0]
        let tag = try context.fetch(FetchRequest(entityName: "Tag"))[0]
        #expect(try tag.objects(forKey: "recipes").count == 10)
        let result = try context.execute(BatchDeleteRequest(entityName: "Recipe",
            predicate: try FetchPredicate("rating == 3")))
        #expect(result.deletedIDs.count == 20 + 60)           // recipes, and their lines by cascade
        #expect(try context.count(for: FetchRequest(entityName: "Line")) == 240)
        #expect(try context.count(for: FetchRequest(entityName: "Chef")) == 100)  // nullify keeps chefs
        #expect(!live.isRegistered)
        #expect(try tag.objects(forKey: "recipes").count == 8)  // recipes 3 and 8 left the tag
        let fresh = MainContext(coordinator: coordinator)
        #expect(try fresh.fetch(FetchRequest(entityName: "Tag"))[0].objects(forKey: "recipes").count == 8)
        // Chefs deny deletion while they have recipes: nothing is deleted.
        let denied = try #require(throws: ObjectGraphError.self) {
            try context.execute(BatchDeleteRequest(entityName: "Chef"))
        }
        #expect(denied.code == .validation)
        #expect(try fresh.count(for: FetchRequest(entityName: "Chef")) == 100)
    }

    @Test func refreshAllObjectsBreaksRelationshipCycles() throws {
        // The context holds its objects weakly, so those it still has registered are alive.
        do {
            let recipes = try context.fetch(FetchRequest(entityName: "Recipe"))
            for recipe in recipes { for line in try recipe.objects(forKey: "lines") { _ = line["text"] } }
        }
        // Recipes and lines hold each other: dropping the array frees nothing.
        #expect(context.statistics.registeredObjects == 400)
        context.refreshAllObjects()
        #expect(context.statistics.registeredObjects == 0)
    }
}

/// A default fetch in a nested context larger than the row cache: the cache keeps all of
/// that fetch's rows, so touching every object runs no statement more. (A context without
/// parents keeps a fetch's values in its faults instead; see `PrefilledFaultTests`.)
@MainActor
@Test("A fetch larger than the row cache keeps all its rows: its faults fire without statements")
func aLargeFetchKeepsAllItsRows() throws {
    let coordinator = PersistentStoreCoordinator(model: try TestModel.make(), rowCacheLimit: 100)
    try coordinator.addStore(at: ":memory:")
    let context = MainContext(coordinator: coordinator)
    for index in 0..<2_500 { try context.insert("Tag")["label"] = "tag \(index)" }
    try context.save()
    context.reset()
    let child = MainContext(parent: context)
    let before = child.statistics.statements
    let tags = try child.fetch(FetchRequest(entityName: "Tag", sortKeys: [SortKey("label")]))
    #expect(coordinator.rowCache.count == 2_500)
    let labels = tags.map { $0["label"] as? String }
    #expect(labels.compactMap { $0 }.count == 2_500)
    #expect(child.statistics.statements - before == 1)
    // The next fetch starts the cache over.
    _ = try child.fetch(FetchRequest(entityName: "Chef"))
    #expect(coordinator.rowCache.row(for: tags[0].objectID) == nil)
}
