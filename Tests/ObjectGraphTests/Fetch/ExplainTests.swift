import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// `explain(_:resultType:)` shows the statement each fetch method really runs.
@MainActor
struct ExplainTests {
    let context: MainContext

    init() throws {
        context = MainContext(coordinator: try TestModel.coordinator())
    }

    func sql(_ request: FetchRequest, _ resultType: FetchResultType) throws -> String {
        try context.explain(request, resultType: resultType).sql
    }

    @Test func objectsReadWholeRowsAndCountingReadsNone() throws {
        let request = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("rating > 4"))
        #expect(try sql(request, .objects) == #"SELECT t0."_pk", t0."name", t0."servings", t0."rating", t0."published", t0."vegetarian", t0."chef", t0."_opt" FROM "Recipe" AS t0 WHERE ((t0."rating" > ?))"#)
        #expect(try sql(request, .objects) == context.explain(request).sql)
        #expect(try sql(request, .count) == #"SELECT count(*) FROM "Recipe" AS t0 WHERE ((t0."rating" > ?))"#)
        #expect(try sql(request, .count) == context.explain(request, counting: true).sql)
    }

    @Test func objectIDsAndBatchedObjectsReadKeysOnly() throws {
        var request = FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")])
        request.fetchLimit = 5
        let keys = #"SELECT t0."_pk" FROM "Recipe" AS t0 ORDER BY t0."name", t0."_pk" LIMIT ? OFFSET ?"#
        #expect(try sql(request, .objectIDs) == keys)
        request.fetchBatchSize = 2
        #expect(try sql(request, .objects) == keys)
    }

    @Test func dictionariesReadTheChosenPropertiesDistinctWhenAsked() throws {
        var request = FetchRequest(entityName: "Recipe")
        request.propertiesToFetch = ["rating", "chef.name"]
        request.returnsDistinctResults = true
        let explanation = try context.explain(request, resultType: .dictionaries)
        #expect(explanation.sql.hasPrefix(#"SELECT DISTINCT t0."rating", "#))
        #expect(explanation.sql.contains(#""name""#) && explanation.sql.contains(#""Chef""#))
        request.propertiesToFetch = ["ratng"]
        #expect(throws: ObjectGraphError.self) { try context.explain(request, resultType: .dictionaries) }
    }

    @Test func objectIDsAreKeysAloneInATableOfOneEntityAndKeysWithTheEntityInAShared() throws {
        let recipe = try context.model.requireEntity(named: "Recipe").index
        let media = try context.model.requireEntity(named: "Media").index
        let ids = [ObjectID(entityIndex: recipe, key: 3), ObjectID(entityIndex: recipe, key: 5)]
        var request = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("SELF IN %@", ids))
        #expect(try sql(request, .objectIDs).hasSuffix(#"WHERE ((t0._pk IN (?, ?)))"#))
        // An ID of another entity names no row of Recipe's table.
        request.predicate = try FetchPredicate("SELF == %@", ObjectID(entityIndex: media, key: 3))
        let none = try sql(request, .objectIDs)
        #expect(none.hasSuffix("WHERE (0)"), "\(none)")
        request = FetchRequest(entityName: "Media", predicate: try FetchPredicate("SELF == %@", ObjectID(entityIndex: media, key: 3)))
        #expect(try sql(request, .objectIDs).hasSuffix("WHERE ((t0._pk = ? AND t0._ent = \(media)))"))
    }

    @Test func withoutSubentitiesOnlyTheEntitysOwnRowsQualify() throws {
        var request = FetchRequest(entityName: "Media")
        #expect(try !sql(request, .objects).contains("WHERE"))
        request.includesSubentities = false
        let media = try context.model.requireEntity(named: "Media").index
        #expect(try sql(request, .objectIDs).hasSuffix("WHERE t0._ent = \(media)"))
    }
}
