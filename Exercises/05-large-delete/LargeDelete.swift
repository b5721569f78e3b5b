import ExerciseKit
import ObjectGraph
import RecipeCatalog

/// Exercise 05 · A large delete without faulting (see README.md next to this file).
///
/// This deletes the right recipes, but to keep every relationship's other side up to date
/// it loads each recipe's lines, chef and cuisine one fault at a time. Change it so the
/// delete touches a handful of statements. Check with `recipes exercise check 5`.
public struct RecipeCleanup: RecipeDeleting {
    public init() {}

    public func deleteRecipes(matching predicate: FetchPredicate, in context: isolated PrivateContext) throws {
        let recipes = try context.fetch(FetchRequest(entityName: CatalogModel.recipe, predicate: predicate))
        for recipe in recipes {
            context.delete(recipe)
        }
        try context.save()
    }
}
