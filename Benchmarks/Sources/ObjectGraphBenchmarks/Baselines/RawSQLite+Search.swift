import CSQLiteBaseline

/// The search workload: queries on the canonical column that ObjectGraph keeps folded.
extension RawSQLite {
    /// A fetched recipe row as a plain object.
    final class Recipe {
        /// The row's key.
        let id: Int64
        /// The name as stored (not folded).
        let name: String

        /// Makes a recipe row.
        init(id: Int64, name: String) {
            self.id = id
            self.name = name
        }
    }

    /// Runs every query on the store's `nameCanonical` column with the term folded as the
    /// column is (`instr` for contains, an index range for a prefix), fetching the hits into
    /// objects or, with `counts`, counting them (timed); checks each query's hit count afterwards.
    static func searchCanonical(
        _ fixture: SearchFixture, _ queries: [SearchQuery], prefix: Bool, counts: Bool
    ) -> Sample {
        let db = open(fixture.path)
        defer { close(db) }
        let condition = prefix
            ? #""nameCanonical" >= ? AND "nameCanonical" < ?"#
            : #"instr("nameCanonical", ?) > 0"#
        let columns = counts ? "count(*)" : #""_pk", "name""#
        let statement = prepare(db, #"SELECT \#(columns) FROM "Recipe" WHERE \#(condition)"#)
        defer { sqlite3_finalize(statement) }
        var hits: [Int] = []
        let sample = Sample.measure {
            for query in queries {
                bind(statement, 1, query.folded)
                if prefix { bind(statement, 2, query.foldedSuccessor) }
                if counts {
                    precondition(sqlite3_step(statement) == SQLITE_ROW)
                    hits.append(Int(sqlite3_column_int64(statement, 0)))
                } else {
                    var recipes: [Recipe] = []
                    while sqlite3_step(statement) == SQLITE_ROW {
                        recipes.append(Recipe(id: sqlite3_column_int64(statement, 0), name: text(statement, 1)))
                    }
                    hits.append(recipes.count)
                }
                sqlite3_reset(statement)
            }
        }
        precondition(hits == queries.map(\.expectedHits), "raw search: \(hits) hits, expected \(queries.map(\.expectedHits))")
        return sample
    }
}
