import ObjectGraph
import ObjectGraphSQL
extension SQLDialect {
    /// PostgreSQL's SQL: `TRUE`/`FALSE`, `IS [NOT] DISTINCT FROM`, typed NULLs, NULL sorted
    /// first as in SQLite, integers compared with doubles over `numeric`. It has no folding,
    /// matching or predicate functions that agree with Foundation, so predicates that need
    /// them run with the in-memory evaluator instead.
    static let postgreSQL = SQLDialect(
        trueLiteral: "TRUE", falseLiteral: "FALSE", equal: "IS NOT DISTINCT FROM", notEqual: "IS DISTINCT FROM",
        ifNull: "COALESCE", position: "strpos",
        typedNull: "CAST(NULL AS double precision)", realType: "double precision", guardsDivisionByZero: true,
        castsAverage: true, ascending: " NULLS FIRST", descending: " DESC NULLS LAST",
        fold: nil, match: nil, function: nil,
        numbersParameters: true, unlimited: "ALL", keyListBrackets: (UInt8(ascii: "{"), UInt8(ascii: "}")),
        keyMembership: ("= ANY(CAST(", " AS bigint[]))"), sortsDistinctBySelectedOnly: true, leavesOutSoleEntity: false,
        integerType: "bigint", columnType: { SchemaSQL.columnType($0) }, joinTableOptions: "",
        insertIgnoringConflicts: ("INSERT", " ON CONFLICT DO NOTHING"), canonical: nil,
        indexesNullSafeEquality: false, comparesIntegersWithDoublesExactly: false)
}
