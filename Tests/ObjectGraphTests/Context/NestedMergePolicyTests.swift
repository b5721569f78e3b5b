import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Optimistic locking through a stack of contexts: the root's save checks each row
/// against the version the edit was made on, in whichever context of the stack, and
/// applies its merge policy there. In each test a sibling context on the same coordinator
/// changes `rating` and `servings` of a recipe after the stack loaded it, and the stack
/// changes `rating` (the conflict) or `name` (no conflict).
@MainActor
struct NestedMergePolicyTests {
    let coordinator: PersistentStoreCoordinator
    let path: String
    let id: ObjectID
    /// The private context that writes to the store, and the main context, its child.
    let persist: PrivateContext
    let main: MainContext

    /// Removes the test's directory when the suite value goes, after the test.
    private let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("og-nested-merge")
        path = scratch.url.appendingPathComponent("store.sqlite").path
        coordinator = try TestModel.coordinator(path: path)
        let seeding = MainContext(coordinator: coordinator)
        let chef = try seeding.insert("Chef")
        chef["name"] = "Ana"
        let soup = try seeding.insert("Recipe")
        soup["name"] = "Soup"
        soup["rating"] = 3.0
        soup["servings"] = 4
        soup["chef"] = chef
        try seeding.save()
        id = soup.objectID
        persist = PrivateContext(coordinator: coordinator)
        main = MainContext(parent: persist)
    }

    /// A sibling of the stack's root saves rating 1 and servings 2.
    func siblingSaves() async throws {
        let id = self.id
        try await PrivateContext(coordinator: coordinator).perform { context in
            let recipe = try context.existingObject(with: id)
            recipe["rating"] = 1.0
            recipe["servings"] = 2
            _ = try context.save()
        }
    }

    /// Saves the main context into the persist context, then the persist context to the store.
    func saveStack() async throws {
        try main.save()
        try await persist.perform { _ = try $0.save() }
    }

    /// The recipe as a fresh coordinator reads it from the file: name, rating, servings.
    func stored() throws -> (String?, Double?, Int?) {
        let reader = MainContext(coordinator: try TestModel.coordinator(path: path))
        let recipe = try #require(try reader.fetch(FetchRequest(entityName: "Recipe")).first)
        return (recipe["name"] as? String, recipe["rating"] as? Double, (recipe["servings"] as? Int64).map(Int.init) ?? recipe["servings"] as? Int)
    }

    @Test("Two levels: the root fails an edit of the main context made on a row a sibling saved since")
    func twoLevelsConflict() async throws {
        let recipe = try main.existingObject(with: id)
        #expect(recipe["rating"] as? Double == 3.0)
        recipe["rating"] = 5.0
        try await siblingSaves()
        try main.save()
        let error = try await #require(throws: ObjectGraphError.self) { try await persist.perform { _ = try $0.save() } }
        #expect(error.code == .mergeConflict)
        #expect(error.message.contains("(rating: loaded 3.0, store 1.0, here 5.0)"), "\(error.message)")
        #expect(try stored() == ("Soup", 1.0, 2), "nothing was written")
        #expect(await persist.perform { $0.hasChanges })
    }

    @Test("Three levels: the root fails an edit of an update context made on a row a sibling saved since")
    func threeLevelsConflict() async throws {
        let recipe = try main.existingObject(with: id)
        #expect(recipe["rating"] as? Double == 3.0)
        let update = PrivateContext(parent: main)
        let id = self.id
        try await update.perform { context in
            try context.existingObject(with: id)["rating"] = 5.0
            _ = try context.save()
        }
        try await siblingSaves()
        let error = try await #require(throws: ObjectGraphError.self) { try await saveStack() }
        #expect(error.code == .mergeConflict)
        #expect(error.message.contains("(rating: loaded 3.0, store 1.0, here 5.0)"), "\(error.message)")
        #expect(try stored() == ("Soup", 1.0, 2), "nothing was written")
        withExtendedLifetime(recipe) {}
    }

    @Test("Three levels: the edit's version travels through a main context that loaded the row only after the sibling saved")
    func threeLevelsConflictThroughALaterLoad() async throws {
        let update = PrivateContext(parent: main)
        let sibling = PrivateContext(coordinator: coordinator)
        let id = self.id
        try await update.perform { context in
            let recipe = try context.existingObject(with: id)
            #expect(recipe["rating"] as? Double == 3.0)
            // The sibling saves while the update context holds the recipe (this waits on
            // the sibling's queue, from the update context's queue: no cooperative thread).
            try sibling.performAndWait { sibling in
                let theirs = try sibling.existingObject(with: id)
                theirs["rating"] = 1.0
                theirs["servings"] = 2
                _ = try sibling.save()
            }
            recipe["rating"] = 5.0
            _ = try context.save()  // the main context loads the row now, at the sibling's version
        }
        let error = try await #require(throws: ObjectGraphError.self) { try await saveStack() }
        #expect(error.code == .mergeConflict)
        #expect(error.message.contains("(rating: loaded 3.0, store 1.0, here 5.0)"), "\(error.message)")
        #expect(try stored() == ("Soup", 1.0, 2), "nothing was written")
    }

    @Test("The root's merge policy resolves a nested edit's conflict", arguments: [
        (MergePolicy.storeWins, 1.0, 2), (.inMemoryWins, 5.0, 2), (.overwrite, 5.0, 2), (.rollback, 1.0, 2),
    ])
    func rootPolicyResolves(policy: MergePolicy, rating: Double, servings: Int) async throws {
        await persist.perform { $0.mergePolicy = policy }
        main.mergePolicy = .error  // a nested context's own policy plays no part: it writes nothing
        let update = PrivateContext(parent: main)
        let id = self.id
        try await update.perform { context in
            try context.existingObject(with: id)["rating"] = 5.0
            _ = try context.save()
        }
        try await siblingSaves()
        // The persist context loads the row as the main context saves into it, after the
        // sibling's save: the whole object that `overwrite` writes has the sibling's servings.
        try await saveStack()
        #expect(try stored() == ("Soup", rating, servings))
    }

    @Test("A nested edit of another property than the sibling's saves both, with the error policy")
    func disjointNestedEditSaves() async throws {
        main.object(with: id)["name"] = "Hot soup"
        try await siblingSaves()
        try await saveStack()
        #expect(try stored() == ("Hot soup", 1.0, 2))
    }

    @Test("A nested edit saves without a conflict, and edits after the root's save do too")
    func nestedEditsSaveAgain() async throws {
        let recipe = try main.existingObject(with: id)
        recipe["rating"] = 5.0
        try await saveStack()
        #expect(try stored() == ("Soup", 5.0, 4))
        // The main context's copy still has the version it loaded; what it edits now is what
        // the root wrote. Even the rollback policy, which gives up any changed row, keeps it.
        await persist.perform { $0.mergePolicy = .rollback }
        recipe["rating"] = 6.0
        try await saveStack()
        #expect(try stored() == ("Soup", 6.0, 4))
        let update = PrivateContext(parent: main)
        let id = self.id
        try await update.perform { context in
            context.object(with: id)["name"] = "Hot soup"
            _ = try context.save()
        }
        try await saveStack()
        #expect(try stored() == ("Hot soup", 6.0, 4))
    }
}
