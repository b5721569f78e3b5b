import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// The context's undo history: groups by event or explicit, undo and redo of values,
/// relationships, insertions and deletions, and the operations that clear it.
@MainActor
@Suite("Undo and redo")
struct UndoTests {
    let coordinator: PersistentStoreCoordinator
    let context: MainContext

    init() throws {
        coordinator = try TestModel.coordinator()
        context = MainContext(coordinator: coordinator)
        context.isUndoEnabled = true
    }

    @discardableResult
    func insertRecipe(_ name: String, chef: ManagedObject? = nil, lines: [String] = []) throws -> ManagedObject {
        let recipe = try context.insert("Recipe")
        recipe["name"] = name
        recipe["chef"] = chef
        for (index, text) in lines.enumerated() {
            let line = try context.insert("Line")
            line["text"] = text
            line["position"] = Int32(index)
            line["recipe"] = recipe
        }
        return recipe
    }

    func recipes() throws -> [ManagedObject] {
        try context.fetch(FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")]))
    }

    @Test func undoAndRedoAnAttributeChange() throws {
        let recipe = try insertRecipe("Tarte")
        try context.save()
        #expect(!context.canUndo, "a save clears the history")

        context.beginUndoGroup(named: "rename")
        recipe["name"] = "Tarte Tatin"
        recipe["rating"] = 4.5
        context.endUndoGroup()
        #expect(context.canUndo && context.hasChanges)

        #expect(context.undo() == "rename")
        #expect(recipe["name"] as? String == "Tarte")
        #expect(recipe["rating"] == nil)
        #expect(!context.hasChanges, "undoing every change leaves nothing to save")
        #expect(context.canRedo)

        #expect(context.redo() == "rename")
        #expect(recipe["name"] as? String == "Tarte Tatin")
        #expect(context.hasChanges)
        try context.save()
        #expect(try context.count(for: FetchRequest(entityName: "Recipe", predicate: FetchPredicate("name == 'Tarte Tatin'"))) == 1)
    }

    @Test func undoAnInsertionAndRedoIt() throws {
        context.beginUndoGroup()
        let chef = try context.insert("Chef")
        chef["name"] = "Ana"
        try insertRecipe("Soup", chef: chef, lines: ["leek", "stock"])
        context.endUndoGroup()
        #expect(try recipes().count == 1)

        #expect(context.undo() != nil)
        #expect(try recipes().isEmpty)
        #expect(try context.count(for: FetchRequest(entityName: "Line")) == 0)
        #expect(!context.hasChanges)
        try context.save()
        #expect(try TestModel.rowCount("Recipe", in: coordinator) == 0, "an undone insertion never reaches the store")

        #expect(!context.canRedo, "the save cleared the redo history")
    }

    @Test func redoAnInsertionThenSaveIt() throws {
        context.beginUndoGroup()
        let chef = try context.insert("Chef")
        chef["name"] = "Ana"
        try insertRecipe("Soup", chef: chef, lines: ["leek", "stock"])
        context.endUndoGroup()
        context.undo()
        context.redo()
        try context.save()
        let soup = try #require(try recipes().first)
        #expect((soup["chef"] as? ManagedObject)?["name"] as? String == "Ana")
        #expect(try soup.objects(forKey: "lines").compactMap { $0["text"] as? String } == ["leek", "stock"])
        #expect(try TestModel.rowCount("Line", in: coordinator) == 2)
    }

    @Test func undoADeletionWithItsCascadeAndInverses() throws {
        let chef = try context.insert("Chef")
        chef["name"] = "Ana"
        let soup = try insertRecipe("Soup", chef: chef, lines: ["leek", "stock"])
        try context.save()

        context.beginUndoGroup(named: "delete soup")
        context.delete(soup)
        context.endUndoGroup()
        #expect(soup.isDeleted)
        #expect(try chef.objects(forKey: "recipes").isEmpty, "the inverse lost the deleted recipe")

        #expect(context.undo() == "delete soup")
        #expect(!soup.isDeleted)
        #expect(try chef.objects(forKey: "recipes").map(\.objectID) == [soup.objectID])
        #expect(try soup.objects(forKey: "lines").count == 2)
        #expect(!context.hasChanges)
        try context.save()
        #expect(try TestModel.rowCount("Line", in: coordinator) == 2)
    }

    @Test("Undoing one delete call of several faults brings back each object, its cascade and its inverses")
    func undoADeletionOfManyInOneCall() throws {
        let chef = try context.insert("Chef")
        chef["name"] = "Ana"
        try insertRecipe("Soup", chef: chef, lines: ["leek", "stock"])
        try insertRecipe("Tart", chef: chef, lines: ["flour"])
        try insertRecipe("Stew")
        try context.save()
        let reader = MainContext(coordinator: coordinator)
        reader.isUndoEnabled = true
        var request = FetchRequest(entityName: "Recipe")
        request.includesPropertyValues = false
        let all = try reader.fetch(request)
        reader.beginUndoGroup(named: "delete all")
        reader.delete(all)
        reader.endUndoGroup()
        #expect(reader.deletedObjects.count == 6, "three recipes and their three lines")
        let readerChef = try #require(try reader.fetch(FetchRequest(entityName: "Chef")).first)
        #expect(try readerChef.objects(forKey: "recipes").isEmpty)

        #expect(reader.undo() == "delete all")
        #expect(!reader.hasChanges && all.allSatisfy { !$0.isDeleted })
        #expect(try readerChef.objects(forKey: "recipes").count == 2)
        let lines = try all.flatMap { try $0.objects(forKey: "lines") }.compactMap { $0["text"] as? String }
        #expect(Set(lines) == ["leek", "stock", "flour"])
        reader.redo()
        try reader.save()
        #expect(try TestModel.rowCount("Recipe", in: coordinator) == 0)
        #expect(try TestModel.rowCount("Line", in: coordinator) == 0)
    }

    @Test func undoARelationshipChangeRestoresBothSides() throws {
        let ana = try context.insert("Chef")
        ana["name"] = "Ana"
        let ben = try context.insert("Chef")
        ben["name"] = "Ben"
        let soup = try insertRecipe("Soup", chef: ana)
        try context.save()

        context.beginUndoGroup()
        soup["chef"] = ben
        context.endUndoGroup()
        #expect(try ana.objects(forKey: "recipes").isEmpty)
        context.undo()
        #expect((soup["chef"] as? ManagedObject) === ana)
        #expect(try ana.objects(forKey: "recipes").count == 1)
        #expect(try ben.objects(forKey: "recipes").isEmpty)
        #expect(!context.hasChanges)
    }

    @Test("Discarding a group puts back its values, insertions and relationships, and leaves no undo step")
    func discardAGroupThatFailedHalfway() throws {
        let ana = try context.insert("Chef")
        ana["name"] = "Ana"
        let soup = try insertRecipe("Soup", chef: ana, lines: ["leek"])
        try context.save()
        context.beginUndoGroup(named: "rate")
        soup["rating"] = 4.0
        context.endUndoGroup()

        context.beginUndoGroup(named: "failed edit")
        soup["name"] = "Stew"
        soup["rating"] = 1.0
        let ben = try context.insert("Chef")
        ben["name"] = "Ben"
        soup["chef"] = ben
        context.discardUndoGroup()

        #expect(soup["name"] as? String == "Soup")
        #expect(soup["rating"] as? Double == 4.0, "the earlier group's change stays")
        #expect((soup["chef"] as? ManagedObject) === ana)
        #expect(try ana.objects(forKey: "recipes").count == 1)
        #expect(context.insertedObjects.isEmpty && context.updatedObjects.count == 1)
        #expect(context.undo() == "rate", "the discarded group is no step; the one before it is the latest")
        #expect(!context.hasChanges)
        try context.save()
        #expect(try TestModel.rowCount("Chef", in: coordinator) == 1, "the discarded insertion never reaches the store")
    }

    @Test("Undoing the insertion of an object that a saved one was linked to leaves nothing for the save to refuse")
    func undoAnInsertionLinkedToASavedObject() throws {
        let ana = try context.insert("Chef")
        ana["name"] = "Ana"
        let soup = try insertRecipe("Soup", chef: ana)
        try context.save()
        context.beginUndoGroup(named: "new chef")
        let ben = try context.insert("Chef")
        ben["name"] = "Ben"
        soup["chef"] = ben
        context.endUndoGroup()
        #expect(context.undo() == "new chef")
        #expect((soup["chef"] as? ManagedObject) === ana)
        try context.save()  // Chef.recipes denies deletion: the discarded Ben must not still hold Soup
        #expect(try TestModel.rowCount("Chef", in: coordinator) == 1)
        #expect(context.redo() == nil)
    }

    @Test("Discarding a group keeps the redo history its first change ended, and an empty group changes nothing")
    func discardKeepsTheRedoHistory() throws {
        let soup = try insertRecipe("Soup")
        try context.save()
        context.beginUndoGroup(named: "rename")
        soup["name"] = "Stew"
        context.endUndoGroup()
        #expect(context.undo() == "rename")

        context.beginUndoGroup(named: "failed edit")
        soup["rating"] = 2.0
        context.discardUndoGroup()
        #expect(soup["rating"] == nil && !context.hasChanges)
        #expect(context.canRedo && !context.canUndo)

        context.beginUndoGroup(named: "nothing")
        context.discardUndoGroup()
        #expect(context.redo() == "rename")
        #expect(soup["name"] as? String == "Stew")
        #expect(context.undo() == "rename", "the redone group is the latest step")
    }

    @Test("Text is checked against an entity without an object, with the errors that setting it would give")
    func valueParsingChecksWithoutAnObject() throws {
        let recipe = try #require(context.model.entity(named: "Recipe"))
        #expect(try recipe.value(parsing: "4.5", forKey: "rating") == .real(4.5))
        #expect(try recipe.value(parsing: "nil", forKey: "rating") == .null)
        #expect(throws: ObjectGraphError.self) { try recipe.value(parsing: "many", forKey: "rating") }
        let unknown = #expect(throws: ObjectGraphError.self) { try recipe.value(parsing: "1", forKey: "ratng") }
        #expect(unknown?.message == "unknown key 'ratng' on entity 'Recipe'; did you mean 'rating'?")
        let relationship = #expect(throws: ObjectGraphError.self) { try recipe.value(parsing: "Ana", forKey: "chef") }
        #expect(relationship?.message == "'chef' is a relationship; set it to an object, not text")
        #expect(!context.hasChanges)
    }

    @Test func changesOfOneMainActorTurnFormOneGroup() async throws {
        let soup = try insertRecipe("Soup")
        try context.save()
        soup["name"] = "Leek Soup"
        soup["rating"] = 4.0
        await Task.yield()  // the turn ends: its group closes
        soup["name"] = "Leek and Potato Soup"
        await Task.yield()

        context.undo()
        #expect(soup["name"] as? String == "Leek Soup", "the second turn was a group of its own")
        #expect(soup["rating"] as? Double == 4.0)
        context.undo()
        #expect(soup["name"] as? String == "Soup")
        #expect(soup["rating"] == nil)
        #expect(context.undo() == nil)
    }

    @Test("Undo starts off in every context, as in Core Data and SwiftData: nothing is recorded until it is turned on, and a turn's changes then form a group")
    func offByDefault() async throws {
        let fresh = MainContext(coordinator: coordinator)
        #expect(!fresh.isUndoEnabled)
        let chef = try fresh.insert("Chef")
        chef["name"] = "Ana"
        await Task.yield()
        #expect(!fresh.canUndo && fresh.undo() == nil)
        #expect(chef["name"] as? String == "Ana" && fresh.hasChanges)

        fresh.isUndoEnabled = true
        chef["name"] = "Ben"
        await Task.yield()  // the turn ends: its group closes
        #expect(fresh.canUndo)
        #expect(fresh.undo() == "")
        #expect(chef["name"] as? String == "Ana", "the change made before undo was on is kept")
        #expect(!fresh.canUndo)
    }

    @Test func offByDefaultInPrivateContextsAndClearedByRollback() async throws {
        let background = PrivateContext(coordinator: coordinator)
        let recorded = try await background.perform { context in
            let chef = try context.insert("Chef")
            chef["name"] = "Ana"
            return context.canUndo
        }
        #expect(!recorded)
        #expect(await !background.isUndoEnabled)
        await background.setUndoEnabled(true)
        let undone = try await background.perform { context in
            context.beginUndoGroup()
            let chef = try context.insert("Chef")
            chef["name"] = "Ben"
            context.endUndoGroup()
            context.undo()
            return try context.count(for: FetchRequest(entityName: "Chef"))
        }
        #expect(undone == 1, "Ana stays; Ben is undone")

        let soup = try insertRecipe("Soup")
        try context.save()
        soup["name"] = "Stew"
        context.rollback()
        #expect(!context.canUndo && !context.canRedo)

        context.isUndoEnabled = false
        soup["name"] = "Stew"
        #expect(!context.canUndo)
    }

    /// Random groups of edits, undos, redos and saves, checked against the states the
    /// context went through: undo must give back the state before the group, redo the one
    /// after it.
    @Test("Undo after a merge of the store's new values never brings back the old ones as if they were saved")
    func undoAfterAMergedChangeKeepsTheStoresValues() throws {
        let soup = try insertRecipe("Soup")
        soup["rating"] = 3.0
        try context.save()

        context.beginUndoGroup(named: "rename")
        soup["name"] = "Hot soup"
        context.endUndoGroup()
        // Another context saves a new rating; this context merges it (a batch update merges the same way).
        let other = MainContext(coordinator: coordinator)
        let theirs = try other.existingObject(with: soup.objectID)
        theirs["rating"] = 1.0
        let saved = try other.save()
        var note = DidSave()
        note.updatedIDs = saved.updatedIDs
        note.reachedStore = true
        context.mergeChanges(fromContextDidSave: note)
        #expect(soup["rating"] as? Double == 1.0)

        context.undo()
        #expect(soup["rating"] as? Double == 1.0, "the store holds 1.0: undoing the rename must not bring back 3.0")
        #expect(soup["name"] as? String == "Soup" || context.hasChanges,
                "either the rename is undone, or it is still there to save")
        try context.save()
        let stored = try MainContext(coordinator: coordinator).existingObject(with: soup.objectID)
        #expect(stored["rating"] as? Double == 1.0)
        #expect(stored["name"] as? String == soup["name"] as? String, "the context shows what the store holds")
    }

    @Test("Undo puts back exactly which properties changed, in an entity of more than 64 properties")
    func undoKeepsTheChangedPropertiesOfAWideEntity() throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Wide", attributes: (0..<70).map { AttributeDescription("a\($0)", .string, isOptional: true) }),
        ])
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(at: ":memory:")
        let context = MainContext(coordinator: coordinator)
        let wide = try context.insert("Wide")
        try context.save()
        context.isUndoEnabled = true

        context.beginUndoGroup()
        wide["a65"] = "one"
        context.endUndoGroup()
        context.beginUndoGroup()
        wide["a66"] = "two"
        context.endUndoGroup()
        context.undo()
        #expect(Set(wide.changedValues().keys) == ["a65"], "only a65 differs from the store")

        // Another context changes a property this one never changed: no conflict, and its value stays.
        let other = MainContext(coordinator: coordinator)
        let theirs = try other.existingObject(with: wide.objectID)
        theirs["a67"] = "three"
        try other.save()
        try context.save()
        let stored = try MainContext(coordinator: coordinator).existingObject(with: wide.objectID)
        #expect(stored["a65"] as? String == "one")
        #expect(stored["a67"] as? String == "three", "the save wrote only what this context changed")
    }

    /// Saves a new rating for `object` from another context, which this one does not merge.
    func saveRatingElsewhere(_ rating: Double, of object: ManagedObject) throws -> SaveResult {
        let other = MainContext(coordinator: coordinator)
        try other.existingObject(with: object.objectID)["rating"] = rating
        return try other.save()
    }

    @Test("A refresh that discards an object's changes clears the history: no undo or redo brings them back")
    func refreshThatDiscardsChangesClearsTheHistory() throws {
        let soup = try insertRecipe("Soup")
        let stew = try insertRecipe("Stew")
        try context.save()
        context.beginUndoGroup(named: "rename")
        soup["name"] = "Hot soup"
        context.endUndoGroup()
        context.beginUndoGroup(named: "rate")
        soup["rating"] = 2.0
        context.endUndoGroup()
        context.refresh(stew, mergeChanges: false)
        #expect(context.canUndo, "no group recorded the stew: the history stays")

        context.refresh(soup, mergeChanges: false)
        #expect(!context.canUndo && !context.canRedo)
        #expect(context.undo() == nil)
        #expect(soup["name"] as? String == "Soup", "undoing 'rate' would have put back the discarded rename")
        #expect(soup["rating"] == nil && !context.hasChanges)
    }

    @Test("A refresh that reads new saved values clears the history: undo never puts back the old ones as saved",
          arguments: [false, true])
    func refreshAfterASaveElsewhereClearsTheHistory(all: Bool) throws {
        let soup = try insertRecipe("Soup")
        soup["rating"] = 3.0
        try context.save()
        context.beginUndoGroup(named: "rename")
        soup["name"] = "Hot soup"
        context.endUndoGroup()
        _ = try saveRatingElsewhere(1.0, of: soup)

        if all { context.refreshAllObjects() } else { context.refresh(soup, mergeChanges: true) }
        #expect(soup["rating"] as? Double == 1.0 && soup["name"] as? String == "Hot soup")
        #expect(!context.canUndo && context.undo() == nil)
        #expect(soup["rating"] as? Double == 1.0, "the store holds 1.0, not the 3.0 the group recorded")
        try context.save()
        let stored = try MainContext(coordinator: coordinator).existingObject(with: soup.objectID)
        #expect(stored["rating"] as? Double == 1.0 && stored["name"] as? String == "Hot soup")
    }

    @Test("Merging a change made elsewhere to an object deleted here clears the history: undoing the delete would bring back old values as saved")
    func mergedChangeOfAnObjectDeletedHereClearsTheHistory() throws {
        let soup = try insertRecipe("Soup")
        soup["rating"] = 3.0
        try context.save()
        context.beginUndoGroup(named: "delete soup")
        context.delete(soup)
        context.endUndoGroup()
        var note = DidSave()
        note.updatedIDs = try saveRatingElsewhere(1.0, of: soup).updatedIDs
        note.reachedStore = true
        context.mergeChanges(fromContextDidSave: note)

        #expect(!context.canUndo && context.undo() == nil)
        #expect(soup.isDeleted, "the delete is still there to save")
    }

    @Test("A child's save into a parent whose history recorded the object clears the parent's history: undo never drops what the child saved")
    func childSaveIntoAParentWithHistory() throws {
        let soup = try insertRecipe("Soup")
        let stew = try insertRecipe("Stew")
        try context.save()
        context.beginUndoGroup(named: "rename")
        soup["name"] = "Hot soup"
        context.endUndoGroup()
        let child = MainContext(parent: context)
        try child.existingObject(with: stew.objectID)["rating"] = 5.0
        try child.save()
        #expect(context.canUndo, "the child changed no object the history holds")

        try child.existingObject(with: soup.objectID)["rating"] = 1.0
        try child.save()
        #expect(!context.canUndo && context.undo() == nil)
        #expect(soup["rating"] as? Double == 1.0 && soup["name"] as? String == "Hot soup")
        try context.save()
        let stored = try MainContext(coordinator: coordinator).existingObject(with: soup.objectID)
        #expect(stored["rating"] as? Double == 1.0 && stored["name"] as? String == "Hot soup")
    }

    @Test("Undo inside an open group takes back the group's changes so far, as UndoManager closes it first; the group goes on as a new step")
    func undoInsideAnOpenGroup() throws {
        let soup = try insertRecipe("Soup")
        try context.save()
        context.beginUndoGroup(named: "first")
        soup["name"] = "B"
        context.endUndoGroup()
        context.beginUndoGroup(named: "second")
        soup["name"] = "C"
        #expect(context.undo() == "second")
        #expect(soup["name"] as? String == "B")
        soup["rating"] = 1.0
        context.endUndoGroup()

        #expect(context.undo() == "second")
        #expect(soup["name"] as? String == "B" && soup["rating"] == nil)
        #expect(context.undo() == "first")
        #expect(soup["name"] as? String == "Soup" && !context.hasChanges, "the first group's change stays undone")
        #expect(context.undo() == nil)
    }

    @Test("An explicit group opened after the turn changed something joins the turn's group, as UndoManager nests it in the event's: one undo takes back all three edits")
    func explicitGroupInsideTheTurnsGroup() async throws {
        let soup = try insertRecipe("Soup")
        try context.save()
        await Task.yield()  // a new turn
        soup["rating"] = 1.0
        context.beginUndoGroup(named: "rename")
        soup["name"] = "Stew"
        context.endUndoGroup()
        soup["rating"] = 2.0
        await Task.yield()  // the turn ends: its group closes

        #expect(context.undo() == "rename", "the turn's unnamed group takes the explicit group's name")
        #expect(soup["name"] as? String == "Soup" && soup["rating"] == nil && !context.hasChanges)
        #expect(context.undo() == nil, "one step")
        #expect(context.redo() == "rename")
        #expect(soup["name"] as? String == "Stew" && soup["rating"] as? Double == 2.0)
    }

    @Test("Discarding an explicit group that joined the turn's group puts back its own changes only; the turn's earlier ones stay one step")
    func discardAGroupInsideTheTurnsGroup() async throws {
        let soup = try insertRecipe("Soup")
        try context.save()
        await Task.yield()
        soup["rating"] = 1.0
        context.beginUndoGroup(named: "failed edit")
        soup["rating"] = 5.0
        soup["name"] = "Stew"
        context.discardUndoGroup()
        #expect(soup["rating"] as? Double == 1.0 && soup["name"] as? String == "Soup")
        soup["name"] = "Broth"
        await Task.yield()

        #expect(context.undo() == "", "the discarded group named nothing")
        #expect(soup["rating"] == nil && soup["name"] as? String == "Soup" && !context.hasChanges)
        #expect(context.undo() == nil)
    }

    @Test("Discarding a group after an undo and a redo inside it puts back everything since it opened, and the history as it was")
    func discardAfterUndoAndRedoInsideTheGroup() throws {
        let soup = try insertRecipe("Soup")
        try context.save()
        context.beginUndoGroup(named: "rename")
        soup["name"] = "Stew"
        context.endUndoGroup()

        context.beginUndoGroup(named: "failed edit")
        soup["rating"] = 2.0
        #expect(context.undo() == "failed edit")
        #expect(context.redo() == "failed edit")
        soup["name"] = "Broth"
        context.discardUndoGroup()

        #expect(soup["name"] as? String == "Stew" && soup["rating"] == nil, "the redone rating goes too")
        #expect(!context.canRedo, "nothing of the discarded group is left to redo")
        #expect(context.undo() == "rename")
        #expect(soup["name"] as? String == "Soup" && !context.hasChanges)
        #expect(context.undo() == nil)
        #expect(context.redo() == "rename" && soup["name"] as? String == "Stew")
    }

    @Test("Discarding a group after an undo inside it that reached an earlier step brings that step back, undoable again")
    func discardAfterAnUndoOfAnEarlierStep() throws {
        let soup = try insertRecipe("Soup")
        try context.save()
        context.beginUndoGroup(named: "rename")
        soup["name"] = "Stew"
        context.endUndoGroup()

        context.beginUndoGroup(named: "failed edit")
        #expect(context.undo() == "rename", "nothing changed in the group yet: the undo reaches the step before")
        soup["rating"] = 3.0
        context.discardUndoGroup()

        #expect(soup["name"] as? String == "Stew" && soup["rating"] == nil)
        #expect(!context.canRedo)
        #expect(context.undo() == "rename" && soup["name"] as? String == "Soup")
    }

    @Test("reset() clears the history, as rollback() does, after an undo and a redo of a deletion with its cascade")
    func resetClearsTheHistory() throws {
        let chef = try context.insert("Chef")
        chef["name"] = "Ana"
        let soup = try insertRecipe("Soup", chef: chef, lines: ["leek"])
        try context.save()
        context.beginUndoGroup(named: "delete")
        context.delete(soup)
        context.endUndoGroup()
        context.undo()
        #expect(try chef.objects(forKey: "recipes").count == 1)
        context.redo()
        #expect(try chef.objects(forKey: "recipes").isEmpty)
        context.reset()
        #expect(!context.canUndo && !context.canRedo && context.undo() == nil)
        #expect(try TestModel.rowCount("Line", in: coordinator) == 1, "reset saved nothing")
    }

    @Test("Turning undo off inside a group leaves the group open for its endUndoGroup()")
    func turningUndoOffInsideAGroup() async {
        await #expect(processExitsWith: .success) {
            await MainActor.run {
                let context = MainContext(coordinator: try! TestModel.coordinator())
                context.isUndoEnabled = true
                context.beginUndoGroup(named: "edit")
                context.isUndoEnabled = false
                context.endUndoGroup()
            }
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func randomSequencesMatchTheModel(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var counter = 0
        func name(_ prefix: String) -> String { counter += 1; return "\(prefix)\(counter)" }
        var chefs: [ManagedObject] = []
        var tags: [ManagedObject] = []
        for _ in 0..<3 {
            let chef = try context.insert("Chef")
            chef["name"] = name("chef")
            chefs.append(chef)
            let tag = try context.insert("Tag")
            tag["label"] = name("tag")
            tags.append(tag)
        }
        for _ in 0..<4 { try insertRecipe(name("recipe"), chef: chefs.randomElement(using: &random), lines: [name("line")]) }
        try context.save()

        var saved = try state()
        var states = [saved]
        var position = 0
        for step in 0..<150 {
            let roll = random.next() % 10
            if roll < 6 {
                // Every setter call is recorded, even one that sets the value already there.
                var mutated = false
                context.beginUndoGroup(named: "step \(step)")
                for _ in 0...(random.next() % 3) {
                    let live = try recipes()
                    switch random.next() % 6 {
                    case 0:
                        try insertRecipe(name("recipe"), chef: chefs.randomElement(using: &random), lines: [name("line")])
                        mutated = true
                    case 1:
                        guard let recipe = live.randomElement(using: &random) else { break }
                        recipe["rating"] = Double(random.next() % 5)
                        mutated = true
                    case 2:
                        guard let recipe = live.randomElement(using: &random) else { break }
                        let chef = random.next() % 4 == 0 ? nil : chefs.randomElement(using: &random)
                        mutated = mutated || (recipe["chef"] as? ManagedObject) !== chef
                        recipe["chef"] = chef
                    case 3:
                        guard let recipe = live.randomElement(using: &random), let tag = tags.randomElement(using: &random) else { break }
                        if try recipe.objects(forKey: "tags").contains(where: { $0 === tag }) {
                            try recipe.remove(tag, fromKey: "tags")
                        } else {
                            try recipe.add(tag, toKey: "tags")
                        }
                        mutated = true
                    case 4:
                        guard let recipe = live.randomElement(using: &random) else { break }
                        let line = try context.insert("Line")
                        line["text"] = name("line")
                        line["position"] = Int32(counter)
                        line["recipe"] = recipe
                        mutated = true
                    default:
                        guard let recipe = live.randomElement(using: &random) else { break }
                        context.delete(recipe)
                        mutated = true
                    }
                }
                context.endUndoGroup()
                if mutated {
                    states = Array(states[...position]) + [try state()]
                    position += 1
                }
            } else if roll < 8 {
                let undone = context.undo()
                if position == 0 {
                    #expect(undone == nil, "seed \(seed), step \(step): nothing was left to undo")
                } else {
                    position -= 1
                    let now = try state()
                    #expect(now == states[position], "seed \(seed), step \(step): undo: \(now.difference(from: states[position]).map { "\($0)" })")
                }
            } else if roll < 9 {
                let redone = context.redo()
                if position == states.count - 1 {
                    #expect(redone == nil, "seed \(seed), step \(step): nothing was left to redo")
                } else {
                    position += 1
                    #expect(try state() == states[position], "seed \(seed), step \(step): redo")
                }
            } else if random.next() % 2 == 0 {
                try context.save()
                saved = try state()
                states = [saved]
                position = 0
            } else {
                context.rollback()
                #expect(try state() == saved, "seed \(seed), step \(step): rollback after undos and redos")
                states = [saved]
                position = 0
            }
        }
        try context.save()
        let fresh = MainContext(coordinator: coordinator)
        #expect(try state(of: fresh) == Array(state().dropFirst()), "seed \(seed): what was saved is what the context showed")
    }

    /// Every live object's values and relationships, by name, plus whether anything is unsaved.
    func state(of other: MainContext? = nil) throws -> [String] {
        let context = other ?? self.context
        func names(_ objects: [ManagedObject], _ key: String) -> String {
            objects.compactMap { $0[key] as? String }.sorted().joined(separator: ",")
        }
        var lines: [String] = other == nil ? ["changes: \(context.hasChanges)"] : []
        for recipe in try context.fetch(FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")])) {
            let chef = (recipe["chef"] as? ManagedObject)?["name"] as? String ?? "-"
            lines.append("\(recipe["name"] as? String ?? "?") rating=\(recipe["rating"] as? Double ?? -1) chef=\(chef) "
                         + "tags=\(names(try recipe.objects(forKey: "tags"), "label")) lines=\(names(try recipe.objects(forKey: "lines"), "text"))")
        }
        for chef in try context.fetch(FetchRequest(entityName: "Chef", sortKeys: [SortKey("name")])) {
            lines.append("\(chef["name"] as? String ?? "?") recipes=\(names(try chef.objects(forKey: "recipes"), "name"))")
        }
        for tag in try context.fetch(FetchRequest(entityName: "Tag", sortKeys: [SortKey("label")])) {
            lines.append("\(tag["label"] as? String ?? "?") recipes=\(names(try tag.objects(forKey: "recipes"), "name"))")
        }
        lines.append("lines: \(try context.count(for: FetchRequest(entityName: "Line")))")
        return lines
    }
}

extension TestModel {
    /// The rows of `entity` in the store, counted by a fresh context (so no unsaved change counts).
    @MainActor static func rowCount(_ entity: String, in coordinator: PersistentStoreCoordinator) throws -> Int {
        try MainContext(coordinator: coordinator).count(for: FetchRequest(entityName: entity))
    }
}
