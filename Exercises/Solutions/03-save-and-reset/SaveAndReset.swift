import ExerciseKit
import ObjectGraph
import RecipeCatalog

/// Reference solution of exercise 03: save and reset after every batch, and keep object
/// IDs (not objects) across the resets.
public struct BatchImporter: RecipeImporting {
    public init() {}

    public func importRecipes(_ records: [RecipeRecord], in context: isolated PrivateContext) throws {
        // IDs outlive a reset; the objects themselves do not belong to the context after it.
        var ingredientIDs: [String: ObjectID] = [:]
        var request = FetchRequest(entityName: CatalogModel.ingredient)
        request.returnsObjectsAsFaults = false
        for object in try context.fetch(request) {
            ingredientIDs[(object as! Ingredient).name] = object.objectID
        }
        context.reset()
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
                    line.ingredient = ingredientIDs[item.name].map { context.object(with: $0) as! Ingredient }
                }
            }
            try context.save()
            // The batch is in the store: let go of its objects (and the cycles between them).
            context.reset()
        }
    }
}
