import ExerciseKit
import ObjectGraph
import RecipeCatalog

/// Exercise 01 · Batch saves (see README.md next to this file).
///
/// This works, but it is slow: change it so the 2,000 recipes reach the store in a
/// handful of transactions. Check with `recipes exercise check 1`.
public struct BatchSaver: RecipeSaving {
    public init() {}

    public func save(_ records: [RecipeRecord], in context: isolated PrivateContext) throws {
        for record in records {
            let recipe = try context.insert(CatalogModel.recipe) as! Recipe
            recipe.sourceID = record.sourceID
            recipe.name = record.name
            recipe.course = record.course
            recipe.rating = record.rating
            try context.save()
        }
    }
}
