import ObjectGraph
import ObjectGraphSQL

extension PostgresStore {
    /// The longest identifier PostgreSQL keeps (`NAMEDATALEN` - 1): it cuts longer ones to this
    /// many bytes without an error.
    static let identifierLimit = 63

    /// Throws unless every table, column and index name the store derives from `layouts` (and
    /// every name a migration gives a table meanwhile) fits in ``identifierLimit`` bytes.
    ///
    /// The server would cut a longer name silently: two names that agree in their first 63
    /// bytes then collide ("relation … already exists"), and a name read back from the
    /// catalogue no longer matches the model's. A SQLite store has no such limit.
    /// - Throws: ``ObjectGraph/ObjectGraphError`` `invalidModel` naming each entity, attribute
    ///   or relationship at fault, the identifier it makes and its length.
    static func checkIdentifierLengths(_ layouts: [TableLayout]) throws {
        let problems = SchemaSQL.names(layouts).compactMap { name -> String? in
            let length = name.name.utf8.count
            guard length > identifierLimit else { return nil }
            return "\(name.owner) makes the \(name.role) '\(name.name)' (\(length) bytes)"
        }
        guard !problems.isEmpty else { return }
        throw ObjectGraphError(.invalidModel,
            "the model cannot be stored in PostgreSQL, which cuts identifiers to \(identifierLimit) bytes (names that then agree collide): "
            + problems.joined(separator: "; ") + ". Shorten those names (a SQLite store has no such limit)")
    }
}
