/// Which of a context's fetch methods runs a request: what comes back, and so which SQL.
///
/// Used by ``MainContext/explain(_:resultType:)`` to show the statement each method runs:
/// objects read their rows (or only keys, with ``FetchRequest/fetchBatchSize`` or without
/// ``FetchRequest/includesPropertyValues``), IDs only keys, dictionaries only the
/// ``FetchRequest/propertiesToFetch``, and a count no rows at all.
///
/// ```swift
/// var request = FetchRequest(entityName: "Recipe")
/// request.propertiesToFetch = ["rating"]
/// request.returnsDistinctResults = true
/// print(try context.explain(request, resultType: .dictionaries).sql)
/// // SELECT DISTINCT t0."rating" FROM "Recipe" AS t0
/// ```
public enum FetchResultType: Sendable, Hashable {
    /// ``MainContext/fetch(_:)``: managed objects.
    case objects
    /// ``MainContext/fetchObjectIDs(_:)``: object IDs, no objects.
    case objectIDs
    /// ``MainContext/fetchDictionaries(_:)``: chosen properties as dictionaries.
    case dictionaries
    /// ``MainContext/count(for:)``: a number.
    case count
}
