/// Inserts rows straight into the store, without creating objects: the fastest way to load
/// many plain rows (attributes only; relationships are set afterwards, through objects).
/// An entity with a required to-one relationship, or a to-many one with a minimum count, is
/// refused as a save of such an object would be (`validation`, naming the row and the
/// relationship): its rows would hold no related row. Insert those through a context.
///
/// ```swift
/// let result = try context.execute(BatchInsertRequest(entityName: "Chef",
///     objects: [["name": "Ana"], ["name": "Bea"]]))
/// ```
public struct BatchInsertRequest: Sendable {
    /// The entity of the new rows.
    public var entityName: String
    /// One dictionary of attribute values per row; missing attributes take their defaults,
    /// a nil `Optional` is nil, and derived attributes are computed (setting one throws).
    public var objects: [[String: any Sendable]]

    /// Creates a request.
    public init(entityName: String, objects: [[String: any Sendable]]) {
        self.entityName = entityName
        self.objects = objects
    }
}

/// Sets attributes of every matching row straight in the store, without loading objects.
public struct BatchUpdateRequest: Sendable {
    /// The entity to update.
    public var entityName: String
    /// Which rows; all when nil.
    public var predicate: FetchPredicate?
    /// The new values, by attribute name; a nil `Optional` (a `Double?` that is nil) clears an
    /// optional attribute. Derived attributes follow their sources; setting one throws.
    public var propertiesToUpdate: [String: any Sendable]

    /// Creates a request.
    public init(entityName: String, predicate: FetchPredicate? = nil, propertiesToUpdate: [String: any Sendable]) {
        self.entityName = entityName
        self.predicate = predicate
        self.propertiesToUpdate = propertiesToUpdate
    }
}

/// Deletes every matching row straight in the store, applying delete rules in SQL: cascade
/// deletes the destinations' rows, nullify clears their references, deny refuses.
public struct BatchDeleteRequest: Sendable {
    /// What the result of a batch delete lists.
    public enum ResultType: Sendable {
        /// The IDs of every deleted row (``BatchResult/deletedIDs``): the executing context
        /// removes exactly those objects, and other contexts can merge them.
        case objectIDs
        /// Only how many rows went (``BatchResult/deletedCount``; `deletedIDs` stays empty),
        /// which spares the store reading the keys of rows it deletes wholesale. The
        /// executing context, not knowing which objects went, refreshes every registered
        /// object (keeping unsaved changes), so one whose row is gone becomes inaccessible.
        /// Did-save subscribers learn only of the rows the store listed anyway; hand the
        /// result to ``MainContext/mergeChanges(from:)`` of other contexts, which then
        /// refresh their objects too.
        case count
    }

    /// The entity to delete.
    public var entityName: String
    /// Which rows; all when nil.
    public var predicate: FetchPredicate?
    /// What the result lists: ``ResultType/objectIDs`` unless asked otherwise.
    public var resultType: ResultType

    /// Creates a request.
    public init(entityName: String, predicate: FetchPredicate? = nil, resultType: ResultType = .objectIDs) {
        self.entityName = entityName
        self.predicate = predicate
        self.resultType = resultType
    }
}

/// What a batch request changed: hand it to ``MainContext/mergeChanges(from:)`` of other
/// contexts so they do not show stale objects.
public struct BatchResult: Sendable {
    /// Rows inserted.
    public var insertedIDs: [ObjectID] = []
    /// Rows updated.
    public var updatedIDs: [ObjectID] = []
    /// Rows deleted, including those deleted by cascade; empty when a batch delete asked
    /// for a ``BatchDeleteRequest/ResultType/count`` only.
    public var deletedIDs: [ObjectID] = []
    /// How many rows were deleted, including by cascade: `deletedIDs.count`, or more when
    /// the store did not list every deleted row.
    public var deletedCount = 0
    /// Rows nullified by a delete rule (their references changed).
    public var nullifiedIDs: [ObjectID] = []
    /// Rows a delete left in place whose derived attributes (`ingredients.@count`,
    /// `photo != nil`) it recomputed, because they lost a related row.
    public var recomputedIDs: [ObjectID] = []

    /// An empty result; stores fill it in.
    public init() {}

    /// How many rows the request inserted, updated or deleted, the rows a cascade deleted
    /// included (nullified and recomputed rows are not counted).
    public var count: Int { insertedIDs.count + updatedIDs.count + max(deletedCount, deletedIDs.count) }
}
