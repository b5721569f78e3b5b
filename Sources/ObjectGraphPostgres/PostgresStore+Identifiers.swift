import ObjectGraph
import ObjectGraphSQL

extension PostgresStore {
    /// The longest identifier PostgreSQL keeps (`NAMEDATALEN` - 1): it cuts longer ones to this
    /// many bytes without an error.
    static let identifierLimit = 63

    /// Throws unless every table, column and index name the store derives from `model` (and
    /// every name a migration gives a table meanwhile) fits in ``identifierLimit`` bytes.
    ///
    /// The server would cut a longer name silently: two names that agree in their first 63
    /// bytes then collide ("relation … already exists"), and a name read back from the
    /// catalogue no longer matches the model's. A SQLite store has no such limit.
    /// - Throws: ``ObjectGraph/ObjectGraphError`` `invalidModel` naming each entity, attribute
    ///   or relationship at fault, the identifier it makes and its length.
    static func checkIdentifierLengths(_ model: ObjectModel, layouts: [TableLayout]) throws {
        var problems: [String] = []
        func check(_ identifier: String, of owner: String, as role: String) {
            let length = identifier.utf8.count
            guard length > identifierLimit else { return }
            problems.append("\(owner) makes the \(role) '\(identifier)' (\(length) bytes)")
        }
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
            check(layout.table, of: entity, as: "table name")
            check(MigrationSQL.asideName(layout.table), of: entity, as: "table name a migration uses")
            for column in layout.columns { check(column, of: owners[column] ?? entity, as: "column name") }
            for keys in SchemaSQL.indexedKeys(layout) {
                let owner = keys.count == 1 ? owners[keys[0]] ?? entity : "the index of \(entity) on \(keys.joined(separator: ", "))"
                check(SchemaSQL.indexName(table: layout.table, keys: keys), of: owner, as: "index name")
            }
            for relationship in SchemaSQL.joinTables(of: layout) {
                let owner = "relationship '\(relationship.entity.name).\(relationship.name)'"
                let table = SchemaNaming.joinTable(for: relationship).table
                check(table, of: owner, as: "join table name")
                check(MigrationSQL.asideName(table), of: owner, as: "join table name a migration uses")
                check(SchemaSQL.joinIndexName(relationship), of: owner, as: "index name")
            }
        }
        guard !problems.isEmpty else { return }
        throw ObjectGraphError(.invalidModel,
            "the model cannot be stored in PostgreSQL, which cuts identifiers to \(identifierLimit) bytes (names that then agree collide): "
            + problems.joined(separator: "; ") + ". Shorten those names (a SQLite store has no such limit)")
    }
}
