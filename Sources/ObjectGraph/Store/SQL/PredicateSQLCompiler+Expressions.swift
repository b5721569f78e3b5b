/// Scalar expressions, key paths and collections.
extension PredicateSQLCompiler.Compiler {
    mutating func expression(_ expression: CheckedExpression) -> SQLFragment {
        switch expression {
        case .constant(let value): return "\(value)"
        case .attribute(let scope, let hops, let attribute):
            return column(SchemaNaming.column(for: attribute), of: aliases[scope], through: hops)
        case .arithmetic(let op, let lhs, let rhs):
            let l = self.expression(lhs), r = self.expression(rhs)
            if op == .divide { return "(CAST(\(l) AS REAL) / \(r))" }
            return "(\(l) \(raw: op.rawValue) \(r))"
        case .negate(let operand): return "(- \(self.expression(operand)))"
        case .aggregate(let function, let collection, let inner):
            let (from, condition) = source(of: collection)
            guard let inner else { return "(SELECT COUNT(*) \(from) WHERE \(condition))" }
            let value = self.expression(inner)
            switch function {
            case .sum: return "(SELECT IFNULL(SUM(\(value)), 0) \(from) WHERE \(condition))"
            case .avg: return "(SELECT AVG(\(value)) \(from) WHERE \(condition))"
            case .min: return "(SELECT MIN(\(value)) \(from) WHERE \(condition))"
            case .max: return "(SELECT MAX(\(value)) \(from) WHERE \(condition))"
            case .count: return "(SELECT COUNT(*) \(from) WHERE \(condition))"
            }
        case .subqueryCount(let collection, let body):
            let (from, condition) = source(of: collection)
            return "(SELECT COUNT(*) \(from) WHERE \(condition) AND \(node(body)))"
        }
    }

    /// A column of the object reached from the row aliased `alias` through to-one `hops`:
    /// the column itself, or nested scalar subqueries (NULL when a relationship is nil).
    mutating func column(_ name: String, of alias: String, through hops: [RelationshipDescription]) -> SQLFragment {
        guard let last = hops.last else { return "\(column: name, of: alias)" }
        let key = column(SchemaNaming.column(for: last), of: alias, through: Array(hops.dropLast()))
        let hop = fresh("h")
        return "(SELECT \(column: name, of: hop) FROM \(table: SchemaNaming.table(for: last.destination)) AS \(raw: hop) WHERE \(raw: hop).\(raw: SchemaNaming.primaryKey) = \(key))"
    }

    /// `FROM …` and the correlation condition for a collection's destination rows; binds
    /// the collection's inner scope to the destination alias.
    mutating func source(of collection: CheckedCollection) -> (from: SQLFragment, condition: SQLFragment) {
        let owner: SQLFragment
        let ownerAlias = aliases[collection.scope]
        if let last = collection.hops.last {
            owner = column(SchemaNaming.column(for: last), of: ownerAlias, through: Array(collection.hops.dropLast()))
        } else {
            owner = "\(raw: ownerAlias).\(raw: SchemaNaming.primaryKey)"
        }
        let relationship = collection.relationship
        let destination = relationship.destination!
        let alias = fresh("p")
        aliases[collection.innerScope] = alias
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
        return (from, condition)
    }
}
