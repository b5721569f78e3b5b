import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Optimistic locking: a save that finds a row changed since it was loaded resolves the
/// conflict by the context's merge policy. In each test the other side (a second
/// coordinator on the same file, as another process would be) changes `rating` and
/// `servings` of a recipe; this side changes `rating` and `name`.
@MainActor
struct MergePolicyTests {
    let path: String
    let mine: MainContext
    let soup: ManagedObject

    /// Removes the test's directory when the suite value goes, after the test.
    private let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("og-merge")
        let directory = scratch.url
        path = directory.appendingPathComponent("store.sqlite").path
        mine = MainContext(coordinator: try TestModel.coordinator(path: path))
        let chef = try mine.insert("Chef")
        chef["name"] = "Ana"
        let soup = try mine.insert("Recipe")
        soup["name"] = "Soup"
        soup["rating"] = 3.0
        soup["servings"] = 4
        soup["chef"] = chef
        try mine.save()
        mine.reset()
        self.soup = try #require(try mine.fetch(FetchRequest(entityName: "Recipe")).first)
        #expect(soup["rating"] as? Double == 3.0)  // loaded at the current version

        // The other side saves first.
        let theirs = MainContext(coordinator: try TestModel.coordinator(path: path))
        let their = try #require(try theirs.fetch(FetchRequest(entityName: "Recipe")).first)
        their["rating"] = 1.0
        their["servings"] = 2
        try theirs.save()

        self.soup["rating"] = 5.0
        self.soup["name"] = "Hot soup"
    }

    /// The recipe as a fresh coordinator reads it from the file: name, rating, servings.
    func stored() throws -> (String?, Double?, Int?) {
        let reader = MainContext(coordinator: try TestModel.coordinator(path: path))
        let recipe = try #require(try reader.fetch(FetchRequest(entityName: "Recipe")).first)
        return (recipe["name"] as? String, recipe["rating"] as? Double, (recipe["servings"] as? Int64).map(Int.init) ?? recipe["servings"] as? Int)
    }

    @Test("Following the error's advice works: roll back, refresh, change again and save")
    func refreshingAfterAConflictLoadsTheStoresRow() throws {
        let error = try #require(throws: ObjectGraphError.self) { try mine.save() }
        #expect(error.code == .mergeConflict)
        mine.rollback()
        mine.refresh(soup, mergeChanges: false)
        #expect(soup["rating"] as? Double == 1.0, "the refreshed object shows the other side's save, not the cached row")
        soup["rating"] = 5.0
        try mine.save()
        #expect(try stored() == ("Soup", 5.0, 2))
    }

    @Test("The error policy fails the save, names each property both sides changed with its three values, and keeps everything")
    func errorPolicyReports() throws {
        let error = try #require(throws: ObjectGraphError.self) { try mine.save() }
        #expect(error.code == .mergeConflict)
        // `name` (changed here only) and `servings` (changed there only) are no conflict.
        #expect(error.message == "another context or process saved this object since they were loaded: "
            + "Recipe/p1 (rating: loaded 3.0, store 1.0, here 5.0); nothing was saved. Refresh them, or choose a merge policy")
        #expect(try stored() == ("Soup", 1.0, 2))
        #expect(mine.hasChanges && soup["rating"] as? Double == 5.0 && soup["name"] as? String == "Hot soup")
    }

    @Test("The error policy keeps both sides' changes when they touch different properties")
    func errorPolicyKeepsDisjointChanges() throws {
        mine.rollback()  // loaded at the first version; the other side has saved rating and servings
        let published = Date(timeIntervalSince1970: 1_709_663_400)
        soup["name"] = "Hot soup"
        soup["published"] = published
        try mine.save()
        #expect(try stored() == ("Hot soup", 1.0, 2))
        let reader = MainContext(coordinator: try TestModel.coordinator(path: path))
        #expect(try #require(try reader.fetch(FetchRequest(entityName: "Recipe")).first)["published"] as? Date == published)
        #expect(soup["rating"] as? Double == 1.0 && !mine.hasChanges, "this side now shows the other side's values")
        soup["name"] = "Soup again"
        try mine.save()  // at the version the save wrote: no conflict left behind
        #expect(try stored() == ("Soup again", 1.0, 2))
    }

    @Test("The error policy keeps disjoint changes of two contexts of one coordinator")
    func errorPolicyKeepsDisjointChangesOfOneCoordinator() async throws {
        mine.rollback()
        let stew = try mine.insert("Recipe")
        stew["name"] = "Stew"
        stew["rating"] = 3.0
        stew["chef"] = soup["chef"] as? ManagedObject
        try mine.save()
        let id = stew.objectID
        try await PrivateContext(coordinator: mine.coordinator).perform { context in
            try context.existingObject(with: id)["rating"] = 2.0
            _ = try context.save()
        }
        stew["name"] = "Hot stew"
        try mine.save()
        let reader = MainContext(coordinator: try TestModel.coordinator(path: path))
        let saved = try reader.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("rating == 2.0")))
        #expect(saved.map { $0["name"] as? String } == ["Hot stew"])
    }

    @Test("A conflict shows dates in ISO 8601, not seconds")
    func conflictShowsDates() throws {
        mine.rollback()
        let theirs = MainContext(coordinator: try TestModel.coordinator(path: path))
        try #require(try theirs.fetch(FetchRequest(entityName: "Recipe")).first)["published"] = Date(timeIntervalSince1970: 1_709_663_400)
        try theirs.save()
        soup["published"] = Date(timeIntervalSince1970: 1_709_683_200.25)
        let error = try #require(throws: ObjectGraphError.self) { try mine.save() }
        #expect(error.code == .mergeConflict)
        #expect(error.message.contains("(published: loaded nil, store 2024-03-05T18:30:00Z, here 2024-03-06T00:00:00.250Z)"),
                "\(error.message)")
    }

    @Test("Store wins where both changed; each side's other changes are kept")
    func storeWins() throws {
        mine.mergePolicy = .storeWins
        try mine.save()
        #expect(try stored() == ("Hot soup", 1.0, 2))
        #expect(soup["rating"] as? Double == 1.0 && !mine.hasChanges)
    }

    @Test("In-memory wins where both changed; the store's other changes are kept")
    func inMemoryWins() throws {
        mine.mergePolicy = .inMemoryWins
        try mine.save()
        #expect(try stored() == ("Hot soup", 5.0, 2))
        #expect(soup["servings"] as? Int64 == 2 || soup["servings"] as? Int == 2)
    }

    @Test("Overwrite writes the whole object over the row")
    func overwrite() throws {
        mine.mergePolicy = .overwrite
        try mine.save()
        #expect(try stored() == ("Hot soup", 5.0, 4))
    }

    @Test("Rollback discards the conflicting object's changes and saves the rest")
    func rollback() throws {
        mine.mergePolicy = .rollback
        let tag = try mine.insert("Tag")
        tag["label"] = "winter"
        try mine.save()
        #expect(try stored() == ("Soup", 1.0, 2))
        #expect(soup["name"] as? String == "Soup" && !mine.hasChanges)
        #expect(try mine.count(for: FetchRequest(entityName: "Tag")) == 1)
    }

    @Test("A policy that takes the store's to-one takes it on both sides: the inverses in this context follow",
          arguments: [MergePolicy.storeWins, .rollback])
    func storesToOneKeepsInversesInStep(policy: MergePolicy) throws {
        let ana = try #require(soup["chef"] as? ManagedObject)
        #expect(try ana.objects(forKey: "recipes") == [soup])
        // The other side moves the soup to a chef of its own; this side moves it to another.
        let theirs = MainContext(coordinator: try TestModel.coordinator(path: path))
        let their = try #require(try theirs.fetch(FetchRequest(entityName: "Recipe")).first)
        let bo = try theirs.insert("Chef")
        bo["name"] = "Bo"
        their["chef"] = bo
        try theirs.save()

        let cy = try mine.insert("Chef")
        cy["name"] = "Cy"
        soup["chef"] = cy
        #expect(try cy.objects(forKey: "recipes") == [soup] && ana.objects(forKey: "recipes").isEmpty)
        mine.mergePolicy = policy
        try mine.save()

        let chef = try #require(soup["chef"] as? ManagedObject)
        #expect(chef["name"] as? String == "Bo", "the store's chef won")
        #expect(try chef.objects(forKey: "recipes") == [soup], "Bo's recipes hold the soup")
        #expect(try cy.objects(forKey: "recipes").isEmpty, "Cy's recipes no longer hold the soup")
        #expect(try ana.objects(forKey: "recipes").isEmpty)
    }

    @Test("After a resolved conflict the object saves again without one")
    func versionsMoveOn() throws {
        mine.mergePolicy = .inMemoryWins
        try mine.save()
        mine.mergePolicy = .error
        soup["rating"] = 4.0
        try mine.save()
        #expect(try stored().1 == 4.0)
    }

    @Test("A store made before rows had versions gets the column on open, and its rows then lock optimistically")
    func olderStoresGainVersions() throws {
        let store = try #require(mine.coordinator.stores.first as? SQLiteStore)
        try store.perform { connection in
            try connection.execute(#"ALTER TABLE "Recipe" DROP COLUMN "_opt""#)
            try connection.execute(#"DELETE FROM "_metadata" WHERE "key" = '_rowVersions'"#)
        }
        let reopened = MainContext(coordinator: try TestModel.coordinator(path: path))
        let recipe = try #require(try reopened.fetch(FetchRequest(entityName: "Recipe")).first)
        #expect(recipe["rating"] as? Double == 1.0)
        let other = MainContext(coordinator: try TestModel.coordinator(path: path))
        try #require(try other.fetch(FetchRequest(entityName: "Recipe")).first)["rating"] = 2.0
        try other.save()
        recipe["rating"] = 3.0
        #expect(throws: ObjectGraphError.self) { try reopened.save() }
    }

    @Test("A row saved more times than 32 bits count reports a conflict; it never skips the check")
    func versionsPast32BitsFailSafe() throws {
        let store = try #require(mine.coordinator.stores.first as? SQLiteStore)
        try store.perform { connection in
            try connection.execute(#"UPDATE "Recipe" SET "_opt" = 4294967296 + 5"#)
        }
        let reopened = MainContext(coordinator: try TestModel.coordinator(path: path))
        let recipe = try #require(try reopened.fetch(FetchRequest(entityName: "Recipe")).first)
        recipe["rating"] = 3.0
        let error = try #require(throws: ObjectGraphError.self) { try reopened.save() }
        #expect(error.code == .mergeConflict)
        reopened.mergePolicy = .overwrite  // resolving cannot match the version either: the retries end in the error
        #expect(throws: ObjectGraphError.self) { try reopened.save() }
        #expect(try stored().1 == 1.0, "the other side's value stays")
    }
}
