/// A stored row of a ``MemoryStore`` seen as an object, so the in-memory evaluator can run
/// predicates, sort keys and key paths on it.
struct RowObject: PredicateEvaluable {
    let key: Int64
    let entity: EntityDescription
    let row: MemoryStore.Row?
    let store: MemoryStore
    let snapshot: MemoryStore.Contents

    init(_ row: MemoryStore.Row, _ store: MemoryStore, _ snapshot: MemoryStore.Contents) {
        guard case .integer(let key) = row[0], case .integer(let entity) = row[1] else { preconditionFailure("a row without keys") }
        self.init(key: key, entity: store.model.entities[Int(entity)], row: row, store, snapshot)
    }

    init(key: Int64, entity: EntityDescription, row: MemoryStore.Row? = nil, _ store: MemoryStore, _ snapshot: MemoryStore.Contents) {
        self.key = key
        self.entity = entity
        self.row = row
        self.store = store
        self.snapshot = snapshot
    }

    var evaluationEntity: EntityDescription { entity }
    var evaluationObjectID: ObjectID { ObjectID(entityIndex: entity.index, key: key) }

    func evaluationValue(of attribute: AttributeDescription) -> StoredValue {
        guard let row, let column = store.layout(for: entity).columnIndex[attribute.name] else { return .null }
        return row[column]
    }

    func evaluationObject(of relationship: RelationshipDescription) -> (any PredicateEvaluable)? {
        let layout = store.layout(for: entity)
        guard let row, case .integer(let destination) = row[layout.columnIndex[relationship.name]!] else { return nil }
        var destinationEntity = relationship.destination!
        if let column = TableLayout.entityColumn(for: relationship).flatMap({ layout.columnIndex[$0] }),
           case .integer(let index) = row[column] {
            destinationEntity = store.model.entities[Int(index)]
        }
        guard let found = snapshot.tables[destinationEntity.root.index]?[destination] else { return nil }
        return RowObject(found, store, snapshot)
    }

    func evaluationObjects(of relationship: RelationshipDescription) -> [any PredicateEvaluable] {
        rows(of: relationship).map { RowObject($0, store, snapshot) }
    }

    /// The rows of a to-many relationship's destinations, in its order (by its order key,
    /// then by key).
    func rows(of relationship: RelationshipDescription) -> [MemoryStore.Row] {
        var rows: [MemoryStore.Row]
        if relationship.isManyToMany {
            let destinations = Set(store.pairs(of: relationship, in: snapshot).filter { $0.source == key }.map(\.destination))
            rows = store.destinations(of: relationship, in: snapshot) { row in
                if case .integer(let key) = row[0] { return destinations.contains(key) }
                return false
            }
        } else {
            let column = store.layout(for: relationship.destination).columnIndex[relationship.inverse.name]!
            rows = store.destinations(of: relationship, in: snapshot) { $0[column] == .integer(key) }
        }
        let orderColumn = relationship.orderKey.flatMap { store.layout(for: relationship.destination).columnIndex[$0] }
        return rows.sorted { lhs, rhs in
            if let orderColumn {
                let order = StoredOrdering.compare(lhs[orderColumn], rhs[orderColumn])
                if order != 0 { return order < 0 }
            }
            return StoredOrdering.compare(lhs[0], rhs[0]) < 0
        }
    }
}
