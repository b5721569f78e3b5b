import Foundation
import Testing
@testable import ObjectGraph

/// `fetchLazily`: IDs up front, objects made as they are read, values a batch at a time.
extension FetchOptionsTests {
    var byName: FetchRequest { FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")]) }

    @Test func readsIDsAndMakesObjectsOnlyWhenRead() throws {
        var results: FetchResultsCollection?
        let fetched = try cost { results = try context.fetchLazily(byName) }
        let recipes = try #require(results)
        #expect(recipes.count == 100 && fetched.statements == 1)
        #expect(context.registeredObjects.isEmpty)
        // Without a batch size an element is a fault that reads its own row.
        let recipe = recipes[42]
        #expect(recipe.isFault && context.registeredObjects.count == 1)
        let touched = cost { #expect(recipe["name"] as? String == "Recipe 042") }
        #expect(touched.statements == 1 && touched.faultsFired == 1)
        #expect(recipes[42] === recipe, "an element read again while alive is the same object")
        #expect(recipes.objectIDs[42] == recipe.objectID)
    }

    @Test func batchesLoadTogetherAndOnlyTheLastOneIsKept() throws {
        var request = byName
        request.fetchBatchSize = 10
        let recipes = try context.fetchLazily(request)
        let first = cost { #expect(recipes.prefix(10).map { $0["name"] as? String } == (0..<10).map { "Recipe 00\($0)" }) }
        #expect(first.statements == 1 && first.faultsFired == 10)
        let all = cost {
            for (index, recipe) in recipes.enumerated() {
                #expect(recipe["name"] as? String == "Recipe \(String(format: "%03d", index))")
            }
        }
        #expect(all.statements == 9, "one statement for each batch after the first")
        #expect(context.registeredObjects.count == 10, "only the last batch stays alive")
        #expect(recipes.last!["name"] as? String == "Recipe 099")
    }

    @Test func anElementIsTheObjectOtherFetchesGive() throws {
        var request = byName
        request.fetchBatchSize = 25
        let fetched = try context.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Recipe 030'")))
        let recipes = try context.fetchLazily(request)
        let loaded = cost { #expect(recipes[30] === fetched[0]) }
        #expect(loaded.statements == 1 && loaded.rows == 24, "the row cache already had Recipe 030's row")
        #expect(cost { _ = recipes[26]["name"] }.statements == 0, "element 26 came with element 30's batch")
    }

    @Test func prefetchesTheRequestsKeyPathsPerBatch() throws {
        var request = byName
        request.fetchBatchSize = 20
        request.relationshipKeyPathsForPrefetching = ["chef"]
        let recipes = try context.fetchLazily(request)
        let batch = cost { _ = recipes[0] }
        #expect(batch.statements == 2, "the batch's recipes, then their chefs")
        let chefs = cost { #expect(recipes[0..<20].map { ($0["chef"] as? ManagedObject)?["name"] as? String } == (0..<20).map { "Chef \($0)" }) }
        #expect(chefs.statements == 0 && chefs.faultsFired == 0)
        request.relationshipKeyPathsForPrefetching = ["cook"]
        let error = try #require(throws: ObjectGraphError.self) { try context.fetchLazily(request) }
        #expect(error.code == .unknownKey)
    }

    @Test func unsavedChangesCountAsInAFetch() throws {
        let added = try context.insert("Recipe")
        added["name"] = "Recipe 000a"
        let gone = try context.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Recipe 001'")))[0]
        context.delete(gone)
        var request = byName
        request.fetchBatchSize = 10
        request.predicate = try FetchPredicate("name < 'Recipe 005'")
        let recipes = try context.fetchLazily(request)
        #expect(recipes.map { $0["name"] as? String } == ["Recipe 000", "Recipe 000a", "Recipe 002", "Recipe 003", "Recipe 004"])
        #expect(recipes[1] === added)
        #expect(try context.fetch(request).map(\.objectID) == recipes.objectIDs)
    }

    @Test func aNestedContextSeesItsParentsChanges() throws {
        let child = MainContext(parent: context)
        let recipe = try context.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Recipe 007'")))[0]
        recipe["name"] = "Recipe 100"
        var request = byName
        request.fetchBatchSize = 10
        let names = try child.fetchLazily(request).map { $0["name"] as? String }
        #expect(names.count == 100 && names.last == "Recipe 100" && !names.contains("Recipe 007"))
    }
}
