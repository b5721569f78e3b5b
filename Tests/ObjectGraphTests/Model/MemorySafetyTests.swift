import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// The object layout stays private, and every path that could reach the wrong memory
/// either checks (in debug and release builds) or is rejected when the model is made.
@MainActor
struct MemorySafetyTests {
    final class Person: ManagedObject {}
    final class Pet: ManagedObject {}
    final class Stateful: ManagedObject { var cache = 0 }

    static func model(ownerClass: ManagedObject.Type = ManagedObject.self) throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Person", objectClass: ownerClass,
                attributes: [AttributeDescription("name", .string)],
                relationships: [RelationshipDescription("pets", toMany: "Pet", inverse: "owner")]),
            EntityDescription("Pet", objectClass: Pet.self,
                attributes: [AttributeDescription("name", .string), AttributeDescription("legs", .integer16, defaultValue: 4)],
                relationships: [RelationshipDescription("owner", to: "Person", inverse: "pets")]),
        ])
    }

    @Test("Objects kept after their context and coordinator are gone still have their entity and model")
    func objectsOutliveTheirStack() throws {
        weak var weakModel: ObjectModel?
        var kept: [ManagedObject] = []
        do {
            let model = try ObjectModel(entities: [
                EntityDescription("Animal", attributes: [AttributeDescription("name", .string)],
                    relationships: [RelationshipDescription("owner", to: "Keeper", inverse: "animals")]),
                EntityDescription("Dog", parent: "Animal"),
                EntityDescription("Keeper", relationships: [RelationshipDescription("animals", toMany: "Animal", inverse: "owner")]),
            ])
            #expect(model.entity(named: "Animal")!.selfAndDescendants.map(\.name) == ["Animal", "Dog"])
            weakModel = model
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addStore(at: ":memory:")
            let context = MainContext(coordinator: coordinator)
            kept = [try context.insert("Dog"), try context.insert("Keeper")]
        }
        #expect(weakModel != nil)
        #expect(kept.map(\.entity.name) == ["Dog", "Keeper"])
        #expect(kept[0].entity.relationship(named: "owner")?.destination.name == "Keeper")
        kept.removeAll()  // their deinit reads their entity: it must still be there
    }

    @Test("The header is 24 bytes and a slot 24: a detached object keeps its entity in the context's word")
    func headerLayout() throws {
        #expect(MemoryLayout<ObjectHeader>.size == 24)
        #expect(MemoryLayout<ObjectSlot>.stride == MemoryLayout<Slot>.stride)  // the changed flag is padding
        let coordinator = PersistentStoreCoordinator(model: try Self.model())
        try coordinator.addStore(at: ":memory:")
        let context = MainContext(coordinator: coordinator)
        let person = try context.insert("Person"), pet = try context.insert("Pet")
        #expect(person.isRegistered && person.entity.name == "Person" && pet.entity.name == "Pet")
        let id = pet.objectID
        context.reset()
        #expect(!pet.isRegistered && pet.entity.name == "Pet" && pet.objectID == id)
        #expect(pet.headerPointer.pointee.context == nil)
        pet.headerPointer.pointee.detach()  // detaching twice keeps the entity
        #expect(pet.entity === coordinator.model.entity(named: "Pet"))
    }

    @Test("The packed header keeps every field apart")
    func headerFields() throws {
        let coordinator = PersistentStoreCoordinator(model: try Self.model())
        try coordinator.addStore(at: ":memory:")
        let pet = try MainContext(coordinator: coordinator).insert("Pet")
        let header = pet.headerPointer, original = header.pointee
        // The context finds and releases the object by its own ID and state.
        defer { header.pointee = original }
        let states: [ObjectState] = [.fault, .clean, .inserted, .updated, .deleted]
        let values: [ValueState] = [.loaded, .needed, .prefilled]
        for (index, state) in states.enumerated() {
            let before = states[(index + 2) % states.count], value = values[index % values.count]
            header.pointee.state = state
            header.pointee.stateBeforeDelete = before
            header.pointee.values = value
            header.pointee.isInaccessible = index.isMultiple(of: 2)
            header.pointee.shadowsPending = !index.isMultiple(of: 3)
            #expect(header.pointee.state == state && header.pointee.stateBeforeDelete == before)
            #expect(header.pointee.values == value && header.pointee.isInaccessible == index.isMultiple(of: 2))
            #expect(header.pointee.shadowsPending == !index.isMultiple(of: 3))
            #expect(pet.objectID.isTemporary && pet.entity.name == "Pet")
        }
        let big = ObjectID(entityIndex: Int(UInt16.max), key: .max, temporaryTag: .max)
        header.pointee.objectID = big
        #expect(header.pointee.objectID == big && header.pointee.rowVersion == -1)
        let permanent = ObjectID(entityIndex: 1, key: 42)
        header.pointee.objectID = permanent
        #expect(header.pointee.objectID == permanent && header.pointee.rowVersion == -1)
        header.pointee.rowVersion = 9
        #expect(header.pointee.state == .deleted && header.pointee.values == .needed && header.pointee.rowVersion == 9)
    }

    @Test("A model of more entities than an object can name is refused")
    func entityLimit() {
        let entities = (0...ObjectHeader.entityLimit).map { EntityDescription("E\($0)", attributes: []) }
        #expect(throws: ObjectGraphError.self) { try ObjectModel(entities: entities) }
    }

    @Test("Row versions are kept in 32 bits; one too large to hold never reads as 'not loaded'")
    func rowVersionRange() throws {
        let coordinator = PersistentStoreCoordinator(model: try Self.model())
        try coordinator.addStore(at: ":memory:")
        let context = MainContext(coordinator: coordinator)
        let person = try context.insert("Person")
        person[attribute: "name"] = "Ann"
        let header = person.headerPointer
        // A temporary object has no row, so no version: its tag holds the place.
        let temporary = person.objectID
        header.pointee.rowVersion = 5
        #expect(header.pointee.rowVersion == -1 && person.objectID == temporary)
        try context.save()
        #expect(!person.objectID.isTemporary && header.pointee.rowVersion == 0)
        for version: Int64 in [0, 7, Int64(UInt32.max) - 1, -1] {
            header.pointee.rowVersion = version
            #expect(header.pointee.rowVersion == version)
        }
        header.pointee.rowVersion = Int64(UInt32.max)
        #expect(header.pointee.rowVersion == Int64(UInt32.max) - 1)
        header.pointee.rowVersion = .max
        #expect(header.pointee.rowVersion == Int64(UInt32.max) - 1)
    }

    @Test("A managed object is not a ManagedBuffer: its header and slots are out of reach")
    func storageIsPrivate() throws {
        let coordinator = PersistentStoreCoordinator(model: try Self.model())
        try coordinator.addStore(at: ":memory:")
        let object: AnyObject = try MainContext(coordinator: coordinator).insert("Person")
        #expect(!(object is ManagedBuffer<ObjectHeader, ObjectSlot>))
    }

    /// A Person in a context, and Pet's `legs`: Pet's second slot, where a Person has a
    /// relationship. The context is returned to keep the person registered.
    static func personAndForeignAttribute() -> (MainContext, ManagedObject, AttributeDescription) {
        let coordinator = PersistentStoreCoordinator(model: try! MemorySafetyTests.model())
        try! coordinator.addStore(at: ":memory:")
        let context = MainContext(coordinator: coordinator)
        let legs = coordinator.model.entity(named: "Pet")!.attribute(named: "legs")!
        return (context, try! context.insert("Person"), legs)
    }

    @Test("An attribute of another entity stops the typed subscript instead of writing out of bounds")
    func foreignAttributeTraps() async {
        await #expect(processExitsWith: .failure) {
            await MainActor.run {
                let (context, person, legs) = MemorySafetyTests.personAndForeignAttribute()
                person[legs] = 3
                withExtendedLifetime(context) {}
            }
        }
    }

    @Test("An attribute of another entity stops the typed subscript's read too")
    func foreignAttributeReadTraps() async {
        await #expect(processExitsWith: .failure) {
            await MainActor.run {
                let (context, person, legs) = MemorySafetyTests.personAndForeignAttribute()
                let read: Int = person[legs]
                withExtendedLifetime((context, read)) {}
            }
        }
    }

    @Test("A typed to-one of the wrong class stops with a message, not undefined behaviour")
    func wrongDestinationClassTraps() async {
        await #expect(processExitsWith: .failure) {
            await MainActor.run {
                let coordinator = PersistentStoreCoordinator(model: try! MemorySafetyTests.model())
                try! coordinator.addStore(at: ":memory:")
                let context = MainContext(coordinator: coordinator)
                let pet = try! context.insert("Pet")
                pet["owner"] = try! context.insert("Person")
                let owner: Pet? = pet[toOne: "owner"]  // the owner is a Person
                _ = owner
            }
        }
    }

    @Test("A typed to-one given an object that a reset detached stops with a message, not a silent link")
    func detachedDestinationTraps() async {
        await #expect(processExitsWith: .failure) {
            await MainActor.run {
                let coordinator = PersistentStoreCoordinator(model: try! MemorySafetyTests.model(ownerClass: Person.self))
                try! coordinator.addStore(at: ":memory:")
                let context = MainContext(coordinator: coordinator)
                let owner = try! context.insert("Person") as! Person
                owner["name"] = "Ana"
                try! context.save()
                context.reset()
                let pet = try! context.insert("Pet")
                pet[toOne: "owner"] = owner  // detached by the reset: object(with: owner.objectID) is right
            }
        }
    }

    @Test("The typed subscripts work for the right attribute and class")
    func typedAccessWorks() throws {
        let coordinator = PersistentStoreCoordinator(model: try Self.model(ownerClass: Person.self))
        try coordinator.addStore(at: ":memory:")
        let context = MainContext(coordinator: coordinator)
        let legs = coordinator.model.entity(named: "Pet")!.attribute(named: "legs")!
        let pet = try context.insert("Pet")
        pet[legs] = 3
        pet["owner"] = try context.insert("Person")
        #expect(pet[legs] as Int == 3)
        let owner: Person? = pet[toOne: "owner"]
        #expect(owner != nil)
    }

    @Test("A description used by two entities, or two models, is rejected")
    func reusedDescriptionsAreRejected() throws {
        let shared = AttributeDescription("name", .string)
        let error = try #require(throws: ObjectGraphError.self) {
            try ObjectModel(entities: [
                EntityDescription("A", attributes: [shared]),
                EntityDescription("B", attributes: [shared]),
            ])
        }
        #expect(error.code == .invalidModel && error.message.contains("same AttributeDescription"), "\(error.message)")
        let entity = EntityDescription("C", attributes: [AttributeDescription("name", .string)])
        _ = try ObjectModel(entities: [entity])
        #expect(throws: ObjectGraphError.self) { try ObjectModel(entities: [entity]) }
    }

    @Test("An inverse that points to an unknown entity is an error, not a crash")
    func unknownInverseDestination() throws {
        let error = try #require(throws: ObjectGraphError.self) {
            try ObjectModel(entities: [
                EntityDescription("A", relationships: [RelationshipDescription("b", to: "B", inverse: "a")]),
                EntityDescription("B", relationships: [RelationshipDescription("a", to: "Nowhere", inverse: "b")]),
            ])
        }
        #expect(error.code == .invalidModel && error.message.contains("Nowhere"), "\(error.message)")
    }

    @Test("A subclass with stored properties is rejected: they would overlap the object's header")
    func storedPropertiesAreRejected() throws {
        let error = try #require(throws: ObjectGraphError.self) { try Self.model(ownerClass: Stateful.self) }
        #expect(error.message.contains("stored properties"), "\(error.message)")
    }
}
