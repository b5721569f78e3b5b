import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Rolling back after a merge returns an object to the values the merge brought, not to
/// those from before it (found by the results controllers' random test).
@MainActor
struct RollbackAfterMergeTests {
    @Test("An object with unsaved changes that a merge refreshed rolls back to the merged values")
    func rollbackKeepsMergedValues() throws {
        let coordinator = try TestModel.coordinator()
        let context = MainContext(coordinator: coordinator)
        let ana = try context.insert("Chef"), bo = try context.insert("Chef")
        ana["name"] = "Ana"
        bo["name"] = "Bo"
        let soup = try context.insert("Recipe")
        soup["name"] = "Soup"
        soup["chef"] = ana
        try context.save()

        soup["rating"] = 4.0  // an unsaved change: the snapshot holds chef Ana
        let other = MainContext(coordinator: coordinator)
        let theirs = other.object(with: soup.objectID)
        theirs["chef"] = other.object(with: bo.objectID)
        theirs["name"] = "Bo's soup"
        let saved = try other.save()
        var note = DidSave()
        note.updatedIDs = saved.updatedIDs
        note.origin = other.identifier
        context.mergeChanges(fromContextDidSave: note)
        #expect((soup["chef"] as? ManagedObject)?["name"] as? String == "Bo")

        context.rollback()
        #expect(soup["rating"] as? Double == nil)
        #expect(soup["name"] as? String == "Bo's soup")
        #expect((soup["chef"] as? ManagedObject)?["name"] as? String == "Bo")
        #expect(!context.hasChanges)
    }
}
