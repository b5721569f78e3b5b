/// Turning changed objects into the rows a store writes.
extension ContextCore {
    /// `store`'s layout of `entity`'s table, from `cache` when it holds that table's.
    @inline(__always)
    private static func layout(
        of entity: EntityDescription, in store: any StoreRequestHandler, cache: inout (root: Int, layout: TableLayout)?
    ) -> TableLayout {
        if let cache, cache.root == entity.root.index { return cache.layout }
        let layout = store.layout(for: entity)
        cache = (entity.root.index, layout)
        return layout
    }

    /// The rows that saving these objects writes to `store`.
    func storeChanges(
        inserted: [ManagedObject], updated: [ManagedObject], deleted: [ManagedObject], store: any StoreRequestHandler
    ) -> StoreChanges {
        var changes = StoreChanges()
        // The last table's layout: consecutive objects mostly share one. (Kept in a value
        // passed inout, not captured by a nested function: a captured variable is boxed,
        // and each access to the box is checked for exclusivity at run time.)
        var lastLayout: (root: Int, layout: TableLayout)?
        changes.deletes = deleted.map(\.objectID)
        changes.inserts.reserveCapacity(inserted.count)
        if let first = inserted.first { changes.values.reserveCapacity(inserted.count * (Self.layout(of: first.entity, in: store, cache: &lastLayout).width - 2)) }
        // Inserted objects come mostly in runs of one entity: its columns are looked up
        // when the entity changes, not for every object.
        var entityIndex = -1
        var sources: ArraySlice<TableLayout.SlotSource> = [], width = 0
        inserted.forEachUnretained { object in
            let index = Int(object.objectID.entityIndex)
            if index != entityIndex {
                let layout = Self.layout(of: object.entity, in: store, cache: &lastLayout)
                entityIndex = index
                sources = layout.sources(of: index)
                width = layout.width - 2
            }
            let start = changes.values.count
            // One append per column: appending a `repeatElement` goes through a generic
            // sequence copy that cost several times as much for a row of two columns.
            for _ in 0..<width { changes.values.append(.null) }
            changes.inserts.append(StoreChanges.Insert(id: object.objectID, start: start))
            let slots = object.slots
            changes.values.withUnsafeMutableBufferPointer { values in
                for source in sources {
                    switch source {
                    case .attribute(let slot, let column):
                        values[start + column - 2] = slots[slot].value.storedValue.savedForm
                    case .toOne(let slot, let column, let entityColumn, _):
                        guard let id = slots[slot].value.destinationID else { continue }
                        changes.references.append(StoreChanges.Reference(position: start + column - 2, id: id))
                        if let entityColumn { values[start + entityColumn - 2] = .integer(Int64(id.entityIndex)) }
                    }
                }
            }
        }
        for object in updated {
            let layout = Self.layout(of: object.entity, in: store, cache: &lastLayout)
            var columns: [Int] = []
            let start = changes.values.count
            for source in layout.sources(of: object.entity.index) {
                switch source {
                case .attribute(let slot, let column) where object.hasChangedSlot(slot):
                    columns.append(column)
                    changes.values.append(object.slots[slot].value.storedValue.savedForm)
                case .toOne(let slot, let column, let entityColumn, _) where object.hasChangedSlot(slot):
                    let id = object.slots[slot].value.destinationID
                    if let id { changes.references.append(StoreChanges.Reference(position: changes.values.count, id: id)) }
                    columns.append(column)
                    changes.values.append(.null)
                    if let entityColumn {
                        columns.append(entityColumn)
                        changes.values.append(id.map { .integer(Int64($0.entityIndex)) } ?? .null)
                    }
                default: break
                }
            }
            if !columns.isEmpty {
                let version = object.headerPointer.pointee.rowVersion
                changes.updates.append(StoreChanges.Update(
                    id: object.objectID, columns: columns, start: start, version: version >= 0 ? version : nil))
            }
        }
        // Takes the list of pairs inout rather than capturing `changes`: a local function
        // passed as a closure boxes what it captures, and the box cost a dynamic exclusivity
        // check on every save.
        func addJoins(of object: ManagedObject, to joins: inout [StoreChanges.JoinChange]) {
            guard object.needsSaveWork(.hasToMany) else { return }
            for relationship in object.entity.toManyRelationships where relationship.isManyToMany && object.hasChangedSlot(relationship.slot) {
                guard case .toMany(let storage) = object.slots[relationship.slot].value else { continue }
                for destination in storage.added {
                    joins.append(StoreChanges.JoinChange(
                        relationship: relationship, source: object.objectID, destination: destination.objectID, isInsertion: true))
                }
                for destination in storage.removed where !destination.isTemporary {
                    joins.append(StoreChanges.JoinChange(
                        relationship: relationship, source: object.objectID, destination: destination, isInsertion: false))
                }
            }
        }
        inserted.forEachUnretained { addJoins(of: $0, to: &changes.joins) }
        updated.forEachUnretained { addJoins(of: $0, to: &changes.joins) }
        return changes
    }
}
