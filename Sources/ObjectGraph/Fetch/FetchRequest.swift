/// A description of the objects to fetch: an entity, a filter, an order and a window.
///
/// ```swift
/// var request = FetchRequest(entityName: "Recipe")
/// request.sortKeys = [SortKey("name")]
/// request.fetchLimit = 20
/// let recipes = try context.fetch(request)
/// ```
public struct FetchRequest: Sendable {
    /// The entity to fetch.
    public var entityName: String
    /// Which objects to fetch; all of them when nil.
    public var predicate: FetchPredicate?
    /// The order of the results; unspecified (store order) when empty.
    public var sortKeys: [SortKey] = []
    /// The most objects to return; 0 means no limit. A negative limit is an error.
    public var fetchLimit: Int = 0
    /// How many matching objects to skip first. A negative offset is an error.
    public var fetchOffset: Int = 0
    /// Whether objects of sub-entities are included.
    public var includesSubentities: Bool = true
    /// Whether objects come back as faults that hold the values the fetch read until they
    /// are touched (the default), or fully populated in the same query.
    public var returnsObjectsAsFaults: Bool = true
    /// Whether unsaved inserts, updates and deletes of the context are taken into account:
    /// changed objects of the entity are matched in memory, and so are unchanged ones whose
    /// predicate reads a changed object through a relationship (`ANY ingredients.quantity > 2`
    /// after a line's quantity changed).
    public var includesPendingChanges: Bool = true
    /// Whether objects come back with their values (the default). With `false` only their
    /// IDs are read; each object's values load, with one query, when it first fires.
    public var includesPropertyValues: Bool = true
    /// Relationship key paths (`chef`, `ingredients`, `ingredients.ingredient`) whose
    /// destinations are fetched along with the results: one extra query per key path,
    /// never one per object.
    public var relationshipKeyPathsForPrefetching: [String] = []
    /// When positive, the fetch reads only IDs up front and returned objects load their
    /// values this many at a time, one query per batch, as they are first touched.
    ///
    /// - Complexity: one `SELECT` of row IDs, then one `SELECT` per batch touched.
    public var fetchBatchSize: Int = 0
    /// For ``MainContext/fetchDictionaries(_:)``: the attributes (or to-one key paths such
    /// as `chef.name`) to read; every stored attribute when empty. An entry may also be an
    /// aggregate over the matching rows, or over each group of ``propertiesToGroupBy``:
    /// `@count` (rows), `@count.KEY` (rows where KEY is not nil), `@sum.KEY` and `@avg.KEY`
    /// (numbers), `@min.KEY` and `@max.KEY` (numbers, dates, text). Each entry is its
    /// dictionary's key.
    public var propertiesToFetch: [String] = []
    /// For ``MainContext/fetchDictionaries(_:)``: the key paths whose values form groups,
    /// one dictionary per group, as SQL's `GROUP BY` (Core Data's `propertiesToGroupBy`).
    /// Every entry of ``propertiesToFetch`` that is not an aggregate must be one of them, and
    /// so must every sort key; groups that tie on the sort keys (all of them, without) come in
    /// the order of these keys.
    ///
    /// ```swift
    /// var request = FetchRequest(entityName: "Recipe")
    /// request.propertiesToFetch = ["cuisine.name", "@count", "@avg.rating"]
    /// request.propertiesToGroupBy = ["cuisine.name"]
    /// let perCuisine = try context.fetchDictionaries(request)  // no Recipe object is made
    /// ```
    public var propertiesToGroupBy: [String] = []
    /// For ``MainContext/fetchDictionaries(_:)``: whether equal rows are returned once.
    public var returnsDistinctResults: Bool = false
    /// Whether `[cd]` comparisons on attributes with a canonical shadow attribute are answered
    /// from the shadow (see ``AttributeDescription/Derivation/canonical(_:)``). Switch it off to
    /// measure what the shadow saves.
    public var usesCanonicalShadows: Bool = true

    /// Creates a request for the objects of an entity that match `predicate`.
    public init(entityName: String, predicate: FetchPredicate? = nil, sortKeys: [SortKey] = []) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortKeys = sortKeys
    }
}
