import ExerciseKit
import ObjectGraph
import RecipeCatalog

/// Exercise 06 · Refresh to break retain cycles (see README.md next to this file).
///
/// This counts correctly, but every recipe and line it walks stays in memory, even after
/// it returns. Change it so the walk holds little at once and leaves nothing behind.
/// Check with `recipes exercise check 6`.
public struct UsageCounter: IngredientCounting {
    public init() {}

    public func linesPerIngredient(in context: isolated PrivateContext) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        let recipes = try context.fetch(FetchRequest(entityName: CatalogModel.recipe))
        for object in recipes {
            let recipe = object as! Recipe
            for line in recipe.ingredients {
                if let name = line.ingredient?.name { counts[name, default: 0] += 1 }
            }
        }
        return counts
    }
}
