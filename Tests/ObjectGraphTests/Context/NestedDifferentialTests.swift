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
}
