/// The columns of one inheritance tree's table, and where each entity's slots come from.
///
/// Column 0 is `_pk`, column 1 `_ent`; then every stored attribute of the tree, every
/// to-one relationship, and the `_ent_<name>` columns of to-ones into multi-entity trees.
final class TableLayout: Sendable {
    /// How one slot is filled from a row.
    enum SlotSource: Sendable {
        case attribute(slot: Int, column: Int)
        /// A to-one relationship: its key column and, when the destination tree has several
        /// entities, the column holding the destination's entity index.
        case toOne(slot: Int, column: Int, entityColumn: Int?, destinationIndex: Int)
    }

    let table: String
    let root: EntityDescription
    /// Column names after `_pk` and `_ent`, in order (the row's columns 2…).
    let columns: [String]
    /// Per entity index (of the whole model; empty outside this tree): the slots to fill.
    let sources: [[SlotSource]]
    /// The column index of each stored attribute or to-one relationship name.
    let columnIndex: [String: Int]
    /// Per entity index: whether its slots cover every column, so an insert binds them all.
    let coversAllColumns: [Bool]
    /// The statements every object of the tree uses, built once.
    let insertSQL: String, deleteSQL: String, selectRowSQL: String

    init(root: EntityDescription) {
        self.root = root
        table = SchemaNaming.table(for: root)
        var columns: [String] = []
        var columnIndex: [String: Int] = [:]
        func add(_ name: String) {
            if columnIndex[name] == nil {
                columnIndex[name] = columns.count + 2
                columns.append(name)
            }
        }
        let tree = root.selfAndDescendants
        for entity in tree {
            for attribute in entity.declaredAttributes where !attribute.isTransient {
                add(SchemaNaming.column(for: attribute))
            }
        }
        for entity in tree {
            for relationship in entity.declaredRelationships where !relationship.isToMany {
                add(SchemaNaming.column(for: relationship))
                if let entityColumn = SchemaNaming.entityColumn(for: relationship) { add(entityColumn) }
            }
        }
        var sources = [[SlotSource]](repeating: [], count: root.model.entities.count)
        for entity in tree {
            var list: [SlotSource] = []
            for attribute in entity.storedAttributes {
                list.append(.attribute(slot: attribute.slot, column: columnIndex[attribute.name]!))
            }
            for relationship in entity.toOneRelationships {
                let entityColumn = SchemaNaming.entityColumn(for: relationship).flatMap { columnIndex[$0] }
                list.append(.toOne(slot: relationship.slot, column: columnIndex[relationship.name]!,
                                   entityColumn: entityColumn, destinationIndex: relationship.destination.index))
            }
            sources[entity.index] = list
        }
        self.columns = columns
        self.columnIndex = columnIndex
        self.sources = sources
        coversAllColumns = sources.map { list in
            list.reduce(0) { count, source in
                if case .toOne(_, _, let entityColumn, _) = source { return count + (entityColumn == nil ? 1 : 2) }
                return count + 1
            } == columns.count
        }
        insertSQL = SchemaSQL.insert(table: table, columns: columns)
        deleteSQL = SchemaSQL.delete(table: table)
        selectRowSQL = FetchSQL.selectRow(table: table, columns: columns)
    }

    /// The number of columns a full row has, `_pk` and `_ent` included.
    var width: Int { columns.count + 2 }
}
