package import ObjectGraph
/// How a model maps onto tables and columns; the one place that decides names.
///
/// Both stores use these names, so a catalogue reads the same in SQLite and PostgreSQL:
///
/// - Each inheritance tree is one table, named after its root entity, with `_pk` (the
///   row's primary key; in SQLite an alias of the rowid) and `_ent` (the concrete entity's index).
/// - A stored attribute is a column of its own name (SQLite: storage class from
///   ``AttributeType/storageClass``, dates as seconds since 1970 as REAL, booleans 0/1;
///   PostgreSQL: `double precision`, `bigint`, and text in the `"C"` collation so it sorts
///   by code point, as SQLite's BINARY collation does).
/// - A to-one relationship is a column of its own name holding the destination's `_pk`,
///   plus `_ent_<name>` with the destination's entity index when the destination's tree has
///   more than one entity. One-to-one relationships are stored on both sides.
/// - A to-many relationship whose inverse is to-one has no column: it is the inverse's column.
/// - A many-to-many relationship pair shares one join table, `_join_<Entity>_<relationship>`
///   named after the side whose `Entity.relationship` sorts first, with columns `_source`
///   (that side's `_pk`) and `_destination`.
package enum SchemaNaming {
    /// The row's primary key.
    package static let primaryKey = "_pk"
    /// The concrete entity's index of the row.
    package static let entityColumn = "_ent"
    /// The row's version, incremented by every save of the row (optimistic locking).
    package static let versionColumn = "_opt"

    /// The table of `entity`'s inheritance tree.
    package static func table(for entity: EntityDescription) -> String { entity.root.name }

    /// The column of a stored attribute.
    package static func column(for attribute: AttributeDescription) -> String { attribute.name }

    /// The column of a to-one relationship (its destination's `_pk`).
    package static func column(for relationship: RelationshipDescription) -> String {
        precondition(!relationship.isToMany, "to-many relationship '\(relationship.name)' has no column")
        return relationship.name
    }

    /// The column that records the destination's entity, when the destination tree needs it.
    package static func entityColumn(for relationship: RelationshipDescription) -> String? {
        TableLayout.entityColumn(for: relationship)
    }

    /// The join table of a many-to-many relationship, seen from `relationship`'s side.
    package static func joinTable(
        for relationship: RelationshipDescription
    ) -> (table: String, sourceColumn: String, destinationColumn: String) {
        precondition(relationship.isManyToMany)
        let inverse = relationship.inverse!
        let mine = relationship.entity.name + "." + relationship.name
        let theirs = inverse.entity.name + "." + inverse.name
        if mine <= theirs {
            return ("_join_\(relationship.entity.name)_\(relationship.name)", "_source", "_destination")
        }
        return ("_join_\(inverse.entity.name)_\(inverse.name)", "_destination", "_source")
    }

    /// A condition restricting rows of `entity`'s table to `entity` (and, when asked, its
    /// sub-entities); nil when every row of the table qualifies.
    package static func entityRestriction(
        for entity: EntityDescription, alias: String, includesSubentities: Bool = true
    ) -> SQLFragment? {
        let members = includesSubentities ? entity.selfAndDescendants : [entity]
        if members.count == entity.root.selfAndDescendants.count { return nil }
        if members.count == 1 { return "\(raw: alias).\(raw: entityColumn) = \(raw: String(members[0].index))" }
        let list = members.map { String($0.index) }.joined(separator: ", ")
        return "\(raw: alias).\(raw: entityColumn) IN (\(raw: list))"
    }
}
