import ExerciseKit
import ObjectGraph
import RecipeCatalog

/// Reference solution of exercise 06: walk the recipes a page at a time, each page's lines
/// and ingredients prefetched, and turn everything back into faults after each page, which
/// breaks the recipe ↔ line cycles and lets the page go.
public struct UsageCounter: IngredientCounting {
    public init() {}

    /// Recipes a page holds at once, with their lines and ingredients.
    static let pageSize = 200

    public func linesPerIngredient(in context: isolated PrivateContext) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        // IDs hold no objects: the pages are fetched by ID, so none is skipped or seen twice.
        let ids = try context.fetchObjectIDs(FetchRequest(entityName: CatalogModel.recipe))
        for start in stride(from: 0, to: ids.count, by: Self.pageSize) {
            var page = FetchRequest(entityName: CatalogModel.recipe,
                                    predicate: try FetchPredicate("SELF IN %@", Array(ids[start..<min(start + Self.pageSize, ids.count)])))
            page.relationshipKeyPathsForPrefetching = ["ingredients.ingredient"]
            for object in try context.fetch(page) {
                let recipe = object as! Recipe
                for line in recipe.ingredients {
                    if let name = line.ingredient?.name { counts[name, default: 0] += 1 }
                }
            }
            // Recipes hold their lines and lines their recipe: break every cycle of the page.
            // (Refreshing each recipe as soon as it is counted frees memory as well, but the
            // ingredients many recipes share are then loaded again, one statement each.)
            context.refreshAllObjects()
        }
        return counts
    }
}
