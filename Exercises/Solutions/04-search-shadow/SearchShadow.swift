import ExerciseKit
import ObjectGraph

/// Reference solution of exercise 04: a derived, canonical copy of the name, which the
/// framework keeps folded and indexed; `[cd]` comparisons on `name` are answered from it.
public struct RecipeSearch: NameSearching {
    public init() {}

    public func makeModel() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Recipe", attributes: [
                AttributeDescription("name", .string, isIndexed: true),
                // Folded on every write of `name`; indexed because it is canonical.
                AttributeDescription("nameCanonical", .string, derivedFrom: "canonical:(name)"),
            ]),
        ])
    }

    public func searchRequest(prefix: String) throws -> FetchRequest {
        // Unchanged: with the shadow in the model this becomes a range on `nameCanonical`.
        FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name BEGINSWITH[cd] %@", prefix))
    }
}
