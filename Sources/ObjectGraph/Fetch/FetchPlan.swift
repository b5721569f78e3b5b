/// A fetch request resolved against the model: what a context hands a store.
///
/// A context builds one plan per request, checking the predicate, the sort keys and the
/// properties once; a store turns the plan into its own query language (the SQLite store
/// into one SQL statement) and hands back rows, keys, values or a count. ``explain`` runs
/// the same translation, so what it shows is what a fetch runs.
///
/// Nothing in a plan is SQL: key paths are resolved ``CheckedExpression``s, the predicate a
/// ``CheckedPredicate``, so a store that is not SQL can evaluate the same plan.
package struct FetchPlan: Sendable {
    /// What comes back for each matching row.
    package enum Output: Sendable {
        /// The key, the entity and every stored column in ``TableLayout`` order.
        case rows
        /// The key and the entity only.
        case keys
        /// The number of matching rows, no rows.
        case count
        /// The value of each expression (attributes, possibly through to-one relationships).
        case values([CheckedExpression])
        /// One row per group of rows with equal ``Grouping/keys`` (one row in all when there
        /// are no keys), its ``Grouping/columns`` in order, sorted by ``Grouping/order``.
        case groups(Grouping)
    }

    /// What a grouped fetch reads: the keys that form groups, and what each group returns.
    package struct Grouping: Sendable {
        /// One column of a group's row.
        package enum Column: Sendable {
            /// The group's value of ``Grouping/keys``[index].
            case key(Int)
            /// An aggregate over the group's rows: of every row (`@count` with nil), or of
            /// the expression's values that are not nil.
            case aggregate(AggregateFunction, CheckedExpression?)
        }
        /// The values that make rows one group.
        package var keys: [CheckedExpression]
        /// The row each group returns.
        package var columns: [Column]
        /// The groups' order as given: indexes into ``keys``, each ascending or not. Nils come
        /// first ascending, as elsewhere.
        package var order: [(key: Int, ascending: Bool)]

        /// ``order``, then every key it leaves out, ascending: a total order of the groups,
        /// the same on every store.
        package var totalOrder: [(key: Int, ascending: Bool)] {
            order + keys.indices.filter { key in !order.contains { $0.key == key } }.map { (key: $0, ascending: true) }
        }
    }

    /// One sort term: an attribute of the fetched entity, possibly through to-one relationships.
    package struct SortTerm: Sendable {
        package let expression: CheckedExpression
        package let ascending: Bool
    }

    /// The fetched entity.
    package let entity: EntityDescription
    /// Whether rows of sub-entities match too.
    package var includesSubentities: Bool
    /// The condition, already checked and with searches moved onto canonical shadows.
    package var predicate: CheckedPredicate?
    /// The order; a store breaks ties by key (except for distinct values), so it is total.
    package var sortTerms: [SortTerm]
    /// At most this many rows; 0 for no limit.
    package var limit: Int
    /// Rows skipped first.
    package var offset: Int
    /// With ``Output/values(_:)``: one row per distinct combination of values.
    package var distinct: Bool
    /// What comes back.
    package var output: Output

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
