import ExerciseKit
import ObjectGraph
import RecipeCatalog

/// Exercise 03 · Save and reset during an import (see README.md next to this file).
///
/// This works and saves in batches, but every object it ever made stays in memory until
/// the end. Change it so memory holds about one batch at a time. Check with
/// `recipes exercise check 3`.
public struct BatchImporter: RecipeImporting {
    public init() {}

    public func importRecipes(_ records: [RecipeRecord], in context: isolated PrivateContext) throws {
        // Every ingredient is in the store already: load them all once.
        var ingredients: [String: Ingredient] = [:]
        for object in try context.fetch(FetchRequest(entityName: CatalogModel.ingredient)) {
            let ingredient = object as! Ingredient
            ingredients[ingredient.name] = ingredient
        }
        for start in stride(from: 0, to: records.count, by: 500) {
            for record in records[start..<min(records.count, start + 500)] {
                let recipe = try context.insert(CatalogModel.recipe) as! Recipe
                recipe.sourceID = record.sourceID
                recipe.name = record.name
                for (position, item) in record.ingredients.enumerated() {
                    let line = try context.insert(CatalogModel.recipeIngredient) as! RecipeIngredient
                    line.displayOrder = position
                    line.quantity = item.quantity
                    line.unit = item.unit
                    line.recipe = recipe
                    line.ingredient = ingredients[item.name]
                }
            }
            try context.save()
        }
    }
}
