@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// A small model for the core tests: chefs, recipes, ingredient lines, tags, and an
/// inheritance tree of media (abstract) with photos and videos.
enum TestModel {
    /// The model; the parameters make variants for model-mismatch tests.
    static func make(chefAttributes: [AttributeDescription] = [],
                     linePosition: AttributeType = .integer32) throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Chef",
                attributes: [AttributeDescription("name", .string)] + chefAttributes,
                relationships: [RelationshipDescription("recipes", toMany: "Recipe", inverse: "chef", deleteRule: .deny)],
                uniquenessConstraints: [["name"]]),
            EntityDescription("Recipe",
                attributes: [
                    AttributeDescription("name", .string),
                    AttributeDescription("servings", .integer16, defaultValue: 4),
                    AttributeDescription("rating", .double, isOptional: true),
                    AttributeDescription("published", .date, isOptional: true),
                    AttributeDescription("vegetarian", .boolean, defaultValue: false),
                    AttributeDescription("note", .string, isOptional: true, isTransient: true),
                ],
                relationships: [
                    RelationshipDescription("chef", to: "Chef", inverse: "recipes"),
                    RelationshipDescription("lines", toMany: "Line", inverse: "recipe", deleteRule: .cascade,
                                            orderedBy: "position"),
                    RelationshipDescription("tags", toMany: "Tag", inverse: "recipes"),
                    RelationshipDescription("media", toMany: "Media", inverse: "recipe", deleteRule: .cascade),
                ]),
            EntityDescription("Line",
                attributes: [AttributeDescription("text", .string), AttributeDescription("position", linePosition)],
                relationships: [RelationshipDescription("recipe", to: "Recipe", inverse: "lines", isOptional: false)]),
            EntityDescription("Tag",
                attributes: [AttributeDescription("label", .string)],
                relationships: [RelationshipDescription("recipes", toMany: "Recipe", inverse: "tags")]),
            EntityDescription("Media", isAbstract: true,
                attributes: [AttributeDescription("caption", .string, isOptional: true)],
                relationships: [RelationshipDescription("recipe", to: "Recipe", inverse: "media")]),
            EntityDescription("Photo", parent: "Media",
                attributes: [AttributeDescription("bytes", .binary, isOptional: true)]),
            EntityDescription("Video", parent: "Media",
                attributes: [AttributeDescription("seconds", .double, defaultValue: 0)]),
        ])
    }

    static func coordinator(path: String = ":memory:") throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: try make())
        try coordinator.addStore(at: path)
        return coordinator
    }
}

extension PersistentStoreCoordinator {
    /// The first store, which the core tests always open as a SQLite store.
    var sqliteStore: SQLiteStore { stores[0] as! SQLiteStore }
}
