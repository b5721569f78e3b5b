import ObjectGraph
import ObjectGraphSQL
extension SQLDialect {
    /// SQLite's SQL: 0/1 booleans, `IS` for null-safe equality, and the functions that
    /// ``SQLFunctions`` registers for folding, string matching and predicate functions, so
    /// SQLite answers every predicate itself.
    static let sqlite = SQLDialect(
        trueLiteral: "1", falseLiteral: "0", equal: "IS", notEqual: "IS NOT", ifNull: "IFNULL", position: "instr",
        typedNull: nil, realType: "REAL", guardsDivisionByZero: false, castsAverage: false,
        ascending: "", descending: " DESC",
        fold: { value, flags in "og_fold(\(value), \(raw: flags))" },
        match: { code, flags, subject, pattern in "og_match(\(raw: code), \(raw: flags), \(subject), \(pattern))" },
        function: { code, operands in "og_function(\(raw: code), \(operands))" },
        numbersParameters: false, unlimited: "\(StoredValue.integer(-1))",
        keyListBrackets: (UInt8(ascii: "["), UInt8(ascii: "]")),
        keyMembership: ("IN (SELECT value FROM json_each(", "))"), sortsDistinctBySelectedOnly: false, leavesOutSoleEntity: true,
        integerType: "INTEGER", columnType: { $0.storageClass }, joinTableOptions: " WITHOUT ROWID",
        insertIgnoringConflicts: ("INSERT OR IGNORE", ""), canonical: { value in "og_canonical(\(value))" })
}
