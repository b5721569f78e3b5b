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

    /// The rows `request` fetches, each entry of `keys` as text (`nil` for a nil value).
    func rows(_ request: FetchRequest, _ context: MainContext) throws -> [[String]] {
        try context.fetchDictionaries(request).map { row in
            request.propertiesToFetch.map { key in row[key].map { "\($0 ?? "nil")" } ?? "missing" }
        }
    }

    @Test("Grouped aggregates: a row per group, nil first, sorted, windowed, the same on every store",
          arguments: StoreKind.allCases)
    func groupedAggregates(_ kind: StoreKind) throws {
        let (coordinator, context) = try seeded(kind)
        defer { StoreKind.removeFiles(of: coordinator) }
        var request = FetchRequest(entityName: "Recipe")
        request.propertiesToFetch = ["chef.name", "@count", "@sum.servings", "@avg.rating", "@min.rating", "@max.name"]
        request.propertiesToGroupBy = ["chef.name"]
        #expect(try rows(request, context) == [
            ["nil", "1", "6", "6.0", "6.0", "Recipe 6"],
            ["Ana", "2", "4", "1.5", "1.0", "Recipe 2"],
            ["Bo", "3", "12", "4.0", "3.0", "Recipe 5"],
        ])
        let first = try #require(try context.fetchDictionaries(request).first)
        #expect(first["@count"] as? Int == 1 && first["@sum.servings"] as? Int == 6)
        #expect(first["@avg.rating"] as? Double == 6 && first["@min.rating"] as? Double == 6 && first["@max.name"] as? String == "Recipe 6")
        request.sortKeys = [SortKey("chef.name", ascending: false)]
        #expect(try rows(request, context).map(\.first) == ["Bo", "Ana", "nil"])
        request.sortKeys = []
        request.fetchLimit = 1
        request.fetchOffset = 1
        #expect(try rows(request, context).map(\.first) == ["Ana"])

        // Two keys; a predicate; the groups in the order of their keys.
        request = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("rating > 1"))
        request.propertiesToFetch = ["@count", "servings", "chef.name"]
        request.propertiesToGroupBy = ["servings", "chef.name"]
        #expect(try rows(request, context) == [["1", "2", "Ana"], ["3", "4", "Bo"], ["1", "6", "nil"]])
        let explained = try context.explain(request, resultType: .dictionaries)
        #expect(explained.sql.contains("GROUP BY g0, g1") == (kind == .sqlite || kind == .postgres), "\(explained.sql)")
        if kind == .sqlite {
            let sql = try context.explain(request, resultType: .dictionaries).sql
            #expect(sql == """
                SELECT count(*), g0, g1 FROM (SELECT t0."servings" AS g0, (SELECT h1."name" FROM "Chef" AS h1 WHERE h1._pk = t0."chef") AS g1 \
                FROM "Recipe" AS t0 WHERE ((t0."rating" > ?))) AS grouped GROUP BY g0, g1 ORDER BY g0, g1
                """, "\(sql)")
        }
    }

    @Test("Aggregates without groups: one row, also when nothing matches", arguments: StoreKind.allCases)
    func ungroupedAggregates(_ kind: StoreKind) throws {
        let (coordinator, context) = try seeded(kind)
        defer { StoreKind.removeFiles(of: coordinator) }
        var request = FetchRequest(entityName: "Recipe")
        request.propertiesToFetch = ["@count", "@count.chef.name", "@sum.servings", "@avg.servings", "@max.rating",
                                     "@min.published", "@sum.vegetarian", "@sum.rating"]
        #expect(try rows(request, context) == [["6", "5", "22", "\(22.0 / 6)", "6.0", "nil", "0", "21.0"]])
        request.predicate = try FetchPredicate("rating > 100")
        #expect(try rows(request, context) == [["0", "0", "nil", "nil", "nil", "nil", "nil", "nil"]])
    }

    @Test("A grouped fetch that cannot mean anything names the entry")
    func groupingMistakes() throws {
        let (_, context) = try seeded(.sqlite)
        func message(_ properties: [String], groupedBy keys: [String] = [], sortedBy sort: [SortKey] = []) -> String {
            var request = FetchRequest(entityName: "Recipe", sortKeys: sort)
            request.propertiesToFetch = properties
            request.propertiesToGroupBy = keys
            do {
                _ = try context.fetchDictionaries(request)
                return "no error"
            } catch let error as ObjectGraphError {
                return error.message
            } catch {
                return "\(error)"
            }
        }
        #expect(message(["name", "@count"], groupedBy: ["servings"])
                == "property 'name' is not grouped by (the groups are by servings): add it to the group keys, or fetch an aggregate of it such as @max.name")
        #expect(message(["name", "@count"]).contains("property 'name' is not grouped by (nothing is grouped)"))
        #expect(message(["@median.rating"]) == "'@median.rating' is not an aggregate; use @count, @count.KEY, @sum.KEY, @avg.KEY, @min.KEY or @max.KEY")
        #expect(message(["@sum.name"]) == "'@sum.name' needs numbers; 'name' is a String")
        #expect(message(["@avg"]) == "'@avg' needs a key: @avg.KEY, such as @avg.rating")
        #expect(message(["@count"], groupedBy: ["servings"], sortedBy: [SortKey("rating")])
                == "sort key 'rating' is not grouped by: a grouped fetch sorts by its group keys (servings)")
        #expect(message(["@count"], groupedBy: ["lines.text"]).contains("a to-many relationship"))
    }

    @Test("The value types of a dictionary request, without a store: attributes, through to-ones, and aggregates")
    func valueTypes() throws {
        let model = try TestModel.make()
        var request = FetchRequest(entityName: "Recipe")
        request.propertiesToFetch = ["chef.name", "servings", "@count", "@sum.servings", "@sum.rating", "@avg.servings",
                                     "@min.published", "@max.rating"]
        request.propertiesToGroupBy = ["chef.name", "servings"]
        let types = try request.dictionaryValueTypes(in: model)
        #expect(types.map(\.key) == request.propertiesToFetch)
        #expect(types.map(\.type) == [.string, .integer16, .integer64, .integer64, .double, .double, .date, .double])
        request = FetchRequest(entityName: "Chef")  // every stored attribute, in the model's order
        #expect(try request.dictionaryValueTypes(in: model).map(\.key)
                == model.entity(named: "Chef")!.attributes.filter { !$0.isTransient }.map(\.name))
        request = FetchRequest(entityName: "Recipe")
        request.propertiesToFetch = ["ratng"]
        #expect(throws: ObjectGraphError.self) { try request.dictionaryValueTypes(in: model) }
        request.propertiesToFetch = ["name", "@count"]
        #expect(throws: ObjectGraphError.self) { try request.dictionaryValueTypes(in: model) }
    }
}
