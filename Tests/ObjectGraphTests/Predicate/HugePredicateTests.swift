import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Predicates far larger than anyone writes: nested 10,000 deep, or 10,000 terms long
/// (100,000 in the soak), parsed, checked, printed, compiled and evaluated on a private context's
/// queue (whose thread has a small stack). Each is an answer or a clear error, never a
/// stack overflow; a store answers long chains as the in-memory evaluator does.
struct HugePredicateTests {
    static func chain(_ count: Int, _ separator: String) -> String {
        Array(repeating: "name == 'x'", count: count).joined(separator: separator)
    }

    @Test("Nested 10,000 deep, in parentheses, NOT, minus or SUBQUERY: an error naming the depth", arguments: [
        String(repeating: "(", count: 10_000) + "name == 'x'" + String(repeating: ")", count: 10_000),
        String(repeating: "NOT ", count: 10_000) + "name == 'x'",
        "servings == " + String(repeating: "-(", count: 10_000) + "1" + String(repeating: ")", count: 10_000),
        String(repeating: "SUBQUERY(lines, $x, ", count: 5_000) + "TRUEPREDICATE" + String(repeating: ").@count > 0", count: 5_000),
    ])
    func deepNesting(_ text: String) throws {
        let error = try #require(throws: PredicateSyntaxError.self) { try FetchPredicate(text) }
        #expect(error.description.contains("nested too deeply (more than \(PredicateParser.maximumDepth) levels)"), "\(error)")
    }

    /// 10,000 terms; 100,000 too in the soak (`RELIABILITY_SOAK=1`).
    static let chainLengths = ProcessInfo.processInfo.environment["RELIABILITY_SOAK"] == "1" ? [10_000, 100_000] : [10_000]

    @Test("Long chains of terms joined by OR or AND: parsed, checked, printed and evaluated on a private context, in memory and in SQLite",
          arguments: chainLengths)
    func longChains(count: Int) async throws {
        for separator in [" OR ", " AND "] {
            let predicate = try FetchPredicate(Self.chain(count, separator))
            #expect(predicate.description.count > count * 10)
            // In memory (a memory store evaluates every predicate itself), on the context's queue.
            let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
            coordinator.addMemoryStore()
            let context = PrivateContext(coordinator: coordinator)
            let matches = try await context.perform { context in
                let recipe = try context.insert("Recipe")
                recipe["name"] = "x"
                try context.save()
                return try context.count(for: FetchRequest(entityName: "Recipe", predicate: predicate))
            }
            #expect(matches == 1)
            // SQLite caps an expression's depth at 1,000; the compiler writes the chain as a
            // balanced tree, a few dozen levels deep.
            let sqlite = PrivateContext(coordinator: try TestModel.coordinator())
            let sqliteMatches = try await sqlite.perform { context in
                let recipe = try context.insert("Recipe")
                recipe["name"] = "x"
                try context.save()
                return try context.count(for: FetchRequest(entityName: "Recipe", predicate: predicate))
            }
            #expect(sqliteMatches == 1)
        }
    }

    @Test("A predicate nested past SQLite's parser stack is refused as too complex for the store, naming it")
    func tooComplexForSQLite() async throws {
        let predicate = try FetchPredicate(String(repeating: "NOT ", count: 60) + "name == 'x'")
        let sqlite = PrivateContext(coordinator: try TestModel.coordinator())
        let error = await #expect(throws: ObjectGraphError.self) {
            try await sqlite.perform { context in
                try context.count(for: FetchRequest(entityName: "Recipe", predicate: predicate))
            }
        }
        #expect(error?.code == .predicateTooComplex)
        #expect(error?.message == "the predicate is too complex for the store ':memory:' (SQLite: parser stack overflow); "
                + "nest it less deeply, or split the fetch into smaller ones", "\(String(describing: error))")
    }

    @Test("SELF IN 60,000 IDs (duplicates and another entity's among them) answers as the IDs say",
          arguments: StoreKind.allCases.filter { $0 == .sqlite || $0 == .postgres })
    func longIdentityList(kind: StoreKind) async throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        try kind.addStore(to: coordinator)
        let context = PrivateContext(coordinator: coordinator)
        let (matches, misses) = try await context.perform { context in
            for index in 0..<10 { try context.insert("Chef")["name"] = "c\(index)" }
            try context.save()
            let chefs = try context.fetch(FetchRequest(entityName: "Chef")).map(\.objectID).sorted()
            let chef = try context.model.requireEntity(named: "Chef").index
            let recipe = try context.model.requireEntity(named: "Recipe").index
            // Each key twice, as Chef and as Recipe: 60,000 distinct IDs, two thirds of them
            // Chef's (the list was deduplicated in quadratic time: 97 s for 70,000).
            let keys = (0..<20_000).map { Int64($0) * 7 + 100_000 }
            var ids = keys.map { ObjectID(entityIndex: chef, key: $0) } + keys.map { ObjectID(entityIndex: recipe, key: $0) }
            ids += keys.map { ObjectID(entityIndex: chef, key: $0 + 1) } + chefs.prefix(4) + chefs.prefix(4)
            let inList = try context.fetch(FetchRequest(entityName: "Chef", predicate: try FetchPredicate("SELF IN %@", ids)))
            let notInList = try context.count(for: FetchRequest(entityName: "Chef", predicate: try FetchPredicate("NOT SELF IN %@", ids)))
            return (inList.map(\.objectID).sorted() == Array(chefs.prefix(4)), notInList)
        }
        #expect(matches)
        #expect(misses == 6)
    }

    /// 2,000 ORed comparisons, 2,000 ANDed ones, and sums of 90 terms (the parser takes up
    /// to ``PredicateParser/maximumDepth`` operators in a chain; SQLite's parser overflowed
    /// at about 70 nested parentheses).
    static let longChains: [String] = [
        ((0..<2_000).map { "name == 'x\($0)'" } + ["name == 'r1'", "rating > 4.5"]).joined(separator: " OR "),
        (0..<2_000).map { "name != 'x\($0)'" }.joined(separator: " AND ") + " AND rating >= 2.5",
        Array(repeating: "rating", count: 90).joined(separator: " + ") + " > 320",
        // 0.1 summed 90 times from the left is not 9: a regrouped sum would miss it.
        Array(repeating: "servings * 0.1", count: 90).joined(separator: " + ")
            + " == \((0..<90).reduce(0.0) { total, _ in total + 0.1 })",
        Array(repeating: "rating", count: 90).joined(separator: " - ") + " < -320",
    ]

    @Test("A chain of more operators than the parser's depth is an error, not a stack overflow")
    func tooLongArithmetic() {
        for op in [" + ", " * "] {
            let text = Array(repeating: "rating", count: 5_000).joined(separator: op) + " > 0"
            #expect {
                try FetchPredicate(text)
            } throws: { error in
                (error as? PredicateSyntaxError)?.message == "the arithmetic expression is too long (more than 100 operators and levels of nesting)"
            }
        }
    }

    @Test("2,000 ORed comparisons and 90-term sums: every store gives the in-memory evaluator's answer",
          arguments: StoreKind.allCases)
    @MainActor
    func longChainsOnEveryStore(kind: StoreKind) throws {
        func fill(_ kind: StoreKind) throws -> (PersistentStoreCoordinator, MainContext) {
            let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
            try kind.addStore(to: coordinator)
            let context = MainContext(coordinator: coordinator)
            for (index, (rating, servings)) in [(1.0, 1), (2.5, 2), (3.5, 1), (4.0, 3), (4.9, 1)].enumerated() {
                let recipe = try context.insert("Recipe")
                recipe["name"] = "r\(index)"
                recipe["rating"] = rating
                recipe["servings"] = Int16(servings)
            }
            try context.save()
            return (coordinator, context)
        }
        let (_, inMemory) = try fill(.memory)  // the memory store evaluates every predicate itself
        let (coordinator, context) = try fill(kind)
        defer { StoreKind.removeFiles(of: coordinator) }
        for format in Self.longChains {
            let request = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate(format), sortKeys: [SortKey("name")])
            let expected = try inMemory.fetch(request).map { $0["name"] as? String }
            #expect(!expected.isEmpty)
            #expect(try context.fetch(request).map { $0["name"] as? String } == expected, "\(format.prefix(60))…")
        }
    }
}
