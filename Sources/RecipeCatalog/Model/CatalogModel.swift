public import ObjectGraph

/// The recipe catalogue's model: normalized, with big blobs at the far end of a to-one
/// relationship and a few denormalized values that save faulting.
///
/// - `Recipe` → `Chef`, `Cuisine` (to-one, nullify: deleting a chef keeps the recipes),
///   `ingredients` ->> `RecipeIngredient` (cascade, ordered by `displayOrder`),
///   `photo` → `RecipePhoto` (cascade).
/// - `Ingredient` ->> `RecipeIngredient` (deny: an ingredient in use cannot be deleted).
/// - Denormalized on `Recipe`, as derived attributes the framework keeps up to date:
///   `hasPhoto` (`photo != nil`: listing recipes with photos never touches the photo table),
///   `ingredientCount` (`ingredients.@count`: a recipe's size without firing the to-many
///   fault), `nameCanonical` (`canonical:(name)`: the folded name, indexed, for search).
public enum CatalogModel {
    /// Entity names, as tests, tutorials and scripts use them.
    public static let recipe = "Recipe", chef = "Chef", cuisine = "Cuisine", ingredient = "Ingredient"
    /// Entity names of a recipe's lines and photo.
    public static let recipeIngredient = "RecipeIngredient", recipePhoto = "RecipePhoto"

    /// Builds the model.
    public static func make() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(recipe, objectClass: Recipe.self,
                attributes: [
                    AttributeDescription("name", .string),
                    AttributeDescription("nameCanonical", .string, derivedFrom: "canonical:(name)"),
                    AttributeDescription("sourceID", .string),
                    AttributeDescription("instructions", .string, isOptional: true),
                    AttributeDescription("course", .string, isOptional: true, isIndexed: true),
                    AttributeDescription("prepMinutes", .integer32, isOptional: true, minimum: 0),
                    AttributeDescription("cookMinutes", .integer32, isOptional: true, minimum: 0),
                    AttributeDescription("servings", .integer32, isOptional: true, minimum: 1),
                    AttributeDescription("rating", .double, isOptional: true, isIndexed: true, minimum: 1, maximum: 5),
                    AttributeDescription("published", .date, isOptional: true),
                    AttributeDescription("hasPhoto", .boolean, derivedFrom: "photo != nil"),
                    AttributeDescription("ingredientCount", .integer32, derivedFrom: "ingredients.@count"),
                ],
                relationships: [
                    RelationshipDescription("chef", to: chef, inverse: "recipes"),
                    RelationshipDescription("cuisine", to: cuisine, inverse: "recipes"),
                    RelationshipDescription("ingredients", toMany: recipeIngredient, inverse: "recipe",
                                            deleteRule: .cascade, orderedBy: "displayOrder"),
                    RelationshipDescription("photo", to: recipePhoto, inverse: "recipe", deleteRule: .cascade),
                ],
                uniquenessConstraints: [["sourceID"]]),
            EntityDescription(chef, objectClass: Chef.self,
                attributes: [AttributeDescription("name", .string)],
                relationships: [RelationshipDescription("recipes", toMany: recipe, inverse: "chef")],
                uniquenessConstraints: [["name"]]),
            EntityDescription(cuisine, objectClass: Cuisine.self,
                attributes: [AttributeDescription("name", .string)],
                relationships: [RelationshipDescription("recipes", toMany: recipe, inverse: "cuisine")],
                uniquenessConstraints: [["name"]]),
            EntityDescription(ingredient, objectClass: Ingredient.self,
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
            EntityDescription(recipeIngredient, objectClass: RecipeIngredient.self,
                attributes: [
                    AttributeDescription("quantity", .double, isOptional: true, minimum: 0),
                    AttributeDescription("unit", .string, isOptional: true),
                    AttributeDescription("displayOrder", .integer32, defaultValue: 0),
                ],
                relationships: [
                    RelationshipDescription("recipe", to: recipe, inverse: "ingredients", isOptional: false),
                    RelationshipDescription("ingredient", to: ingredient, inverse: "recipes", isOptional: false),
                ]),
            EntityDescription(recipePhoto, objectClass: RecipePhoto.self,
                attributes: [AttributeDescription("data", .binary)],
                relationships: [RelationshipDescription("recipe", to: recipe, inverse: "photo", isOptional: false)]),
        ])
    }
}
