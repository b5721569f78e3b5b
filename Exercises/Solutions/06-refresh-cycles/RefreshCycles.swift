import ExerciseKit
import ObjectGraph
import RecipeCatalog

/// Reference solution of exercise 06: turn each recipe back into a fault once its lines
/// are counted, which lets go of the lines (and their ingredients) it held.
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
            // The recipe holds its lines and each line its recipe: break the cycle now.
            context.refresh(recipe, mergeChanges: false)
        }
        return counts
    }
}
