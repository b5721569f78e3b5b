public import Foundation
public import ObjectGraph

/// A recipe: its own values, and its chef, cuisine, ingredient lines and photo.
public final class Recipe: ManagedObject {
    /// The recipe's name as written.
    public var name: String { get { self[attribute: "name"] } set { self[attribute: "name"] = newValue } }
    /// The import file's `id`, unique in the catalogue.
    public var sourceID: String { get { self[attribute: "sourceID"] } set { self[attribute: "sourceID"] = newValue } }
    /// How to cook it.
    public var instructions: String? {
        get { self[attribute: "instructions"] } set { self[attribute: "instructions"] = newValue }
    }
    /// starter, main, dessert, …
    public var course: String? { get { self[attribute: "course"] } set { self[attribute: "course"] = newValue } }
    /// Minutes of preparation.
    public var prepMinutes: Int? {
        get { self[attribute: "prepMinutes"] } set { self[attribute: "prepMinutes"] = newValue }
    }
    /// Minutes of cooking.
    public var cookMinutes: Int? {
        get { self[attribute: "cookMinutes"] } set { self[attribute: "cookMinutes"] = newValue }
    }
    /// How many people it serves.
    public var servings: Int? { get { self[attribute: "servings"] } set { self[attribute: "servings"] = newValue } }
    /// 1.0 to 5.0, or nil when unrated.
    public var rating: Double? { get { self[attribute: "rating"] } set { self[attribute: "rating"] = newValue } }
    /// When it was published.
    public var published: Date? { get { self[attribute: "published"] } set { self[attribute: "published"] = newValue } }
    /// Derived (`photo != nil`), as of the last save: whether a photo exists, readable without loading it.
    public var hasPhoto: Bool { self[attribute: "hasPhoto"] }
    /// Derived (`ingredients.@count`), as of the last save: the number of ingredient lines,
    /// readable without firing the relationship.
    public var ingredientCount: Int { self[attribute: "ingredientCount"] }
    /// Who wrote it.
    public var chef: Chef? { get { self[toOne: "chef"] } set { self[toOne: "chef"] = newValue } }
    /// Where it comes from.
    public var cuisine: Cuisine? { get { self[toOne: "cuisine"] } set { self[toOne: "cuisine"] = newValue } }
    /// Its ingredient lines, in display order.
    public var ingredients: [RecipeIngredient] { self[toMany: "ingredients"] }
    /// Its photo, loaded only when asked for.
    public var photo: RecipePhoto? { get { self[toOne: "photo"] } set { self[toOne: "photo"] = newValue } }
}

/// A chef, unique by name.
public final class Chef: ManagedObject {
    /// The chef's name.
    public var name: String { get { self[attribute: "name"] } set { self[attribute: "name"] = newValue } }
    /// The chef's recipes.
    public var recipes: [Recipe] { self[toMany: "recipes"] }
}

/// A cuisine, unique by name.
public final class Cuisine: ManagedObject {
    /// The cuisine's name.
    public var name: String { get { self[attribute: "name"] } set { self[attribute: "name"] = newValue } }
    /// Its recipes.
    public var recipes: [Recipe] { self[toMany: "recipes"] }
}

/// A food from the ingredient catalogue, unique by name, with nutrients per 100 g.
public final class Ingredient: ManagedObject {
    /// The common name.
    public var name: String { get { self[attribute: "name"] } set { self[attribute: "name"] = newValue } }
    /// The USDA food group.
    public var foodGroup: String? { get { self[attribute: "foodGroup"] } set { self[attribute: "foodGroup"] = newValue } }
    /// Energy per 100 g.
    public var kcal: Double? { get { self[attribute: "kcal"] } set { self[attribute: "kcal"] = newValue } }
    /// The recipe lines that use it.
    public var recipes: [RecipeIngredient] { self[toMany: "recipes"] }
}

/// One line of a recipe: how much of which ingredient.
public final class RecipeIngredient: ManagedObject {
    /// The amount, when given.
    public var quantity: Double? { get { self[attribute: "quantity"] } set { self[attribute: "quantity"] = newValue } }
    /// The unit, when given.
    public var unit: String? { get { self[attribute: "unit"] } set { self[attribute: "unit"] = newValue } }
    /// The line's position in the recipe, from 0.
    public var displayOrder: Int {
        get { self[attribute: "displayOrder"] } set { self[attribute: "displayOrder"] = newValue }
    }
    /// The recipe.
    public var recipe: Recipe? { get { self[toOne: "recipe"] } set { self[toOne: "recipe"] = newValue } }
    /// The ingredient.
    public var ingredient: Ingredient? { get { self[toOne: "ingredient"] } set { self[toOne: "ingredient"] = newValue } }
}

/// A recipe's image, kept apart so listing recipes never loads image bytes.
public final class RecipePhoto: ManagedObject {
    /// The image bytes.
    public var data: Data { get { self[attribute: "data"] } set { self[attribute: "data"] = newValue } }
    /// The recipe.
    public var recipe: Recipe? { get { self[toOne: "recipe"] } set { self[toOne: "recipe"] = newValue } }
}
