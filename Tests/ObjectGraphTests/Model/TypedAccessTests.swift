import Foundation
import Testing
import ObjectGraph
import ObjectGraphSQLite

/// The typed subscripts, by description and by name, for every ``AttributeValue`` type: a
/// value written, saved and fetched into a new context reads back the same, and a null reads
/// as the type's default (or nil for an optional). The subscripts are inlined into the
/// caller, so these tests also compile each conversion outside the framework.
@MainActor
struct TypedAccessTests {
    let coordinator: PersistentStoreCoordinator
    let entity: EntityDescription

    init() throws {
        let model = try ObjectModel(entities: [EntityDescription("Sample", attributes: [
            AttributeDescription("int", .integer64, isOptional: true),
            AttributeDescription("double", .double, isOptional: true),
            AttributeDescription("flag", .boolean, isOptional: true),
            AttributeDescription("text", .string, isOptional: true),
            AttributeDescription("date", .date, isOptional: true),
            AttributeDescription("bytes", .binary, isOptional: true),
            AttributeDescription("uuid", .uuid, isOptional: true),
            AttributeDescription("url", .url, isOptional: true),
        ])])
        coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(at: ":memory:")
        entity = model.entity(named: "Sample")!
    }

    /// Saves `object`'s context and returns the same row fetched into a new context.
    func refetched(_ object: ManagedObject, in context: MainContext) throws -> ManagedObject {
        try context.save()
        return try MainContext(coordinator: coordinator).existingObject(with: object.objectID)
    }

    @Test("Values written through the description read back after a save, in another context")
    func byDescription() throws {
        let context = MainContext(coordinator: coordinator)
        let object = context.insert(entity)
        let a = { (name: String) in entity.attribute(named: name)! }
        let date = Date(timeIntervalSince1970: 1_700_000_000.5), id = UUID()
        object[a("int")] = -42
        object[a("double")] = 2.5
        object[a("flag")] = true
        object[a("text")] = "crème brûlée"
        object[a("date")] = date
        object[a("bytes")] = Data([0, 1, 255])
        object[a("uuid")] = id
        object[a("url")] = URL(string: "https://example.com/r?id=1")!
        let read = try refetched(object, in: context)
        #expect(read[a("int")] as Int == -42)
        #expect(read[a("double")] as Double == 2.5)
        #expect(read[a("flag")] as Bool)
        #expect(read[a("text")] as String == "crème brûlée")
        #expect(read[a("date")] as Date == date)
        #expect(read[a("bytes")] as Data == Data([0, 1, 255]))
        #expect(read[a("uuid")] as UUID == id)
        #expect(read[a("url")] as URL == URL(string: "https://example.com/r?id=1")!)
        #expect(read[a("int")] as Int? == -42)
        #expect(read[a("text")] as String? == "crème brûlée")
    }

    @Test("Values written by name read back after a save; nulls read as defaults or nil")
    func byName() throws {
        let context = MainContext(coordinator: coordinator)
        let object = context.insert(entity), empty = context.insert(entity)
        object[attribute: "int"] = 7
        object[attribute: "double"] = -0.25
        object[attribute: "flag"] = false
        object[attribute: "text"] = "Ana"
        object[attribute: "int"] = nil as Int?
        let read = try refetched(object, in: context)
        let int: Int? = read[attribute: "int"], double: Double = read[attribute: "double"]
        let flag: Bool? = read[attribute: "flag"], text: String = read[attribute: "text"]
        #expect(int == nil)
        #expect(double == -0.25)
        #expect(flag == false)
        #expect(text == "Ana")
        let blank = try MainContext(coordinator: coordinator).existingObject(with: empty.objectID)
        #expect(blank[attribute: "int"] as Int == 0)
        #expect(blank[attribute: "double"] as Double == 0)
        #expect(blank[attribute: "flag"] as Bool == false)
        #expect(blank[attribute: "text"] as String == "")
        #expect(blank[attribute: "date"] as Date == Date(timeIntervalSince1970: 0))
        #expect(blank[attribute: "bytes"] as Data == Data())
        #expect(blank[attribute: "uuid"] as UUID? == nil)
        #expect(blank[attribute: "url"] as URL == URL(string: "about:blank")!)
    }
}
