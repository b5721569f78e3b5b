@testable import ObjectGraph
@testable import ObjectGraphSQLite
import Foundation
import Testing

/// Every conformance case through the path applications take (``ContextPath``): a store the
/// framework made, objects saved through a context, and the context's `fetch`, `count(for:)`
/// and `fetchObjectIDs`, with saved rows and with unsaved changes merged in memory, on
/// objects that start as faults. The expected results are the table's.
@Suite("Predicate conformance through a context and its store")
@MainActor
struct ConformanceContextTests {
    let graph = RecipeDataset.make()

    /// The PostgreSQL paths, one per variant, shared by every case of the table: its
    /// questions change nothing, and a PostgreSQL store is a new schema of a dozen tables
    /// over three new connections, which made the table's cases several times slower than
    /// the rest of the suite. (The dataset is the same for every case.)
    private static var postgresPaths: [ContextPath.Variant: ContextPath] = [:]

    /// The variants the table runs: every one, except that PostgreSQL's pending variant (the
    /// slowest path of the suite: every question a round trip to the server, on the main
    /// actor) waits for `make soak` (`RELIABILITY_SOAK=1`). The property test still runs
    /// both PostgreSQL variants in `make test`, on every fourth seed.
    nonisolated static let variants = ContextPath.Variant.allCases.filter {
        $0 != .pendingPostgres || ProcessInfo.processInfo.environment["RELIABILITY_SOAK"] == "1"
    }

    /// A new path for `variant`, or on PostgreSQL the shared one.
    private static func path(_ graph: TestGraph, variant: ContextPath.Variant) throws -> ContextPath {
        guard variant.store == .postgres else { return try ContextPath(graph, variant: variant) }
        if let path = postgresPaths[variant] { return path }
        let path = try ContextPath(graph, variant: variant)
        postgresPaths[variant] = path
        return path
    }

    @Test("Recipes", arguments: ConformanceCases.recipes, variants)
    func recipes(_ testCase: (String, String), variant: ContextPath.Variant) throws {
        let (format, expected) = testCase
        let path = try Self.path(graph, variant: variant)
        let failures = path.mismatches(try FetchPredicate(format), on: "Recipe", expected: expected, count: expected.count) {
            RecipeDataset.letters($0, in: graph)
        }
        #expect(failures.isEmpty, "\(format)\n\(failures.joined(separator: "\n"))")
    }

    @Test("Chefs", arguments: ConformanceCases.chefs, variants)
    func chefs(_ testCase: (String, [String]), variant: ContextPath.Variant) throws {
        try names(testCase, entity: "Chef", variant: variant)
    }

    @Test("Ingredient lines", arguments: ConformanceCases.lines, variants)
    func lines(_ testCase: (String, [String]), variant: ContextPath.Variant) throws {
        try names(testCase, entity: "Line", variant: variant)
    }

    private func names(_ testCase: (String, [String]), entity: String, variant: ContextPath.Variant) throws {
        let (format, expected) = testCase
        let path = try Self.path(graph, variant: variant)
        let failures = path.mismatches(try FetchPredicate(format), on: entity, expected: expected.sorted().description,
                                       count: expected.count) {
            RecipeDataset.names($0, entity: entity, in: graph).description
        }
        #expect(failures.isEmpty, "\(format)\n\(failures.joined(separator: "\n"))")
    }

    @Test("The pending variant has unsaved inserts, updates and deletes of every entity, and faults")
    func pendingVariantIsPending() throws {
        let path = try ContextPath(graph, variant: .pending)
        let context = try #require(path.pendingContext)
        for entity in ["Chef", "Recipe", "Line", "Tag"] {
            #expect(context.insertedObjects.contains { $0.entity.name == entity }, "no unsaved insert of \(entity)")
            #expect(context.updatedObjects.contains { $0.entity.name == entity }, "no unsaved update of \(entity)")
            #expect(context.deletedObjects.contains { $0.entity.name == entity }, "no unsaved delete of \(entity)")
        }
        let answers = path.answers(try FetchPredicate("TRUEPREDICATE"), on: "Recipe", modes: [.faults])
        #expect(try answers[0].1.get().count == graph.objects(of: "Recipe").count)
        context.refreshAllObjects()
        #expect(context.registeredObjects.contains { $0.isFault })
    }

    @Test("The context path's store answers [cd] searches from the canonical shadow attribute")
    func shadowRewrite() throws {
        let path = try ContextPath(graph, variant: .saved)
        let context = MainContext(coordinator: path.coordinator)
        let request = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate(#"name BEGINSWITH[cd] "creme""#))
        let sql = try context.explain(request).sql
        #expect(sql.contains("nameCanonical") && !sql.contains("og_fold") && !sql.contains("og_match"), "\(sql)")
    }

    @Test("A changed ingredient line alone changes which unchanged recipes match, before it is saved")
    func relatedChange() throws {
        let path = try ContextPath(graph, variant: .saved)
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
