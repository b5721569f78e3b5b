import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// A fault whose row is gone, or whose store fails, is reported, never turned silently into
/// a blank object.
@MainActor
struct FaultFulfilmentTests {
    let coordinator: PersistentStoreCoordinator
    let writer: MainContext
    let reader: MainContext

    init() throws {
        coordinator = try TestModel.coordinator()
        writer = MainContext(coordinator: coordinator)
        reader = MainContext(coordinator: coordinator)
    }

    /// A tag saved by the writer, as an unfired fault in the reader, then deleted by the writer.
    func faultOnDeletedRow() throws -> ManagedObject {
        let tag = try writer.insert("Tag")
        tag["label"] = "gone"
        try writer.save()
        let fault = reader.object(with: tag.objectID)
        #expect(fault.isFault)
        writer.delete(tag)
        try writer.save()
        return fault
    }

    @Test("A fault reads its row from the store in one statement: every value and the row's version, in a table of its own and in one shared with sibling entities")
    func faultReadsItsRow() throws {
        let tag = try writer.insert("Tag")
        tag["label"] = "spicy"
        let video = try writer.insert("Video")
        video["caption"] = "clip"
        video["seconds"] = 12.5
        try writer.save()
        tag["label"] = "mild"  // a second version of the tag's row
        try writer.save()
        coordinator.rowCache.removeAll()
        let tagFault = reader.object(with: tag.objectID), videoFault = reader.object(with: video.objectID)
        #expect(tagFault.isFault && videoFault.isFault)
        let before = reader.statistics
        #expect(tagFault["label"] as? String == "mild")
        #expect(videoFault["caption"] as? String == "clip")
        #expect(videoFault["seconds"] as? Double == 12.5)
        let cost = reader.statistics - before
        #expect(cost.faultsFired == 2 && cost.statements == 2)
        #expect(videoFault.entity.name == "Video")
        #expect(tagFault.headerPointer.pointee.rowVersion == tag.headerPointer.pointee.rowVersion)
        #expect(videoFault.headerPointer.pointee.rowVersion == video.headerPointer.pointee.rowVersion)
        // The version read is the row's: the reader's change saves without a conflict.
        tagFault["label"] = "hot"
        try reader.save()
    }

    @Test("fulfill() throws objectNotFound naming the object when its row was deleted")
    func fulfillThrowsForMissingRow() throws {
        let fault = try faultOnDeletedRow()
        let error = try #require(throws: ObjectGraphError.self) { try fault.fulfill() }
        #expect(error.code == .objectNotFound)
        #expect(error.message.contains("Tag/p1"), "\(error.message)")
        #expect(fault.isInaccessible)
        #expect(!fault.isFault)
    }

    @Test("Reading a fault whose row is gone makes it inaccessible, not a clean object")
    func readingMarksInaccessible() throws {
        let fault = try faultOnDeletedRow()
        #expect(fault["label"] == nil)
        #expect(fault.isInaccessible)
        #expect(!fault.hasChanges)
        #expect(throws: ObjectGraphError.self) { try fault.fulfill() }
    }

    @Test("Saving a change to an object whose row was deleted elsewhere fails and names it")
    func savingChangesToADeletedRowFails() throws {
        let tag = try writer.insert("Tag")
        tag["label"] = "first"
        try writer.save()
        let copy = try reader.existingObject(with: tag.objectID)
        writer.delete(tag)
        try writer.save()
        copy["label"] = "second"
        let error = try #require(throws: ObjectGraphError.self) { try reader.save() }
        #expect(error.code == .objectNotFound)
        #expect(error.message.contains("Tag/p1"), "\(error.message)")
        #expect(reader.hasChanges)  // nothing was saved, the change is kept
    }

    /// A recipe the writer saved (rating 3), and the reader's copy of it, renamed and unsaved.
    func renamedCopyOfSavedRecipe() throws -> (recipe: ManagedObject, copy: ManagedObject) {
        let recipe = try writer.insert("Recipe")
        recipe["name"] = "Soup"
        recipe["rating"] = 3.0
        try writer.save()
        let copy = try reader.existingObject(with: recipe.objectID)
        copy["name"] = "Stew"
        return (recipe, copy)
    }

    @Test("refresh(mergeChanges: true) of a changed object whose row was deleted elsewhere makes it inaccessible and keeps the change")
    func refreshingAChangedObjectWhoseRowIsGone() throws {
        let (recipe, copy) = try renamedCopyOfSavedRecipe()
        writer.delete(recipe)
        try writer.save()
        reader.refresh(copy, mergeChanges: true)
        #expect(copy.isInaccessible)
        #expect(copy["name"] as? String == "Stew" && copy["rating"] == nil)
        #expect(reader.hasChanges)
        #expect(throws: ObjectGraphError.self) { try copy.fulfill() }
        let error = try #require(throws: ObjectGraphError.self) { try reader.save() }
        #expect(error.code == .objectNotFound, "\(error.message)")
    }

    @Test("refresh(mergeChanges: true) that meets a store error keeps the object's values, and the next save reports it")
    func refreshingThroughAStoreError() throws {
        let copy = try renamedCopyOfSavedRecipe().copy
        coordinator.rowCache.removeAll()
        try coordinator.sqliteStore.perform { connection in try connection.execute(#"ALTER TABLE "Recipe" RENAME TO "Gone""#) }
        reader.refresh(copy, mergeChanges: true)
        #expect(!copy.isInaccessible)
        #expect(copy["name"] as? String == "Stew" && copy["rating"] as? Double == 3.0)
        let error = try #require(throws: ObjectGraphError.self) { try reader.save() }
        #expect(error.message.contains("could not refresh Recipe/p1"), "\(error.message)")
    }

    @Test("A store error while firing a fault is reported by fulfill() and by the next save")
    func storeErrorsAreNotSwallowed() throws {
        let fault = try unloadableFault().fault
        #expect(throws: ObjectGraphError.self) { try fault.fulfill() }
        #expect(fault.isFault)  // still a fault: a later read tries again
        _ = fault["label"]  // an untyped read cannot throw: the error is recorded
        try reader.insert("Tag")["label"] = "new"
        let error = try #require(throws: ObjectGraphError.self) { try reader.save() }
        #expect(error.message.contains("could not load Tag/p1"), "\(error.message)")
    }

    /// A saved tag as an unfired fault in the reader, with its table renamed away so the
    /// fault cannot load; `restore` puts the table back.
    func unloadableFault() throws -> (fault: ManagedObject, restore: () throws -> Void) {
        let tag = try writer.insert("Tag")
        tag["label"] = "x"
        try writer.save()
        let fault = reader.object(with: tag.objectID)
        coordinator.rowCache.removeAll()
        let store = coordinator.sqliteStore
        try store.perform { connection in try connection.execute(#"ALTER TABLE "Tag" RENAME TO "Gone""#) }
        return (fault, { try store.perform { connection in try connection.execute(#"ALTER TABLE "Gone" RENAME TO "Tag""#) } })
    }

    @Test("A store error met inside an undo group that is then discarded goes with the group's changes; the next save lands")
    func discardedGroupForgetsItsFaultError() throws {
        let (fault, restore) = try unloadableFault()
        reader.isUndoEnabled = true
        reader.beginUndoGroup(named: "edit that failed")
        _ = fault["label"]  // fails: kept for the next save
        try reader.insert("Tag")["label"] = "made from what it read"
        reader.discardUndoGroup()
        try restore()
        #expect(!reader.hasChanges)
        try reader.insert("Tag")["label"] = "later"
        try reader.save()
        #expect(try writer.count(for: FetchRequest(entityName: "Tag")) == 2)
    }

    @Test("A store error kept before an undo group, or met in one that ends normally or records nothing, still reaches the next save")
    func otherFaultErrorsStayKept() throws {
        let (fault, restore) = try unloadableFault()
        reader.isUndoEnabled = true
        _ = fault["label"]  // before the group
        reader.beginUndoGroup()
        _ = fault["label"]
        reader.discardUndoGroup()
        #expect(throws: ObjectGraphError.self) { try reader.save() }

        reader.beginUndoGroup()
        _ = fault["label"]
        reader.endUndoGroup()
        #expect(throws: ObjectGraphError.self) { try reader.save() }

        reader.isUndoEnabled = false  // the group puts nothing back, so it keeps the error
        reader.beginUndoGroup()
        _ = fault["label"]
        reader.discardUndoGroup()
        let error = try #require(throws: ObjectGraphError.self) { try reader.save() }
        #expect(error.message.contains("could not load Tag/p1"), "\(error.message)")
        try restore()
        try reader.save()
    }
}
