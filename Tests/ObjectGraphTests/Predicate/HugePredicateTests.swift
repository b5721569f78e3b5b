import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Predicates far larger than anyone writes: nested 10,000 deep, or 10,000 terms long
/// (100,000 in the soak), parsed, checked, printed, compiled and evaluated on a private context's
/// queue (whose thread has a small stack). Each is an answer or a clear error, never a
/// stack overflow.
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

    @Test("Long chains of terms joined by OR or AND: parsed, checked, printed and evaluated on a private context; SQL refuses by name",
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
            // SQLite caps an expression's depth; the error says so and names the store.
            let sqlite = PrivateContext(coordinator: try TestModel.coordinator())
            let error = await #expect(throws: ObjectGraphError.self) {
                try await sqlite.perform { context in
                    try context.count(for: FetchRequest(entityName: "Recipe", predicate: predicate))
                }
            }
            #expect(error?.message.contains("Expression tree is too large") == true, "\(String(describing: error))")
        }
    }
}
