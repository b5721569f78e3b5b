import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// The atomic stores record the model they were written with and, like SQLite, refuse a
/// file of another model with `modelMismatch` naming what differs; files written before
/// they recorded one open as before.
@MainActor
struct AtomicStoreModelTests {
    /// ``TestModel`` with one more attribute on Chef.
    static func modelWithChefAttribute(_ attribute: AttributeDescription) throws -> ObjectModel {
        try TestModel.make(chefAttributes: [attribute])
    }

    /// A new `kind` file written with `model`, holding ``AtomicStoreTests/fill(_:)``'s graph
    /// (and a value for Chef's `born` where the model has it).
    static func file(_ kind: StoreKind, model: ObjectModel) throws -> (path: String, store: any PersistentStore) {
        let coordinator = PersistentStoreCoordinator(model: model)
        let store = try kind.addStore(to: coordinator)
        let context = MainContext(coordinator: coordinator)
        try AtomicStoreTests.fill(context)
        if model.entity(named: "Chef")?.attribute(named: "born") != nil {
            try context.fetch(FetchRequest(entityName: "Chef")).first?["born"] = Date(timeIntervalSince1970: 0)
            try context.save()
        }
        return ((store as! any AtomicStorePath).path, store)
    }

    static let advice = "Open it with the model it was made with, or open a new path (to migrate it, move it to a SQLite store "
        + "with migrateStore(_:to:type:) and migrate that)."

    @Test("A file of another model is refused with modelMismatch naming what differs, and left as it was", arguments: StoreKind.atomic)
    func anotherModel(kind: StoreKind) throws {
        // Descriptions belong to one model each: make them anew for every model.
        func optional() -> [AttributeDescription] { [AttributeDescription("born", .date, isOptional: true)] }
        func required() -> [AttributeDescription] { [AttributeDescription("stars", .integer16, defaultValue: 0)] }
        let cases: [(written: () -> [AttributeDescription], opened: () -> [AttributeDescription], change: String)] = [
            ({ [] }, optional, "attribute 'born' added"),    // the readers would take it (nil)
            ({ [] }, required, "attribute 'stars' added"),   // the check after reading would call the file invalid
            (optional, { [] }, "attribute 'born' removed"),  // the readers would stop at the unknown property
        ]
        for (written, opened, change) in cases {
            let (path, _) = try Self.file(kind, model: try TestModel.make(chefAttributes: written()))
            defer { StoreKind.removeFolder(of: path) }
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let coordinator = PersistentStoreCoordinator(model: try TestModel.make(chefAttributes: opened()))
            let error = try #require(throws: ObjectGraphError.self) { try coordinator.addStore(type: kind.type, at: path) }
            #expect(error.code == .modelMismatch, "\(kind) \(change): \(error)")
            #expect(error.message == "the store at '\(path)' was made with a different model: Chef changed (\(change)). " + Self.advice)
            #expect(coordinator.stores.isEmpty)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        }
    }

    @Test("A file records the model at every save, and opens again with that model", arguments: StoreKind.atomic)
    func recordsTheModel(kind: StoreKind) throws {
        let model = try TestModel.make()
        let (path, store) = try Self.file(kind, model: model)
        defer { StoreKind.removeFolder(of: path) }
        #expect(store.metadata[RecordedModel.versionHashesKey] != nil && store.metadata[RecordedModel.entityDescriptionsKey] != nil)
        let reopened = PersistentStoreCoordinator(model: try TestModel.make())
        let again = try reopened.addStore(type: kind.type, at: path)
        #expect(again.metadata == store.metadata)
        #expect(RecordedModel.differences(between: again.metadata, and: model) == nil)
    }

    @Test("A file that records no model (written before stores did), or hashes that do not belong to its descriptions, is read as before",
          arguments: StoreKind.atomic)
    func noRecordedModel(kind: StoreKind) throws {
        for damaged in [false, true] {
            let (path, store) = try Self.file(kind, model: try TestModel.make())
            defer { StoreKind.removeFolder(of: path) }
            if damaged {
                try store.setMetadata(#"{"Chef":"0"}"#, forKey: RecordedModel.versionHashesKey)
            } else {
                try store.setMetadata(nil, forKey: RecordedModel.versionHashesKey)
                try store.setMetadata(nil, forKey: RecordedModel.entityDescriptionsKey)
            }
            // An added optional attribute: the readers map properties by name, so it is nil.
            let newer = try Self.modelWithChefAttribute(AttributeDescription("born", .date, isOptional: true))
            let coordinator = PersistentStoreCoordinator(model: newer)
            try coordinator.addStore(type: kind.type, at: path)
            let context = MainContext(coordinator: coordinator)
            let chefs = try context.fetch(FetchRequest(entityName: "Chef"))
            #expect(chefs.count == 2 && chefs.allSatisfy { $0["born"] == nil })
            // Its next save records the newer model, which the older one no longer opens.
            chefs[0]["born"] = Date(timeIntervalSince1970: 0)
            try context.save()
            let error = try #require(throws: ObjectGraphError.self) {
                try PersistentStoreCoordinator(model: try TestModel.make()).addStore(type: kind.type, at: path)
            }
            #expect(error.code == .modelMismatch && error.message.contains("Chef changed (attribute 'born' removed)"), "\(error)")
        }
    }

    @Test("A store moved to another type records the model there too, and the copy opens", arguments: StoreKind.atomic)
    func migratedStoreRecordsTheModel(kind: StoreKind) throws {
        let model = try TestModel.make()
        let (path, store) = try Self.file(kind, model: model)
        defer { StoreKind.removeFolder(of: path) }
        let coordinator = PersistentStoreCoordinator(model: model)
        let source = try coordinator.addStore(type: kind.type, at: path)
        #expect(source.identifier == store.identifier)
        let target = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("moved.xml").path
        let moved = try coordinator.migrateStore(source, to: target, type: .xml)
        #expect(RecordedModel.differences(between: moved.metadata, and: model) == nil)
        let reopened = PersistentStoreCoordinator(model: model)
        try reopened.addStore(type: .xml, at: target)
        #expect(try graphSnapshot(reopened) == graphSnapshot(coordinator))
        let error = try #require(throws: ObjectGraphError.self) {
            try PersistentStoreCoordinator(model: try Self.modelWithChefAttribute(AttributeDescription("born", .date, isOptional: true)))
                .addStore(type: .xml, at: target)
        }
        #expect(error.code == .modelMismatch)
    }
}
