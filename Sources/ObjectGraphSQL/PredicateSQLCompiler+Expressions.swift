import ObjectGraph
/// Scalar expressions, key paths and collections.
extension PredicateSQLCompiler.Compiler {
    /// `lhs op rhs` without the parentheses: a left operand that is itself `+`/`-` (under
    /// `+` or `-`) or `*` (under `*`) is written without its own, `a + b - c`, which SQL reads
    /// as `(a + b) - c`.
    ///
    /// The grouping stays as parsed (floating-point addition is not associative, and the
    /// result must match the in-memory evaluator's); only the parentheses go, because
    /// SQLite's parser stack grows with each one still open and overflows at about 100
    /// ("parser stack overflow"), where a chain without them parses in constant stack. The
    /// left spine is walked in a loop, so a long chain costs no recursion.
    private mutating func arithmeticChain(_ op: ArithmeticOperator, _ lhs: CheckedExpression, _ rhs: CheckedExpression) -> SQLFragment {
        func isAdditive(_ op: ArithmeticOperator) -> Bool { op == .add || op == .subtract }
        var tail: [(ArithmeticOperator, CheckedExpression)] = [(op, rhs)]
        var first = lhs
        while case .arithmetic(let inner, let innerLeft, let innerRight) = first, inner != .divide,
              isAdditive(inner) == isAdditive(tail[tail.count - 1].0) {
            tail.append((inner, innerRight))
            first = innerLeft
        }
        var result = self.expression(first)
        for (op, operand) in tail.reversed() {
            result.append(SQLFragment(sql: " " + op.rawValue + " "))
            result.append(self.expression(operand))
        }
        return result
    }

    /// A scalar expression.
    mutating func expression(_ expression: CheckedExpression) -> SQLFragment {
        switch expression {
        case .constant(let value):
            // A bare NULL has no type PostgreSQL can pick an operator for: the dialect makes
            // it numeric (arithmetic and negation only take numbers; comparisons take anything).
            if value == .null, let typedNull = dialect.typedNull { return SQLFragment(sql: typedNull) }
            return "\(value)"
        case .attribute(let scope, let hops, let attribute):
            return column(SchemaNaming.column(for: attribute), of: aliases[scope], through: hops)
        case .arithmetic(let op, let lhs, let rhs):
            guard op == .divide else { return "(" + arithmeticChain(op, lhs, rhs) + ")" }
            let l = self.expression(lhs), r = self.expression(rhs)
            // A division by zero is NULL, as in SQLite (PostgreSQL would raise an error).
            let divisor: SQLFragment = dialect.guardsDivisionByZero ? "NULLIF(\(r), 0)" : r
            return "(CAST(\(l) AS \(raw: dialect.realType)) / \(divisor))"
        case .negate(let operand): return "(- \(self.expression(operand)))"
        case .aggregate(let function, let collection, let inner):
            let (from, condition) = source(of: collection)
            // A count counts rows (`@count` of a collection); a sum of none is 0, not NULL.
            let value = function == .count ? nil : inner.map { self.expression($0) }
            var aggregate = dialect.aggregate(function, of: value)
            if function == .sum { aggregate = "\(raw: dialect.ifNull)(\(aggregate), 0)" }
            return "(SELECT \(aggregate) \(from) WHERE \(condition))"
        case .subqueryCount(let collection, let body):
            let (from, condition) = source(of: collection)
            return "(SELECT \(dialect.aggregate(.count, of: nil)) \(from) WHERE \(condition) AND \(node(body, twoValued: false)))"
        case .function(let function, let operands):
            // Swift's uppercase, length (in characters) and remainders: the evaluator's,
            // unless the dialect calls functions that compute the same.
            guard let call = dialect.function else {
                needsEvaluator = true
                return "NULL"
            }
            return call(String(function.rawValue), SQLFragment.joined(operands.map { self.expression($0) }, separator: ", "))
        }
    }

    /// A column of the object reached from the row aliased `alias` through `hops`: the
    /// column itself, or nested scalar subqueries (NULL when there is no such object). An
    /// element hop selects from the relationship's rows in its order with `LIMIT 1 OFFSET n`.
    mutating func column(_ name: String, of alias: String, through hops: [CheckedHop]) -> SQLFragment {
        guard let last = hops.last else { return "\(column: name, of: alias)" }
        let prefix = Array(hops.dropLast())
        switch last {
        case .toOne(let relationship):
            let key = column(SchemaNaming.column(for: relationship), of: alias, through: prefix)
            let hop = fresh("h")
            return "(SELECT \(column: name, of: hop) FROM \(table: SchemaNaming.table(for: relationship.destination)) AS \(raw: hop) WHERE \(raw: hop).\(raw: SchemaNaming.primaryKey) = \(key))"
        case .element(let relationship, let offset, let fromEnd):
            let (from, condition, element) = rows(of: relationship, owner: key(of: alias, through: prefix))
            // NULL sorts first, as in SQLite (PostgreSQL sorts it last by default).
            let direction = fromEnd ? dialect.descending : dialect.ascending
            let orderKey = relationship.destination.attribute(named: relationship.orderKey!)!
            return "(SELECT \(column: name, of: element) \(from) WHERE \(condition) ORDER BY \(column: SchemaNaming.column(for: orderKey), of: element)\(raw: direction), \(raw: element).\(raw: SchemaNaming.primaryKey)\(raw: fromEnd ? " DESC" : "") LIMIT 1 OFFSET \(raw: String(offset)))"
        }
    }

    /// The primary key of the object reached from the row aliased `alias` through `hops`
    /// (NULL when there is none).
    mutating func key(of alias: String, through hops: [CheckedHop]) -> SQLFragment {
        switch hops.last {
        case nil: return "\(raw: alias).\(raw: SchemaNaming.primaryKey)"
        case .toOne(let relationship)?: return column(SchemaNaming.column(for: relationship), of: alias, through: Array(hops.dropLast()))
        case .element?: return column(SchemaNaming.primaryKey, of: alias, through: hops)
        }
    }

    /// `FROM …` and the correlation condition for a collection's destination rows; binds
    /// the collection's inner scope to the destination alias.
    mutating func source(of collection: CheckedCollection) -> (from: SQLFragment, condition: SQLFragment) {
        let owner = key(of: aliases[collection.scope], through: collection.hops)
        let (from, condition, alias) = rows(of: collection.relationship, owner: owner)
        aliases[collection.innerScope] = alias
        return (from, condition)
    }

    /// `FROM …`, the correlation condition and the alias of the destination rows of a to-many
    /// relationship of the object whose primary key is `owner` (through the join table for
    /// many-to-many).
    mutating func rows(of relationship: RelationshipDescription, owner: SQLFragment) -> (from: SQLFragment, condition: SQLFragment, alias: String) {
        let destination = relationship.destination!
        let alias = fresh("p")
        let table = SchemaNaming.table(for: destination)
        var from: SQLFragment
        var condition: SQLFragment
        if relationship.isManyToMany {
            let join = SchemaNaming.joinTable(for: relationship)
            let joinAlias = fresh("j")
            from = "FROM \(table: join.table) AS \(raw: joinAlias) JOIN \(table: table) AS \(raw: alias) ON \(raw: alias).\(raw: SchemaNaming.primaryKey) = \(column: join.destinationColumn, of: joinAlias)"
            condition = "\(column: join.sourceColumn, of: joinAlias) = \(owner)"
        } else {
            from = "FROM \(table: table) AS \(raw: alias)"
            condition = "\(column: SchemaNaming.column(for: relationship.inverse), of: alias) = \(owner)"
        }
        if let restriction = SchemaNaming.entityRestriction(for: destination, alias: alias) {
            condition = condition + " AND " + restriction
        }
        return (from, condition, alias)
    }
}
