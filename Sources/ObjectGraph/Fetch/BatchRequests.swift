/// Inserts rows straight into the store, without creating objects: the fastest way to load
/// many plain rows (attributes only; relationships are set afterwards, through objects).
///
/// ```swift
/// let result = try context.execute(BatchInsertRequest(entityName: "Chef",
///     objects: [["name": "Ana"], ["name": "Bea"]]))
/// ```
public struct BatchInsertRequest: Sendable {
    /// The entity of the new rows.
    public var entityName: String
    /// One dictionary of attribute values per row; missing attributes take their defaults.
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
    /// The new values, by attribute name.
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
    /// The entity to delete.
    public var entityName: String
    /// Which rows; all when nil.
    public var predicate: FetchPredicate?

    /// Creates a request.
    public init(entityName: String, predicate: FetchPredicate? = nil) {
        self.entityName = entityName
        self.predicate = predicate
    }
}

/// What a batch request changed: hand it to ``MainContext/mergeChanges(from:)`` of other
/// contexts so they do not show stale objects.
public struct BatchResult: Sendable {
    /// Rows inserted.
    public var insertedIDs: [ObjectID] = []
    /// Rows updated.
    public var updatedIDs: [ObjectID] = []
    /// Rows deleted, including those deleted by cascade.
    public var deletedIDs: [ObjectID] = []
    /// Rows nullified by a delete rule (their references changed).
    public var nullifiedIDs: [ObjectID] = []
    /// Rows a delete left in place whose derived attributes (`ingredients.@count`,
    /// `photo != nil`) it recomputed, because they lost a related row.
    public var recomputedIDs: [ObjectID] = []

    /// An empty result; stores fill it in.
    public init() {}

    /// How many rows the request itself inserted, updated or deleted.
    public var count: Int { insertedIDs.count + updatedIDs.count + deletedIDs.count }
}
