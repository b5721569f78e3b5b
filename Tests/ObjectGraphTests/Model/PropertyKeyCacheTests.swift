import Testing
@testable import ObjectGraph

/// Properties are found by name whether the key is the model's own literal, the same text
/// built at run time, longer than a small string, or not a property at all.
struct PropertyKeyCacheTests {
    static func entity() throws -> EntityDescription {
        let model = try ObjectModel(entities: [
            EntityDescription("Dish", attributes: [
                AttributeDescription("name", .string),
                AttributeDescription("aVeryLongAttributeNameIndeed", .integer64, isOptional: true),
            ], relationships: [
                RelationshipDescription("sides", toMany: "Side", inverse: "dish"),
            ]),
            EntityDescription("Side", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("dish", to: "Dish", inverse: "sides"),
            ]),
        ])
        return model.entity(named: "Dish")!
    }

    @Test("Literal and run-time keys find the same property", arguments: ["name", "aVeryLongAttributeNameIndeed"])
    func attributes(key: String) throws {
        let entity = try Self.entity()
        let built = String(key.reversed().reversed())  // same text, separately made
        #expect(entity.attribute(named: key)?.name == key)
        #expect(entity.attribute(named: built) === entity.attribute(named: key))
        #expect(entity.relationship(named: key) == nil)
    }

    @Test("Relationships are found, and names of nothing find nothing")
    func relationshipsAndMisses() throws {
        let entity = try Self.entity()
        #expect(entity.relationship(named: "sides")?.name == "sides")
        #expect(entity.relationship(named: String("sid" + "es"))?.name == "sides")
        #expect(entity.attribute(named: "sides") == nil)
        for missing in ["", "nam", "names", "Name", "dish", "aVeryLongAttributeNameIndeeds"] {
            #expect(entity.attribute(named: missing) == nil)
            #expect(entity.relationship(named: missing) == nil)
        }
    }
}
