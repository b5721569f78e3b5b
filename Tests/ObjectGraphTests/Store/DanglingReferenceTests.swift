import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// A save that points at a row another context deleted after this one read it (an importer's
/// uniquing cache keeps such IDs across resets): it fails naming the object and the row,
/// and writes nothing, instead of leaving a key that points at nothing.
@MainActor
@Suite("saves that point at deleted rows", .serialized)
struct DanglingReferenceTests {
    /// A store with one chef, one tag and one recipe; returns their IDs.
    func seeded(_ kind: StoreKind) throws -> (PersistentStoreCoordinator, chef: ObjectID, tag: ObjectID, recipe: ObjectID) {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        try kind.addStore(to: coordinator)
        let context = MainContext(coordinator: coordinator)
        let chef = try context.insert("Chef"), tag = try context.insert("Tag"), recipe = try context.insert("Recipe")
        chef["name"] = "Ana"
        tag["label"] = "quick"
        recipe["name"] = "Soup"
        try context.save()
        return (coordinator, chef.objectID, tag.objectID, recipe.objectID)
    }

    /// How many rows of `entity` the store holds, read by a fresh context.
    func count(_ entity: String, _ coordinator: PersistentStoreCoordinator) throws -> Int {
        try MainContext(coordinator: coordinator).count(for: FetchRequest(entityName: entity))
    }

    @Test("A new object linked to a chef a batch delete removed: objectNotFound, nothing saved",
          arguments: StoreKind.allCases)
    func insertPointingAtBatchDeletedRow(_ kind: StoreKind) throws {
        let (coordinator, chefID, _, _) = try seeded(kind)
        defer { StoreKind.removeFiles(of: coordinator) }
        let importer = MainContext(coordinator: coordinator), other = MainContext(coordinator: coordinator)
        _ = try other.execute(BatchDeleteRequest(entityName: "Chef"))
        let recipe = try importer.insert("Recipe")
        recipe["name"] = "Stew"
        recipe["chef"] = importer.object(with: chefID)
        let error = try #require(throws: ObjectGraphError.self) { try importer.save() }
        #expect(error.code == .objectNotFound)
        #expect(error.message.contains("Chef/p\(chefID.key)") && error.message.contains("is no longer in the store"), "\(error.message)")
        #expect(try count("Recipe", coordinator) == 1, "the new recipe was not written")
    }

    @Test("A saved object re-linked to a chef another context deleted, and a pair with a deleted tag: refused on SQLite")
    func updateAndPairPointingAtDeletedRows() throws {
        let (coordinator, chefID, tagID, recipeID) = try seeded(.sqlite)
        let editor = MainContext(coordinator: coordinator), other = MainContext(coordinator: coordinator)
        let recipe = try editor.existingObject(with: recipeID)
        let chef = try editor.existingObject(with: chefID), tag = try editor.existingObject(with: tagID)
        other.delete(try other.existingObject(with: chefID))
        other.delete(try other.existingObject(with: tagID))
        try other.save()
        recipe["chef"] = chef
        let update = try #require(throws: ObjectGraphError.self) { try editor.save() }
        #expect(update.message == "cannot save Recipe/p\(recipeID.key): its chef, Chef/p\(chefID.key), is no longer in the store "
                + "(deleted by another context or process); nothing was saved")
        editor.rollback()
        try recipe.add(tag, toKey: "tags")
        let pair = try #require(throws: ObjectGraphError.self) { try editor.save() }
        #expect(pair.message == "cannot save Recipe/p\(recipeID.key): its tags would hold Tag/p\(tagID.key), which is no longer "
                + "in the store (deleted by another context or process); nothing was saved")
        #expect(try MainContext(coordinator: coordinator).existingObject(with: recipeID)["chef"] == nil)
    }
}
