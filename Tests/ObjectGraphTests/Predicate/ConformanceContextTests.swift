@testable import ObjectGraph
@testable import ObjectGraphSQLite
import Foundation
import Testing

/// Every conformance case through the path applications take (``ContextPath``): a store the
/// framework made, objects saved through a context, and the context's `fetch`, `count(for:)`
/// and `fetchObjectIDs`, with saved rows and with unsaved changes merged in memory, on
/// objects that start as faults. The expected results are the table's.
@Suite("Predicate conformance through a context and its store")
struct ConformanceContextTests {
    let graph = RecipeDataset.make()

    /// The paths, one per variant, shared by every case of the table: its questions change
    /// nothing (each asks a new context, or refreshes the pending one first), and building
    /// the dataset's store again for each of thousands of cases (on PostgreSQL a new schema
    /// of a dozen tables over three new connections) made the table several times slower.
    private static let paths = SharedPaths()

    /// The variants the table runs: every one, except that PostgreSQL's pending variant (the
    /// slowest path of the suite: every question a round trip to the server) waits for
    /// `make soak` (`RELIABILITY_SOAK=1`). The property test still runs both PostgreSQL
    /// variants in `make test`, on every eighth seed.
    static let variants = ContextPath.Variant.allCases.filter {
        $0 != .pendingPostgres || ProcessInfo.processInfo.environment["RELIABILITY_SOAK"] == "1"
    }

    @Test("Recipes", arguments: ConformanceCases.recipes, variants)
    func recipes(_ testCase: (String, String), variant: ContextPath.Variant) async throws {
        let (format, expected) = testCase
        let (predicate, graph) = (try FetchPredicate(format), graph)
        let failures = try await ContextPath.gate.run {
            try await Self.paths.path(for: variant).mismatches(predicate, on: "Recipe", expected: expected,
                                                               count: expected.count) {
                RecipeDataset.letters($0, in: graph)
            }
        }
        #expect(failures.isEmpty, "\(format)\n\(failures.joined(separator: "\n"))")
    }

    @Test("Chefs", arguments: ConformanceCases.chefs, variants)
    func chefs(_ testCase: (String, [String]), variant: ContextPath.Variant) async throws {
        try await names(testCase, entity: "Chef", variant: variant)
    }

    @Test("Ingredient lines", arguments: ConformanceCases.lines, variants)
    func lines(_ testCase: (String, [String]), variant: ContextPath.Variant) async throws {
        try await names(testCase, entity: "Line", variant: variant)
    }

    private func names(_ testCase: (String, [String]), entity: String, variant: ContextPath.Variant) async throws {
        let (format, expected) = testCase
        let (predicate, graph) = (try FetchPredicate(format), graph)
        let failures = try await ContextPath.gate.run {
            try await Self.paths.path(for: variant).mismatches(predicate, on: entity, expected: expected.sorted().description,
                                                               count: expected.count) {
                RecipeDataset.names($0, entity: entity, in: graph).description
            }
        }
        #expect(failures.isEmpty, "\(format)\n\(failures.joined(separator: "\n"))")
    }

    @Test("The pending variant has unsaved inserts, updates and deletes of every entity, and faults")
    func pendingVariantIsPending() async throws {
        let path = try await ContextPath.make(graph, variant: .pending)
        let context = try #require(path.pendingContext)
        let missing = await context.perform { context in
            ["Chef", "Recipe", "Line", "Tag"].flatMap { entity in
                [("insert", context.insertedObjects), ("update", context.updatedObjects), ("delete", context.deletedObjects)]
                    .filter { _, objects in !objects.contains { $0.entity.name == entity } }
                    .map { change, _ in "no unsaved \(change) of \(entity)" }
            }
        }
        #expect(missing.isEmpty, "\(missing)")
        let answers = await path.answers(try FetchPredicate("TRUEPREDICATE"), on: "Recipe", modes: [.faults])
        #expect(try answers[0].1.get().count == graph.objects(of: "Recipe").count)
        let hasFaults = await context.perform { context in
            context.refreshAllObjects()
            return context.registeredObjects.contains { $0.isFault }
        }
        #expect(hasFaults)
    }

    @Test("The context path's store answers [cd] searches from the canonical shadow attribute")
    @MainActor
    func shadowRewrite() async throws {
        let path = try await ContextPath.make(graph, variant: .saved)
        let context = MainContext(coordinator: path.coordinator)
        let request = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate(#"name BEGINSWITH[cd] "creme""#))
        let sql = try context.explain(request).sql
        #expect(sql.contains("nameCanonical") && !sql.contains("og_fold") && !sql.contains("og_match"), "\(sql)")
    }

    @Test("A changed ingredient line alone changes which unchanged recipes match, before it is saved")
    @MainActor
    func relatedChange() async throws {
        let path = try await ContextPath.make(graph, variant: .saved)
        let context = MainContext(coordinator: path.coordinator)
        let predicate = try FetchPredicate("ANY ingredients.quantity > 400")
        let request = FetchRequest(entityName: "Recipe", predicate: predicate)
        #expect(try context.fetch(request).map { $0["name"] as? String } == ["ǅemal's Pie"])
        let lines = try context.fetch(FetchRequest(entityName: "Line", predicate: try FetchPredicate("quantity == 500")))
        lines[0]["quantity"] = 5.0
        let toast = try context.fetch(FetchRequest(entityName: "Line", predicate: try FetchPredicate(#"name == "bread""#)))
        toast[0]["quantity"] = 450.0
        context.refreshAllObjects()
        #expect(try context.fetch(request).map { $0["name"] as? String } == ["Toast"])
        #expect(try context.count(for: request) == 1)
        #expect(try context.fetchObjectIDs(request).count == 1)
    }
}

/// The context paths of ``RecipeDataset``, one per variant, made by the first case that asks
/// for it while the others wait for the same one.
private actor SharedPaths {
    private var paths: [ContextPath.Variant: Task<ContextPath, any Error>] = [:]

    func path(for variant: ContextPath.Variant) async throws -> ContextPath {
        let task = paths[variant] ?? Task { try await ContextPath.make(RecipeDataset.make(), variant: variant) }
        paths[variant] = task
        return try await task.value
    }
}
