import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// A nested context keeps the temporary IDs it issued after saving them into its parent:
/// the objects, which it then holds weakly, load again through the parents, and through
/// the store once the root has saved.
@MainActor
struct NestedTemporaryIDTests {
    let coordinator: PersistentStoreCoordinator
    let root: MainContext
    let child: MainContext

    init() throws {
        coordinator = try TestModel.coordinator()
        root = MainContext(coordinator: coordinator)
        child = MainContext(parent: root)
    }

    /// Inserts two recipes in the child and saves them into the root; the objects are
    /// released on return (nothing relates them, so no cycle keeps them), and only their
    /// temporary IDs remain.
    func insertAndSaveInChild() throws -> (pie: ObjectID, tart: ObjectID) {
        let pie = try child.insert("Recipe")
        pie["name"] = "Pie"
        pie["rating"] = 4.5
        let tart = try child.insert("Recipe")
        tart["name"] = "Tart"
        try child.save()
        return (pie.objectID, tart.objectID)
    }

    func names(_ objects: [ManagedObject]) -> Set<String> { Set(objects.map { $0["name"] as? String ?? "?" }) }

    /// Reads the child's view of `id` through `object(with:)`, then lets the object go.
    func readInChild(_ id: ObjectID) -> (name: String?, rating: Double?) {
        let pie = child.object(with: id)
        #expect(pie.objectID == id, "the child keeps its temporary ID")
        return (pie["name"] as? String, pie["rating"] as? Double)
    }

    @Test("After its save, the child reaches its own released objects by their temporary IDs, before the root saves and after")
    func childReadsItsSavedObjectsByTemporaryID() throws {
        let ids = try insertAndSaveInChild()
        #expect(ids.pie.isTemporary && ids.pie.temporaryTag == child.core.serial)
        #expect(child.core.registeredObject(for: ids.pie) == nil, "a saved, unreferenced object is released")

        let before = readInChild(ids.pie)
        #expect(before.name == "Pie" && before.rating == 4.5)

        try root.save()
        #expect(child.core.registeredObject(for: ids.pie) == nil)
        let after = readInChild(ids.pie)
        #expect(after.name == "Pie" && after.rating == 4.5)
        #expect(root.object(with: ids.pie)["name"] as? String == "Pie")
    }

    @Test("A child's fetch after its save finds its released objects, which its parent holds unsaved")
    func childFetchesItsSavedObjects() throws {
        let ids = try insertAndSaveInChild()
        let recipes = try child.fetch(FetchRequest(entityName: "Recipe"))
        #expect(names(recipes) == ["Pie", "Tart"])
        #expect(recipes.contains { $0.objectID == ids.pie })
        #expect(try child.count(for: FetchRequest(entityName: "Recipe")) == 2)
    }

    @Test("existingObject(with:) in the child loads its own saved object by its temporary ID, before the root saves and after")
    func childExistingObjectByTemporaryID() throws {
        let ids = try insertAndSaveInChild()
        #expect(try child.existingObject(with: ids.pie)["name"] as? String == "Pie")
        try root.save()
        // A fresh child of the same lineage, which has never registered the object.
        let later = MainContext(parent: root)
        #expect(try child.existingObject(with: ids.pie)["rating"] as? Double == 4.5)
        #expect(try later.existingObject(with: ids.pie)["name"] as? String == "Pie")
    }

    @Test("The child changes its released object by its temporary ID after the root saved, and the root's next save writes it")
    func childUpdatesAfterRootSave() throws {
        let ids = try insertAndSaveInChild()
        try root.save()
        child.object(with: ids.pie)["rating"] = 2.0
        try child.save()
        try root.save()
        let reader = MainContext(coordinator: coordinator)
        let stored = try reader.fetch(FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")]))
        #expect(stored.map { $0["rating"] as? Double } == [2.0, nil])  // Pie, Tart
    }

    @Test("After the root saved, the child's fault for its temporary ID sees the root's unsaved change to the object")
    func childSeesRootsChangeAfterRootSave() throws {
        let ids = try insertAndSaveInChild()
        try root.save()
        root.object(with: ids.pie)["rating"] = 1.0
        #expect(child.core.registeredObject(for: ids.pie) == nil)
        #expect(child.object(with: ids.pie)["rating"] as? Double == 1.0)
    }

    @Test("A private child of a main context reads its own saved object by its temporary ID, before the root saves and after")
    func privateChildOfMainContext() async throws {
        let update = PrivateContext(parent: root)
        let id = try await update.perform { context in
            let recipe = try context.insert("Recipe")
            recipe["name"] = "Soup"
            try context.save()
            return recipe.objectID
        }
        #expect(await update.perform { $0.object(with: id)["name"] as? String } == "Soup")
        try root.save()
        #expect(await update.perform { $0.object(with: id)["name"] as? String } == "Soup")
        #expect(try await update.perform { try $0.existingObject(with: id)["name"] as? String } == "Soup")
    }

    @Test("The nested stack's update context reads its saved object by its temporary ID after the stack saved")
    func nestedStackUpdateContext() async throws {
        let stack = NestedContextStack(coordinator: coordinator)
        let update = stack.newUpdateContext()
        let id = try await update.perform { context in
            let recipe = try context.insert("Recipe")
            recipe["name"] = "Stew"
            try context.save()
            return recipe.objectID
        }
        #expect(await update.perform { $0.object(with: id)["name"] as? String } == "Stew")
        try await stack.save()
        #expect(await update.perform { $0.object(with: id)["name"] as? String } == "Stew")
        #expect(try await update.perform { try $0.existingObject(with: id)["name"] as? String } == "Stew")
    }

    @Test("In a child, a temporary ID no parent knows is no object: existingObject(with:) throws, object(with:) is inaccessible")
    func unknownTemporaryIDInChild() throws {
        let stored = try root.insert("Recipe")  // a row whose key the unknown ID shares
        stored["name"] = "Stored"
        try root.save()
        let id = try child.insert("Recipe").objectID
        child.rollback()
        #expect(id.key == stored.objectID.key)
        #expect {
            try child.existingObject(with: id)
        } throws: { error in
            (error as? ObjectGraphError)?.code == .objectNotFound
                && "\(error)".hasPrefix("no object \(coordinator.model.describe(id)) in this context or its parents")
        }
        let object = child.object(with: id)
        #expect(object["name"] == nil, "a fault for it must not load the stored row with the same key")
        #expect(object.isInaccessible)
    }

    @Test("In a root context, existingObject(with:) of an unknown temporary ID still throws, without loading a row")
    func unknownTemporaryIDInRoot() throws {
        let id = try root.insert("Recipe").objectID
        root.rollback()
        #expect {
            try root.existingObject(with: id)
        } throws: { error in
            (error as? ObjectGraphError)?.code == .objectNotFound
                && "\(error)" == "no object \(coordinator.model.describe(id)) in this context"
        }
    }

    @Test("After the root saved, a child's fetch, count, IDs and lazy fetch find the object it holds by its temporary ID once, not a second object")
    func childHoldingItsObjectAfterRootSave() throws {
        for name in ["A", "B", "C"] {
            let recipe = try root.insert("Recipe")
            recipe["name"] = name
            recipe["rating"] = 1.0
        }
        try root.save()
        let pie = try child.insert("Recipe")
        pie["name"] = "Pie"
        pie["rating"] = 5.0
        try child.save()
        let temporary = pie.objectID
        try root.save()
        let all = FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")])
        let fetched = try child.fetch(all)
        #expect(fetched.map { $0["name"] as? String } == ["A", "B", "C", "Pie"])
        #expect(fetched.last === pie, "the held object is the one fetched")
        #expect(!pie.objectID.isTemporary && child.object(with: temporary) === pie)
        // An unsaved change in the child: the saved row and the held object are one object.
        pie["rating"] = 0.5
        let rated = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("rating >= 1"), sortKeys: [SortKey("name")])
        #expect(try child.count(for: rated) == 3)
        #expect(try child.fetch(rated).count == 3)
        #expect(try child.fetchObjectIDs(rated).count == 3)
        #expect(try child.fetchLazily(rated).count == 3)
        #expect(try child.count(for: all) == 4)
        #expect(try child.fetchObjectIDs(all).count == 4)
        try child.save()
        try root.save()
        let reader = MainContext(coordinator: coordinator)
        #expect(try reader.fetch(rated).count == 3)
    }

    @Test("In the nested stack, the update context's edit of an object it holds after the stack saved reaches the store through the main context")
    func grandchildEditsItsHeldObjectAfterStackSave() async throws {
        let stack = NestedContextStack(coordinator: coordinator)
        let update = stack.newUpdateContext()
        let holder = Locked<[ManagedObject]>([])  // keeps the update context's object alive
        try await update.perform { context in
            let recipe = try context.insert("Recipe")
            recipe["name"] = "Stew"
            try context.save()
            holder.withLock { $0 = [recipe] }
        }
        let shown = try stack.main.fetch(FetchRequest(entityName: "Recipe"))
        try await stack.save()
        try await update.perform { context in
            let recipes = try context.fetch(FetchRequest(entityName: "Recipe"))
            #expect(recipes.count == 1 && recipes.first === holder.withLock { $0.first })
            recipes.first?["servings"] = 9
            try context.save()
        }
        let now = try stack.main.fetch(FetchRequest(entityName: "Recipe"))
        #expect(now.count == 1 && now.first === shown.first, "the main context holds one object for the row")
        #expect(now.first?["servings"] as? Int == 9)
        try await stack.save()
        let reader = MainContext(coordinator: coordinator)
        #expect(try reader.fetch(FetchRequest(entityName: "Recipe")).map { $0["servings"] as? Int } == [9])
    }

    @Test("After the root saved, a to-many relationship the child loads holds the object it holds by its temporary ID, not a second one")
    func childToManyAfterRootSave() throws {
        let chef = try root.insert("Chef")
        chef["name"] = "Ana"
        try root.save()
        let pie = try child.insert("Recipe")
        pie["name"] = "Pie"
        pie["chef"] = child.object(with: chef.objectID)
        try child.save()
        try root.save()
        let childChef = child.object(with: chef.objectID)
        child.refresh(childChef, mergeChanges: false)
        let recipes = try childChef.objects(forKey: "recipes")
        #expect(recipes.count == 1 && recipes.first === pie, "\(recipes.map(\.objectID)), \(pie.objectID)")
    }

    @Test("A child's object given a permanent ID before the child saves reaches the store with its values when the root saves")
    func permanentIDObtainedInChild() throws {
        let pie = try child.insert("Recipe")
        pie["name"] = "Pie"
        pie["servings"] = 4
        pie["vegetarian"] = true
        try child.obtainPermanentIDs(for: [pie])
        #expect(!pie.objectID.isTemporary)
        try child.save()
        try root.save()
        let other = MainContext(coordinator: coordinator)
        #expect(try other.existingObject(with: pie.objectID)["name"] as? String == "Pie")
        #expect(try child.fetch(FetchRequest(entityName: "Recipe")).map(ObjectIdentifier.init) == [ObjectIdentifier(pie)])
    }


    @Test("A child that read its parent's unsaved insert keeps reaching it after the parent saves: it loads again, and a fetch lists it once, as the same object")
    func childHoldingTheParentsInsertAfterItsSave() throws {
        let pie = try root.insert("Recipe")
        pie["name"] = "Pie"
        let request = FetchRequest(entityName: "Recipe")
        let seen = try #require(try child.fetch(request).first)
        #expect(seen["name"] as? String == "Pie" && seen.objectID.isTemporary)
        try root.save()
        child.refresh(seen, mergeChanges: false)
        #expect(seen["name"] as? String == "Pie", "the fault loads the saved row through the root")
        #expect(!seen.isInaccessible)
        #expect(try child.fetch(request).map(ObjectIdentifier.init) == [ObjectIdentifier(seen)])
        #expect(seen.objectID == pie.objectID)
        #expect(try child.count(for: request) == 1)
    }

    /// root ← main ← editor on a fresh store, after each level saved: the editor inserted the
    /// chef Bo, made him the chef of the stored Soup and of a new Pie, and still holds both by
    /// their temporary IDs, having looked at nothing since.
    struct ThreeLevels {
        let root: MainContext, main: MainContext, editor: MainContext
        let bo: ManagedObject, pie: ManagedObject
        let soup: ObjectID
        /// The IDs the store gave Bo and Pie, as another context reads them.
        let storedBo: ObjectID, storedPie: ObjectID
    }

    func threeLevelsAfterRootSave() throws -> ThreeLevels {
        let coordinator = try TestModel.coordinator()
        let root = MainContext(coordinator: coordinator)
        let soup = try root.insert("Recipe")
        soup["name"] = "Soup"
        try root.save()
        let main = MainContext(parent: root)
        let editor = MainContext(parent: main)
        let bo = try editor.insert("Chef")
        bo["name"] = "Bo"
        let pie = try editor.insert("Recipe")
        pie["name"] = "Pie"
        pie["chef"] = bo
        editor.object(with: soup.objectID)["chef"] = bo
        try editor.save()
        try main.save()
        try root.save()
        let reader = MainContext(coordinator: coordinator)
        func stored(_ entity: String, _ name: String) throws -> ObjectID {
            try #require(try reader.fetch(FetchRequest(entityName: entity, predicate: try FetchPredicate("name == '\(name)'"))).first).objectID
        }
        #expect(bo.objectID.isTemporary && pie.objectID.isTemporary)
        return ThreeLevels(root: root, main: main, editor: editor, bo: bo, pie: pie, soup: soup.objectID,
                           storedBo: try stored("Chef", "Bo"), storedPie: try stored("Recipe", "Pie"))
    }

    @Test("Three levels, after the root saved: object(with:) of the permanent ID is the object the child holds by its temporary ID, which now reports the permanent ID")
    func grandchildObjectWithPermanentID() throws {
        let stack = try threeLevelsAfterRootSave()
        let temporary = stack.bo.objectID
        #expect(stack.editor.object(with: stack.storedBo) === stack.bo)
        #expect(stack.bo.objectID == stack.storedBo)
        #expect(stack.editor.object(with: temporary) === stack.bo, "the temporary ID still names it")
        #expect(try stack.editor.existingObject(with: stack.storedPie) === stack.pie)
        #expect(try stack.editor.fetch(FetchRequest(entityName: "Chef")).map(ObjectIdentifier.init) == [ObjectIdentifier(stack.bo)])
    }

    @Test("Three levels, after the root saved: a to-one read from the store reaches the object the child holds by its temporary ID")
    func grandchildToOneAfterRootSave() throws {
        let stack = try threeLevelsAfterRootSave()
        let soup = stack.editor.object(with: stack.soup)
        stack.editor.refresh(soup, mergeChanges: false)  // the next read loads the saved row
        #expect(soup["chef"] as? ManagedObject === stack.bo)
        #expect(stack.bo.objectID == stack.storedBo)
        let chefs = try stack.editor.fetch(FetchRequest(entityName: "Chef"))
        #expect(chefs.count == 1 && chefs.first === stack.bo)
        #expect(try stack.editor.count(for: FetchRequest(entityName: "Chef")) == 1)
    }

    @Test("Three levels, after the root saved: a to-many read from the store holds the objects the child holds by their temporary IDs")
    func grandchildToManyAfterRootSave() throws {
        let stack = try threeLevelsAfterRootSave()
        stack.editor.refresh(stack.bo, mergeChanges: false)
        let recipes = try stack.bo.objects(forKey: "recipes")
        #expect(Set(recipes.map { $0["name"] as? String ?? "?" }) == ["Pie", "Soup"])
        #expect(recipes.contains { $0 === stack.pie })
        let fetched = try stack.editor.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Pie'")))
        #expect(fetched.count == 1 && fetched.first === stack.pie)
        // Edits through the held objects reach the store by the permanent IDs.
        stack.pie["servings"] = 2
        try stack.editor.save()
        try stack.main.save()
        try stack.root.save()
        let reader = MainContext(coordinator: stack.root.core.coordinator)
        #expect(try reader.existingObject(with: stack.storedPie)["servings"] as? Int == 2)
    }

    @Test("The nested stack's private update context, after the stack saved, finds the object it holds by its permanent ID, through the main actor and the persist context's queue")
    func nestedStackUpdateContextByPermanentID() async throws {
        let stack = NestedContextStack(coordinator: coordinator)
        let update = stack.newUpdateContext()
        let holder = Locked<[ManagedObject]>([])  // keeps the update context's object alive
        try await update.perform { context in
            let chef = try context.insert("Chef")
            chef["name"] = "Bo"
            try context.save()
            holder.withLock { $0 = [chef] }
        }
        try await stack.save()
        let reader = MainContext(coordinator: coordinator)
        let stored = try #require(try reader.fetch(FetchRequest(entityName: "Chef")).first).objectID
        let found = await update.perform { context in
            let chef = context.object(with: stored)
            return chef === holder.withLock { $0.first } && chef.objectID == stored
        }
        #expect(found)
    }

    @Test("A child that read its parent's insert keeps reaching it after the parent obtained a permanent ID for it")
    func childHoldingTheParentsInsertAfterObtainPermanentIDs() throws {
        let pie = try root.insert("Recipe")
        pie["name"] = "Pie"
        let seen = try #require(try child.fetch(FetchRequest(entityName: "Recipe")).first)
        try root.obtainPermanentIDs(for: [pie])
        child.refresh(seen, mergeChanges: false)
        #expect(seen["name"] as? String == "Pie" && !seen.isInaccessible)
        #expect(child.object(with: pie.objectID) === seen)
        #expect(try child.fetch(FetchRequest(entityName: "Recipe")).map(ObjectIdentifier.init) == [ObjectIdentifier(seen)])
    }
}
