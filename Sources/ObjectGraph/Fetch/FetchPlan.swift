/// A fetch request resolved against the model: what a context hands a store.
///
/// A context builds one plan per request, checking the predicate, the sort keys and the
/// properties once; a store turns the plan into its own query language (the SQLite store
/// into one SQL statement) and hands back rows, keys, values or a count. ``explain`` runs
/// the same translation, so what it shows is what a fetch runs.
///
/// Nothing in a plan is SQL: key paths are resolved ``CheckedExpression``s, the predicate a
/// ``CheckedPredicate``, so a store that is not SQL can evaluate the same plan.
struct FetchPlan: Sendable {
    /// What comes back for each matching row.
    enum Output: Sendable {
        /// The key, the entity and every stored column in ``TableLayout`` order.
        case rows
        /// The key and the entity only.
        case keys
        /// The number of matching rows, no rows.
        case count
        /// The value of each expression (attributes, possibly through to-one relationships).
        case values([CheckedExpression])
    }

    /// One sort term: an attribute of the fetched entity, possibly through to-one relationships.
    struct SortTerm: Sendable {
        let expression: CheckedExpression
        let ascending: Bool
    }

    /// The fetched entity.
    let entity: EntityDescription
    /// Whether rows of sub-entities match too.
    var includesSubentities: Bool
    /// The condition, already checked and with searches moved onto canonical shadows.
    var predicate: CheckedPredicate?
    /// The order; a store breaks ties by key (except for distinct values), so it is total.
    var sortTerms: [SortTerm]
    /// At most this many rows; 0 for no limit.
    var limit: Int
    /// Rows skipped first.
    var offset: Int
    /// With ``Output/values(_:)``: one row per distinct combination of values.
    var distinct: Bool
    /// What comes back.
    var output: Output

    /// A plan for every row of `entity` and its sub-entities, keys only: the form batch
    /// requests and lookups by key start from.
    init(
        entity: EntityDescription, includesSubentities: Bool = true, predicate: CheckedPredicate? = nil,
        sortTerms: [SortTerm] = [], limit: Int = 0, offset: Int = 0, distinct: Bool = false, output: Output = .keys
    ) {
        self.entity = entity
        self.includesSubentities = includesSubentities
        self.predicate = predicate
        self.sortTerms = sortTerms
        self.limit = limit
        self.offset = offset
        self.distinct = distinct
        self.output = output
    }
}
