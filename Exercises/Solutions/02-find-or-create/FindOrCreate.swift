import ExerciseKit
import ObjectGraph
import RecipeCatalog

/// Reference solution of exercise 02: before each batch, one `IN` fetch for the names the
/// cache has not seen; every other lookup is a dictionary hit.
public struct IngredientImporter: RecipeImporting {
    public init() {}

    public func importRecipes(_ records: [RecipeRecord], in context: isolated PrivateContext) throws {
        // The uniquing cache: every ingredient this import has found or created, by name.
        var cache: [String: Ingredient] = [:]
        for start in stride(from: 0, to: records.count, by: 500) {
            let batch = records[start..<min(records.count, start + 500)]
            let missing = Set(batch.flatMap { $0.ingredients.map(\.name) }).filter { cache[$0] == nil }
            if !missing.isEmpty {
                var request = FetchRequest(entityName: CatalogModel.ingredient,
                                           predicate: try FetchPredicate("name IN %@", missing.sorted()))
                request.returnsObjectsAsFaults = false
                for object in try context.fetch(request) {
                    let ingredient = object as! Ingredient
                    cache[ingredient.name] = ingredient
                }
            }
            for record in batch {
                let recipe = try context.insert(CatalogModel.recipe) as! Recipe
                recipe.sourceID = record.sourceID
                recipe.name = record.name
                for (position, item) in record.ingredients.enumerated() {
                    let line = try context.insert(CatalogModel.recipeIngredient) as! RecipeIngredient
                    line.displayOrder = position
                    line.quantity = item.quantity
                    line.unit = item.unit
                    line.recipe = recipe
                    if let known = cache[item.name] {
                        line.ingredient = known
                    } else {
                        // Not in the store and not made yet: create it once, and remember it.
                        let created = try context.insert(CatalogModel.ingredient) as! Ingredient
                        created.name = item.name
                        cache[item.name] = created
                        line.ingredient = created
                    }
                }
            }
            try context.save()
        }
    }
}
