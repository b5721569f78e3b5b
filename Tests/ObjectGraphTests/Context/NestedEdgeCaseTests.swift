import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// A child and its parent disagreeing about an object: the parent deleted what the child
/// edits, or changed what the child refreshes.
@MainActor
struct NestedEdgeCaseTests {
    let coordinator: PersistentStoreCoordinator
    let root: MainContext
    let child: MainContext
    let soup: ObjectID

    init() throws {
        coordinator = try TestModel.coordinator()
        root = MainContext(coordinator: coordinator)
        let soup = try root.insert("Recipe")
        soup["name"] = "Soup"
        soup["rating"] = 3.0
        try root.save()
        self.soup = soup.objectID
        child = MainContext(parent: root)
    }

    /// The object for `id` as the store has it, read by `reader`; nil when it has no row.
    func stored(_ id: ObjectID, by reader: MainContext) throws -> ManagedObject? {
        try reader.fetch(FetchRequest(entityName: "Recipe")).first { $0.objectID == id }
    }

    @Test("A child's save of an edit to an object its parent deleted and saved fails, naming the object, and keeps the child's changes")
    func childEditsWhatTheParentDeletedAndSaved() throws {
        let mine = child.object(with: soup)
        mine["rating"] = 5.0
        root.delete(root.object(with: soup))
        try root.save()
        let error = #expect(throws: ObjectGraphError.self) { try child.save() }
        #expect(error?.code == .objectNotFound)
        #expect("\(error.map { "\($0)" } ?? "")".contains(coordinator.model.describe(soup)), "\(String(describing: error))")
        #expect(child.hasChanges && mine["rating"] as? Double == 5.0)
        #expect(!root.hasChanges)
        child.delete(mine)  // what the message suggests
        try child.save()
        try root.save()
        #expect(try stored(soup, by: MainContext(coordinator: coordinator)) == nil)
    }

    @Test("A child's save of an edit to an object its parent deleted, unsaved, fails the same way")
    func childEditsWhatTheParentDeleted() throws {
        let mine = child.object(with: soup)
        mine["rating"] = 5.0
        root.delete(root.object(with: soup))
        let error = #expect(throws: ObjectGraphError.self) { try child.save() }
        #expect(error?.code == .objectNotFound)
        #expect("\(error.map { "\($0)" } ?? "")".contains("which the parent deleted"), "\(String(describing: error))")
        #expect(root.deletedObjects.map(\.objectID) == [soup])
        child.refresh(mine, mergeChanges: false)  // the other way out
        try child.save()
        try root.save()
        #expect(try stored(soup, by: MainContext(coordinator: coordinator)) == nil)
    }

    @Test("refresh(_:mergeChanges: true) in a child keeps its own change and reloads the rest with the parent's unsaved values")
    func refreshMergingInAChild() throws {
        let mine = child.object(with: soup)
        mine["name"] = "Soup of the day"
        root.object(with: soup)["rating"] = 4.0
        child.refresh(mine, mergeChanges: true)
        #expect(mine["name"] as? String == "Soup of the day")
        #expect(mine["rating"] as? Double == 4.0, "the refresh read the store's value, not the parent's")
        child.rollback()
        #expect(mine["name"] as? String == "Soup" && mine["rating"] as? Double == 4.0)
    }

    @Test("refresh(_:mergeChanges: false) in a child reloads the parent's unsaved values")
    func refreshInAChild() throws {
        let mine = child.object(with: soup)
        mine["name"] = "Soup of the day"
        root.object(with: soup)["rating"] = 4.0
        child.refresh(mine, mergeChanges: false)
        #expect(mine["name"] as? String == "Soup" && mine["rating"] as? Double == 4.0)
    }

    @Test("refresh(_:mergeChanges: true) in a child of an object its parent inserted keeps the child's change and the parent's values")
    func refreshMergingAParentsInsert() throws {
        let pie = try root.insert("Recipe")
        pie["name"] = "Pie"
        pie["rating"] = 2.0
        let mine = child.object(with: pie.objectID)
        mine["rating"] = 1.0
        pie["servings"] = 8
        child.refresh(mine, mergeChanges: true)
        #expect(mine["rating"] as? Double == 1.0)
        #expect(mine["name"] as? String == "Pie" && mine["servings"] as? Int == 8)
        try child.save()
        #expect(pie["rating"] as? Double == 1.0 && pie["servings"] as? Int == 8)
        try root.save()
        let reader = MainContext(coordinator: coordinator)
        #expect(try stored(pie.objectID, by: reader)?["rating"] as? Double == 1.0)
    }

    @Test("refresh(_:mergeChanges: true) in a child of an object its parent deleted makes it inaccessible")
    func refreshMergingWhatTheParentDeleted() throws {
        let mine = child.object(with: soup)
        mine["name"] = "Soup of the day"
        root.delete(root.object(with: soup))
        child.refresh(mine, mergeChanges: true)
        #expect(mine.isInaccessible)
    }

    @Test("A child's save that points a to-one at, or adds to a to-many, an object its parent deleted (saved or not) fails, naming the object and relationship",
          arguments: [("chef", false), ("chef", true), ("tags", false), ("tags", true)])
    func childPointsAtWhatTheParentDeleted(key: String, parentSaved: Bool) throws {
        let target = try root.insert(key == "chef" ? "Chef" : "Tag")
        target[key == "chef" ? "name" : "label"] = "Ana"
        try root.save()
        let mine = child.object(with: soup)
        let theirs = child.object(with: target.objectID)
        if key == "chef" { mine["chef"] = theirs } else { try mine.add(theirs, toKey: "tags") }
        root.delete(target)
        if parentSaved { try root.save() }

        let error = #expect(throws: ObjectGraphError.self) { try child.save() }
        #expect(error?.code == .validation)
        let message = error?.message ?? ""
        #expect(message.contains("\(coordinator.model.describe(soup))'s '\(key)' points to \(coordinator.model.describe(target.objectID))"),
                "\(message)")
        #expect(message.contains(parentSaved ? "no longer in the store" : "which the parent deleted"), "\(message)")
        #expect(child.hasChanges, "the child keeps its changes")
        let parents = root.object(with: soup)
        let parentsTags = try parents.objects(forKey: "tags")
        #expect(parents["chef"] == nil && parentsTags.isEmpty, "nothing reached the parent")
        try root.save()
        let stored = try #require(try stored(soup, by: MainContext(coordinator: coordinator)))
        let storedTags = try stored.objects(forKey: "tags")
        #expect(stored["chef"] == nil && storedTags.isEmpty, "no dangling link was stored")
    }
}
