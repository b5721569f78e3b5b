extension ContextCore {
    /// Fetches the objects matching `request`.
    func fetch(_ request: FetchRequest) throws -> [ManagedObject] {
        let entity = try model.requireEntity(named: request.entityName)
        let store = coordinator.store(for: entity)
        let layout = store.layout(for: entity)
        let pending = request.includesPendingChanges ? pendingChanges(in: entity, request) : []
        // With unsaved changes in play the window is applied after merging them in memory.
        let windowInSQL = pending.isEmpty
        let select = FetchSQL.select(
            layout, entity: entity, includesSubentities: request.includesSubentities,
            condition: try condition(for: request, entity: entity),
            orderBy: try orderBy(request.sortKeys, entity: entity),
            limit: windowInSQL ? request.fetchLimit : 0, offset: windowInSQL ? request.fetchOffset : 0,
            columns: .full)
        let handling: SQLiteStore.RowHandling =
            request.returnsObjectsAsFaults ? .cache(coordinator.rowCache) : .populate
        let entities = model.entities
        var objects = try store.fetchObjects(select, layout: layout, handling: handling) { id in
            let table = entities[Int(id.entityIndex)].root.index
            if let object = tables[table].object(forKey: id.key) {
                return (object, object.headerPointer.pointee.needsValues)
            }
            let object = ManagedObject.make(
                entity: entities[Int(id.entityIndex)], id: id, context: self, state: .fault)
            tables[table].insert(object, forKey: id.key)
            return (object, true)
        }
        if !pending.isEmpty {
            objects = try merge(objects, pending: pending, request: request, entity: entity)
        }
        return objects
    }

    /// Counts the objects matching `request` without creating any.
    func count(for request: FetchRequest) throws -> Int {
        let entity = try model.requireEntity(named: request.entityName)
        if request.includesPendingChanges, !pendingChanges(in: entity, request).isEmpty {
            var unwindowed = request
            unwindowed.returnsObjectsAsFaults = true
            return try fetch(unwindowed).count
        }
        let store = coordinator.store(for: entity)
        var count = try store.count(FetchSQL.count(
            store.layout(for: entity), entity: entity, includesSubentities: request.includesSubentities,
            condition: try condition(for: request, entity: entity)))
        if request.fetchOffset > 0 { count = max(0, count - request.fetchOffset) }
        if request.fetchLimit > 0 { count = min(count, request.fetchLimit) }
        return count
    }

    /// Changed objects of `entity` (and, when asked, its sub-entities) that a fetch must account for.
    private func pendingChanges(in entity: EntityDescription, _ request: FetchRequest) -> [ManagedObject] {
        func relevant(_ object: ManagedObject) -> Bool {
            request.includesSubentities ? object.entity.isKind(of: entity) : object.entity === entity
        }
        var result: [ManagedObject] = []
        for object in inserted where object.state == .inserted && relevant(object) { result.append(object) }
        for object in updated where object.state == .updated && relevant(object) { result.append(object) }
        for object in deleted where object.state == .deleted && relevant(object) { result.append(object) }
        return result
    }

    /// Merges unsaved changes into store results: drops deleted objects, re-checks changed
    /// ones in memory, adds matching inserted ones, then sorts and applies the window.
    private func merge(
        _ stored: [ManagedObject], pending: [ManagedObject], request: FetchRequest, entity: EntityDescription
    ) throws -> [ManagedObject] {
        let matcher = try memoryMatcher(for: request, entity: entity)
        var seen = Set(stored.map(ObjectIdentifier.init))
        var result = stored.filter { object in
            switch object.state {
            case .deleted: return false
            case .updated: return matcher(object)
            default: return true
            }
        }
        for object in pending where object.state == .inserted || object.state == .updated {
            if !seen.contains(ObjectIdentifier(object)) && matcher(object) {
                result.append(object)
                seen.insert(ObjectIdentifier(object))
            }
        }
        result = try sortInMemory(result, by: request.sortKeys, entity: entity)
        if request.fetchOffset > 0 { result = Array(result.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0 { result = Array(result.prefix(request.fetchLimit)) }
        return result
    }
}
