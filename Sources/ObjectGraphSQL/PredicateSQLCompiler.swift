package import ObjectGraph
/// Lowers a ``CheckedPredicate`` to a SQL condition that selects exactly the objects the
/// in-memory evaluator matches, in the dialect a store passes in.
///
/// The fragment is a self-contained boolean expression over the row of the predicate's
/// entity aliased `alias`; every value is a bound parameter. A condition in a WHERE clause
/// selects a row only when it is true, so NULL there reads as false, as a nil operand does
/// in Cocoa's semantics. Under a `NOT` it would not: there every sub-condition is made
/// two-valued (never NULL), so that `NOT` agrees with the in-memory evaluator. Equality is
/// null-safe everywhere (`IS`/`IS NOT` in SQLite, `IS [NOT] DISTINCT FROM` in PostgreSQL);
/// orderings, string tests and memberships add `IS NOT NULL` or `IFNULL(…, 0)`
/// (`COALESCE(…, FALSE)`) only under a `NOT`, where the guard changes the answer;
/// elsewhere it would only cost a test per row.
/// To-one key paths become scalar subqueries, to-many collections correlated
/// `EXISTS`/`COUNT`/aggregate subqueries (through the join table for many-to-many);
/// `[cd]` comparisons arrive already moved onto canonical shadow columns, and constants are
/// folded here, in Swift. Folding a column, string matching other than a plain
/// `BEGINSWITH`/`CONTAINS`, and the functions call what the dialect names (SQLite: the
/// functions `SQLFunctions` registers). A dialect without them (PostgreSQL) cannot answer
/// such a predicate exactly as Foundation does: ``compileExactly(_:alias:dialect:)`` then
/// returns nil, and the store runs the plan with the in-memory evaluator (the reference
/// semantics) on a snapshot of its rows.
///
/// ```swift
/// let checked = try FetchPredicate("name BEGINSWITH %@", "Cr").checked(for: recipe)
/// let condition = PredicateSQLCompiler.compile(checked, alias: "t0", dialect: .sqlite)
/// // (t0."name" >= ? AND t0."name" < ?)   ["Cr", "Cs"]
/// ```
/// Plain `attr == value`, `attr < value`, `attr IN {…}` and `attr BEGINSWITH value` on a
/// column of the row keep a form the database can answer from an index.
package enum PredicateSQLCompiler {
    /// The WHERE condition for `predicate` over the row aliased `alias`; parts the dialect
    /// cannot answer are written as false (see ``compileExactly(_:alias:dialect:)``).
    package static func compile(_ predicate: CheckedPredicate, alias: String, dialect: SQLDialect) -> SQLFragment {
        var compiler = Compiler(scopeCount: predicate.scopeCount, alias: alias, dialect: dialect, entity: predicate.entity)
        return compiler.node(predicate.root)
    }

    /// The WHERE condition for `predicate` over the row aliased `alias`, or nil when the
    /// dialect cannot answer it exactly.
    package static func compileExactly(_ predicate: CheckedPredicate, alias: String, dialect: SQLDialect) -> SQLFragment? {
        var compiler = Compiler(scopeCount: predicate.scopeCount, alias: alias, dialect: dialect, entity: predicate.entity)
        let condition = compiler.node(predicate.root)
        return compiler.needsEvaluator ? nil : condition
    }

    /// Whether the dialect can answer `expression` exactly.
    package static func isExact(_ expression: CheckedExpression, dialect: SQLDialect) -> Bool {
        var compiler = Compiler(scopeCount: 1, alias: "t0", dialect: dialect)
        _ = compiler.expression(expression)
        return !compiler.needsEvaluator
    }

    /// A scalar expression over the row aliased `alias`, for sorting and dictionary columns.
    ///
    /// `chef.name` on `Recipe` aliased `t0` gives
    /// `(SELECT h1."name" FROM "Chef" AS h1 WHERE h1._pk = t0."chef")`.
    package static func compile(_ expression: CheckedExpression, alias: String, dialect: SQLDialect) -> SQLFragment {
        var compiler = Compiler(scopeCount: 1, alias: alias, dialect: dialect)
        return compiler.expression(expression)
    }

    /// ``compile(_:alias:dialect:)-swift.type.method`` of ``CheckedExpression/attributePath(_:of:)``.
    package static func compileKeyPath(
        _ path: [String], entity: EntityDescription, alias: String, dialect: SQLDialect
    ) throws -> SQLFragment {
        compile(try CheckedExpression.attributePath(path.joined(separator: "."), of: entity), alias: alias, dialect: dialect)
    }

    /// The most operands an AND or OR chain is written with flat, as people write it:
    /// `(a OR b OR c)`.
    package static let flatChainLength = 8

    /// `operands` joined by `separator` (` AND ` or ` OR `), in parentheses: flat up to
    /// ``flatChainLength`` operands; a longer chain as a balanced tree of flat runs,
    /// `((a OR b OR …) OR (… OR y OR z))`.
    ///
    /// SQLite parses a flat chain of N terms into a tree N deep and refuses one deeper than
    /// 1,000 ("Expression tree is too large"); the balanced tree is about
    /// log2(N / ``flatChainLength``) + ``flatChainLength`` deep, so 100,000 ORed comparisons
    /// run. AND and OR are associative in SQL's three-valued logic, so the grouping changes
    /// no answer, and the operands keep their order.
    ///
    /// - Complexity: O(*n* log *n*) characters copied for *n* operands.
    package static func chain(_ operands: [SQLFragment], separator: String) -> SQLFragment {
        var result = SQLFragment()
        appendChain(operands[...], separator: separator, to: &result)
        return result
    }

    private static func appendChain(_ operands: ArraySlice<SQLFragment>, separator: String, to result: inout SQLFragment) {
        result.append("(")
        if operands.count <= flatChainLength {
            for (position, operand) in zip(operands.indices, operands) {
                if position > operands.startIndex { result.append(SQLFragment(sql: separator)) }
                result.append(operand)
            }
        } else {
            let middle = operands.startIndex + operands.count / 2
            appendChain(operands[..<middle], separator: separator, to: &result)
            result.append(SQLFragment(sql: separator))
            appendChain(operands[middle...], separator: separator, to: &result)
        }
        result.append(")")
    }

    /// The state of one compilation: aliases of scopes and a counter for fresh aliases.
    package struct Compiler {
        var aliases: [String]
        var counter = 0
        /// Set when a part of the predicate needs the in-memory evaluator.
        var needsEvaluator = false
        /// Whether the condition being compiled must never be NULL: it sits under a `NOT`,
        /// where NULL and false differ. Elsewhere (a WHERE clause, an `EXISTS` body) they do not.
        private var twoValued = false
        let dialect: SQLDialect
        /// The entity of the evaluated rows (scope 0), when known: a table that holds no
        /// other entity needs no test of its rows' entity column.
        let entity: EntityDescription?

        init(scopeCount: Int, alias: String, dialect: SQLDialect, entity: EntityDescription? = nil) {
            aliases = [String](repeating: "", count: scopeCount)
            aliases[0] = alias
            self.dialect = dialect
            self.entity = entity
        }

        /// The dialect's false, for a part that selects nothing.
        private var none: SQLFragment { SQLFragment(sql: dialect.falseLiteral) }

        /// `IFNULL(condition, 0)` in the dialect where the condition must never be NULL;
        /// the condition itself elsewhere.
        private func nullAsFalse(_ condition: SQLFragment) -> SQLFragment {
            guard twoValued else { return "(" + condition + ")" }
            return SQLFragment(sql: dialect.ifNull + "(") + condition + SQLFragment(sql: ", " + dialect.falseLiteral + ")")
        }

        /// ` AND subject IS NOT NULL` where the condition must never be NULL; nothing elsewhere.
        private func notNull(_ subject: SQLFragment) -> SQLFragment {
            twoValued ? " AND \(subject) IS NOT NULL" : SQLFragment()
        }

        /// Compiles `node` where NULL must (`twoValued`) or need not read as false.
        mutating func node(_ node: CheckedNode, twoValued: Bool) -> SQLFragment {
            let outer = self.twoValued
            self.twoValued = twoValued
            defer { self.twoValued = outer }
            return self.node(node)
        }

        mutating func fresh(_ prefix: String) -> String {
            counter += 1
            return prefix + String(counter)
        }

        // MARK: Nodes

        mutating func node(_ node: CheckedNode) -> SQLFragment {
            switch node {
            case .constant(let value): return SQLFragment(sql: value ? dialect.trueLiteral : dialect.falseLiteral)
            case .not(let operand): return "NOT (\(self.node(operand, twoValued: true)))"
            case .and(let operands): return PredicateSQLCompiler.chain(operands.map { self.node($0) }, separator: " AND ")
            case .or(let operands): return PredicateSQLCompiler.chain(operands.map { self.node($0) }, separator: " OR ")
            case .compare(let op, let options, let lhs, let rhs, let kind):
                return compare(op, options, lhs, rhs, kind)
            case .string(let op, let options, let lhs, let rhs):
                return string(op, options, lhs, rhs)
            case .member(let element, let candidates, let options, let kind):
                return member(element, candidates, options, kind)
            case .quantified(let modifier, let collection, let body):
                let (from, condition) = source(of: collection)
                // EXISTS is never NULL; its body filters rows, like a WHERE clause.
                let inner = self.node(body, twoValued: modifier == .all)
                switch modifier {
                case .all: return "NOT EXISTS (SELECT 1 \(from) WHERE \(condition) AND NOT (\(inner)))"
                case .none: return "NOT EXISTS (SELECT 1 \(from) WHERE \(condition) AND \(inner))"
                default: return "EXISTS (SELECT 1 \(from) WHERE \(condition) AND \(inner))"
                }
            case .identity(let reference, let ids, let matchesNil):
                return identity(reference, ids, matchesNil: matchesNil)
            }
        }

        private static func foldFlags(_ options: ComparisonOptions) -> String {
            String((options.contains(.caseInsensitive) ? 1 : 0) | (options.contains(.diacriticInsensitive) ? 2 : 0))
        }

        /// The expression, folded as `options` ask (constants are folded here, once).
        private mutating func operand(_ expression: CheckedExpression, folding options: ComparisonOptions) -> SQLFragment {
            guard options.folds else { return self.expression(expression) }
            if case .constant(let value) = expression { return "\(PredicateEvaluator.fold(value, options))" }
            guard let fold = dialect.fold else {
                needsEvaluator = true
                return none
            }
            return fold(self.expression(expression), Self.foldFlags(options))
        }

        private func isPlainColumn(_ expression: CheckedExpression) -> Bool {
            if case .attribute(_, let hops, _) = expression { return hops.isEmpty }
            return false
        }

        private mutating func compare(
            _ op: ComparisonOperator, _ options: ComparisonOptions, _ lhs: CheckedExpression, _ rhs: CheckedExpression,
            _ kind: ValueKind
        ) -> SQLFragment {
            let folding: ComparisonOptions = kind == .string || kind == .url ? options : []
            var (lhs, rhs) = (lhs, rhs)
            if !dialect.comparesIntegersWithDoublesExactly, let left = numberKind(lhs), let right = numberKind(rhs), left != right {
                // A constant that converts exactly takes the other side's type (`count == 2.0`
                // as `count = 2`, which the column's index answers); otherwise exact numerics.
                if let converted = Self.converted(rhs, to: left) {
                    rhs = converted
                } else if let converted = Self.converted(lhs, to: right) {
                    lhs = converted
                } else {
                    let l = exactNumeric(expression(lhs), left), r = exactNumeric(expression(rhs), right)
                    switch op {
                    case .equal: return "(\(l) \(raw: dialect.equal) \(r))"
                    case .notEqual: return "(\(l) \(raw: dialect.notEqual) \(r))"
                    default: return nullAsFalse("\(l) \(raw: op.rawValue) \(r)")
                    }
                }
            }
            switch op {
            case .equal, .notEqual:
                let nullTest = op == .equal ? "IS" : "IS NOT"
                let keyword = op == .equal ? dialect.equal : dialect.notEqual
                if rhs.constantValue == .null { return "(\(expression(lhs)) \(raw: nullTest) NULL)" }
                if lhs.constantValue == .null { return "(\(expression(rhs)) \(raw: nullTest) NULL)" }
                if op == .equal, !dialect.indexesNullSafeEquality, !folding.folds {
                    // A value that is not NULL: `=` selects the same rows, from the column's index.
                    if rhs.constantValue != nil, isPlainColumn(lhs) {
                        let column = expression(lhs)
                        return "(\(column) = \(expression(rhs))\(notNull(column)))"
                    }
                    if lhs.constantValue != nil, isPlainColumn(rhs) {
                        let column = expression(rhs)
                        return "(\(column) = \(expression(lhs))\(notNull(column)))"
                    }
                }
                return "(\(operand(lhs, folding: folding)) \(raw: keyword) \(operand(rhs, folding: folding)))"
            default:
                if lhs.constantValue == .null || rhs.constantValue == .null { return none }
                if !folding.folds, rhs.constantValue != nil, isPlainColumn(lhs) {
                    let column = expression(lhs)
                    return "(\(column) \(raw: op.rawValue) \(expression(rhs))\(notNull(column)))"
                }
                if !folding.folds, lhs.constantValue != nil, isPlainColumn(rhs) {
                    let column = expression(rhs)
                    return "(\(column) \(raw: op.swapped.rawValue) \(expression(lhs))\(notNull(column)))"
                }
                return nullAsFalse("\(operand(lhs, folding: folding)) \(raw: op.rawValue) \(operand(rhs, folding: folding))")
            }
        }

        /// Whether an expression's values are integers or doubles (dates included), when its
        /// type says.
        private enum NumberKind { case integer, double }

        private func numberKind(_ expression: CheckedExpression) -> NumberKind? {
            switch expression {
            case .constant(.integer): return .integer
            case .constant(.real): return .double
            case .attribute(_, _, let attribute):
                switch attribute.type {
                case .integer16, .integer32, .integer64, .boolean: return .integer
                case .double, .date: return .double
                default: return nil
                }
            case .arithmetic(.divide, _, _): return .double
            case .arithmetic(_, let lhs, let rhs):
                let kinds = [numberKind(lhs), numberKind(rhs)]
                return kinds.contains(.double) ? .double : kinds == [.integer, .integer] ? .integer : nil
            case .negate(let operand): return numberKind(operand)
            case .aggregate(.count, _, _), .subqueryCount: return .integer
            case .aggregate(.avg, _, _): return .double
            case .aggregate(_, _, let inner?): return numberKind(inner)
            default: return nil
            }
        }

        /// A constant of the other number kind that converts to `kind` exactly, or nil.
        private static func converted(_ expression: CheckedExpression, to kind: NumberKind) -> CheckedExpression? {
            switch (expression.constantValue, kind) {
            case (.real(let value)?, .integer): Int64(exactly: value).map { .constant(.integer($0)) }
            case (.integer(let value)?, .double): Double(exactly: value).map { .constant(.real($0)) }
            default: nil
            }
        }

        /// `value` as a `numeric` that orders against every integer exactly as `value` does:
        /// an integer as it is; a double (whose cast to `numeric` keeps only 15 digits) as its
        /// integer part, plus or minus a half when it has a fraction, or, beyond the 64-bit
        /// integers, as its cast, which stays beyond them.
        private func exactNumeric(_ value: SQLFragment, _ kind: NumberKind) -> SQLFragment {
            guard kind == .double else { return "CAST(\(value) AS numeric)" }
            let bound = "CAST(9223372036854775808 AS \(dialect.realType))"
            return "(CASE WHEN \(value) >= -\(raw: bound) AND \(value) < \(raw: bound) "
                + "THEN CAST(CAST(trunc(\(value)) AS \(raw: dialect.integerType)) AS numeric) + CAST(sign(\(value) - trunc(\(value))) AS numeric) / 2 "
                + "ELSE CAST(\(value) AS numeric) END)"
        }

        private mutating func string(
            _ op: ComparisonOperator, _ options: ComparisonOptions, _ lhs: CheckedExpression, _ rhs: CheckedExpression
        ) -> SQLFragment {
            if !options.folds {
                if op == .beginsWith, case .text(let prefix)? = rhs.constantValue {
                    let subject = expression(lhs)
                    if prefix.isEmpty { return "(\(subject) IS NOT NULL)" }
                    guard let upper = Self.successor(of: prefix) else {
                        return "(\(subject) >= \(StoredValue.text(prefix))\(notNull(subject)))"
                    }
                    return "(\(subject) >= \(StoredValue.text(prefix)) AND \(subject) < \(StoredValue.text(upper))\(notNull(subject)))"
                }
                if op == .contains {
                    return nullAsFalse("\(raw: dialect.position)(\(expression(lhs)), \(expression(rhs))) > 0")
                }
            }
            guard let match = dialect.match else {
                needsEvaluator = true
                return none
            }
            let code = String(StringMatching.code(of: op)), flags = Self.foldFlags(options)
            return match(code, flags, expression(lhs), expression(rhs))
        }

        /// The least string greater than every string that starts with `prefix` (in UTF-8
        /// byte order), or nil when there is none.
        package static func successor(of prefix: String) -> String? {
            var scalars = Array(prefix.unicodeScalars)
            while let last = scalars.popLast() {
                var value = last.value + 1
                if value == 0xD800 { value = 0xE000 }
                if let next = Unicode.Scalar(value) {
                    var result = String.UnicodeScalarView()
                    result.append(contentsOf: scalars)
                    result.append(next)
                    return String(result)
                }
            }
            return nil
        }

        private mutating func member(
            _ element: CheckedExpression, _ candidates: [CheckedExpression], _ options: ComparisonOptions, _ kind: ValueKind
        ) -> SQLFragment {
            let folding: ComparisonOptions = kind == .string || kind == .url ? options : []
            // One pass over the candidates (an import's lists hold thousands of names). Where
            // integers and doubles compare as doubles, a candidate of the element's other
            // number kind takes its type, or, when it cannot exactly, each is compared alone.
            var values: [StoredValue] = [], matchesNull = false
            values.reserveCapacity(candidates.count)
            let elementKind = dialect.comparesIntegersWithDoublesExactly ? nil : numberKind(element)
            for candidate in candidates {
                var constant = candidate.constantValue
                if let elementKind, let kind = numberKind(candidate), kind != elementKind {
                    constant = Self.converted(candidate, to: elementKind)?.constantValue
                }
                guard let value = constant else {
                    let parts = candidates.map { compare(.equal, options, element, $0, kind) }
                    return PredicateSQLCompiler.chain(parts, separator: " OR ")
                }
                if value.isNull { matchesNull = true } else { values.append(PredicateEvaluator.fold(value, folding)) }
            }
            var parts: [SQLFragment] = []
            if !values.isEmpty {
                let subject = operand(element, folding: folding)
                parts.append("(\(subject) IN (\(SQLFragment.list(values)))\(notNull(subject)))")
            }
            if matchesNull {
                parts.append("(\(expression(element)) IS NULL)")
            }
            if parts.isEmpty { return none }
            return parts.count == 1 ? parts[0] : "(" + SQLFragment.joined(parts, separator: " OR ") + ")"
        }

        private mutating func identity(_ reference: CheckedObjectReference, _ ids: [ObjectID], matchesNil: Bool) -> SQLFragment {
            // Keys grouped by entity, each group and key in first-seen order; the sets keep a
            // long list (an import's tens of thousands of IDs) linear.
            var groups: [(entity: Int, keys: [Int64])] = []
            var groupIndex: [Int: Int] = [:], seen: [Int: Set<Int64>] = [:]
            for id in ids where !id.isTemporary {
                let entity = Int(id.entityIndex)
                guard seen[entity, default: []].insert(id.key).inserted else { continue }
                if let index = groupIndex[entity] {
                    groups[index].keys.append(id.key)
                } else {
                    groupIndex[entity] = groups.count
                    groups.append((entity, [id.key]))
                }
            }
            func keyList(_ keys: [Int64]) -> SQLFragment {
                keys.count == 1 ? "= \(StoredValue.integer(keys[0]))"
                    : "IN (\(SQLFragment.list(keys.map(StoredValue.integer))))"
            }
            var parts: [SQLFragment] = []
            guard let last = reference.hops.last else {
                let alias = aliases[reference.scope]
                // The only entity of its table: its rows' keys alone say which they are.
                let sole = reference.scope == 0 ? entity.flatMap { $0.root.selfAndDescendants.count == 1 ? $0.index : nil } : nil
                for group in groups {
                    if let sole {
                        if group.entity == sole { parts.append("(\(raw: alias).\(raw: SchemaNaming.primaryKey) \(keyList(group.keys)))") }
                    } else {
                        parts.append("(\(raw: alias).\(raw: SchemaNaming.primaryKey) \(keyList(group.keys)) AND \(raw: alias).\(raw: SchemaNaming.entityColumn) = \(raw: String(group.entity)))")
                    }
                }
                if parts.isEmpty { return none }
                return parts.count == 1 ? parts[0] : "(" + SQLFragment.joined(parts, separator: " OR ") + ")"
            }
            let scopeAlias = aliases[reference.scope]
            let key = self.key(of: scopeAlias, through: reference.hops)
            let entityKey: SQLFragment?
            switch last {
            case .toOne(let relationship):
                entityKey = SchemaNaming.entityColumn(for: relationship)
                    .map { column($0, of: scopeAlias, through: Array(reference.hops.dropLast())) }
            case .element:
                entityKey = column(SchemaNaming.entityColumn, of: scopeAlias, through: reference.hops)
            }
            let tree = last.relationship.destination.root.selfAndDescendants
            for group in groups {
                if let entityKey {
                    parts.append("(\(key) \(keyList(group.keys)) AND \(entityKey) = \(raw: String(group.entity)))")
                } else if tree.count == 1, tree[0].index == group.entity {
                    parts.append("(\(key) \(keyList(group.keys)))")
                }
            }
            if matchesNil { parts.append("(\(key) IS NULL)") }
            if parts.isEmpty { return none }
            return nullAsFalse(SQLFragment.joined(parts, separator: " OR "))
        }
    }
}
