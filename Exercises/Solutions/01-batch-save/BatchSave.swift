import ExerciseKit
import ObjectGraph
import RecipeCatalog

/// Reference solution of exercise 01: insert a batch, then save it in one transaction.
public struct BatchSaver: RecipeSaving {
    public init() {}

    public func save(_ records: [RecipeRecord], in context: isolated PrivateContext) throws {
        for (index, record) in records.enumerated() {
            let recipe = try context.insert(CatalogModel.recipe) as! Recipe
            recipe.sourceID = record.sourceID
            recipe.name = record.name
            recipe.course = record.course
            recipe.rating = record.rating
            // One transaction per 500 recipes: the cost of a commit is shared by all of them.
            if (index + 1) % 500 == 0 { try context.save() }
        }
        try context.save()  // the last, partial batch
    }
}
