import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Temporary IDs belong to the context that issued them.
@MainActor
struct TemporaryIDTests {
    @Test("Another context's temporary ID is not registered and cannot replace this context's inserted object")
    func foreignTemporaryIDsAreNotRegistered() throws {
        let coordinator = try TestModel.coordinator()
        let mine = MainContext(coordinator: coordinator), theirs = MainContext(coordinator: coordinator)
        let own = try mine.insert("Tag")
        own["label"] = "mine"
        let foreign = try theirs.insert("Tag")
        #expect(own.objectID.key == foreign.objectID.key)  // the same counter, different contexts
        #expect(mine.core.registeredObject(for: foreign.objectID) == nil)
        #expect(throws: ObjectGraphError.self) { try mine.existingObject(with: foreign.objectID) }
        #expect(mine.core.registeredObject(for: own.objectID) === own)
        try mine.save()
        #expect(own["label"] as? String == "mine")
    }

    @Test("object(with:) stops with a clear message for another context's temporary ID")
    func objectWithForeignTemporaryIDTraps() async {
        await #expect(processExitsWith: .failure) {
            await MainActor.run {
                let coordinator = try! TestModel.coordinator()
                let mine = MainContext(coordinator: coordinator), theirs = MainContext(coordinator: coordinator)
                _ = try! mine.insert("Tag")
                let foreign = try! theirs.insert("Tag")
                _ = mine.object(with: foreign.objectID)
            }
        }
    }

    @Test("object(with:) stops for a temporary ID whose object was rolled back")
    func objectWithStaleTemporaryIDTraps() async {
        await #expect(processExitsWith: .failure) {
            await MainActor.run {
                let coordinator = try! TestModel.coordinator()
                let context = MainContext(coordinator: coordinator)
                let id = try! context.insert("Tag").objectID
                context.rollback()
                _ = context.object(with: id)
            }
        }
    }
}
