import Foundation
import ObjectGraphSQLite
import RecipeCatalog
import Testing

/// Optimistic locking across processes: this test process loads a recipe, a `recipes`
/// process changes and saves the same row, and this process's save then meets the conflict.
@Suite("conflicts between processes")
@MainActor
struct ConflictTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test("A save fails with the three values after another process saved the row; inMemoryWins then writes it")
    func anotherProcessesSaveIsAConflict() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("catalog.sqlite").path
        let setup = try await RecipesBinary.run([file, "-c", "import SampleData/recipes.jsonl"], in: Self.root)
        #expect(setup.status == 0, "\(setup.standardError)")

        let catalog = try Catalog.open(at: file)
        let context = MainContext(coordinator: catalog.coordinator)
        let request = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Larb Gai'"))
        let recipe = try #require(try context.fetch(request).first)
        let loaded = try #require(recipe["rating"] as? Double)

        let other = try await RecipesBinary.run(
            [file, "-c", "update Recipe where name == 'Larb Gai' set rating=1.5", "-c", "save"], in: Self.root)
        #expect(other.status == 0, "\(other.standardError)")

        recipe["rating"] = 4.9
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.code == .mergeConflict)
        #expect(error.message.contains("rating: loaded \(loaded), store 1.5, here 4.9"), "\(error.message)")

        context.mergePolicy = .inMemoryWins
        try context.save()
        let check = try await RecipesBinary.run(
            [file, "-c", ".mode json", "-c", "fetch Recipe where name == 'Larb Gai' keys rating"], in: Self.root)
        #expect(check.standardOutput.contains(#""rating": 4.9"#) || check.standardOutput.contains(#""rating":4.9"#),
                "\(check.standardOutput)")
    }
}
