/// The objects matching a fetch, each made only when it is read: what
/// ``MainContext/fetchLazily(_:)`` returns.
///
/// The fetch reads the matching IDs in one statement and makes no object. Reading an
/// element makes its object, registered in the context like any other (the same object
/// as a fetch or a relationship gives for that ID).
///
/// - With a ``FetchRequest/fetchBatchSize``, reading an element makes its whole batch, loads
///   the values of those still faults in one statement, and prefetches the request's
///   ``FetchRequest/relationshipKeyPathsForPrefetching`` for them. The collection keeps the
///   objects of the last batch it loaded alive and no others, so walking half a million
///   results holds one batch at a time (plus what the caller keeps, and every changed
///   object, which the context keeps).
/// - Without one, each element is a fault that reads its own row when a property is first
///   read, and nothing is prefetched.
///
/// ```swift
/// var request = FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")])
/// request.fetchBatchSize = 50
/// let recipes = try context.fetchLazily(request)
/// print(recipes.count)                     // no object made yet
/// for recipe in recipes.prefix(10) {       // one statement for the first 50
///     print(recipe["name"] as? String ?? "")
/// }
/// ```
///
/// Unsaved changes count as in ``MainContext/fetch(_:)``; when there are some that the
/// fetch has to match in memory, the objects are made up front (as faults) and only their
/// values wait. The collection belongs to its context's queue, like the objects it makes.
/// Like an array of fetched objects, it does not follow later changes: fetch again after a
/// save elsewhere, a `rollback()` or a `reset()`.
public struct FetchResultsCollection: RandomAccessCollection {
    private let results: LazyResults

    init(_ results: LazyResults) { self.results = results }

    /// The position of the first element: 0.
    public var startIndex: Int { 0 }
    /// The number of matching objects: the position after the last one.
    public var endIndex: Int { results.ids.count }

    /// The object at `position`, made (and its batch loaded) if it was not yet.
    public subscript(position: Int) -> ManagedObject { results.object(at: position) }

    /// The IDs of the matching objects, in the fetch's order (temporary ones for unsaved
    /// inserts).
    public var objectIDs: [ObjectID] { results.ids }
}

/// The state behind a ``FetchResultsCollection``: the IDs, and the batch kept alive.
final class LazyResults {
    let ids: [ObjectID]
    private let core: ContextCore
    /// The objects made up front when unsaved changes had to be matched; nil otherwise.
    private let made: [ManagedObject]?
    private let entity: EntityDescription
    private let batchSize: Int
    private let loadsValues: Bool
    private let prefetching: [String]
    /// The last batch loaded: its number and its objects.
    private var batch: (number: Int, objects: [ManagedObject]) = (-1, [])

    init(core: ContextCore, keys: ContextCore.MatchingKeys, request: FetchRequest) {
        self.core = core
        switch keys {
        case .ids(let ids, let entity):
            (self.ids, made, self.entity) = (ids, nil, entity)
        case .objects(let objects, let entity):
            (ids, made, self.entity) = (objects.map(\.objectID), objects, entity)
        }
        batchSize = request.fetchBatchSize
        loadsValues = request.includesPropertyValues
        prefetching = request.relationshipKeyPathsForPrefetching
    }

    func object(at position: Int) -> ManagedObject {
        precondition(ids.indices.contains(position), "index \(position) is outside the results 0..<\(ids.count)")
        guard batchSize > 0 else { return made?[position] ?? core.object(for: ids[position]) }
        let number = position / batchSize
        if batch.number != number {
            let range = number * batchSize..<min(ids.count, (number + 1) * batchSize)
            let objects = made.map { Array($0[range]) } ?? core.objects(for: ids[range])
            if loadsValues { core.loadBatch(objects, prefetching: prefetching, entity: entity) }
            batch = (number, objects)
        }
        return batch.objects[position - number * batchSize]
    }
}
