import Foundation
import Testing
@testable import ObjectGraph

/// Dictionary fetches (`fetchDictionaries`) answer the same on every store type: chosen
/// properties, distinct values with a window.
@MainActor
@Suite("dictionary fetches on every store", .serialized)
struct DictionaryFetchTests {
    /// A store of `kind` with six recipes: servings 2, 2, 4, 4, 4 and 6, ratings 1 to 6, by
    /// three chefs (Ana two, Bo three, one without a chef).
    func seeded(_ kind: StoreKind) throws -> (PersistentStoreCoordinator, MainContext) {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        try kind.addStore(to: coordinator)
        let context = MainContext(coordinator: coordinator)
        let ana = try context.insert("Chef"), bo = try context.insert("Chef")
        ana["name"] = "Ana"
        bo["name"] = "Bo"
        for (index, servings) in [2, 2, 4, 4, 4, 6].enumerated() {
            let recipe = try context.insert("Recipe")
            recipe["name"] = "Recipe \(index + 1)"
            recipe["servings"] = Int16(servings)
            recipe["rating"] = Double(index + 1)
            recipe["chef"] = index < 2 ? ana : index < 5 ? bo : nil
        }
        try context.save()
        return (coordinator, MainContext(coordinator: coordinator))
    }

    /// The `servings` of each dictionary `request` fetches.
    func servings(_ request: FetchRequest, _ context: MainContext) throws -> [String] {
        try context.fetchDictionaries(request).map { row in row["servings"].map { "\($0 ?? "nil")" } ?? "missing" }
    }

    @Test("Distinct values with a limit and an offset: the window counts distinct rows", arguments: StoreKind.allCases)
    func distinctWindow(_ kind: StoreKind) throws {
        let (coordinator, context) = try seeded(kind)
        defer { StoreKind.removeFiles(of: coordinator) }
        var request = FetchRequest(entityName: "Recipe", sortKeys: [SortKey("servings")])
        request.propertiesToFetch = ["servings"]
        request.returnsDistinctResults = true
        request.fetchLimit = 2
        #expect(try servings(request, context) == ["2", "4"])
        request.fetchOffset = 1
        #expect(try servings(request, context) == ["4", "6"])
    }

    @Test("Values through a to-one that may be nil, distinct, sorted both ways: nil first ascending, last descending",
          arguments: StoreKind.allCases)
    func valuesThroughOptionalToOne(_ kind: StoreKind) throws {
        let (coordinator, context) = try seeded(kind)
        defer { StoreKind.removeFiles(of: coordinator) }
        var request = FetchRequest(entityName: "Recipe", sortKeys: [SortKey("chef.name")])
        request.propertiesToFetch = ["chef.name"]
        request.returnsDistinctResults = true
        func names() throws -> [String] {
            try context.fetchDictionaries(request).map { row in row["chef.name"].map { "\($0 ?? "nil")" } ?? "missing" }
        }
        #expect(try names() == ["nil", "Ana", "Bo"])
        request.sortKeys = [SortKey("chef.name", ascending: false)]
        #expect(try names() == ["Bo", "Ana", "nil"])
        request.returnsDistinctResults = false
        request.sortKeys = [SortKey("rating", ascending: false)]
        request.propertiesToFetch = ["name", "chef.name", "rating", "vegetarian"]
        let rows = try context.fetchDictionaries(request)
        #expect(rows.count == 6)
        #expect(rows.first?["name"] as? String == "Recipe 6")
        #expect(rows.first?["rating"] as? Double == 6)
        #expect(rows.first?["vegetarian"] as? Bool == false)
        #expect(rows.first.map { $0["chef.name"].map { $0 == nil } } == true, "a nil chef's name is a nil value, not a missing key")
        #expect(rows.last?["chef.name"] as? String == "Ana")
    }
}
