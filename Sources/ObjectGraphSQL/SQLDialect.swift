package import ObjectGraph
/// What differs between the SQL that the two stores' databases take, for the SQL that
/// ``PredicateSQLCompiler`` and ``FetchSQL`` write once for both.
///
/// Each store passes its own value (`SQLDialect.sqlite`, `SQLDialect.postgreSQL`, defined
/// in the store's module). The builders read it while they write a statement's text, which
/// the stores cache: never per row or per value.
package struct SQLDialect: Sendable {
    /// The boolean literals: `1` and `0` (SQLite), `TRUE` and `FALSE` (PostgreSQL).
    package let trueLiteral: String, falseLiteral: String
    /// Null-safe equality and inequality: `IS`, `IS NOT` (SQLite); `IS NOT DISTINCT FROM`,
    /// `IS DISTINCT FROM` (PostgreSQL).
    package let equal: String, notEqual: String
    /// Whether ``equal`` between a column and a value can use the column's index: SQLite's
    /// `IS` can; PostgreSQL's `IS NOT DISTINCT FROM` cannot (the planner reads every row), so
    /// there a column compared with a value (never NULL: `== nil` is `IS NULL`) is written `=`.
    package let indexesNullSafeEquality: Bool
    /// Whether comparing an integer with a double is exact, as in SQLite and the in-memory
    /// evaluator. PostgreSQL compares them as doubles (there 2^53 + 1 equals 2^53), so such a
    /// comparison is written over `numeric` instead, with the double made exact first.
    package let comparesIntegersWithDoublesExactly: Bool
    /// The function that replaces NULL by its second argument: `IFNULL`, `COALESCE`.
    package let ifNull: String
    /// The function that finds a string in another (from 1; 0 when absent): `instr`, `strpos`.
    package let position: String
    /// A NULL constant the database needs typed (PostgreSQL), or nil to bind NULL.
    package let typedNull: String?
    /// The floating-point type a division casts its dividend to: `REAL`, `double precision`.
    package let realType: String
    /// Whether a division turns a zero divisor into NULL first: SQLite's division by zero is
    /// NULL, PostgreSQL's an error.
    package let guardsDivisionByZero: Bool
    /// Whether `AVG` is cast to ``realType`` (PostgreSQL's average of integers is `numeric`).
    package let castsAverage: Bool
    /// What follows an ascending or descending sort key so that NULL sorts first, as in
    /// SQLite: nothing and ` DESC` (SQLite), ` NULLS FIRST` and ` DESC NULLS LAST` (PostgreSQL).
    package let ascending: String, descending: String
    /// The call that folds a string as `[c]`/`[d]` ask (flags: 1 case, 2 diacritics), or nil
    /// when only the in-memory evaluator folds exactly as Foundation does.
    package let fold: (@Sendable (_ value: SQLFragment, _ flags: String) -> SQLFragment)?
    /// The call that matches strings (`BEGINSWITH`…`MATCHES` by `StringMatching.code(of:)`,
    /// with fold flags), or nil when only the in-memory evaluator can.
    package let match: (@Sendable (_ code: String, _ flags: String, _ subject: SQLFragment, _ pattern: SQLFragment) -> SQLFragment)?
    /// The call of a predicate function (by its raw value, with its operands), or nil when
    /// only the in-memory evaluator can.
    package let function: (@Sendable (_ code: String, _ operands: SQLFragment) -> SQLFragment)?

    /// The type of keys and other integer columns: `INTEGER` (SQLite), `bigint` (PostgreSQL).
    package let integerType: String
    /// The type of an attribute's column: its storage class (SQLite), `bigint`,
    /// `double precision`, `text COLLATE "C"` or `bytea` (PostgreSQL).
    package let columnType: @Sendable (AttributeType) -> String
    /// What follows a join table's definition: ` WITHOUT ROWID` (SQLite), nothing (PostgreSQL).
    package let joinTableOptions: String
    /// How an `INSERT` skips rows that break a key: `INSERT OR IGNORE` and nothing (SQLite),
    /// `INSERT` and ` ON CONFLICT DO NOTHING` (PostgreSQL).
    package let insertIgnoringConflicts: (verb: String, suffix: String)
    /// The call that computes a canonical search column from its source (`og_canonical`,
    /// SQLite), or nil when only Swift can (a migration then fills such columns row by row).
    package let canonical: (@Sendable (_ value: SQLFragment) -> SQLFragment)?
    /// Whether a statement's parameters are numbered (`$1`, PostgreSQL) or not (`?`, SQLite).
    package let numbersParameters: Bool
    /// What `LIMIT` takes for "no limit": a bound -1 (SQLite), `ALL` (PostgreSQL).
    package let unlimited: SQLFragment
    /// The brackets of a bound list of keys: `[` `]` (a JSON array, SQLite), `{` `}` (an
    /// array literal, PostgreSQL).
    package let keyListBrackets: (open: UInt8, close: UInt8)
    /// What surrounds a bound list of keys to test membership in it:
    /// `IN (SELECT value FROM json_each(?))` (SQLite), `= ANY(CAST(? AS bigint[]))` (PostgreSQL).
    package let keyMembership: (prefix: String, suffix: String)
    /// Whether `SELECT DISTINCT` can sort only by what it selects (PostgreSQL).
    package let sortsDistinctBySelectedOnly: Bool
    /// Whether the keys and full rows of a table that holds one entity leave the entity
    /// column out, because the store's reader takes the entity from the layout (SQLite);
    /// otherwise they select the entity's index as a constant (PostgreSQL). A constant
    /// column costs SQLite about 27 instructions a row.
    package let leavesOutSoleEntity: Bool

    /// The `number`th parameter (from 1) of a statement written as plain text.
    package func parameter(_ number: Int) -> String { numbersParameters ? "$\(number)" : "?" }

    /// Whether the database answers every predicate itself (no part needs the evaluator).
    package var answersEveryPredicate: Bool { fold != nil && match != nil && function != nil }

    /// A dialect; the stores define theirs.
    package init(
        trueLiteral: String, falseLiteral: String, equal: String, notEqual: String, ifNull: String, position: String,
        typedNull: String?, realType: String, guardsDivisionByZero: Bool, castsAverage: Bool,
        ascending: String, descending: String,
        fold: (@Sendable (_ value: SQLFragment, _ flags: String) -> SQLFragment)?,
        match: (@Sendable (_ code: String, _ flags: String, _ subject: SQLFragment, _ pattern: SQLFragment) -> SQLFragment)?,
        function: (@Sendable (_ code: String, _ operands: SQLFragment) -> SQLFragment)?,
        numbersParameters: Bool, unlimited: SQLFragment, keyListBrackets: (open: UInt8, close: UInt8),
        keyMembership: (prefix: String, suffix: String), sortsDistinctBySelectedOnly: Bool, leavesOutSoleEntity: Bool,
        integerType: String, columnType: @escaping @Sendable (AttributeType) -> String, joinTableOptions: String,
        insertIgnoringConflicts: (verb: String, suffix: String),
        canonical: (@Sendable (_ value: SQLFragment) -> SQLFragment)?,
        indexesNullSafeEquality: Bool = true, comparesIntegersWithDoublesExactly: Bool = true
    ) {
        self.trueLiteral = trueLiteral
        self.falseLiteral = falseLiteral
        self.equal = equal
        self.notEqual = notEqual
        self.indexesNullSafeEquality = indexesNullSafeEquality
        self.comparesIntegersWithDoublesExactly = comparesIntegersWithDoublesExactly
        self.ifNull = ifNull
        self.position = position
        self.typedNull = typedNull
        self.realType = realType
        self.guardsDivisionByZero = guardsDivisionByZero
        self.castsAverage = castsAverage
        self.ascending = ascending
        self.descending = descending
        self.fold = fold
        self.match = match
        self.function = function
        self.numbersParameters = numbersParameters
        self.unlimited = unlimited
        self.keyListBrackets = keyListBrackets
        self.keyMembership = keyMembership
        self.sortsDistinctBySelectedOnly = sortsDistinctBySelectedOnly
        self.leavesOutSoleEntity = leavesOutSoleEntity
        self.integerType = integerType
        self.columnType = columnType
        self.joinTableOptions = joinTableOptions
        self.insertIgnoringConflicts = insertIgnoringConflicts
        self.canonical = canonical
    }
}

extension SQLDialect {
    /// `function` over `value` across a set of rows, or `count(*)` without a value: SQL's
    /// own aggregates (a sum of no rows is NULL), with the average cast to ``realType``
    /// where ``castsAverage`` says.
    package func aggregate(_ function: AggregateFunction, of value: SQLFragment?) -> SQLFragment {
        guard let value else { return "count(*)" }
        switch function {
        case .count: return "count(\(value))"
        case .sum: return "sum(\(value))"
        case .avg: return castsAverage ? "CAST(avg(\(value)) AS \(raw: realType))" : "avg(\(value))"
        case .min: return "min(\(value))"
        case .max: return "max(\(value))"
        }
    }
}
