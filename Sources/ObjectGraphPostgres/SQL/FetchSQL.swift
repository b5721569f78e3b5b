import ObjectGraph
import ObjectGraphSQL
/// Builds the SELECT statements of fetches.
enum FetchSQL {
    static let alias = "t0"

    /// The one statement that runs `plan`: every fetch, count, ``PostgresStore/explain(_:)``
    /// and batch request goes through here, so they cannot drift apart; nil when PostgreSQL
    /// cannot answer the plan exactly (see ``PredicateSQLCompiler``).
    ///
    /// `SELECT [DISTINCT] … FROM "T" AS t0 WHERE … ORDER BY … LIMIT … OFFSET …`; the order
    /// ends with `t0."_pk"` (a total order) unless the results are distinct values. NULLs sort
    /// first, as in SQLite.
    static func statement(for plan: FetchPlan, layout: TableLayout) -> SQLFragment? {
        var native = plan.sortTerms.allSatisfy { PredicateSQLCompiler.isExact($0.expression, dialect: .postgreSQL) }
        if case .values(let expressions) = plan.output {
            native = native && expressions.allSatisfy { PredicateSQLCompiler.isExact($0, dialect: .postgreSQL) }
            // PostgreSQL sorts distinct values only by what it selects.
            if native, plan.distinct {
                let selected = expressions.map { PredicateSQLCompiler.compile($0, alias: alias, dialect: .postgreSQL) }
                native = plan.sortTerms.allSatisfy { selected.contains(PredicateSQLCompiler.compile($0.expression, alias: alias, dialect: .postgreSQL)) }
            }
        }
        guard native else { return nil }
        var sql: SQLFragment
        switch plan.output {
        case .rows:
            sql = "SELECT \(raw: fullRow(layout))"
        case .keys:
            sql = "SELECT \(raw: keys)"
        case .count:
            sql = "SELECT count(*)"
        case .values(let expressions):
            sql = "SELECT \(raw: plan.distinct ? "DISTINCT " : "")"
            sql.append(SQLFragment.joined(expressions.map { PredicateSQLCompiler.compile($0, alias: alias, dialect: .postgreSQL) }, separator: ", "))
        }
        sql.append(" FROM \(table: layout.table) AS \(raw: alias)")
        var condition: SQLFragment?
        if let predicate = plan.predicate {
            guard let compiled = PredicateSQLCompiler.compileExactly(predicate, alias: alias, dialect: .postgreSQL) else { return nil }
            condition = compiled
        }
        sql.append(whereClause(entity: plan.entity, includesSubentities: plan.includesSubentities, condition: condition))
        if case .count = plan.output { return sql }
        if !plan.sortTerms.isEmpty {
            var terms = plan.sortTerms.map { term in
                PredicateSQLCompiler.compile(term.expression, alias: alias, dialect: .postgreSQL) + SQLFragment(sql: term.ascending ? " NULLS FIRST" : " DESC NULLS LAST")
            }
            if !plan.distinct { terms.append("\(raw: alias).\"_pk\"") }
            sql.append(" ORDER BY " + SQLFragment.joined(terms, separator: ", "))
        }
        if plan.limit > 0 || plan.offset > 0 {
            sql.append(plan.limit > 0 ? " LIMIT \(.integer(Int64(plan.limit)))" : " LIMIT ALL")
            sql.append(" OFFSET \(.integer(Int64(plan.offset)))")
        }
        return sql
    }

    /// The full rows with the given keys, in key order: one statement for any number of
    /// keys (they travel as one array).
    static func selectRows(_ layout: TableLayout, keys: [Int64]) -> SQLFragment {
        "SELECT \(raw: fullRow(layout)) FROM \(table: layout.table) AS \(raw: alias) WHERE \(raw: alias).\"_pk\" \(inKeys(keyList(keys))) ORDER BY \(raw: alias).\"_pk\""
    }

    /// The full rows of the destinations of a one-to-many relationship for several sources.
    static func selectDestinations(of relationship: RelationshipDescription, sourceKeys: [Int64], layout: TableLayout) -> SQLFragment {
        let column = SQLIdentifier(SchemaNaming.column(for: relationship.inverse)).quoted
        var sql: SQLFragment = "SELECT \(raw: fullRow(layout)) FROM \(table: layout.table) AS \(raw: alias) WHERE \(raw: alias).\(raw: column) \(inKeys(keyList(sourceKeys)))"
        if let restriction = SchemaNaming.entityRestriction(for: relationship.destination, alias: alias) {
            sql.append(" AND " + restriction)
        }
        let order = relationship.orderKey.map { ", \(alias).\(SQLIdentifier($0).quoted) NULLS FIRST" } ?? ""
        sql.append(" ORDER BY \(raw: alias).\(raw: column)\(raw: order), \(raw: alias).\"_pk\"")
        return sql
    }

    /// The (source, destination) key pairs of a many-to-many relationship for several sources.
    static func selectJoinPairs(of relationship: RelationshipDescription, sourceKeys: [Int64]) -> SQLFragment {
        let join = SchemaNaming.joinTable(for: relationship)
        let source = SQLIdentifier(join.sourceColumn).quoted, destination = SQLIdentifier(join.destinationColumn).quoted
        return "SELECT \(raw: source), \(raw: destination) FROM \(table: join.table) WHERE \(raw: source) \(inKeys(keyList(sourceKeys))) ORDER BY \(raw: source), \(raw: destination)"
    }

    /// `_pk`, `_ent` of the destinations that a many-to-many relationship of the given
    /// source rows leads to.
    static func selectJoinedDestinations(of relationship: RelationshipDescription, layout: TableLayout, keys: StoredValue) -> SQLFragment {
        let join = SchemaNaming.joinTable(for: relationship)
        let source = SQLIdentifier(join.sourceColumn).quoted, destination = SQLIdentifier(join.destinationColumn).quoted
        return "SELECT DISTINCT \(raw: alias).\"_pk\", \(raw: alias).\"_ent\" FROM \(table: join.table) AS j JOIN \(table: layout.table) AS \(raw: alias) ON \(raw: alias).\"_pk\" = j.\(raw: destination) WHERE j.\(raw: source) \(inKeys(keys))"
    }

    /// `_pk`, `_ent` of the rows of a table whose `column` holds one of the keys.
    /// Only rows of `entity` (and its sub-entities) count: a sibling may share the column.
    static func selectReferencing(_ layout: TableLayout, entity: EntityDescription, column: String, keys: StoredValue) -> SQLFragment {
        var sql: SQLFragment = "SELECT \(raw: alias).\"_pk\", \(raw: alias).\"_ent\" FROM \(table: layout.table) AS \(raw: alias) WHERE \(column: column, of: alias) \(inKeys(keys))"
        if let restriction = SchemaNaming.entityRestriction(for: entity, alias: alias) { sql.append(" AND " + restriction) }
        return sql
    }

    /// The rows that the given rows of `layout` point to through `column` (key and the
    /// destination's entity when recorded, else the declared one).
    static func selectReferenced(_ layout: TableLayout, relationship: RelationshipDescription, keys: StoredValue) -> SQLFragment {
        let column = SchemaNaming.column(for: relationship)
        let entityExpression = SchemaNaming.entityColumn(for: relationship).map { "\(alias).\(SQLIdentifier($0).quoted)" }
            ?? String(relationship.destination.index)
        return "SELECT \(column: column, of: alias), \(raw: entityExpression) FROM \(table: layout.table) AS \(raw: alias) WHERE \(raw: alias).\"_pk\" \(inKeys(keys)) AND \(column: column, of: alias) IS NOT NULL"
    }

    /// Keys as one bound array literal, `{1,2,3}` (cast to `bigint[]` where used).
    static func keyList(_ keys: [Int64]) -> StoredValue {
        .text("{" + keys.map(String.init).joined(separator: ",") + "}")
    }

    /// `= ANY(CAST($n AS bigint[]))`: membership in a bound key list.
    static func inKeys(_ keys: StoredValue) -> SQLFragment { "= ANY(CAST(\(keys) AS bigint[]))" }

    /// The columns of a full row, in ``TableLayout`` order: keys, named columns, version.
    static func fullRow(_ layout: TableLayout) -> String {
        (["_pk", "_ent"] + layout.columns + [SchemaNaming.versionColumn])
            .map { "\(alias).\(SQLIdentifier($0).quoted)" }.joined(separator: ", ")
    }

    /// The key columns of a row.
    static let keys = #"t0."_pk", t0."_ent""#

    /// The full row of one object.
    static func selectRow(table: String, columns: [String]) -> String {
        let list = (["_pk", "_ent"] + columns + [SchemaNaming.versionColumn]).map { SQLIdentifier($0).quoted }.joined(separator: ", ")
        return "SELECT \(list) FROM \(SQLIdentifier(table).quoted) WHERE \"_pk\" = $1"
    }

    /// The keys of the destinations of a to-many relationship of one object, in order.
    static func selectDestinations(of relationship: RelationshipDescription) -> String {
        let destination = relationship.destination!
        let table = SQLIdentifier(SchemaNaming.table(for: destination)).quoted
        let restriction = SchemaNaming.entityRestriction(for: destination, alias: alias).map { " AND " + $0.sql } ?? ""
        let order = relationship.orderKey.map { " ORDER BY \(alias).\(SQLIdentifier($0).quoted) NULLS FIRST, \(alias).\"_pk\"" }
            ?? " ORDER BY \(alias).\"_pk\""
        if relationship.isManyToMany {
            let join = SchemaNaming.joinTable(for: relationship)
            return """
                SELECT \(alias)."_pk", \(alias)."_ent" FROM \(SQLIdentifier(join.table).quoted) AS j \
                JOIN \(table) AS \(alias) ON \(alias)."_pk" = j.\(SQLIdentifier(join.destinationColumn).quoted) \
                WHERE j.\(SQLIdentifier(join.sourceColumn).quoted) = $1\(restriction)\(order)
                """
        }
        let column = SQLIdentifier(SchemaNaming.column(for: relationship.inverse)).quoted
        return "SELECT \(alias).\"_pk\", \(alias).\"_ent\" FROM \(table) AS \(alias) WHERE \(alias).\(column) = $1\(restriction)\(order)"
    }

    private static func whereClause(
        entity: EntityDescription, includesSubentities: Bool, condition: SQLFragment?
    ) -> SQLFragment {
        var parts: [SQLFragment] = []
        if let restriction = SchemaNaming.entityRestriction(
            for: entity, alias: alias, includesSubentities: includesSubentities) {
            parts.append(restriction)
        }
        if let condition { parts.append("(" + condition + ")") }
        return parts.isEmpty ? SQLFragment() : " WHERE " + SQLFragment.joined(parts, separator: " AND ")
    }
}
