package import ObjectGraph

/// The SQL that migrates a store from one model version to another without code: what an
/// inferred ``ObjectGraph/MappingModel`` says, as statements run in one transaction.
///
/// A tree whose table changes is rebuilt: the old table is renamed `_migrating_<name>`
/// (its indexes dropped), the new one created from the destination model, and the rows
/// copied with one `INSERT … SELECT` whose expressions do the renames, defaults, widened
/// types, new entity indexes and moved attributes. A tree that only gains columns whose
/// value is a constant gets `ALTER TABLE … ADD COLUMN` instead; an unchanged tree is left
/// alone. Join tables are rebuilt the same way, from the old join table or, for a to-one
/// that became to-many, from the old column. Derived attributes are computed afresh.
///
/// Both stores run it, each in its own dialect: the statements are the same but for column
/// types, `INSERT OR IGNORE` (SQLite) against `ON CONFLICT DO NOTHING` (PostgreSQL), and
/// canonical search columns, which SQLite computes with `og_canonical` and PostgreSQL
/// leaves to the store (``Step/canonicalize(table:column:from:entities:)``).
package struct MigrationSQL {
    /// The name a table has while a migration rebuilds it: the old table is renamed aside,
    /// read from, and dropped at the end.
    package static func asideName(_ table: String) -> String { "_migrating_" + table }

    /// One thing to run.
    package enum Step {
        /// A statement.
        case run(SQLFragment)
        /// Drop every index the named table has (before a table of its old name is created).
        case dropIndexes(String)
        /// Copy rows into a table; when a constraint fails, the queries find the first
        /// object that broke it: each returns (key, source entity index) of a duplicate.
        case copy(SQLFragment, entity: String, duplicates: [(keys: [String], query: String)])
        /// Set `column` of the rows of the entities (by index) in `table` to the canonical
        /// folding of their `source` column, in Swift: for a dialect with no `og_canonical`.
        case canonicalize(table: String, column: String, from: String, entities: [Int])
    }

    package let mapping: MappingModel
    package let dialect: SQLDialect
    package private(set) var steps: [Step] = []
    /// Source rows each step copies, for progress (the same length as ``steps``).
    package private(set) var weights: [Int] = []

    private var source: ObjectModel { mapping.sourceModel }
    private var destination: ObjectModel { mapping.destinationModel }
    /// Source tables renamed aside, by source table name.
    private var renamedAside: Set<String> = []
    private var dropAtEnd: [String] = []
    /// Destination trees rebuilt or created, by root name.
    private var rebuilt: Set<String> = []
    /// Whether some source entity's rows are dropped from a tree that stays.
    private var dropsRows = false
    private let rowCounts: [String: Int]

    /// Plans the migration in `dialect`. `rowCounts` are the source tables' row counts (for progress).
    package init(mapping: MappingModel, rowCounts: [String: Int], dialect: SQLDialect) {
        self.mapping = mapping
        self.dialect = dialect
        self.rowCounts = rowCounts
        plan()
    }

    // MARK: Entity correspondence

    /// The destination entity standing for a source entity's objects.
    private func destinationEntity(of entity: EntityDescription) -> EntityDescription? {
        mapping.mapping(forSource: entity.name)?.destinationEntityName.flatMap(destination.entity(named:))
    }

    /// The source entity whose objects become a destination entity's (nil for a new one).
    private func sourceEntity(of entity: EntityDescription) -> EntityDescription? {
        guard let entityMapping = mapping.mapping(forDestination: entity.name),
              entityMapping.kind == .copy || entityMapping.kind == .transform else { return nil }
        return entityMapping.sourceEntityName.flatMap(source.entity(named:))
    }

    /// The table a source tree's rows are read from during the migration.
    private func oldTable(_ root: EntityDescription) -> String {
        renamedAside.contains(root.name) ? Self.asideName(root.name) : root.name
    }

    /// `CASE o."_ent" WHEN 0 THEN 3 … END`, or the column itself when indexes stay.
    private func entityIndex(_ column: String, of tree: EntityDescription) -> SQLFragment {
        var pairs: [(Int, Int)] = []
        for entity in tree.selfAndDescendants {
            if let target = destinationEntity(of: entity) { pairs.append((entity.index, target.index)) }
        }
        if pairs.allSatisfy({ $0.0 == $0.1 }) { return "\(column: column, of: "o")" }
        return "CASE \(column: column, of: "o")" + SQLFragment(sql: pairs.map { " WHEN \($0.0) THEN \($0.1)" }.joined()) + " END"
    }

    /// `o."_ent" IN (…)` for the source entities given, or nil when they are the whole tree.
    private func restriction(to entities: [EntityDescription], in tree: EntityDescription) -> SQLFragment? {
        if entities.count == tree.selfAndDescendants.count { return nil }
        return SQLFragment(sql: "o.\"_ent\" IN (\(entities.map { String($0.index) }.joined(separator: ", ")))")
    }

    // MARK: Planning

    private mutating func plan() {
        let sourceRoots = source.entities.filter { $0.parent == nil }
        let destinationRoots = destination.entities.filter { $0.parent == nil }
        var copies: [(EntityDescription, EntityDescription)] = []  // (destination root, source root)
        var extractions: [(EntityDescription, EntityMapping)] = []
        var created: [EntityDescription] = []
        for root in destinationRoots {
            let entityMapping = mapping.mapping(forDestination: root.name)
            if let old = sourceEntity(of: root) {
                copies.append((root, old.root))
            } else if let entityMapping, entityMapping.kind == .extract {
                extractions.append((root, entityMapping))
            } else {
                created.append(root)
            }
        }
        // Trees that change are set aside first, so new tables can take their names.
        var rowCopies: [(EntityDescription, EntityDescription)] = []
        for (root, old) in copies {
            switch treeChange(root, from: old) {
            case .none: continue
            case .columns(let added):
                for statement in added {
                    steps.append(.run(statement))
                    weights.append(rowCounts[old.name] ?? 0)
                }
                rebuilt.insert(root.name)
            case .rebuild:
                setAside(old.name)
                rowCopies.append((root, old))
            }
        }
        let joinPlans = joinTablePlans()
        for plan in joinPlans where plan.setsAside { setAside(plan.sourceTable!) }
        for root in rowCopies.map(\.0) + extractions.map(\.0) + created {
            for statement in SchemaSQL.createTable(TableLayout(root: root), dialect: dialect) { add(.run(SQLFragment(sql: statement))) }
            rebuilt.insert(root.name)
        }
        for (root, old) in rowCopies { copyRows(into: root, from: old) }
        for (root, entityMapping) in extractions { extractRows(into: root, entityMapping) }
        for plan in joinPlans where plan.isRebuilt {
            for statement in SchemaSQL.createJoinTable(plan.relationship, dialect: dialect) { add(.run(SQLFragment(sql: statement))) }
            if let select = plan.select {
                steps.append(.run("\(raw: dialect.insertIgnoringConflicts.verb) INTO \(table: plan.table) (\"_source\", \"_destination\") "
                + select + SQLFragment(sql: dialect.insertIgnoringConflicts.suffix)))
                weights.append(plan.weight)
            }
        }
        for old in sourceRoots where destinationEntity(of: old) == nil && !source.entities.contains(where: {
            $0.root === old && destinationEntity(of: $0) != nil
        }) {
            add(.run("DROP TABLE \(table: old.name)"))
            add(.run("DELETE FROM \"_primarykeys\" WHERE \"name\" = \(.text(old.name))"))
        }
        for (root, old) in copies where root.name != old.name {
            add(.run("DELETE FROM \"_primarykeys\" WHERE \"name\" = \(.text(root.name))"))
            add(.run("UPDATE \"_primarykeys\" SET \"name\" = \(.text(root.name)) WHERE \"name\" = \(.text(old.name))"))
        }
        for table in dropAtEnd { add(.run("DROP TABLE \(table: table)")) }
        if dropsRows { removeDanglingReferences() }
        recomputeDerivedAttributes()
        if dialect.canonical == nil { canonicalizeInStore() }
    }

    private mutating func add(_ step: Step) {
        steps.append(step)
        weights.append(0)
    }

    private mutating func setAside(_ table: String) {
        add(.run("ALTER TABLE \(table: table) RENAME TO \(table: Self.asideName(table))"))
        add(.dropIndexes(Self.asideName(table)))
        renamedAside.insert(table)
        dropAtEnd.append(Self.asideName(table))
    }

    // MARK: Rows of a tree

    private enum TreeChange {
        case none
        /// Only new columns at the end, with constant values: `ALTER TABLE … ADD COLUMN` and an update.
        case columns([SQLFragment])
        case rebuild
    }

    /// How a destination tree differs from the source tree its rows come from.
    private mutating func treeChange(_ root: EntityDescription, from old: EntityDescription) -> TreeChange {
        let layout = TableLayout(root: root), oldLayout = TableLayout(root: old)
        let (expressions, condition) = columnExpressions(root, from: old)
        if condition != nil { dropsRows = true }
        func plain(_ expression: SQLFragment, _ name: String) -> Bool {
            expression.arguments.isEmpty && expression.sql == "o." + SQLIdentifier(name).quoted
        }
        let oldColumns = Set(oldLayout.columns)
        // Reads name their columns, so a table keeps working whatever order its columns are in.
        let identity = root.name == old.name && condition == nil && plain(expressions[0], "_pk") && plain(expressions[1], "_ent")
            && oldColumns.isSubset(of: Set(layout.columns))
            && oldLayout.columns.allSatisfy { plain(expressions[layout.columnIndex[$0]! + 1], $0) }
        guard identity else { return .rebuild }
        let newTable = SchemaSQL.createTable(layout, dialect: dialect), oldTable = SchemaSQL.createTable(oldLayout, dialect: dialect)
        if newTable == oldTable { return .none }
        // Same constraints, and the new columns' values do not read the row: add them in place.
        let constraints = { (tree: EntityDescription) in tree.selfAndDescendants.flatMap(\.uniquenessConstraints) }
        // A column whose type changed (an integer become a double) is copied into its new type.
        guard constraints(root) == constraints(old),
              oldLayout.columns.allSatisfy({ columnType($0, in: old) == columnType($0, in: root) }),
              Set(oldTable.dropFirst()).isSubset(of: Set(newTable.dropFirst())) else { return .rebuild }
        var statements: [SQLFragment] = []
        for name in layout.columns where !oldColumns.contains(name) {
            let expression = expressions[layout.columnIndex[name]! + 1]
            guard !expression.sql.contains("o.") else { return .rebuild }
            let type = columnType(name, in: root)
            statements.append("ALTER TABLE \(table: root.name) ADD COLUMN \(column: name) \(raw: type)")
            if expression.sql != "NULL" {
                statements.append("UPDATE \(table: root.name) SET \(column: name) = " + expression)
            }
        }
        for index in Set(newTable.dropFirst()).subtracting(oldTable.dropFirst()).sorted() {
            statements.append(SQLFragment(sql: index))
        }
        return .columns(statements)
    }

    /// The type of a column of a tree's table: its attribute's, or an integer (a key).
    private func columnType(_ column: String, in root: EntityDescription) -> String {
        root.selfAndDescendants.lazy.compactMap { $0.attribute(named: column).map { dialect.columnType($0.type) } }.first
            ?? dialect.integerType
    }

    /// The expression of every column of the destination tree's full row (`_pk`, `_ent`,
    /// `_opt`, then the layout's columns) over a source row `o`, and which rows to keep.
    private func columnExpressions(_ root: EntityDescription, from old: EntityDescription) -> ([SQLFragment], SQLFragment?) {
        let layout = TableLayout(root: root)
        var expressions: [SQLFragment] = ["o.\"_pk\"", entityIndex("_ent", of: old), "o.\"_opt\""]
        for column in layout.columns { expressions.append(expression(for: column, in: root)) }
        let kept = old.selfAndDescendants.filter { destinationEntity(of: $0) != nil }
        return (expressions, restriction(to: kept, in: old))
    }

    /// The value of one column of a destination tree, over a source row `o` of its old tree.
    private func expression(for column: String, in root: EntityDescription) -> SQLFragment {
        for entity in root.selfAndDescendants {
            if let attribute = entity.declaredAttributes.first(where: { $0.name == column && !$0.isTransient }) {
                return restricted(attributeExpression(attribute, of: entity), to: entity)
            }
            for relationship in entity.declaredRelationships where !relationship.isToMany {
                if relationship.name == column { return restricted(toOneExpression(relationship, of: entity), to: entity) }
                if TableLayout.entityColumn(for: relationship) == column {
                    return restricted(entityColumnExpression(relationship, of: entity), to: entity)
                }
            }
        }
        return "NULL"
    }

    /// `CASE WHEN o._ent IN (…) THEN value END` for a column of a sub-entity whose value is not just the old column.
    private func restricted(_ value: SQLFragment, to entity: EntityDescription) -> SQLFragment {
        guard entity.parent != nil, value.sql != "NULL", !Self.isPlainColumn(value) else { return value }
        let olds = entity.selfAndDescendants.compactMap(sourceEntity(of:))
        guard !olds.isEmpty else { return "NULL" }
        return SQLFragment(sql: "CASE WHEN o.\"_ent\" IN (\(olds.map { String($0.index) }.joined(separator: ", "))) THEN ") + value + " END"
    }

    private static func isPlainColumn(_ value: SQLFragment) -> Bool {
        value.arguments.isEmpty && value.sql.hasPrefix("o.\"") && value.sql.hasSuffix("\"") && !value.sql.dropFirst(3).dropLast().contains("\"")
    }

    private func propertyMapping(_ name: String, of entity: EntityDescription, relationship: Bool) -> PropertyMapping? {
        guard let entityMapping = mapping.mapping(forDestination: entity.name) else { return nil }
        return (relationship ? entityMapping.relationshipMappings : entityMapping.attributeMappings).first { $0.name == name }
    }

    private func attributeExpression(_ attribute: AttributeDescription, of entity: EntityDescription) -> SQLFragment {
        if case .canonical(let key)? = attribute.derivation, let sourceAttribute = entity.attribute(named: key) {
            let value = attributeExpression(sourceAttribute, of: entity)
            guard value.sql != "NULL", let canonical = dialect.canonical else { return "NULL" }
            return canonical(value)
        }
        guard let property = propertyMapping(attribute.name, of: entity, relationship: false) else {
            return attribute.defaultValue.isNull ? "NULL" : "\(attribute.defaultValue)"
        }
        switch property.source {
        case .property(let old):
            guard let fallback = property.valueForNil else { return "\(column: old, of: "o")" }
            return "coalesce(\(column: old, of: "o"), \(fallback))"
        case .defaultValue, .extraction:
            return attribute.defaultValue.isNull ? "NULL" : "\(attribute.defaultValue)"
        case .derived:
            // Counts and nil tests are computed once the rows are in place.
            return attribute.defaultValue.isNull ? "NULL" : "\(attribute.defaultValue)"
        }
    }

    private func toOneExpression(_ relationship: RelationshipDescription, of entity: EntityDescription) -> SQLFragment {
        guard let property = propertyMapping(relationship.name, of: entity, relationship: true) else { return "NULL" }
        switch property.source {
        case .property(let old): return "\(column: old, of: "o")"
        case .extraction:
            guard let extraction = mapping.mapping(forDestination: relationship.destination.name) else { return "NULL" }
            return "CASE WHEN " + movedValuesExist(extraction) + " THEN o.\"_pk\" END"
        case .defaultValue, .derived: return "NULL"
        }
    }

    /// `(o."a" IS NOT NULL OR o."b" IS NOT NULL)` over the attributes an extraction moves.
    private func movedValuesExist(_ extraction: EntityMapping) -> SQLFragment {
        let tests = extraction.attributeMappings.compactMap { property -> String? in
            guard case .property(let old) = property.source else { return nil }
            return "o.\(SQLIdentifier(old).quoted) IS NOT NULL"
        }
        return SQLFragment(sql: "(" + tests.joined(separator: " OR ") + ")")
    }

    /// The destination's entity index for a to-one's `_ent_<name>` column.
    private func entityColumnExpression(_ relationship: RelationshipDescription, of entity: EntityDescription) -> SQLFragment {
        guard let property = propertyMapping(relationship.name, of: entity, relationship: true),
              case .property(let old) = property.source,
              let oldRelationship = sourceEntity(of: entity)?.relationship(named: old) else { return "NULL" }
        if let oldColumn = TableLayout.entityColumn(for: oldRelationship) {
            return entityIndex(oldColumn, of: oldRelationship.destination.root)
        }
        let target = destinationEntity(of: oldRelationship.destination)?.index ?? relationship.destination.index
        return "CASE WHEN \(column: old, of: "o") IS NOT NULL THEN \(raw: String(target)) END"
    }

    private mutating func copyRows(into root: EntityDescription, from old: EntityDescription) {
        let layout = TableLayout(root: root)
        let (expressions, condition) = columnExpressions(root, from: old)
        let columns = (["_pk", "_ent", "_opt"] + layout.columns).map { SQLIdentifier($0).quoted }.joined(separator: ", ")
        var statement = "INSERT INTO \(table: root.name) (\(raw: columns)) SELECT " + SQLFragment.joined(expressions, separator: ", ")
            + " FROM \(table: oldTable(old)) AS o"
        if let condition { statement.append(" WHERE " + condition) }
        var duplicates: [(keys: [String], query: String)] = []
        for entity in root.selfAndDescendants {
            for keys in entity.uniquenessConstraints {
                let values = keys.map { key in expressions[layout.columnIndex[key]! + 1] }
                guard values.allSatisfy({ $0.arguments.isEmpty }) else { continue }
                let list = values.map(\.sql).joined(separator: ", ")
                duplicates.append((keys, """
                    SELECT o."_pk", o."_ent" FROM \(SQLIdentifier(oldTable(old)).quoted) AS o \
                    WHERE (\(list)) IN (SELECT \(list) FROM \(SQLIdentifier(oldTable(old)).quoted) AS o \
                    GROUP BY \(list) HAVING count(*) > 1) ORDER BY o."_pk" LIMIT 2
                    """))
            }
        }
        steps.append(.copy(statement, entity: root.name, duplicates: duplicates))
        weights.append(rowCounts[old.name] ?? 0)
    }

    /// Rows of a new entity made of attributes moved out of another, keyed like their origin.
    private mutating func extractRows(into root: EntityDescription, _ extraction: EntityMapping) {
        guard let origin = extraction.sourceEntityName.flatMap(source.entity(named:)),
              let owner = destinationEntity(of: origin),
              let link = extraction.extractionRelationship.flatMap(owner.relationship(named:)) else { return }
        let layout = TableLayout(root: root)
        var expressions: [SQLFragment] = ["o.\"_pk\"", SQLFragment(sql: String(root.index)), "0"]
        for column in layout.columns {
            if let attribute = root.attribute(named: column) {
                expressions.append(attributeExpression(attribute, of: root))
            } else if column == link.inverse.name {
                expressions.append("o.\"_pk\"")
            } else if column == TableLayout.entityColumn(for: link.inverse) {
                expressions.append(entityIndex("_ent", of: origin.root))
            } else {
                expressions.append("NULL")
            }
        }
        let columns = (["_pk", "_ent", "_opt"] + layout.columns).map { SQLIdentifier($0).quoted }.joined(separator: ", ")
        var statement = "INSERT INTO \(table: root.name) (\(raw: columns)) SELECT " + SQLFragment.joined(expressions, separator: ", ")
            + " FROM \(table: oldTable(origin.root)) AS o WHERE " + movedValuesExist(extraction)
        if let condition = restriction(to: origin.selfAndDescendants, in: origin.root) { statement.append(" AND " + condition) }
        steps.append(.copy(statement, entity: root.name, duplicates: []))
        weights.append(rowCounts[origin.root.name] ?? 0)
    }

    // MARK: Join tables

    private struct JoinPlan {
        let relationship: RelationshipDescription
        let table: String
        /// The source join table this one replaces or reads, when it has the same name or is read.
        var sourceTable: String?
        var setsAside = false
        var isRebuilt = true
        var select: SQLFragment?
        var weight = 0
    }

    /// A plan for every destination join table, and the source join tables to set aside or drop.
    private mutating func joinTablePlans() -> [JoinPlan] {
        var plans: [JoinPlan] = []
        var sourceJoins = Set(source.entities.filter { $0.parent == nil }.flatMap { SchemaSQL.joinTables(of: TableLayout(root: $0)) }
            .map { SchemaNaming.joinTable(for: $0).table })
        for root in destination.entities where root.parent == nil {
            for relationship in SchemaSQL.joinTables(of: TableLayout(root: root)) {
                let table = SchemaNaming.joinTable(for: relationship).table
                var plan = JoinPlan(relationship: relationship, table: table)
                let pairs = pairSource(relationship) ?? pairSource(relationship.inverse).map { ($0.0, !$0.1, $0.2) }
                if let (select, swapped, read) = pairs {
                    let (sourceColumn, destinationColumn) = swapped ? ("b", "a") : ("a", "b")
                    plan.select = "SELECT \(raw: sourceColumn), \(raw: destinationColumn) FROM (" + select + ") AS p"
                    if let read, sourceJoins.contains(read) {
                        plan.sourceTable = read
                        // The same table, read the same way, with no rows dropped: keep it.
                        if read == table && !swapped && select.sql.hasPrefix("SELECT j.\"_source\" AS a, j.\"_destination\" AS b") && !dropsRows {
                            plan.isRebuilt = false
                            plan.select = nil
                        } else {
                            plan.setsAside = true
                        }
                        sourceJoins.remove(read)
                    }
                }
                if plan.isRebuilt, sourceJoins.contains(table) {
                    plan.sourceTable = plan.sourceTable ?? table
                    sourceJoins.remove(table)
                    add(.run("DROP TABLE \(table: table)"))
                }
                plans.append(plan)
            }
        }
        for table in sourceJoins.sorted() { add(.run("DROP TABLE \(table: table)")) }
        return plans
    }

    /// A `SELECT a, b` of (this side's key, the other side's key) pairs of a destination
    /// relationship from the source store, whether the pairs were the same relationship's,
    /// and the source join table read (if any).
    private func pairSource(_ relationship: RelationshipDescription) -> (SQLFragment, Bool, String?)? {
        guard let property = propertyMapping(relationship.name, of: relationship.entity, relationship: true),
              case .property(let oldName) = property.source,
              let oldEntity = sourceEntity(of: relationship.entity),
              let old = oldEntity.relationship(named: oldName) else { return nil }
        if old.isManyToMany {
            let join = SchemaNaming.joinTable(for: old)
            // Read from where it is set aside (unless it is kept as it is, and nothing is read).
            let name = Self.asideName(join.table)
            return ("SELECT j.\(raw: SQLIdentifier(join.sourceColumn).quoted) AS a, j.\(raw: SQLIdentifier(join.destinationColumn).quoted) AS b FROM \(table: name) AS j",
                    false, join.table)
        }
        if !old.isToMany {
            // A to-one that became to-many: its column holds the pairs.
            var select: SQLFragment = "SELECT o.\"_pk\" AS a, \(column: old.name, of: "o") AS b FROM \(table: oldTable(old.entity.root)) AS o WHERE \(column: old.name, of: "o") IS NOT NULL"
            if let condition = restriction(to: old.entity.selfAndDescendants, in: old.entity.root) { select.append(" AND " + condition) }
            return (select, false, nil)
        }
        let inverse = old.inverse!
        var select: SQLFragment = "SELECT \(column: inverse.name, of: "o") AS a, o.\"_pk\" AS b FROM \(table: oldTable(inverse.entity.root)) AS o WHERE \(column: inverse.name, of: "o") IS NOT NULL"
        if let condition = restriction(to: inverse.entity.selfAndDescendants, in: inverse.entity.root) { select.append(" AND " + condition) }
        return (select, false, nil)
    }

    // MARK: After the copies

    /// Clears references to rows of removed entities.
    private mutating func removeDanglingReferences() {
        for entity in destination.entities {
            for relationship in entity.declaredRelationships {
                if relationship.isToMany {
                    guard relationship.isManyToMany, SchemaNaming.joinTable(for: relationship).sourceColumn == "_source" else { continue }
                    let join = SchemaNaming.joinTable(for: relationship).table
                    add(.run("""
                        DELETE FROM \(table: join) WHERE "_source" NOT IN (SELECT "_pk" FROM \(table: entity.root.name)) \
                        OR "_destination" NOT IN (SELECT "_pk" FROM \(table: relationship.destination.root.name))
                        """))
                } else {
                    add(.run("""
                        UPDATE \(table: entity.root.name) SET \(column: relationship.name) = NULL \
                        WHERE \(column: relationship.name) NOT IN (SELECT "_pk" FROM \(table: relationship.destination.root.name))
                        """))
                }
            }
        }
    }

    /// Computes counts and nil tests of relationships in every tree that changed.
    private mutating func recomputeDerivedAttributes() {
        for entity in destination.entities {
            let attributes = entity.declaredAttributes.filter { attribute in
                guard let relationship = attribute.sourceRelationship else { return false }
                return rebuilt.contains(entity.root.name) || rebuilt.contains(relationship.destination.root.name)
                    || relationship.isManyToMany
            }
            guard !attributes.isEmpty else { continue }
            let rows = SQLFragment(sql: "\"_ent\" IN (\(entity.selfAndDescendants.map { String($0.index) }.joined(separator: ", ")))")
            add(.run(SchemaSQL.recomputeDerived(attributes, table: entity.root.name, destinationTable: { $0.root.name }, rows: rows)))
        }
    }
}

extension MigrationSQL {
    /// Has the store fill canonical search columns of every tree that changed, once the rows are in place.
    private mutating func canonicalizeInStore() {
        for entity in destination.entities where rebuilt.contains(entity.root.name) {
            for attribute in entity.declaredAttributes {
                guard case .canonical(let key)? = attribute.derivation else { continue }
                add(.canonicalize(table: entity.root.name, column: attribute.name, from: key,
                                  entities: entity.selfAndDescendants.map(\.index)))
            }
        }
    }

    /// The error of a copy that broke a new uniqueness constraint on `keys` of `entity`,
    /// naming the two objects a ``Step/copy(_:entity:duplicates:)`` query found, or nil when
    /// it found no pair.
    package static func duplicates(
        _ rows: [[StoredValue]], entity: String, keys: [String], mapping: MappingModel, underlying: any Error & Sendable
    ) -> ObjectGraphError? {
        guard rows.count == 2 else { return nil }
        let names = rows.compactMap { row -> String? in
            guard case .integer(let key) = row[0], case .integer(let index) = row[1] else { return nil }
            return mapping.sourceModel.describe(ObjectID(entityIndex: Int(index), key: key))
        }
        let list = keys.joined(separator: ", ")
        return ObjectGraphError(.migrationFailed,
            "migrating entity '\(entity)' failed: \(names.joined(separator: " and ")) have the same \(list), which the new model's uniqueness constraint on \(entity) (\(list)) forbids; make them differ first, or write a mapping model",
            underlying: underlying)
    }

    package static func dropIndex(_ name: String) -> String { "DROP INDEX \(SQLIdentifier(name).quoted)" }

    package static func countRows(_ table: String) -> String { "SELECT count(*) FROM \(SQLIdentifier(table).quoted)" }
}
