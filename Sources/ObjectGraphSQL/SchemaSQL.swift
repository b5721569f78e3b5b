package import ObjectGraph
/// The statements that create a store's tables and indexes from its model, in the dialect a
/// store passes in; each store extends it with the statements of its own (bookkeeping
/// tables, row writes, settings).
package enum SchemaSQL {
    /// The statements that create one tree's table, its join tables and its indexes.
    package static func create(_ layout: TableLayout, dialect: SQLDialect) -> [String] {
        let table = createTable(layout, dialect: dialect)
        return [table[0]] + joinTables(of: layout).flatMap { createJoinTable($0, dialect: dialect) } + table.dropFirst()
    }

    /// The many-to-many relationships whose join table belongs to this tree (the side that sorts first).
    package static func joinTables(of layout: TableLayout) -> [RelationshipDescription] {
        layout.root.selfAndDescendants.flatMap(\.declaredRelationships).filter {
            $0.isManyToMany && SchemaNaming.joinTable(for: $0).sourceColumn == "_source"
        }
    }

    /// The statements that create the join table of a many-to-many relationship, and its index.
    package static func createJoinTable(_ relationship: RelationshipDescription, dialect: SQLDialect) -> [String] {
        let join = SQLIdentifier(SchemaNaming.joinTable(for: relationship).table).quoted
        let key = dialect.integerType
        return ["""
            CREATE TABLE \(join) ("_source" \(key) NOT NULL, "_destination" \(key) NOT NULL, \
            PRIMARY KEY ("_source", "_destination"))\(dialect.joinTableOptions)
            """,
            "CREATE INDEX \(SQLIdentifier(joinIndexName(relationship)).quoted) ON \(join) (\"_destination\", \"_source\")"]
    }

    /// The name of the index of a many-to-many relationship's join table.
    package static func joinIndexName(_ relationship: RelationshipDescription) -> String {
        "_join_index_" + relationship.entity.name + "_" + relationship.name
    }

    /// The name of the index of `table` on `keys`.
    package static func indexName(table: String, keys: [String]) -> String {
        "_index_\(table)_\(keys.joined(separator: "_"))"
    }

    /// One name the schema of a model uses in the database, with what in the model makes it.
    package struct SchemaName {
        /// The identifier: `Recipe`, `_index_Recipe_name`, `_join_Recipe_tags`.
        package let name: String
        /// What makes it, for a message: `attribute 'Recipe.name'`.
        package let owner: String
        /// What it names, for a message: `index name`.
        package let role: String
        /// Whether it names a table or an index, which share one namespace in SQLite and in
        /// PostgreSQL (a column's or a migration's name is not one).
        package let isRelation: Bool
        /// The table of a column's name, whose other columns' names it must differ from.
        package var table: String? = nil
    }

    /// Every table, column and index name the schema of `layouts` uses, and the name a
    /// migration gives each table while it rebuilds it.
    package static func names(_ layouts: [TableLayout]) -> [SchemaName] {
        var names: [SchemaName] = []
        for layout in layouts {
            let entity = "entity '\(layout.root.name)'"
            var owners: [String: String] = [:]
            for member in layout.root.selfAndDescendants {
                for attribute in member.declaredAttributes { owners[attribute.name] = "attribute '\(member.name).\(attribute.name)'" }
                for relationship in member.declaredRelationships where !relationship.isToMany {
                    let owner = "relationship '\(member.name).\(relationship.name)'"
                    owners[relationship.name] = owner
                    if let column = SchemaNaming.entityColumn(for: relationship) { owners[column] = owner }
                }
            }
            names.append(SchemaName(name: layout.table, owner: entity, role: "table name", isRelation: true))
            names.append(SchemaName(name: MigrationSQL.asideName(layout.table), owner: entity,
                                    role: "table name a migration uses", isRelation: false))
            for column in layout.columns {
                names.append(SchemaName(name: column, owner: owners[column] ?? entity, role: "column name", isRelation: false,
                                        table: layout.table))
            }
            for keys in indexedKeys(layout) {
                let owner = keys.count == 1 ? owners[keys[0]] ?? entity : "the index of \(entity) on \(keys.joined(separator: ", "))"
                names.append(SchemaName(name: indexName(table: layout.table, keys: keys), owner: owner, role: "index name", isRelation: true))
            }
            for relationship in joinTables(of: layout) {
                let owner = "relationship '\(relationship.entity.name).\(relationship.name)'"
                let table = SchemaNaming.joinTable(for: relationship).table
                names.append(SchemaName(name: table, owner: owner, role: "join table name", isRelation: true))
                names.append(SchemaName(name: MigrationSQL.asideName(table), owner: owner,
                                        role: "join table name a migration uses", isRelation: false))
                names.append(SchemaName(name: joinIndexName(relationship), owner: owner, role: "index name", isRelation: true))
            }
        }
        return names
    }

    /// Throws unless every table and index name the schema of `layouts` uses is used once,
    /// and every column name once in its table.
    ///
    /// The names join model names with `_`, which a name may contain itself: an index on
    /// `[chef, name]` and one on an attribute `chef_name` of the same entity would both be
    /// `_index_Recipe_chef_name`, and the second `CREATE INDEX` would fail.
    /// - Parameter ignoringASCIICase: whether the database takes names that differ only in
    ///   the case of ASCII letters for one (SQLite does, even quoted: `Recipe` and `recipe`).
    /// - Throws: ``ObjectGraph/ObjectGraphError`` `invalidModel` naming the names and the
    ///   things in the model that make them.
    package static func checkNamesAreDistinct(_ layouts: [TableLayout], ignoringASCIICase: Bool) throws {
        func key(_ name: SchemaName) -> String {
            let scoped = (name.table.map { $0 + "." } ?? "") + name.name
            guard ignoringASCIICase else { return scoped }
            return String(decoding: scoped.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
        }
        var firstOwner: [String: SchemaName] = [:], problems: [String] = []
        for name in names(layouts) where name.isRelation || name.table != nil {
            guard let first = firstOwner[key(name)] else {
                firstOwner[key(name)] = name
                continue
            }
            let place = name.table.map { " of table '\($0)'" } ?? ""
            problems.append(first.name == name.name
                ? "\(first.owner) and \(name.owner) both make the \(name.role) '\(name.name)'\(place)"
                : "\(first.owner) and \(name.owner) make the \(name.role)s '\(first.name)' and '\(name.name)'\(place), "
                    + "which the database takes for one (it ignores the case of ASCII letters in names)")
        }
        guard !problems.isEmpty else { return }
        throw ObjectGraphError(.invalidModel,
            "the model's tables, indexes and columns need distinct names in the database: " + problems.joined(separator: "; ")
            + ". Rename one of each pair")
    }

    /// The statements that create one tree's table (first) and its indexes, without join tables.
    package static func createTable(_ layout: TableLayout, dialect: SQLDialect) -> [String] {
        let root = layout.root
        let tree = root.selfAndDescendants
        let key = dialect.integerType
        var definitions = ["\"_pk\" \(key) PRIMARY KEY", "\"_ent\" \(key) NOT NULL", versionColumnDefinition(dialect)]
        var statements: [String] = []
        // Sibling entities may declare a property of the same name; the model has checked
        // that they are stored alike, and they share one column.
        var columns: Set<String> = []
        for entity in tree {
            for attribute in entity.declaredAttributes where !attribute.isTransient {
                if columns.insert(attribute.name).inserted {
                    definitions.append("\(SQLIdentifier(attribute.name).quoted) \(dialect.columnType(attribute.type))")
                }
            }
        }
        for entity in tree {
            for relationship in entity.declaredRelationships where !relationship.isToMany {
                if columns.insert(relationship.name).inserted {
                    definitions.append("\(SQLIdentifier(relationship.name).quoted) \(key)")
                    if let entityColumn = SchemaNaming.entityColumn(for: relationship) {
                        definitions.append("\(SQLIdentifier(entityColumn).quoted) \(key)")
                    }
                }
            }
        }
        for entity in tree {
            for keys in entity.uniquenessConstraints {
                // PostgreSQL's NULLS NOT DISTINCT would differ from SQLite, where NULLs never collide.
                definitions.append("UNIQUE (\(keys.map { SQLIdentifier($0).quoted }.joined(separator: ", ")))")
            }
        }
        let table = SQLIdentifier(layout.table).quoted
        statements.append("CREATE TABLE \(table) (\(definitions.joined(separator: ", ")))")
        for keys in indexedKeys(layout) {
            let name = SQLIdentifier(indexName(table: layout.table, keys: keys)).quoted
            statements.append("CREATE INDEX \(name) ON \(table) (\(keys.map { SQLIdentifier($0).quoted }.joined(separator: ", ")))")
        }
        return statements
    }

    /// The column lists of one tree's table that get an index, each once: indexed attributes,
    /// every foreign key (to-many faults and deletes search by it), the entities' declared
    /// indexes, and `_ent` when the tree has several entities.
    package static func indexedKeys(_ layout: TableLayout) -> [[String]] {
        let tree = layout.root.selfAndDescendants
        var indexed: [[String]] = []
        for entity in tree {
            for attribute in entity.declaredAttributes where !attribute.isTransient && attribute.isIndexed {
                indexed.append([attribute.name])
            }
        }
        for entity in tree {
            for relationship in entity.declaredRelationships where !relationship.isToMany { indexed.append([relationship.name]) }
            indexed += entity.indexes
        }
        if tree.count > 1 { indexed.append(["_ent"]) }
        var seen: Set<[String]> = []
        return indexed.filter { seen.insert($0).inserted }
    }

    /// The version column's definition.
    package static func versionColumnDefinition(_ dialect: SQLDialect) -> String {
        "\"_opt\" \(dialect.integerType) NOT NULL DEFAULT 0"
    }
}
