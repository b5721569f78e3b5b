import Foundation
import Testing
@testable import ObjectGraph

/// Nested contexts that disagreed with one flat context, each case reduced to a few objects.
@MainActor
struct NestedDifferentialReducedTests {
    let coordinator: PersistentStoreCoordinator
    let root: MainContext
    let ids: [String: ObjectID]

    /// Ana's Soup, Stew and Tart; Soup with a line; the tags quick and cheap, on no recipe.
    init() throws {
        coordinator = try TestModel.coordinator()
        root = MainContext(coordinator: coordinator)
        let seeding = MainContext(coordinator: coordinator)
        let chef = try seeding.insert("Chef")
        chef["name"] = "Ana"
        var objects = ["Ana": chef]
        for name in ["Soup", "Stew", "Tart"] {
            let recipe = try seeding.insert("Recipe")
            recipe["name"] = name
            recipe["chef"] = chef
            objects[name] = recipe
        }
        let line = try seeding.insert("Line")
        line["text"] = "salt"
        line["position"] = Int32(1)
        line["recipe"] = objects["Soup"]
        objects["salt"] = line
        for label in ["quick", "cheap"] {
            let tag = try seeding.insert("Tag")
            tag["label"] = label
            objects[label] = tag
        }
        try seeding.save()
        ids = objects.mapValues(\.objectID)
    }

    func labels(_ recipe: ManagedObject) throws -> Set<String> {
        Set(try recipe.objects(forKey: "tags").compactMap { $0["label"] as? String })
    }

    @Test("A grandchild sees the many-to-many members its root and its parent both added to one object")
    func grandchildSeesMembersAddedAtTwoLevels() throws {
        try root.object(with: ids["Soup"]!).add(root.object(with: ids["quick"]!), toKey: "tags")
        let child = MainContext(parent: root)
        try child.object(with: ids["Soup"]!).add(child.object(with: ids["cheap"]!), toKey: "tags")
        let grandchild = MainContext(parent: child)
        #expect(try labels(grandchild.object(with: ids["Soup"]!)) == ["quick", "cheap"])
        let quick = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("ANY tags.label == 'quick'"))
        #expect(try grandchild.fetch(quick).map { $0["name"] as? String } == ["Soup"])
        #expect(try grandchild.count(for: quick) == 1)
    }

    @Test("A grandchild does not see a member its root added and its parent removed")
    func grandchildSeesMemberRemovedByItsParent() throws {
        try root.object(with: ids["Soup"]!).add(root.object(with: ids["quick"]!), toKey: "tags")
        let child = MainContext(parent: root)
        try child.object(with: ids["Soup"]!).remove(child.object(with: ids["quick"]!), fromKey: "tags")
        try child.object(with: ids["Soup"]!).add(child.object(with: ids["cheap"]!), toKey: "tags")
        let grandchild = MainContext(parent: child)
        #expect(try labels(grandchild.object(with: ids["Soup"]!)) == ["cheap"])
        #expect(try labels(grandchild.object(with: ids["cheap"]!).objects(forKey: "recipes")[0]) == ["cheap"])
    }

    @Test("A child's fetch that prefetches a to-one shows the destination with its parent's unsaved values")
    func prefetchedToOneShowsTheParentsChanges() throws {
        root.object(with: ids["Ana"]!)["name"] = "Zoë"
        let child = MainContext(parent: root)
        var request = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Soup'"))
        request.relationshipKeyPathsForPrefetching = ["chef"]
        let soup = try #require(try child.fetch(request).first)
        #expect((soup["chef"] as? ManagedObject)?["name"] as? String == "Zoë")
    }

    @Test("A child's fetch that prefetches a to-many shows the members its parent added and removed")
    func prefetchedToManyShowsTheParentsChanges() throws {
        let pepper = try root.insert("Line")
        pepper["text"] = "pepper"
        pepper["position"] = Int32(2)
        pepper["recipe"] = root.object(with: ids["Soup"]!)
        root.delete(root.object(with: ids["salt"]!))
        let child = MainContext(parent: root)
        var request = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Soup'"))
        request.relationshipKeyPathsForPrefetching = ["lines"]
        let soup = try #require(try child.fetch(request).first)
        #expect(try soup.objects(forKey: "lines").map { $0["text"] as? String } == ["pepper"])
    }

    @Test("An object a child holds and fetched in batches shows its parent's unsaved values after the next fetch of IDs")
    func batchedFetchShowsTheParentsChanges() throws {
        root.object(with: ids["Soup"]!)["name"] = "Broth"
        let child = MainContext(parent: root)
        let soup = child.object(with: ids["Soup"]!)  // held before the fetch, as a fault
        var request = FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")])
        request.fetchBatchSize = 1
        #expect(try child.fetch(request).map { $0["name"] as? String } == ["Broth", "Stew", "Tart"])
        // The fetch of IDs checks the object the parent changed again, which fires its fault.
        #expect(try child.fetchObjectIDs(request).map { child.object(with: $0)["name"] as? String } == ["Broth", "Stew", "Tart"])
        #expect(soup["name"] as? String == "Broth")
    }

    @Test("A child's fetch and count keep their limit and offset when the parent's only changes are deletions")
    func windowAfterTheParentsDeletions() throws {
        root.delete(root.object(with: ids["Soup"]!))
        let child = MainContext(parent: root)
        var request = FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")])
        request.fetchLimit = 1
        #expect(try child.fetch(request).map { $0["name"] as? String } == ["Stew"])
        #expect(try child.count(for: request) == 1)
        request.fetchOffset = 1
        #expect(try child.fetchObjectIDs(request) == [ids["Tart"]!])
        root.rollback()
        root.delete(root.object(with: ids["quick"]!))  // another entity's
        #expect(try child.fetch(request).map { $0["name"] as? String } == ["Stew"])
    }

    @Test("A child saves after adding an object it inserted to a many-to-many and deleting it, as one context does",
          arguments: [1, 2])
    func childSavesAfterDeletingWhatItInsertedAndLinked(depth: Int) throws {
        let child = MainContext(parent: root)
        let tag = try child.insert("Tag")
        tag["label"] = "new"
        // At depth 2 the grandchild links and deletes the child's insert.
        let editor = depth == 1 ? child : MainContext(parent: child)
        try editor.object(with: ids["Stew"]!).add(editor.object(with: tag.objectID), toKey: "tags")
        editor.delete(editor.object(with: tag.objectID))
        if editor !== child { try editor.save() }
        try child.save()
        try root.save()
        let reader = MainContext(coordinator: coordinator)
        #expect(try reader.count(for: FetchRequest(entityName: "Tag")) == 2)
        #expect(try labels(reader.object(with: ids["Stew"]!)).isEmpty)
    }
}
