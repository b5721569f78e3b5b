import Foundation
import ObjectGraphSQLite

/// One search term: as a user types it, folded as the canonical shadow is, and its hit count.
struct SearchQuery: Sendable {
    /// The term as typed: `JALAPEÑO`.
    let term: String
    /// The term folded: `jalapeno`.
    let folded: String
    /// The least string above every string that starts with ``folded`` (terms fold to ASCII).
    var foldedSuccessor: String {
        var bytes = Array(folded.utf8)
        precondition(bytes.last.map { $0 < 0x7F } ?? false, "a prefix term must fold to ASCII")
        bytes[bytes.count - 1] += 1
        return String(decoding: bytes, as: UTF8.self)
    }
    /// How many names match, computed in Swift from the generated names.
    let expectedHits: Int
}

/// An ObjectGraph store of accented recipe names with a canonical shadow, and the queries to run.
struct SearchFixture {
    /// The store file; the search runs never write to it.
    let path: String
    /// The number of recipes.
    let count: Int
    /// The `CONTAINS[cd]` queries.
    let containsQueries: [SearchQuery]
    /// The `BEGINSWITH[cd]` queries.
    let prefixQueries: [SearchQuery]

    /// Terms searched anywhere in a name.
    static let containsTerms = ["crème", "JALAPEÑO", "Cafe", "pina", "açai", "rosti", "soufflé", "pâte", "puree", "herb"]
    /// Terms searched at the start of a name.
    static let prefixTerms = ["spicy", "Provenc", "señora", "crème-g", "Tante h", "château", "naive", "quick", "Golden c", "old"]

    /// Inserts the names through ObjectGraph, which folds each into the shadow, saving every
    /// 1,000 (untimed), and predicts every query's hits from the names.
    @MainActor
    init(_ environment: BenchmarkEnvironment, count: Int) throws {
        self.count = count
        path = try environment.makeStore("search")
        let context = try environment.openContext(path)
        let recipe = environment.model.entity(named: "Recipe")!, name = recipe.attribute(named: "name")!
        var folded: [String] = []
        folded.reserveCapacity(count)
        for index in 0..<count {
            let text = RecipeNames.name(index)
            context.insert(recipe)[name] = text
            folded.append(RecipeNames.fold(text))
            if (index + 1) % 1_000 == 0 {
                try context.save()
                context.reset()
            }
        }
        try context.save()
        /// The queries for `terms`, each with its hits counted over the folded names.
        func queries(_ terms: [String], prefix: Bool) -> [SearchQuery] {
            terms.map { term in
                let key = RecipeNames.fold(term)
                let hits = folded.count { prefix ? $0.hasPrefix(key) : $0.contains(key) }
                return SearchQuery(term: term, folded: key, expectedHits: hits)
            }
        }
        containsQueries = queries(Self.containsTerms, prefix: false)
        prefixQueries = queries(Self.prefixTerms, prefix: true)
    }
}

/// The search workload.
extension Workload {
    /// `CONTAINS[cd]` and `BEGINSWITH[cd]` over accented names, answered from the canonical
    /// shadow and, with the shadow switched off, by folding every row at query time.
    @MainActor
    static func search(_ environment: BenchmarkEnvironment) throws -> Workload {
        let fixture = try SearchFixture(environment, count: environment.options.scaled(100_000))
        let contains = "CONTAINS[cd]", prefix = "BEGINSWITH[cd]"
        /// ObjectGraph's run of `op` over `queries`, with or without the shadow, fetching the
        /// hits or, with `counts`, counting them.
        func objectGraph(
            _ op: String, _ queries: [SearchQuery], shadow: Bool, counts: Bool
        ) -> @MainActor () throws -> Sample {
            { try objectGraphSearch(environment, fixture, op, queries, usesShadow: shadow, counts: counts) }
        }
        /// The four variants of `op`: fetched or counted, each with and without the shadow.
        func variants(_ op: String, _ queries: [SearchQuery], prefix: Bool) -> [Variant] {
            [false, true].flatMap { counts in
                let suffix = counts ? ", counted" : ""
                return [
                    Variant(name: "\(op), shadow\(suffix)", runs: [
                        (.raw, { RawSQLite.searchCanonical(fixture, queries, prefix: prefix, counts: counts) }),
                        (.objectGraph, objectGraph(op, queries, shadow: true, counts: counts)),
                    ]),
                    Variant(name: "\(op), no shadow\(suffix)", runs: [
                        (.objectGraph, objectGraph(op, queries, shadow: false, counts: counts)),
                    ]),
                ]
            }
        }
        /// How much faster the shadow makes `op`, fetched or counted.
        func comparison(_ op: String, counts: Bool) -> Comparison {
            let suffix = counts ? ", counted" : ""
            return Comparison(label: "\(op)\(suffix): no shadow ÷ shadow",
                              numerator: ("\(op), no shadow\(suffix)", .objectGraph),
                              denominator: ("\(op), shadow\(suffix)", .objectGraph))
        }
        let perQuery = fixture.containsQueries.count
        return Workload(
            name: .search,
            title: "\(Report.grouped(fixture.count)) accented recipe names, \(perQuery) terms per variant, "
                + "hits fetched as objects, then only counted",
            check: "every query's hit count equals the one computed in Swift; ObjectGraph: the SQL uses the shadow or folds, as asked",
            variants: variants(contains, fixture.containsQueries, prefix: false)
                + variants(prefix, fixture.prefixQueries, prefix: true),
            comparisons: [comparison(contains, counts: false), comparison(prefix, counts: false),
                          comparison(contains, counts: true), comparison(prefix, counts: true)])
    }

    /// Runs `name <op> %@` for every query, fetching the hits (or, with `counts`, counting
    /// them), with the canonical shadow used or not; checks the hit counts and that the SQL
    /// reads the shadow only when asked.
    @MainActor
    private static func objectGraphSearch(
        _ environment: BenchmarkEnvironment, _ fixture: SearchFixture, _ op: String, _ queries: [SearchQuery],
        usesShadow: Bool, counts: Bool
    ) throws -> Sample {
        let context = try environment.openContext(fixture.path)
        let requests = try queries.map { query in
            var request = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name \(op) %@", query.term))
            request.usesCanonicalShadows = usesShadow
            return request
        }
        let sql = try context.explain(requests[0]).sql
        let condition = sql.range(of: " WHERE ").map { sql[$0.upperBound...] } ?? ""
        precondition(condition.contains("nameCanonical") == usesShadow && condition.contains("og_match") == !usesShadow,
                     "unexpected SQL for shadow \(usesShadow): \(sql)")
        _ = try context.count(for: FetchRequest(entityName: "Recipe", predicate: .falsePredicate))
        var hits: [Int] = []
        let sample = try Sample.measure(context) {
            for request in requests {
                hits.append(counts ? try context.count(for: request) : try context.fetch(request).count)
            }
        }
        precondition(hits == queries.map(\.expectedHits),
                     "\(op) shadow \(usesShadow): \(hits) hits, expected \(queries.map(\.expectedHits))")
        return sample
    }
}
