import ExerciseKit
import ObjectGraph
import RecipeCatalog

/// Reference solution of exercise 05: a batch delete runs in the store, applying the delete
/// rules (cascade to the lines, nullify on chefs and cuisines) in SQL, with no objects.
public struct RecipeCleanup: RecipeDeleting {
    public init() {}

    public func deleteRecipes(matching predicate: FetchPredicate, in context: isolated PrivateContext) throws {
        // Committed when it returns; the context forgets the deleted objects it held.
        try context.execute(BatchDeleteRequest(entityName: CatalogModel.recipe, predicate: predicate))
    }
}
