import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Metadata set on a context is written by its next save, in the same transaction as the
/// objects: both land, or neither.
@MainActor
struct MetadataTests {
    let coordinator: PersistentStoreCoordinator
    let context: MainContext

    init() throws {
        coordinator = try TestModel.coordinator()
        context = MainContext(coordinator: coordinator)
    }

    var store: SQLiteStore { coordinator.sqliteStore }

    @Test("setMetadata waits for the save and lands with its objects")
    func savedWithObjects() throws {
        try context.insert("Tag")["label"] = "a"
        context.setMetadata("12", forKey: "progress")
        #expect(store.metadata["progress"] == nil)
        try context.save()
        #expect(store.metadata["progress"] == "12")
        context.setMetadata(nil, forKey: "progress")
        try context.save()  // metadata alone is a change worth a transaction
        #expect(store.metadata["progress"] == nil)
    }

    @Test("A failed save writes neither the objects nor the metadata, and keeps both pending")
    func failedSaveWritesNothing() throws {
        try context.insert("Chef")["name"] = "Ana"
        try context.save()
        try context.insert("Chef")["name"] = "Ana"  // breaks the uniqueness constraint
        context.setMetadata("7", forKey: "progress")
        #expect(throws: ObjectGraphError.self) { try context.save() }
        #expect(store.metadata["progress"] == nil)
        let reopened = try store.readMetadata()
        #expect(reopened["progress"] == nil)
        context.rollback()
        try context.save()
        #expect(store.metadata["progress"] == nil, "rollback drops pending metadata")
    }
}
