import ObjectGraph
import ObjectGraphSQL

/// The queries behind ``SQLiteStore/checkIntegrity()``: each returns the keys of the rows
/// (at most `limit`) that break one rule of the object graph.
enum IntegritySQL {
    /// SQLite's own check of the file: pages, indexes, constraints.
    static let integrityCheck = "PRAGMA integrity_check"

    /// Rows of `relationship`'s entity whose to-one column names a row that is not in the
    /// destination's table, or not of the destination entity (or one of its sub-entities).
    static func danglingToOne(_ relationship: RelationshipDescription, limit: Int) -> String {
        let source = SQLIdentifier(SchemaNaming.table(for: relationship.entity)).quoted
        let destination = SQLIdentifier(SchemaNaming.table(for: relationship.destination)).quoted
        let column = SQLIdentifier(SchemaNaming.column(for: relationship)).quoted
        var match = "d.\"_pk\" = t.\(column)"
        if let restriction = SchemaNaming.entityRestriction(for: relationship.destination, alias: "d") {
            match += " AND " + restriction.sql
        }
        if let entityColumn = SchemaNaming.entityColumn(for: relationship) {
            match += " AND d.\"_ent\" = t.\(SQLIdentifier(entityColumn).quoted)"
        }
        return """
            SELECT t."_pk", t."_ent", t.\(column) FROM \(source) AS t WHERE \(restriction(relationship.entity, "t"))\
            t.\(column) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(destination) AS d WHERE \(match)) LIMIT \(limit)
            """
    }

    /// Rows of a one-to-one relationship's entity whose destination does not point back at them.
    static func unmatchedOneToOne(_ relationship: RelationshipDescription, limit: Int) -> String {
        let inverse = relationship.inverse!
        let source = SQLIdentifier(SchemaNaming.table(for: relationship.entity)).quoted
        let destination = SQLIdentifier(SchemaNaming.table(for: relationship.destination)).quoted
        let column = SQLIdentifier(SchemaNaming.column(for: relationship)).quoted
        let back = SQLIdentifier(SchemaNaming.column(for: inverse)).quoted
        return """
            SELECT t."_pk", t."_ent", t.\(column) FROM \(source) AS t JOIN \(destination) AS d ON d."_pk" = t.\(column) \
            WHERE \(restriction(relationship.entity, "t"))d.\(back) IS NOT t."_pk" LIMIT \(limit)
            """
    }

    /// Pairs of a many-to-many join table whose `column` names a row missing from `table`.
    static func danglingJoinRows(join: String, column: String, table: String, limit: Int) -> String {
        let joinTable = SQLIdentifier(join).quoted, key = SQLIdentifier(column).quoted
        return """
            SELECT j.\(key) FROM \(joinTable) AS j WHERE NOT EXISTS \
            (SELECT 1 FROM \(SQLIdentifier(table).quoted) AS d WHERE d."_pk" = j.\(key)) LIMIT \(limit)
            """
    }

    /// `condition AND ` limiting a table's rows to `entity` and its sub-entities, or nothing.
    private static func restriction(_ entity: EntityDescription, _ alias: String) -> String {
        SchemaNaming.entityRestriction(for: entity, alias: alias).map { $0.sql + " AND " } ?? ""
    }
}
