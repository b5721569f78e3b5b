public import ObjectGraph

extension CatalogModel {
    /// The catalogue model's versions, oldest first; the last is ``make()``'s.
    public static let versionCount = 2

    /// Version 1 of the catalogue model: a recipe's chef and cuisine are plain strings on
    /// `Recipe`, and there are no `Chef` or `Cuisine` entities. Every other entity is as in
    /// the current version. Its objects are plain ``ObjectGraph/ManagedObject``s.
    public static func makeVersion1() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(recipe,
                attributes: [
                    AttributeDescription("name", .string),
                    AttributeDescription("nameCanonical", .string, derivedFrom: "canonical:(name)"),
                    AttributeDescription("sourceID", .string),
                    AttributeDescription("chef", .string, isOptional: true),
                    AttributeDescription("cuisine", .string, isOptional: true),
                    AttributeDescription("instructions", .string, isOptional: true),
                    AttributeDescription("course", .string, isOptional: true, isIndexed: true),
                    AttributeDescription("prepMinutes", .integer32, isOptional: true),
                    AttributeDescription("cookMinutes", .integer32, isOptional: true),
                    AttributeDescription("servings", .integer32, isOptional: true),
                    AttributeDescription("rating", .double, isOptional: true, isIndexed: true),
                    AttributeDescription("published", .date, isOptional: true),
                    AttributeDescription("hasPhoto", .boolean, derivedFrom: "photo != nil"),
                    AttributeDescription("ingredientCount", .integer32, derivedFrom: "ingredients.@count"),
                ],
                relationships: [
                    RelationshipDescription("ingredients", toMany: recipeIngredient, inverse: "recipe",
                                            deleteRule: .cascade, orderedBy: "displayOrder"),
                    RelationshipDescription("photo", to: recipePhoto, inverse: "recipe", deleteRule: .cascade),
                ],
                uniquenessConstraints: [["sourceID"]]),
            EntityDescription(ingredient,
                attributes: [
                    AttributeDescription("name", .string),
                    AttributeDescription("foodGroup", .string, isOptional: true),
                    AttributeDescription("usdaNumber", .string, isOptional: true),
                    AttributeDescription("kcal", .double, isOptional: true),
                    AttributeDescription("proteinG", .double, isOptional: true),
                    AttributeDescription("fatG", .double, isOptional: true),
                    AttributeDescription("carbohydrateG", .double, isOptional: true),
                    AttributeDescription("fiberG", .double, isOptional: true),
                    AttributeDescription("sugarG", .double, isOptional: true),
                    AttributeDescription("sodiumMg", .double, isOptional: true),
                ],
                relationships: [RelationshipDescription("recipes", toMany: recipeIngredient, inverse: "ingredient",
                                                        deleteRule: .deny)],
                uniquenessConstraints: [["name"]]),
            EntityDescription(recipeIngredient,
                attributes: [
                    AttributeDescription("quantity", .double, isOptional: true),
                    AttributeDescription("unit", .string, isOptional: true),
                    AttributeDescription("displayOrder", .integer32, defaultValue: 0),
                ],
                relationships: [
                    RelationshipDescription("recipe", to: recipe, inverse: "ingredients", isOptional: false),
                    RelationshipDescription("ingredient", to: ingredient, inverse: "recipes", isOptional: false),
                ]),
            EntityDescription(recipePhoto,
                attributes: [AttributeDescription("data", .binary)],
                relationships: [RelationshipDescription("recipe", to: recipe, inverse: "photo", isOptional: false)]),
        ])
    }
}
