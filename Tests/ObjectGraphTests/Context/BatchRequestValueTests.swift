import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// The values batch requests write, on the SQLite, in-memory and XML stores: nil, and the
/// derived attributes a batch insert fills in as an inserted object has them.
@MainActor
struct BatchRequestValueTests {
    private let scratch: ScratchDirectory

    init() throws { scratch = try ScratchDirectory("og-batch-values") }

    /// A context on each kind of store, with `model`.
    func contexts(_ model: ObjectModel) throws -> [MainContext] {
        try [PersistentStoreType?.none, .memory, .xml].enumerated().map { index, type in
            let coordinator = PersistentStoreCoordinator(model: model)
            let path = scratch.url.appendingPathComponent("store\(index)").path
            if let type { try coordinator.addStore(type: type, at: path) } else { try coordinator.addStore(at: path) }
            return MainContext(coordinator: coordinator)
        }
    }

    @Test("A batch update sets an optional attribute to a nil Optional; a required one says it is required")
    func nilValues() throws {
        for context in try contexts(try TestModel.make()) {
            let soup = try context.insert("Recipe")
            soup["name"] = "Soup"
            soup["rating"] = 3.0
            try context.save()
            let rating: Double? = nil
            let result = try context.execute(BatchUpdateRequest(entityName: "Recipe", propertiesToUpdate: ["rating": rating as any Sendable]))
            #expect(result.updatedIDs == [soup.objectID])
            #expect(soup["rating"] == nil)
            #expect(try context.count(for: FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("rating == nil"))) == 1)
            let name: String? = nil
            let error = try #require(throws: ObjectGraphError.self) {
                try context.execute(BatchUpdateRequest(entityName: "Recipe", propertiesToUpdate: ["name": name as any Sendable]))
            }
            #expect(error.code == .validation)
            #expect(error.message == "'Recipe.name' is required: a batch update cannot set it to nil; nothing was updated")
            #expect(soup["name"] as? String == "Soup")
            let inserted = try context.execute(BatchInsertRequest(entityName: "Recipe", objects: [["name": "Stew", "rating": rating as any Sendable]]))
            #expect(context.object(with: inserted.insertedIDs[0])["rating"] == nil)
        }
    }
}
