import ObjectGraph
import ObjectGraphSQL
/// Lowers a ``CheckedPredicate`` to a PostgreSQL condition that selects exactly the objects
/// the in-memory evaluator matches, or reports that it cannot.
///
/// The fragment is a self-contained boolean expression over the row of the predicate's
/// entity aliased `alias`; every value is a bound parameter. Every sub-condition is
/// two-valued (never NULL), so `NOT` agrees with Cocoa's nil semantics: equality uses
/// `IS [NOT] DISTINCT FROM`, orderings add `IS NOT NULL` or `COALESCE(…, FALSE)`.
/// To-one key paths become scalar subqueries, to-many collections correlated
/// `EXISTS`/`COUNT`/aggregate subqueries (through the join table for many-to-many);
/// `[cd]` comparisons arrive already moved onto canonical shadow columns and constants are
/// folded here, in Swift. What PostgreSQL cannot answer exactly as Foundation does (folding
/// a column, `BEGINSWITH`/`CONTAINS`/`LIKE`/`MATCHES` with `[c]` or `[d]`, `MATCHES`, the
/// functions) sets ``Compiler/needsEvaluator``: the store then runs the plan with the
/// in-memory evaluator (the reference semantics) on a snapshot of its rows.
///
/// ```swift
/// let checked = try FetchPredicate("name BEGINSWITH %@", "Cr").checked(for: recipe)
/// let condition = PredicateSQLCompiler.compile(checked, alias: "t0")
/// // (t0."name" >= $1 AND t0."name" < $2 AND t0."name" IS NOT NULL)   ["Cr", "Cs"]
/// ```
enum PredicateSQLCompiler {
    /// The WHERE condition for `predicate` over the row aliased `alias`, or nil when
    /// PostgreSQL cannot answer it exactly.
    static func compile(_ predicate: CheckedPredicate, alias: String) -> SQLFragment? {
        var compiler = Compiler(scopeCount: predicate.scopeCount, alias: alias)
        let condition = compiler.node(predicate.root)
        return compiler.needsEvaluator ? nil : condition
    }

    /// Whether PostgreSQL can answer `expression` exactly.
    static func isNative(_ expression: CheckedExpression) -> Bool {
        var compiler = Compiler(scopeCount: 1, alias: "t0")
        _ = compiler.expression(expression)
        return !compiler.needsEvaluator
    }

    /// A scalar expression over the row aliased `alias`, for sorting and dictionary columns.
    ///
    /// `chef.name` on `Recipe` aliased `t0` gives
    /// `(SELECT h1."name" FROM "Chef" AS h1 WHERE h1._pk = t0."chef")`.
    static func compile(_ expression: CheckedExpression, alias: String) -> SQLFragment {
        var compiler = Compiler(scopeCount: 1, alias: alias)
        return compiler.expression(expression)
    }

    /// ``compile(_:alias:)-swift.type.method`` of ``CheckedExpression/attributePath(_:of:)``.
    static func compileKeyPath(_ path: [String], entity: EntityDescription, alias: String) throws -> SQLFragment {
        compile(try CheckedExpression.attributePath(path.joined(separator: "."), of: entity), alias: alias)
    }

    /// The state of one compilation: aliases of scopes and a counter for fresh aliases.
    struct Compiler {
        var aliases: [String]
        var counter = 0
        /// Set when a part of the predicate needs the in-memory evaluator.
        var needsEvaluator = false

        init(scopeCount: Int, alias: String) {
            aliases = [String](repeating: "", count: scopeCount)
            aliases[0] = alias
        }

        mutating func fresh(_ prefix: String) -> String {
            counter += 1
            return prefix + String(counter)
        }

        // MARK: Nodes

        mutating func node(_ node: CheckedNode) -> SQLFragment {
            switch node {
            case .constant(let value): return value ? "TRUE" : "FALSE"
            case .not(let operand): return "NOT (\(self.node(operand)))"
            case .and(let operands): return "(" + SQLFragment.joined(operands.map { self.node($0) }, separator: " AND ") + ")"
            case .or(let operands): return "(" + SQLFragment.joined(operands.map { self.node($0) }, separator: " OR ") + ")"
            case .compare(let op, let options, let lhs, let rhs, let kind):
                return compare(op, options, lhs, rhs, kind)
            case .string(let op, let options, let lhs, let rhs):
                return string(op, options, lhs, rhs)
            case .member(let element, let candidates, let options, let kind):
                return member(element, candidates, options, kind)
            case .quantified(let modifier, let collection, let body):
                let (from, condition) = source(of: collection)
                let inner = self.node(body)
                switch modifier {
                case .all: return "NOT EXISTS (SELECT 1 \(from) WHERE \(condition) AND NOT (\(inner)))"
                case .none: return "NOT EXISTS (SELECT 1 \(from) WHERE \(condition) AND \(inner))"
                default: return "EXISTS (SELECT 1 \(from) WHERE \(condition) AND \(inner))"
                }
            case .identity(let reference, let ids, let matchesNil):
                return identity(reference, ids, matchesNil: matchesNil)
            }
        }

        /// The expression, folded as `options` ask (constants are folded here, once).
        private mutating func operand(_ expression: CheckedExpression, folding options: ComparisonOptions) -> SQLFragment {
            guard options.folds else { return self.expression(expression) }
            if case .constant(let value) = expression { return "\(PredicateEvaluator.fold(value, options))" }
            needsEvaluator = true
            return "FALSE"
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
            switch op {
            case .equal, .notEqual:
                let nullTest = op == .equal ? "IS" : "IS NOT"
                let keyword = op == .equal ? "IS NOT DISTINCT FROM" : "IS DISTINCT FROM"
                if rhs.constantValue == .null { return "(\(expression(lhs)) \(raw: nullTest) NULL)" }
                if lhs.constantValue == .null { return "(\(expression(rhs)) \(raw: nullTest) NULL)" }
                return "(\(operand(lhs, folding: folding)) \(raw: keyword) \(operand(rhs, folding: folding)))"
            default:
                if lhs.constantValue == .null || rhs.constantValue == .null { return "FALSE" }
                if !folding.folds, rhs.constantValue != nil, isPlainColumn(lhs) {
                    let column = expression(lhs)
                    return "(\(column) \(raw: op.rawValue) \(expression(rhs)) AND \(column) IS NOT NULL)"
                }
                if !folding.folds, lhs.constantValue != nil, isPlainColumn(rhs) {
                    let column = expression(rhs)
                    return "(\(column) \(raw: op.swapped.rawValue) \(expression(lhs)) AND \(column) IS NOT NULL)"
                }
                return "COALESCE(\(operand(lhs, folding: folding)) \(raw: op.rawValue) \(operand(rhs, folding: folding)), FALSE)"
            }
        }

        private mutating func string(
            _ op: ComparisonOperator, _ options: ComparisonOptions, _ lhs: CheckedExpression, _ rhs: CheckedExpression
        ) -> SQLFragment {
            if !options.folds {
                if op == .beginsWith, case .text(let prefix)? = rhs.constantValue {
                    let subject = expression(lhs)
                    if prefix.isEmpty { return "(\(subject) IS NOT NULL)" }
                    guard let upper = Self.successor(of: prefix) else {
                        return "(\(subject) >= \(StoredValue.text(prefix)) AND \(subject) IS NOT NULL)"
                    }
                    return "(\(subject) >= \(StoredValue.text(prefix)) AND \(subject) < \(StoredValue.text(upper)) AND \(subject) IS NOT NULL)"
                }
                if op == .contains {
                    return "COALESCE(strpos(\(expression(lhs)), \(expression(rhs))) > 0, FALSE)"
                }
            }
            needsEvaluator = true
            return "FALSE"
        }

        /// The least string greater than every string that starts with `prefix` (in UTF-8
        /// byte order), or nil when there is none.
        static func successor(of prefix: String) -> String? {
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
            guard candidates.allSatisfy({ $0.constantValue != nil }) else {
                let parts = candidates.map { compare(.equal, options, element, $0, kind) }
                return parts.isEmpty ? "FALSE" : "(" + SQLFragment.joined(parts, separator: " OR ") + ")"
            }
            var parts: [SQLFragment] = []
            let values = candidates.compactMap(\.constantValue).filter { !$0.isNull }
            if !values.isEmpty {
                let subject = operand(element, folding: folding)
                let list = SQLFragment.joined(values.map { "\(PredicateEvaluator.fold($0, folding))" }, separator: ", ")
                parts.append("(\(subject) IN (\(list)) AND \(subject) IS NOT NULL)")
            }
            if candidates.contains(where: { $0.constantValue == .null }) {
                parts.append("(\(expression(element)) IS NULL)")
            }
            if parts.isEmpty { return "FALSE" }
            return parts.count == 1 ? parts[0] : "(" + SQLFragment.joined(parts, separator: " OR ") + ")"
        }

        private mutating func identity(_ reference: CheckedObjectReference, _ ids: [ObjectID], matchesNil: Bool) -> SQLFragment {
            var groups: [(entity: Int, keys: [Int64])] = []
            for id in ids where !id.isTemporary {
                if let index = groups.firstIndex(where: { $0.entity == Int(id.entityIndex) }) {
                    if !groups[index].keys.contains(id.key) { groups[index].keys.append(id.key) }
                } else {
                    groups.append((Int(id.entityIndex), [id.key]))
                }
            }
            func keyList(_ keys: [Int64]) -> SQLFragment {
                keys.count == 1 ? "= \(StoredValue.integer(keys[0]))"
                    : "IN (" + SQLFragment.joined(keys.map { "\(StoredValue.integer($0))" }, separator: ", ") + ")"
            }
            var parts: [SQLFragment] = []
            guard let last = reference.hops.last else {
                let alias = aliases[reference.scope]
                for group in groups {
                    parts.append("(\(raw: alias).\(raw: SchemaNaming.primaryKey) \(keyList(group.keys)) AND \(raw: alias).\(raw: SchemaNaming.entityColumn) = \(raw: String(group.entity)))")
                }
                if parts.isEmpty { return "FALSE" }
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
            if parts.isEmpty { return "FALSE" }
            return "COALESCE(" + SQLFragment.joined(parts, separator: " OR ") + ", FALSE)"
        }
    }
}
