import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Nested contexts: a child's save goes into its parent in memory; the child sees its
/// parents' unsaved changes; only the root writes to the store. Any depth.
@MainActor
struct NestedContextTests {
    let coordinator: PersistentStoreCoordinator
    let root: MainContext
    let ids: [String: ObjectID]

    init() throws {
        coordinator = try TestModel.coordinator()
        root = MainContext(coordinator: coordinator)
        let chef = try root.insert("Chef")
        chef["name"] = "Ana"
        var ids = ["Ana": chef]
        for (name, rating) in [("Soup", 5.0), ("Stew", 3.0), ("Tart", 2.0)] {
            let recipe = try root.insert("Recipe")
            recipe["name"] = name
            recipe["rating"] = rating
            recipe["chef"] = chef
            ids[name] = recipe
        }
        try root.save()
        self.ids = ids.mapValues(\.objectID)
    }

    /// What a fresh context reads from the store.
    func storedNames() throws -> [String] {
        let reader = MainContext(coordinator: coordinator)
        return try reader.fetch(FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")]))
            .map { $0["name"] as? String ?? "?" }
    }

    func names(_ objects: [ManagedObject]) -> [String] { objects.map { $0["name"] as? String ?? "?" } }

    @Test("A child's save goes into its parent, not the store; the parent's save writes it, with the same IDs until then")
    func childSavesIntoItsParent() throws {
        let child = MainContext(parent: root)
        let pie = try child.insert("Recipe")
        pie["name"] = "Pie"
        pie["chef"] = child.object(with: ids["Ana"]!)
        child.object(with: ids["Stew"]!)["rating"] = 4.0
        child.delete(child.object(with: ids["Tart"]!))
        let result = try child.save()
        #expect(result.insertedIDs == [pie.objectID] && pie.objectID.isTemporary)
        #expect(try storedNames() == ["Soup", "Stew", "Tart"], "a child's save reached the store")

        #expect(root.hasChanges)
        let adopted = root.object(with: pie.objectID)  // the child's temporary ID names it here too
        #expect(adopted["name"] as? String == "Pie")
        #expect(root.object(with: ids["Stew"]!)["rating"] as? Double == 4.0)
        #expect(root.deletedObjects.map(\.objectID) == [ids["Tart"]!])
        let chef = root.object(with: ids["Ana"]!)
        #expect(Set(names(try chef.objects(forKey: "recipes"))) == ["Soup", "Stew", "Pie"])

        try root.save()
        #expect(try storedNames() == ["Pie", "Soup", "Stew"])
        #expect(!adopted.objectID.isTemporary)
    }

    @Test("A child deletes several objects in one call, their inverses kept, and its save hands the parent each deletion")
    func childDeletesManyInOneCall() throws {
        let child = MainContext(parent: root)
        child.delete([child.object(with: ids["Tart"]!), child.object(with: ids["Stew"]!), child.object(with: ids["Tart"]!)])
        #expect(Set(child.deletedObjects.map(\.objectID)) == [ids["Tart"]!, ids["Stew"]!])
        #expect(names(try child.object(with: ids["Ana"]!).objects(forKey: "recipes")) == ["Soup"])
        try child.save()
        #expect(Set(root.deletedObjects.map(\.objectID)) == [ids["Tart"]!, ids["Stew"]!])
        #expect(try storedNames() == ["Soup", "Stew", "Tart"], "a child's save reached the store")
        try root.save()
        #expect(try storedNames() == ["Soup"])
    }

    @Test("A child's fetches, counts and faults see the parent's unsaved inserts, updates and deletes")
    func childSeesItsParentsChanges() throws {
        let pie = try root.insert("Recipe")
        pie["name"] = "Pie"
        pie["rating"] = 4.5
        pie["chef"] = root.object(with: ids["Ana"]!)
        root.object(with: ids["Soup"]!)["rating"] = 1.0
        root.delete(root.object(with: ids["Tart"]!))

        let child = MainContext(parent: root)
        let popular = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("rating > 4"), sortKeys: [SortKey("name")])
        #expect(names(try child.fetch(popular)) == ["Pie"])
        #expect(try child.count(for: popular) == 1)
        let all = FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")])
        #expect(names(try child.fetch(all)) == ["Pie", "Soup", "Stew"])
        #expect(try child.fetchObjectIDs(all).count == 3)
        #expect(child.object(with: ids["Soup"]!)["rating"] as? Double == 1.0)
        let chef = child.object(with: ids["Ana"]!)
        #expect(Set(names(try chef.objects(forKey: "recipes"))) == ["Soup", "Stew", "Pie"])
        #expect(!child.hasChanges, "the parent's changes are not the child's")
    }

    @Test("A child's predicate that reads a related object sees the parent's unsaved change to it")
    func childSeesParentsChangesThroughRelationships() throws {
        root.object(with: ids["Ana"]!)["name"] = "Zoë"
        let child = MainContext(parent: root)
        let byChef = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("chef.name == 'Zoë'"), sortKeys: [SortKey("name")])
        #expect(names(try child.fetch(byChef)) == ["Soup", "Stew", "Tart"])
        #expect(try child.count(for: byChef) == 3)
        #expect(try child.fetchObjectIDs(byChef).count == 3)
        let old = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("chef.name == 'Ana'"))
        #expect(try child.count(for: old) == 0)
    }

    @Test("Three levels: a grandchild sees the root's changes, and its save reaches the store only when each level saved")
    func anyDepth() throws {
        root.object(with: ids["Soup"]!)["rating"] = 2.0
        let middle = MainContext(parent: root)
        let leaf = MainContext(parent: middle)
        #expect(leaf.object(with: ids["Soup"]!)["rating"] as? Double == 2.0)
        let cake = try leaf.insert("Recipe")
        cake["name"] = "Cake"
        cake["chef"] = leaf.object(with: ids["Ana"]!)
        try leaf.save()
        #expect(try storedNames() == ["Soup", "Stew", "Tart"])
        #expect(names(try middle.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Cake'")))) == ["Cake"])
        try middle.save()
        try root.save()
        #expect(try storedNames() == ["Cake", "Soup", "Stew", "Tart"])

        // The leaf still names the cake by its temporary ID; an edit of it still lands.
        cake["rating"] = 5.0
        try leaf.save()
        try middle.save()
        try root.save()
        let reader = MainContext(coordinator: coordinator)
        let stored = try reader.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Cake'")))
        #expect(stored.first?["rating"] as? Double == 5.0)
    }

    @Test("The three-context stack: private persist context, main child, private update child")
    func threeContextStack() async throws {
        let persist = PrivateContext(coordinator: coordinator)
        let main = MainContext(parent: persist)
        let update = PrivateContext(parent: main)
        let chefID = ids["Ana"]!
        try await update.perform { context in
            for index in 0..<10 {
                let recipe = try context.insert("Recipe")
                recipe["name"] = "Batch \(index)"
                recipe["chef"] = context.object(with: chefID)
            }
            try context.save()
        }
        #expect(try main.count(for: FetchRequest(entityName: "Recipe")) == 13)
        #expect(try storedNames().count == 3)
        try main.save()
        #expect(try storedNames().count == 3)
        try await persist.perform { context in _ = try context.save() }
        #expect(try storedNames().count == 13)
    }
}

/// The ready-made stacks end where they should.
@MainActor
struct ContextStackTests {
    @Test("The nested stack's update context reaches the main context on save, and the store on the stack's save")
    func nestedStack() async throws {
        let coordinator = try TestModel.coordinator()
        let stack = NestedContextStack(coordinator: coordinator)
        let update = stack.newUpdateContext()
        try await update.perform { context in
            try context.insert("Chef")["name"] = "Ana"
            try context.save()
        }
        #expect(try stack.main.count(for: FetchRequest(entityName: "Chef")) == 1)
        #expect(try MainContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Chef")) == 0)
        try await stack.save()
        #expect(try MainContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Chef")) == 1)
    }

    @Test("The sibling stack's main context merges a background save of an object it holds")
    func siblingStack() async throws {
        let coordinator = try TestModel.coordinator()
        let stack = SiblingContextStack(coordinator: coordinator)
        let chef = try stack.main.insert("Chef")
        chef["name"] = "Ana"
        try stack.main.save()
        let id = chef.objectID
        try await stack.newBackgroundContext().perform { context in
            context.object(with: id)["name"] = "Ana María"
            try context.save()
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while chef["name"] as? String != "Ana María" && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(chef["name"] as? String == "Ana María")
    }

    @Test("A nested context's save is announced as not reaching the store; the root's is")
    func childSavesAreAnnounced() async throws {
        let coordinator = try TestModel.coordinator()
        let root = MainContext(coordinator: coordinator)
        let child = MainContext(parent: root)
        let stream = coordinator.didSaveNotifications
        try child.insert("Chef")["name"] = "Ana"
        try child.save()
        try root.save()
        var iterator = stream.makeAsyncIterator()
        let first = try #require(await iterator.next())
        let second = try #require(await iterator.next())
        #expect(!first.reachedStore && first.origin == child.identifier && first.insertedIDs.count == 1)
        #expect(second.reachedStore && second.origin == root.identifier && second.insertedIDs.count == 1)
    }
}
