import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Canonical shadows (`canonical:(title)`) stay out of fetched objects until read: the fill
/// leaves the slot empty and the first read folds the source, so every path that reads,
/// copies or compares an object's values must see the fold, never the empty slot.
@MainActor
struct FoldedShadowTests {
    let coordinator: PersistentStoreCoordinator
    let context: MainContext

    /// A saved album titled "Crème Brûlée", and a fresh context to fetch it into.
    init() throws {
        coordinator = PersistentStoreCoordinator(model: try DerivedAttributeTests.model())
        try coordinator.addStore(at: ":memory:")
        let writer = MainContext(coordinator: coordinator)
        try writer.insert("Album")["title"] = "Crème Brûlée"
        try writer.save()
        context = MainContext(coordinator: coordinator)
    }

    /// The album, fetched with its values.
    func fetchAlbum() throws -> ManagedObject {
        try #require(try context.fetch(FetchRequest(entityName: "Album")).first)
    }

    /// The shadow's slot as the object holds it, without folding.
    func shadowSlot(_ album: ManagedObject) -> Slot {
        album.slots[album.entity.attribute(named: "titleCanonical")!.slot].value
    }

    @Test("A fetched object holds no shadow until one is read; the read folds its source")
    func fetchLeavesShadowOut() throws {
        let album = try fetchAlbum()
        #expect(album.headerPointer.pointee.shadowsPending)
        #expect(shadowSlot(album).isNull, "the fetch made no string for the shadow")
        #expect(album["title"] as? String == "Crème Brûlée", "reading the source folds nothing")
        #expect(album.headerPointer.pointee.shadowsPending)

        #expect(album["titleCanonical"] as? String == "creme brulee")
        #expect(!album.headerPointer.pointee.shadowsPending)
        #expect(shadowSlot(album).storedValue == .text("creme brulee"), "the fold is kept")
        let typed: String = album[attribute: "titleCanonical"]
        #expect(typed == "creme brulee")
    }

    @Test("A fresh object's description and committed values show the fold, not nil")
    func descriptionAndCommittedValues() throws {
        let fetched = try fetchAlbum()
        try fetched.fulfill()
        let description = fetched.description
        #expect(description.contains("titleCanonical: creme brulee"), "\(description)")
        context.reset()
        let album = try fetchAlbum()
        #expect(album.committedValues(forKeys: ["titleCanonical"])["titleCanonical"] as? String == "creme brulee")
    }

    @Test("A fault that fires leaves the shadow out as a fetch does, and a refresh starts over")
    func faultAndRefresh() throws {
        let id = try fetchAlbum().objectID
        context.reset()
        let album = try context.existingObject(with: id)
        #expect(album["title"] as? String == "Crème Brûlée")
        #expect(album.headerPointer.pointee.shadowsPending && shadowSlot(album).isNull)
        #expect(album["titleCanonical"] as? String == "creme brulee")

        context.refresh(album, mergeChanges: false)
        #expect(album.isFault && !album.headerPointer.pointee.shadowsPending)
        #expect(album["titleCanonical"] as? String == "creme brulee")
    }

    @Test("Changing another attribute, then rolling back, keeps the shadow's fold")
    func rollbackRestoresFold() throws {
        let album = try fetchAlbum()
        album["subtitle"] = "Live"
        #expect(!album.headerPointer.pointee.shadowsPending, "the snapshot for rollback folded it first")
        #expect(album["titleCanonical"] as? String == "creme brulee")
        context.rollback()
        #expect(album["titleCanonical"] as? String == "creme brulee")
        #expect(album.committedValues(forKeys: ["titleCanonical"])["titleCanonical"] as? String == "creme brulee")
    }

    @Test("Renaming a fetched object, then undoing, folds the old title again")
    func undoRestoresFold() throws {
        let album = try fetchAlbum()
        context.isUndoEnabled = true
        context.beginUndoGroup(named: "rename")
        album["title"] = "Jalapeño"
        context.endUndoGroup()
        #expect(album["titleCanonical"] as? String == "jalapeno")
        #expect(context.undo() == "rename")
        #expect(album["titleCanonical"] as? String == "creme brulee")
        #expect(context.redo() == "rename")
        #expect(album["titleCanonical"] as? String == "jalapeno")
    }

    @Test("A rename of a fetched object saves the new fold, which a search then finds")
    func renameSavesFold() throws {
        let album = try fetchAlbum()
        album["title"] = "Jalapeño Poppers"
        #expect(album.committedValues(forKeys: ["titleCanonical"])["titleCanonical"] as? String == "creme brulee")
        #expect(album.changedValues()["titleCanonical"] as? String == "jalapeno poppers")
        try context.save()
        let reader = MainContext(coordinator: coordinator)
        let request = FetchRequest(entityName: "Album", predicate: try FetchPredicate("title BEGINSWITH[cd] %@", "JALAPEÑO"))
        #expect(try reader.explain(request).sql.contains("titleCanonical"))
        let found = try reader.fetch(request)
        #expect(found.count == 1 && found.first?["titleCanonical"] as? String == "jalapeno poppers")
        #expect(try reader.count(for: FetchRequest(entityName: "Album", predicate: FetchPredicate("titleCanonical == 'creme brulee'"))) == 0)
    }

    @Test("An in-memory match on the shadow folds it: a changed object is matched by its pending values")
    func inMemoryMatchFolds() throws {
        let album = try fetchAlbum()
        album["subtitle"] = "Live"
        let predicate = try FetchPredicate("titleCanonical == 'creme brulee'").checked(for: album.entity)
        #expect(predicate.evaluate(album))
    }
}
