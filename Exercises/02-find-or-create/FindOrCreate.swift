import ExerciseKit
import ObjectGraph
import RecipeCatalog

/// Exercise 02 · Find-or-create with a uniquing cache (see README.md next to this file).
///
/// This works, but it asks the store about an ingredient once for every ingredient line.
/// Change it so a batch of recipes costs one lookup. Check with `recipes exercise check 2`.
public struct IngredientImporter: RecipeImporting {
    public init() {}

    public func importRecipes(_ records: [RecipeRecord], in context: isolated PrivateContext) throws {
        for (index, record) in records.enumerated() {
            let recipe = try context.insert(CatalogModel.recipe) as! Recipe
            recipe.sourceID = record.sourceID
            recipe.name = record.name
            for (position, item) in record.ingredients.enumerated() {
                let line = try context.insert(CatalogModel.recipeIngredient) as! RecipeIngredient
                line.displayOrder = position
                line.quantity = item.quantity
                line.unit = item.unit
                line.recipe = recipe
                line.ingredient = try findOrCreateIngredient(named: item.name, in: context)
            }
            if (index + 1) % 100 == 0 { try context.save() }
        }
        try context.save()
    }

    /// The ingredient called `name`: fetched from the store (or this context's unsaved
    /// objects), or created.
    func findOrCreateIngredient(named name: String, in context: isolated PrivateContext) throws -> Ingredient {
        var request = FetchRequest(entityName: CatalogModel.ingredient, predicate: try FetchPredicate("name == %@", name))
        request.fetchLimit = 1
        if let found = try context.fetch(request).first { return found as! Ingredient }
        let ingredient = try context.insert(CatalogModel.ingredient) as! Ingredient
        ingredient.name = name
        return ingredient
    }
}
