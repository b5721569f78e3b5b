import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// The values batch requests write, on the SQLite, in-memory and XML stores: nil, and the
/// derived attributes a batch insert fills in as an inserted object has them.
@MainActor
struct BatchRequestValueTests {
    private let scratch: ScratchDirectory

    init() throws { scratch = try ScratchDirectory("og-batch-values") }

    /// A context on each kind of store, with `model`.
    func contexts(_ model: ObjectModel) throws -> [MainContext] {
        try [PersistentStoreType?.none, .memory, .xml].enumerated().map { index, type in
            let coordinator = PersistentStoreCoordinator(model: model)
            let path = scratch.url.appendingPathComponent("store\(index)").path
            if let type { try coordinator.addStore(type: type, at: path) } else { try coordinator.addStore(at: path) }
            return MainContext(coordinator: coordinator)
        }
    }

    @Test("A batch update sets an optional attribute to a nil Optional; a required one says it is required")
    func nilValues() throws {
        for context in try contexts(try TestModel.make()) {
            let soup = try context.insert("Recipe")
            soup["name"] = "Soup"
            soup["rating"] = 3.0
            try context.save()
            let rating: Double? = nil
            let result = try context.execute(BatchUpdateRequest(entityName: "Recipe", propertiesToUpdate: ["rating": rating as any Sendable]))
            #expect(result.updatedIDs == [soup.objectID])
            #expect(soup["rating"] == nil)
            #expect(try context.count(for: FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("rating == nil"))) == 1)
            let name: String? = nil
            let error = try #require(throws: ObjectGraphError.self) {
                try context.execute(BatchUpdateRequest(entityName: "Recipe", propertiesToUpdate: ["name": name as any Sendable]))
            }
            #expect(error.code == .validation)
            #expect(error.message == "'Recipe.name' is required: a batch update cannot set it to nil; nothing was updated")
            #expect(soup["name"] as? String == "Soup")
            let inserted = try context.execute(BatchInsertRequest(entityName: "Recipe", objects: [["name": "Stew", "rating": rating as any Sendable]]))
            #expect(context.object(with: inserted.insertedIDs[0])["rating"] == nil)
        }
    }

    @Test("A batch insert refuses a derived key, and derives shadows of defaults and counts of no related rows")
    func derivedAttributes() throws {
        let model = try TestModel.make(chefAttributes: [
            AttributeDescription("recipeCount", .integer32, derivedFrom: "recipes.@count"),
            AttributeDescription("title", .string, defaultValue: "Chéf"),
            AttributeDescription("titleCanonical", .string, derivedFrom: "canonical:(title)"),
        ])
        for context in try contexts(model) {
            let error = try #require(throws: ObjectGraphError.self) {
                try context.execute(BatchInsertRequest(entityName: "Chef", objects: [["name": "Ana", "titleCanonical": "junk"]]))
            }
            #expect(error.message == "'Chef.titleCanonical' is derived (canonical:(title)) and computed by the framework; change 'title' instead")
            #expect(throws: ObjectGraphError.self) {
                try context.execute(BatchInsertRequest(entityName: "Chef", objects: [["name": "Ana", "recipeCount": 9]]))
            }
            #expect(try context.count(for: FetchRequest(entityName: "Chef")) == 0)
            try context.execute(BatchInsertRequest(entityName: "Chef", objects: [["name": "Ana"]]))
            let inserted = try context.insert("Chef")
            inserted["name"] = "Bo"
            try context.save()
            // The batch-inserted row and the saved object alike.
            for predicate in ["title ==[cd] 'chef'", "title BEGINSWITH[cd] 'che'", "recipeCount == 0"] {
                #expect(try context.count(for: FetchRequest(entityName: "Chef", predicate: try FetchPredicate(predicate))) == 2,
                        "\(predicate)")
            }
        }
    }

    @Test("A batch insert or update that repeats a unique value says so alike on every store, and writes nothing")
    func uniqueness() throws {
        for context in try contexts(try TestModel.make()) {
            try context.execute(BatchInsertRequest(entityName: "Chef", objects: [["name": "Ana"], ["name": "Bo"]]))
            for (rows, message) in [
                ([["name": "Cy"], ["name": "Cy"]], "cannot insert Chef: row 2: another Chef already has name = Cy; nothing was inserted"),
                ([["name": "Di"], ["name": "Bo"]], "cannot insert Chef: row 2: another Chef already has name = Bo; nothing was inserted"),
            ] {
                let error = try #require(throws: ObjectGraphError.self) {
                    try context.execute(BatchInsertRequest(entityName: "Chef", objects: rows))
                }
                #expect(error.code == .constraintViolation)
                #expect(error.message == message)
            }
            let error = try #require(throws: ObjectGraphError.self) {
                try context.execute(BatchUpdateRequest(entityName: "Chef", propertiesToUpdate: ["name": "Same"]))
            }
            #expect(error.message == "cannot update Chef: another Chef would have name = Same too, and it is unique; nothing was updated")
            let names = try context.fetch(FetchRequest(entityName: "Chef", sortKeys: [SortKey("name")])).map { $0["name"] as? String }
            #expect(names == ["Ana", "Bo"])
        }
    }

    @Test("A batch request's value of the wrong type, or a missing required one, names the entity and writes nothing")
    func wrongValues() throws {
        for context in try contexts(try TestModel.make()) {
            func message(_ attempt: () throws -> Void) throws -> String {
                try #require(throws: ObjectGraphError.self) { try attempt() }.message
            }
            #expect(try message { try context.execute(BatchInsertRequest(entityName: "Recipe", objects: [["name": "A"], ["name": 3]])) }
                    == "row 2: 3 is not a String for 'Recipe.name'; nothing was inserted")
            #expect(try message { try context.execute(BatchInsertRequest(entityName: "Recipe", objects: [["servings": 2]])) }
                    == "row 1: required attribute 'Recipe.name' is missing; nothing was inserted")
            #expect(try message { try context.execute(BatchUpdateRequest(entityName: "Recipe", propertiesToUpdate: ["servings": "four"])) }
                    == "four is not an Int16 for 'Recipe.servings'; nothing was updated")
            #expect(try context.count(for: FetchRequest(entityName: "Recipe")) == 0)
            // No values: a SQL syntax error on SQLite, every matching row's version bumped elsewhere.
            try context.execute(BatchInsertRequest(entityName: "Recipe", objects: [["name": "A"]]))
            #expect(try message { try context.execute(BatchUpdateRequest(entityName: "Recipe", propertiesToUpdate: [:])) }
                    == "a batch update of 'Recipe' needs a value to set in propertiesToUpdate; nothing was updated")
        }
    }

    @Test("A batch insert and a batch update check a number attribute's minimum and maximum, and write nothing past one")
    func bounds() throws {
        let model = try ObjectModel(entities: [EntityDescription("Dish", attributes: [
            AttributeDescription("name", .string),
            AttributeDescription("rating", .double, isOptional: true, minimum: 1, maximum: 5),
        ])])
        for context in try contexts(model) {
            let insert = try #require(throws: ObjectGraphError.self) {
                try context.execute(BatchInsertRequest(entityName: "Dish", objects: [["name": "A", "rating": 5.0], ["name": "B", "rating": 0.5]]))
            }
            #expect(insert.code == .validation)
            #expect(insert.message == "row 2: 'Dish.rating' is 0.5, below the minimum 1.0; nothing was inserted")
            #expect(try context.count(for: FetchRequest(entityName: "Dish")) == 0)
            try context.execute(BatchInsertRequest(entityName: "Dish", objects: [["name": "A", "rating": 5.0]]))
            let update = try #require(throws: ObjectGraphError.self) {
                try context.execute(BatchUpdateRequest(entityName: "Dish", propertiesToUpdate: ["rating": 5.5]))
            }
            #expect(update.message == "'Dish.rating' is 5.5, above the maximum 5.0; nothing was updated")
            #expect(try context.count(for: FetchRequest(entityName: "Dish", predicate: FetchPredicate("rating == 5"))) == 1)
        }
    }

    @Test("A batch insert of an entity with a required relationship is refused as a save would refuse it, on every store",
          arguments: StoreKind.allCases)
    func requiredRelationships(kind: StoreKind) throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Recipe", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("lines", toMany: "Line", inverse: "recipe", minCount: 1),
            ]),
            EntityDescription("Line", attributes: [AttributeDescription("text", .string)], relationships: [
                RelationshipDescription("recipe", to: "Recipe", inverse: "lines", isOptional: false),
            ]),
        ])
        let coordinator = PersistentStoreCoordinator(model: model)
        try kind.addStore(to: coordinator)
        defer { StoreKind.removeFiles(of: coordinator) }
        let context = MainContext(coordinator: coordinator)
        func refusal(_ entity: String, _ rows: [[String: any Sendable]]) throws -> ObjectGraphError {
            try #require(throws: ObjectGraphError.self, "\(kind)") {
                try context.execute(BatchInsertRequest(entityName: entity, objects: rows))
            }
        }
        let line = try refusal("Line", [["text": "1 egg"], ["text": "salt"]])
        #expect(line.code == .validation, "\(kind)")
        #expect(line.message == "row 1: required relationship 'Line.recipe' is nil: a batch insert sets attributes only, "
            + "so insert Line objects through a context; nothing was inserted", "\(kind)")
        let recipe = try refusal("Recipe", [["name": "Soup"]])
        #expect(recipe.code == .validation, "\(kind)")
        #expect(recipe.message == "row 1: 'Recipe.lines' needs at least 1 objects, has 0: a batch insert sets attributes only, "
            + "so insert Recipe objects through a context; nothing was inserted", "\(kind)")
        // A row's own mistakes come first, with its index; a relationship key is named as one.
        #expect(try refusal("Line", [["text": 3]]).message == "row 1: 3 is not a String for 'Line.text'; nothing was inserted")
        #expect(try refusal("Line", [["text": "b", "recipe": "Soup"]]).message
                == "row 1: 'Line.recipe' is a relationship: a batch insert sets attributes only; set it through a context; "
                + "nothing was inserted")
        // The save of an object without them says the same of the relationships.
        try context.insert("Line")["text"] = "pepper"
        let saved = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(saved.code == .validation && saved.message.contains("required relationship 'recipe' is nil"), "\(saved.message)")
        context.rollback()
        #expect(try context.count(for: FetchRequest(entityName: "Line")) == 0, "\(kind)")
        #expect(try context.count(for: FetchRequest(entityName: "Recipe")) == 0, "\(kind)")
    }

    @Test("A batch update keeps a sub-entity's shadow in step; a search of the parent entity folds instead of using it")
    func subEntityShadow() throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Media", isAbstract: true, attributes: [AttributeDescription("caption", .string, isOptional: true)]),
            EntityDescription("Photo", parent: "Media",
                              attributes: [AttributeDescription("captionCanonical", .string, derivedFrom: "canonical:(caption)")]),
            EntityDescription("Video", parent: "Media", attributes: [AttributeDescription("seconds", .double, defaultValue: 0)]),
        ])
        for context in try contexts(model) {
            try context.execute(BatchInsertRequest(entityName: "Photo", objects: [["caption": "Crème"]]))
            try context.execute(BatchInsertRequest(entityName: "Video", objects: [["caption": "Crème"]]))
            try context.execute(BatchUpdateRequest(entityName: "Media", propertiesToUpdate: ["caption": "Brûlée"]))
            func count(_ entity: String, _ predicate: String) throws -> Int {
                try context.count(for: FetchRequest(entityName: entity, predicate: try FetchPredicate(predicate)))
            }
            #expect(try count("Photo", "captionCanonical == 'brulee'") == 1)
            #expect(try count("Photo", "caption ==[cd] 'BRULEE'") == 1)
            // Media has no captionCanonical: the fetch used to rewrite onto it and throw 'unknown key'.
            #expect(try count("Media", "caption ==[cd] 'BRULEE'") == 2)
            #expect(try count("Media", "caption BEGINSWITH[cd] 'bru'") == 2)
        }
    }
}
