import ExerciseKit
import ObjectGraph

/// Exercise 04 · A canonical shadow attribute for search (see README.md next to this file).
///
/// This finds the right recipes, but SQLite folds the case and accents of every name in
/// the table for every search. Change the model (and, if you like, the request) so a
/// search reads an index. Check with `recipes exercise check 4`.
public struct RecipeSearch: NameSearching {
    public init() {}

    public func makeModel() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Recipe", attributes: [
                AttributeDescription("name", .string, isIndexed: true),
            ]),
        ])
    }

    public func searchRequest(prefix: String) throws -> FetchRequest {
        FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name BEGINSWITH[cd] %@", prefix))
    }
}
