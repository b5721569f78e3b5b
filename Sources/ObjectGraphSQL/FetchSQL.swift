package import ObjectGraph
/// Builds the SELECT statements of fetches, faults and batch requests, in the dialect a
/// store passes in.
package enum FetchSQL {
    /// The alias of the fetched table's rows.
    package static let alias = "t0"

    /// The one statement that runs `plan`: every fetch, count, `explain` and batch request
    /// goes through here, so they cannot drift apart. Parts of the predicate the dialect
    /// cannot answer are written as false; a store whose dialect cannot answer every
    /// predicate uses ``exactStatement(for:layout:dialect:)``.
    ///
    /// `SELECT [DISTINCT] … FROM "T" AS t0 WHERE … ORDER BY … LIMIT … OFFSET …`; the order
    /// ends with `t0."_pk"` (a total order) unless the results are distinct values. NULLs sort
    /// first, as in SQLite.
    package static func statement(for plan: FetchPlan, layout: TableLayout, dialect: SQLDialect) -> SQLFragment {
        let condition = plan.predicate.map { PredicateSQLCompiler.compile($0, alias: alias, dialect: dialect) }
        return statement(for: plan, layout: layout, condition: condition, dialect: dialect)
    }

    /// ``statement(for:layout:dialect:)``, or nil when the dialect cannot answer the plan
    /// exactly (see ``PredicateSQLCompiler``): the store then runs it with the in-memory evaluator.
    package static func exactStatement(for plan: FetchPlan, layout: TableLayout, dialect: SQLDialect) -> SQLFragment? {
        var exact = plan.sortTerms.allSatisfy { PredicateSQLCompiler.isExact($0.expression, dialect: dialect) }
        if case .groups(let grouping) = plan.output {
            exact = grouping.keys.allSatisfy { PredicateSQLCompiler.isExact($0, dialect: dialect) }
                && grouping.columns.allSatisfy { column in
                    guard case .aggregate(_, let expression?) = column else { return true }
                    return PredicateSQLCompiler.isExact(expression, dialect: dialect)
                }
        }
        if case .values(let expressions) = plan.output {
            exact = exact && expressions.allSatisfy { PredicateSQLCompiler.isExact($0, dialect: dialect) }
            // PostgreSQL sorts distinct values only by what it selects.
            if exact, plan.distinct, dialect.sortsDistinctBySelectedOnly {
                let selected = expressions.map { PredicateSQLCompiler.compile($0, alias: alias, dialect: dialect) }
                exact = plan.sortTerms.allSatisfy {
                    selected.contains(PredicateSQLCompiler.compile($0.expression, alias: alias, dialect: dialect))
                }
            }
        }
        guard exact else { return nil }
        var condition: SQLFragment?
        if let predicate = plan.predicate {
            guard let compiled = PredicateSQLCompiler.compileExactly(predicate, alias: alias, dialect: dialect) else { return nil }
            condition = compiled
        }
        return statement(for: plan, layout: layout, condition: condition, dialect: dialect)
    }

    private static func statement(
        for plan: FetchPlan, layout: TableLayout, condition: SQLFragment?, dialect: SQLDialect
    ) -> SQLFragment {
        if case .groups(let grouping) = plan.output {
            return groupedStatement(for: plan, grouping, layout: layout, condition: condition, dialect: dialect)
        }
        var sql: SQLFragment
        switch plan.output {
        case .rows:
            sql = "SELECT \(raw: fullRow(layout, dialect: dialect))"
        case .keys:
            sql = "SELECT \(raw: keys(of: plan.entity, dialect: dialect))"
        case .count, .groups:
            sql = "SELECT count(*)"
        case .values(let expressions):
            sql = "SELECT \(raw: plan.distinct ? "DISTINCT " : "")"
            sql.append(SQLFragment.joined(expressions.map { PredicateSQLCompiler.compile($0, alias: alias, dialect: dialect) }, separator: ", "))
        }
        sql.append(" FROM \(table: layout.table) AS \(raw: alias)")
        sql.append(whereClause(entity: plan.entity, includesSubentities: plan.includesSubentities, condition: condition))
        if case .count = plan.output { return sql }
        if !plan.sortTerms.isEmpty {
            var terms = plan.sortTerms.map { term in
                PredicateSQLCompiler.compile(term.expression, alias: alias, dialect: dialect)
                    + SQLFragment(sql: term.ascending ? dialect.ascending : dialect.descending)
            }
            if !plan.distinct { terms.append("\(raw: alias).\"_pk\"") }
            sql.append(" ORDER BY " + SQLFragment.joined(terms, separator: ", "))
        }
        if plan.limit > 0 || plan.offset > 0 {
            let limit: SQLFragment = plan.limit > 0 ? "\(.integer(Int64(plan.limit)))" : dialect.unlimited
            sql.append(" LIMIT \(limit) OFFSET \(.integer(Int64(plan.offset)))")
        }
        return sql
    }

    /// A grouped fetch: `SELECT g0, count(*), avg(a2) FROM (SELECT … AS g0, … AS a2 FROM "T"
    /// AS t0 WHERE …) AS grouped GROUP BY g0 ORDER BY g0 LIMIT … OFFSET …`. The inner
    /// statement reads each key and aggregated value once a row, so the outer one groups plain
    /// columns: PostgreSQL refuses to group by a to-one key path's correlated subquery. An
    /// integer sum is cast back to an integer (PostgreSQL's sum of `bigint` is `numeric`), an
    /// average to a double where the dialect needs it (``SQLDialect/aggregate(_:of:)``). The groups come in the plan's order, ties (or all of them, without
    /// one) in the order of their keys.
    private static func groupedStatement(
        for plan: FetchPlan, _ grouping: FetchPlan.Grouping, layout: TableLayout, condition: SQLFragment?, dialect: SQLDialect
    ) -> SQLFragment {
        func compile(_ expression: CheckedExpression) -> SQLFragment {
            PredicateSQLCompiler.compile(expression, alias: alias, dialect: dialect)
        }
        var inner = grouping.keys.enumerated().map { index, key in compile(key) + " AS g\(raw: String(index))" }
        var outer: [SQLFragment] = []
        for (index, column) in grouping.columns.enumerated() {
            switch column {
            case .key(let key):
                outer.append("g\(raw: String(key))")
            case .aggregate(let function, let expression):
                guard let expression else {
                    outer.append(dialect.aggregate(.count, of: nil))
                    continue
                }
                let value: SQLFragment = "a\(raw: String(index))"
                inner.append(compile(expression) + " AS " + value)
                // PostgreSQL's sum of integers is numeric: as SQLite's, a 64-bit integer.
                let aggregate = dialect.aggregate(function, of: value)
                outer.append(function == .sum && expression.attribute?.type.isStoredAsInteger == true
                             ? "CAST(\(aggregate) AS BIGINT)" : aggregate)
            }
        }
        if inner.isEmpty { inner = ["1 AS g"] }
        var sql: SQLFragment = "SELECT " + SQLFragment.joined(outer, separator: ", ")
        sql.append(" FROM (SELECT " + SQLFragment.joined(inner, separator: ", "))
        sql.append(" FROM \(table: layout.table) AS \(raw: alias)")
        sql.append(whereClause(entity: plan.entity, includesSubentities: plan.includesSubentities, condition: condition))
        sql.append(") AS grouped")
        if !grouping.keys.isEmpty {
            sql.append(" GROUP BY \(raw: grouping.keys.indices.map { "g\($0)" }.joined(separator: ", "))")
            let order = grouping.totalOrder.map { "g\($0.key)" + ($0.ascending ? dialect.ascending : dialect.descending) }
            sql.append(" ORDER BY \(raw: order.joined(separator: ", "))")
        }
        if plan.limit > 0 || plan.offset > 0 {
            let limit: SQLFragment = plan.limit > 0 ? "\(.integer(Int64(plan.limit)))" : dialect.unlimited
            sql.append(" LIMIT \(limit) OFFSET \(.integer(Int64(plan.offset)))")
        }
        return sql
    }

    /// The full rows with the given keys, in key order: one statement for any number of
    /// keys (they travel as one bound list).
    package static func selectRows(_ layout: TableLayout, keys: [Int64], dialect: SQLDialect) -> SQLFragment {
        "SELECT \(raw: fullRow(layout, dialect: dialect)) FROM \(table: layout.table) AS \(raw: alias) WHERE \(raw: alias).\"_pk\" \(inKeys(keyList(keys, dialect: dialect), dialect: dialect)) ORDER BY \(raw: alias).\"_pk\""
    }

    /// The full rows of the destinations of a one-to-many relationship for several sources.
    package static func selectDestinations(
        of relationship: RelationshipDescription, sourceKeys: [Int64], layout: TableLayout, dialect: SQLDialect
    ) -> SQLFragment {
        destinationRows(of: relationship, layout: layout, matching: inKeys(keyList(sourceKeys, dialect: dialect), dialect: dialect), dialect: dialect)
    }

    /// The full rows of the destinations of a one-to-many relationship of one source, whose
    /// key is the statement's one parameter.
    package static func selectDestinationRows(of relationship: RelationshipDescription, layout: TableLayout, dialect: SQLDialect) -> String {
        destinationRows(of: relationship, layout: layout, matching: "= \(raw: dialect.parameter(1))", dialect: dialect).sql
    }

    /// The full rows of the destinations of a one-to-many relationship, grouped by source:
    /// of the sources whose keys `matching` tests.
    private static func destinationRows(
        of relationship: RelationshipDescription, layout: TableLayout, matching: SQLFragment, dialect: SQLDialect
    ) -> SQLFragment {
        let column = SQLIdentifier(SchemaNaming.column(for: relationship.inverse)).quoted
        var sql: SQLFragment = "SELECT \(raw: fullRow(layout, dialect: dialect)) FROM \(table: layout.table) AS \(raw: alias) WHERE \(raw: alias).\(raw: column) \(matching)"
        if let restriction = SchemaNaming.entityRestriction(for: relationship.destination, alias: alias) {
            sql.append(" AND " + restriction)
        }
        let order = relationship.orderKey.map { ", \(alias).\(SQLIdentifier($0).quoted)\(dialect.ascending)" } ?? ""
        sql.append(" ORDER BY \(raw: alias).\(raw: column)\(raw: order), \(raw: alias).\"_pk\"")
        return sql
    }

    /// The (source, destination) key pairs of a many-to-many relationship for several sources.
    package static func selectJoinPairs(of relationship: RelationshipDescription, sourceKeys: [Int64], dialect: SQLDialect) -> SQLFragment {
        let join = SchemaNaming.joinTable(for: relationship)
        let source = SQLIdentifier(join.sourceColumn).quoted, destination = SQLIdentifier(join.destinationColumn).quoted
        return "SELECT \(raw: source), \(raw: destination) FROM \(table: join.table) WHERE \(raw: source) \(inKeys(keyList(sourceKeys, dialect: dialect), dialect: dialect)) ORDER BY \(raw: source), \(raw: destination)"
    }

    /// `_pk`, `_ent` of the destinations that a many-to-many relationship of the source rows
    /// whose keys pass `rows` (a membership test: ``inKeys(_:dialect:)``, ``SelectedRows/membership``) leads to.
    package static func selectJoinedDestinations(
        of relationship: RelationshipDescription, layout: TableLayout, rows: SQLFragment
    ) -> SQLFragment {
        let join = SchemaNaming.joinTable(for: relationship)
        let source = SQLIdentifier(join.sourceColumn).quoted, destination = SQLIdentifier(join.destinationColumn).quoted
        return "SELECT DISTINCT \(raw: alias).\"_pk\", \(raw: alias).\"_ent\" FROM \(table: join.table) AS j JOIN \(table: layout.table) AS \(raw: alias) ON \(raw: alias).\"_pk\" = j.\(raw: destination) WHERE j.\(raw: source) \(rows)"
    }

    /// `_pk`, `_ent` of the rows of a table that ``referencing(_:column:rows:)`` selects. A
    /// table that holds one entity only answers `_ent` without reading its rows, so an index
    /// on `column` answers the whole query.
    package static func selectReferencing(
        _ layout: TableLayout, entity: EntityDescription, column: String, rows: SQLFragment, dialect: SQLDialect
    ) -> SQLFragment {
        return "SELECT \(raw: Self.keys(of: entity, dialect: dialect)) FROM \(table: layout.table) AS \(raw: alias) WHERE "
            + referencing(entity, column: column, rows: rows)
    }

    /// `_pk`, `_ent` of the rows of a table that point through `column` to one of `rows`, as a
    /// join. SQLite then reads the index on `column` from end to end, where the same test as
    /// ``selectReferencing(_:entity:column:rows:dialect:)`` with ``SelectedRows/membership`` seeks it
    /// once per selected row (100,000 parents, 300,000 children: about 40% less time).
    package static func selectReferencing(
        _ layout: TableLayout, entity: EntityDescription, column: String, joining rows: SelectedRows, dialect: SQLDialect
    ) -> SQLFragment {
        var sql: SQLFragment = "SELECT \(raw: Self.keys(of: entity, dialect: dialect)) FROM \(table: layout.table) AS \(raw: alias) "
            + "JOIN \(table: rows.table) AS d ON d.\"_pk\" = \(column: column, of: alias)"
        if let condition = rows.condition { sql.append(" AND " + condition) }
        if let restriction = SchemaNaming.entityRestriction(for: entity, alias: alias) { sql.append(" WHERE " + restriction) }
        return sql
    }

    /// The rows (aliased `t0`) of `entity` (and its sub-entities: a sibling may share the
    /// column) whose `column` holds a key that passes `rows`, a membership test.
    package static func referencing(_ entity: EntityDescription, column: String, rows: SQLFragment) -> SQLFragment {
        var sql: SQLFragment = "\(column: column, of: alias) \(rows)"
        if let restriction = SchemaNaming.entityRestriction(for: entity, alias: alias) { sql.append(" AND " + restriction) }
        return sql
    }

    /// The rows that the rows of `layout` whose keys pass `rows` (a membership test) point
    /// to through `column` (key and the destination's entity when recorded, else the
    /// declared one); `distinct` selects each once (several rows may point to one).
    package static func selectReferenced(
        _ layout: TableLayout, relationship: RelationshipDescription, rows: SQLFragment, distinct: Bool
    ) -> SQLFragment {
        let column = SchemaNaming.column(for: relationship)
        let entityExpression = SchemaNaming.entityColumn(for: relationship).map { "\(alias).\(SQLIdentifier($0).quoted)" }
            ?? String(relationship.destination.index)
        return "SELECT \(raw: distinct ? "DISTINCT " : "")\(column: column, of: alias), \(raw: entityExpression) FROM \(table: layout.table) AS \(raw: alias) WHERE \(raw: alias).\"_pk\" \(rows) AND \(column: column, of: alias) IS NOT NULL"
    }

    /// Keys as one bound list in the dialect's brackets (`[1,2,3]`, a JSON array, in SQLite;
    /// `{1,2,3}`, an array literal, in PostgreSQL), written digit by digit into one buffer (a
    /// string per key cost about 300 instructions; batch deletes bind hundreds of thousands).
    package static func keyList(_ keys: [Int64], dialect: SQLDialect) -> StoredValue {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(2 + keys.count * 8)
        bytes.append(dialect.keyListBrackets.open)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            for (position, key) in keys.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                if key < 0 { bytes.append(UInt8(ascii: "-")) }
                var magnitude = key.magnitude, count = 0
                repeat {
                    digits[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                    magnitude /= 10
                    count += 1
                } while magnitude > 0
                while count > 0 {
                    count -= 1
                    bytes.append(digits[count])
                }
            }
        }
        bytes.append(dialect.keyListBrackets.close)
        return .text(String(decoding: bytes, as: UTF8.self))
    }

    /// Membership in a bound ``keyList(_:dialect:)``: `IN (SELECT value FROM json_each(?))`
    /// (SQLite), `= ANY(CAST(? AS bigint[]))` (PostgreSQL).
    package static func inKeys(_ keys: StoredValue, dialect: SQLDialect) -> SQLFragment {
        "\(raw: dialect.keyMembership.prefix)\(keys)\(raw: dialect.keyMembership.suffix)"
    }

    /// The rows of `table` that `condition` (over the rows aliased `d`) selects, every row
    /// without one. Where a condition selects many rows, the database reads their keys where
    /// they are, instead of parsing a bound list of them.
    package struct SelectedRows {
        /// The table the rows are in.
        package let table: String
        /// The condition on the rows, aliased `d`; nil selects every row.
        package let condition: SQLFragment?

        /// Selects the rows of `table` that `condition` (aliased `d`) selects, every row when nil.
        package init(of table: String, where condition: SQLFragment?) {
            self.table = table
            self.condition = condition
        }

        /// The membership test of a key in the rows: `IN (SELECT d."_pk" FROM "T" AS d WHERE …)`.
        package var membership: SQLFragment {
            var sql: SQLFragment = "IN (SELECT d.\"_pk\" FROM \(table: table) AS d"
            if let condition { sql.append(" WHERE " + condition) }
            sql.append(")")
            return sql
        }
    }

    /// The columns of a full row, in ``TableLayout`` order: keys, named columns, version.
    /// A table that holds one entity has no entity column: its index is a constant, or, in
    /// a dialect that ``SQLDialect/leavesOutSoleEntity``, left out (as in ``keys(of:dialect:)``).
    package static func fullRow(_ layout: TableLayout, dialect: SQLDialect) -> String {
        ([#"\#(alias)."_pk""#] + entityColumn(of: layout.root, dialect: dialect)
            + (layout.columns + [SchemaNaming.versionColumn]).map { "\(alias).\(SQLIdentifier($0).quoted)" })
            .joined(separator: ", ")
    }

    /// The key columns of a row of `entity`: `_pk` and `_ent`; for a table that holds one
    /// entity only, `_pk` and that entity's index as a constant, so that SQLite need not
    /// read the row, or `_pk` alone where the dialect ``SQLDialect/leavesOutSoleEntity``.
    package static func keys(of entity: EntityDescription, dialect: SQLDialect) -> String {
        ([#"\#(alias)."_pk""#] + entityColumn(of: entity, dialect: dialect)).joined(separator: ", ")
    }

    /// ` RETURNING` the key columns of the rows a `DELETE` of `layout`'s table removed, as
    /// ``keys(of:dialect:)`` selects them (unqualified: a `RETURNING` clause cannot name the alias
    /// in SQLite).
    package static func returningKeys(of layout: TableLayout) -> String {
        #" RETURNING "_pk", "# + (layout.soleEntityIndex.map(String.init) ?? #""_ent""#)
    }

    /// `_ent`; when the entity's table holds no other entity, its index, or nothing where
    /// the dialect ``SQLDialect/leavesOutSoleEntity``.
    private static func entityColumn(of entity: EntityDescription, dialect: SQLDialect) -> [String] {
        guard entity.root.selfAndDescendants.count == 1 else { return ["\(alias).\"_ent\""] }
        return dialect.leavesOutSoleEntity ? [] : [String(entity.index)]
    }

    /// The full row of one object, whose key is the statement's one parameter.
    package static func selectRow(_ layout: TableLayout, dialect: SQLDialect) -> String {
        "SELECT \(fullRow(layout, dialect: dialect)) FROM \(SQLIdentifier(layout.table).quoted) AS \(alias) WHERE \(alias).\"_pk\" = \(dialect.parameter(1))"
    }

    /// The keys of the destinations of a to-many relationship of one object (the statement's
    /// one parameter), in order.
    package static func selectDestinations(of relationship: RelationshipDescription, dialect: SQLDialect) -> String {
        let destination = relationship.destination!
        let table = SQLIdentifier(SchemaNaming.table(for: destination)).quoted
        let restriction = SchemaNaming.entityRestriction(for: destination, alias: alias).map { " AND " + $0.sql } ?? ""
        let order = relationship.orderKey.map { " ORDER BY \(alias).\(SQLIdentifier($0).quoted)\(dialect.ascending), \(alias).\"_pk\"" }
            ?? " ORDER BY \(alias).\"_pk\""
        let source = dialect.parameter(1)
        if relationship.isManyToMany {
            let join = SchemaNaming.joinTable(for: relationship)
            return """
                SELECT \(alias)."_pk", \(alias)."_ent" FROM \(SQLIdentifier(join.table).quoted) AS j \
                JOIN \(table) AS \(alias) ON \(alias)."_pk" = j.\(SQLIdentifier(join.destinationColumn).quoted) \
                WHERE j.\(SQLIdentifier(join.sourceColumn).quoted) = \(source)\(restriction)\(order)
                """
        }
        let column = SQLIdentifier(SchemaNaming.column(for: relationship.inverse)).quoted
        return "SELECT \(alias).\"_pk\", \(alias).\"_ent\" FROM \(table) AS \(alias) WHERE \(alias).\(column) = \(source)\(restriction)\(order)"
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
