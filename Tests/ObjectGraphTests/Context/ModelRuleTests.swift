import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Model rules the review found untested: transient attributes, the no-action delete rule,
/// relationship counts, declared indexes, and fetches that leave out pending changes.
@MainActor
struct ModelRuleTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Box",
                attributes: [
                    AttributeDescription("label", .string),
                    AttributeDescription("scratch", .string, isOptional: true, isTransient: true),
                ],
                relationships: [
                    RelationshipDescription("items", toMany: "Item", inverse: "box", minCount: 1, maxCount: 2),
                    RelationshipDescription("shelf", to: "Shelf", inverse: "boxes"),
                ],
                indexes: [["label"]]),
            EntityDescription("Item",
                attributes: [AttributeDescription("name", .string)],
                relationships: [RelationshipDescription("box", to: "Box", inverse: "items")]),
            EntityDescription("Shelf",
                attributes: [AttributeDescription("name", .string)],
                relationships: [RelationshipDescription("boxes", toMany: "Box", inverse: "shelf", deleteRule: .noAction)]),
        ])
    }

    let coordinator: PersistentStoreCoordinator
    let context: MainContext

    init() throws {
        coordinator = PersistentStoreCoordinator(model: try Self.model())
        try coordinator.addStore(at: ":memory:")
        context = MainContext(coordinator: coordinator)
    }

    func box(_ label: String, items: Int) throws -> ManagedObject {
        let box = try context.insert("Box")
        box["label"] = label
        for index in 0..<items {
            let item = try context.insert("Item")
            item["name"] = "\(label) \(index)"
            item["box"] = box
        }
        return box
    }

    @Test("Changing a transient attribute marks the object changed; saving writes nothing for it")
    func transientChangesAreChanges() throws {
        let box = try box("a", items: 1)
        try context.save()
        box["scratch"] = "note"
        #expect(box.hasChanges && box.isUpdated && context.hasChanges)
        #expect(box.changedValues().keys.sorted() == ["scratch"])
        let before = context.statistics
        try context.save()
        #expect(!context.hasChanges)
        #expect(context.statistics.statements - before.statements <= 2, "only BEGIN and COMMIT, no UPDATE")
        context.rollback()
        #expect(box["scratch"] as? String == "note")  // not a stored value: kept in memory
    }

    @Test("Rolling back a transient change restores the old value")
    func transientRollback() throws {
        let box = try box("a", items: 1)
        try context.save()
        box["scratch"] = "note"
        context.rollback()
        #expect(box["scratch"] == nil)
        #expect(!box.hasChanges)
    }

    @Test("noAction leaves the inverse pointing at the deleted object")
    func noActionLeavesTheInverse() throws {
        let shelf = try context.insert("Shelf")
        shelf["name"] = "top"
        let box = try box("a", items: 1)
        box["shelf"] = shelf
        try context.save()
        context.delete(shelf)
        #expect((box["shelf"] as? ManagedObject) === shelf)  // nothing touched the inverse
        #expect(!box.hasChanges)
        try context.save()
        context.reset()
        let reloaded = try context.fetch(FetchRequest(entityName: "Box"))[0]
        let dangling = try #require(reloaded["shelf"] as? ManagedObject)
        #expect(throws: ObjectGraphError.self) { try dangling.fulfill() }  // the row is gone
    }

    @Test("A save refuses a to-one that points to an object the same save deletes, and saves once it is cleared")
    func toOneToADeletedObject() throws {
        let shelf = try context.insert("Shelf")
        shelf["name"] = "top"
        try context.save()
        let box = try box("a", items: 1)
        box["shelf"] = shelf
        context.delete(shelf)  // noAction: the new box still points at it
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.code == .validation)
        #expect(error.message == "new Box: 'shelf' points to a deleted Shelf; nothing was saved", "\(error.message)")
        box["shelf"] = nil
        try context.save()
        #expect(try context.count(for: FetchRequest(entityName: "Shelf")) == 0)
        #expect(try context.count(for: FetchRequest(entityName: "Box")) == 1)
    }

    @Test("A to-many's minimum and maximum counts are checked at save", arguments: [0, 3])
    func relationshipCounts(items: Int) throws {
        _ = try box("a", items: items)
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.code == .validation)
        #expect(error.message.contains(items == 0 ? "needs at least 1" : "allows at most 2"), "\(error.message)")
    }

    @Test("Counts within the bounds save")
    func relationshipCountsWithinBounds() throws {
        _ = try box("a", items: 2)
        try context.save()
        #expect(try context.count(for: FetchRequest(entityName: "Item")) == 2)
    }

    @Test("A declared index is created and used")
    func indexesAreCreated() throws {
        let request = FetchRequest(entityName: "Box", predicate: try FetchPredicate("label == 'a'"))
        let plan = try context.explain(request).plan.joined(separator: "\n")
        #expect(plan.contains("USING INDEX"), "\(plan)")
    }

    @Test("includesPendingChanges = false fetches and counts only what is saved")
    func withoutPendingChanges() throws {
        let saved = try box("saved", items: 1)
        try context.save()
        _ = try box("unsaved", items: 1)
        saved["label"] = "renamed"
        var request = FetchRequest(entityName: "Box", sortKeys: [SortKey("label")])
        request.includesPendingChanges = false
        let boxes = try context.fetch(request)
        #expect(boxes.count == 1 && boxes[0] === saved)
        #expect(try context.count(for: request) == 1)
        request.predicate = try FetchPredicate("label == 'saved'")
        #expect(try context.fetch(request).count == 1)  // the store still has the old label
        request.includesPendingChanges = true
        #expect(try context.fetch(request).isEmpty)
        #expect(try context.count(for: FetchRequest(entityName: "Box")) == 2)
    }
}

/// Integer attributes hold what their width allows; a larger value fails the save by name.
@MainActor
@Test("A value outside an Int16 or Int32 attribute's range fails validation, naming it")
func integerWidthIsValidated() throws {
    let coordinator = try TestModel.coordinator()
    let context = MainContext(coordinator: coordinator)
    let recipe = try context.insert("Recipe")
    recipe["name"] = "Big"
    recipe[attribute: "servings"] = 70_000  // Int16; the typed accessor does not check the width
    let error = try #require(throws: ObjectGraphError.self) { try context.save() }
    #expect(error.code == .validation)
    #expect(error.message.contains("'servings' is 70000, outside the range of Int16"), "\(error.message)")
    recipe[attribute: "servings"] = 32_767
    try context.save()
}

/// A number attribute's minimum and maximum are checked when an object is saved, and by a
/// batch update; they show in the attribute's description and leave the version hash alone.
@MainActor
@Test("A number outside an attribute's minimum or maximum fails the save, naming the attribute and the bound")
func attributeBoundsAreValidated() throws {
    func model(bounded: Bool) throws -> ObjectModel {
        try ObjectModel(entities: [EntityDescription("Dish", attributes: [
            AttributeDescription("name", .string),
            AttributeDescription("rating", .double, isOptional: true,
                                 minimum: bounded ? 1 : nil, maximum: bounded ? 5 : nil),
            AttributeDescription("servings", .integer64, defaultValue: 1, minimum: bounded ? 1 : nil),
        ])])
    }
    let bounded = try model(bounded: true)
    #expect(bounded.entity(named: "Dish")!.versionHash == (try model(bounded: false)).entity(named: "Dish")!.versionHash)
    #expect(bounded.entity(named: "Dish")!.attribute(named: "rating")!.description == "rating: Double? (1.0 to 5.0)")
    #expect(bounded.entity(named: "Dish")!.attribute(named: "servings")!.description == "servings: Int64 = 1 (at least 1)")

    let coordinator = PersistentStoreCoordinator(model: bounded)
    try coordinator.addStore(at: ":memory:")
    let context = MainContext(coordinator: coordinator)
    let dish = try context.insert("Dish")
    dish["name"] = "Soup"
    dish["rating"] = 9.5
    dish["servings"] = 0
    let error = try #require(throws: ObjectGraphError.self) { try context.save() }
    #expect(error.code == .validation)
    #expect(error.message == "Dish 'Soup': 'rating' is 9.5, above the maximum 5.0; Dish 'Soup': 'servings' is 0, below the minimum 1; nothing was saved")
    dish["rating"] = 5.0
    dish["servings"] = 1
    try context.save()

    // A bound is checked where a value changes: a batch update is refused before it runs.
    let batch = try #require(throws: ObjectGraphError.self) {
        try context.execute(BatchUpdateRequest(entityName: "Dish", propertiesToUpdate: ["rating": 0.5]))
    }
    #expect(batch.message == "'Dish.rating' is 0.5, below the minimum 1.0; nothing was updated")
    #expect(try context.count(for: FetchRequest(entityName: "Dish", predicate: FetchPredicate("rating == 5"))) == 1)
}
