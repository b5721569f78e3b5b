extension ContextCore {
    /// Fetches the objects matching `request`.
    func fetch(_ request: FetchRequest) throws -> [ManagedObject] {
        let entity = try model.requireEntity(named: request.entityName)
        let store = coordinator.store(for: entity)
        let layout = store.layout(for: entity)
        let pending = request.includesPendingChanges ? try pendingChanges(in: entity, request) : []
        // With unsaved changes in play the window is applied after merging them in memory.
        let windowInSQL = pending.isEmpty
        let readsKeysOnly = Self.readsKeysOnly(request)
        let select = try objectsSelect(request, entity: entity, windowInSQL: windowInSQL)
        let handling: SQLiteStore.RowHandling = readsKeysOnly ? .keysOnly
            : request.returnsObjectsAsFaults ? .cache(coordinator.rowCache) : .populate
        var objects = try store.fetchObjects(select, layout: layout, handling: handling, register: registerFetched)
        if case .populate = handling, entity.root.selfAndDescendants.contains(where: { !$0.toOneRelationships.isEmpty }) {
            for object in objects { linkToOnes(object) }
        }
        if !pending.isEmpty {
            objects = try merge(objects, pending: pending, request: request, entity: entity)
        }
        if request.fetchBatchSize > 0 && request.includesPropertyValues {
            groupIntoBatches(objects, size: request.fetchBatchSize)
        }
        if !request.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(request.relationshipKeyPathsForPrefetching, from: objects, entity: entity)
        }
        return objects
    }

    /// Whether a fetch of objects reads only their keys up front (no property values, or batches).
    static func readsKeysOnly(_ request: FetchRequest) -> Bool {
        !request.includesPropertyValues || request.fetchBatchSize > 0
    }

    /// The statement that ``fetch(_:)`` runs, with the window in SQL unless unsaved changes
    /// have to be merged first.
    func objectsSelect(_ request: FetchRequest, entity: EntityDescription, windowInSQL: Bool = true) throws -> SQLFragment {
        FetchSQL.select(
            coordinator.store(for: entity).layout(for: entity), entity: entity,
            includesSubentities: request.includesSubentities, condition: try condition(for: request, entity: entity),
            orderBy: try orderBy(request.sortKeys, entity: entity),
            limit: windowInSQL ? request.fetchLimit : 0, offset: windowInSQL ? request.fetchOffset : 0,
            columns: Self.readsKeysOnly(request) ? .keys : .full)
    }

    /// The registered object for a fetched row's ID (a new fault when there is none), and
    /// whether it still needs its values.
    func registerFetched(_ id: ObjectID) -> (object: ManagedObject, needsValues: Bool) {
        // Rows of one fetch come from one table and mostly one entity: look the entity up
        // only when it changes.
        let index = Int(id.entityIndex)
        if lastFetchedEntity?.index != index {
            lastFetchedEntity = (index, model.entities[index], model.entities[index].root.index)
        }
        let (_, entity, table) = lastFetchedEntity!
        if let object = tables[table].object(forKey: id.key) {
            return (object, object.headerPointer.pointee.needsValues)
        }
        let object = ManagedObject.make(entity: entity, id: id, context: self, state: .fault)
        tables[table].insert(object, forKey: id.key)
        return (object, true)
    }

    /// Counts the objects matching `request` in SQL, without creating any for saved rows.
    ///
    /// Unsaved changes correct the store's count: each changed (or affected) object that
    /// matches now counts, and each whose saved row matched is taken off, which one more
    /// query over just those rows' keys tells.
    func count(for request: FetchRequest) throws -> Int {
        let entity = try model.requireEntity(named: request.entityName)
        let store = coordinator.store(for: entity)
        var count = try store.count(FetchSQL.count(
            store.layout(for: entity), entity: entity, includesSubentities: request.includesSubentities,
            condition: try condition(for: request, entity: entity)))
        if request.includesPendingChanges {
            let pending = try pendingChanges(in: entity, request)
            if !pending.isEmpty {
                let matcher = try memoryMatcher(for: request, entity: entity)
                var unique = Set<ObjectIdentifier>()
                var saved: [ObjectID] = []
                for object in pending where unique.insert(ObjectIdentifier(object)).inserted {
                    if object.state != .deleted && matcher(object) { count += 1 }
                    let wasSaved = object.state == .deleted
                        ? object.headerPointer.pointee.stateBeforeDelete != .inserted : object.state != .inserted
                    if wasSaved { saved.append(object.objectID) }
                }
                count -= try savedMatches(of: saved, request: request, entity: entity)
            }
        }
        if request.fetchOffset > 0 { count = max(0, count - request.fetchOffset) }
        if request.fetchLimit > 0 { count = min(count, request.fetchLimit) }
        return count
    }

    /// How many of the saved rows with `ids` match `request` in the store (keys only, in
    /// chunks that stay under SQLite's limit on bound values).
    private func savedMatches(of ids: [ObjectID], request: FetchRequest, entity: EntityDescription) throws -> Int {
        var matches = 0
        var plain = request
        plain.fetchLimit = 0
        plain.fetchOffset = 0
        plain.sortKeys = []
        for start in stride(from: 0, to: ids.count, by: 500) {
            let chunk = Array(ids[start..<min(start + 500, ids.count)])
            let inChunk = try FetchPredicate("SELF IN %@", chunk)
            plain.predicate = request.predicate.map { $0 && inChunk } ?? inChunk
            matches += try coordinator.store(for: entity).fetchIDs(try objectIDsSelect(plain, entity: entity)).count
        }
        return matches
    }

    /// The IDs of the objects matching `request`; no objects are created unless unsaved
    /// changes have to be taken into account.
    func fetchObjectIDs(_ request: FetchRequest) throws -> [ObjectID] {
        let entity = try model.requireEntity(named: request.entityName)
        if request.includesPendingChanges, try !pendingChanges(in: entity, request).isEmpty {
            var plain = request
            plain.relationshipKeyPathsForPrefetching = []
            plain.includesPropertyValues = false
            return try fetch(plain).map(\.objectID)
        }
        return try coordinator.store(for: entity).fetchIDs(try objectIDsSelect(request, entity: entity))
    }

    /// The statement that ``fetchObjectIDs(_:)`` runs: keys only.
    func objectIDsSelect(_ request: FetchRequest, entity: EntityDescription) throws -> SQLFragment {
        FetchSQL.select(
            coordinator.store(for: entity).layout(for: entity), entity: entity,
            includesSubentities: request.includesSubentities, condition: try condition(for: request, entity: entity),
            orderBy: try orderBy(request.sortKeys, entity: entity),
            limit: request.fetchLimit, offset: request.fetchOffset, columns: .keys)
    }

    /// The chosen properties of the matching rows, as dictionaries; saved values only.
    func fetchDictionaries(_ request: FetchRequest) throws -> [[String: Any?]] {
        let entity = try model.requireEntity(named: request.entityName)
        let (select, keys, types) = try dictionariesSelect(request, entity: entity)
        return try coordinator.store(for: entity).fetchValues(select).map { row in
            var dictionary: [String: Any?] = [:]
            for (index, key) in keys.enumerated() { dictionary[key] = types[index].swiftValue(from: row[index]) }
            return dictionary
        }
    }

    /// The statement that ``fetchDictionaries(_:)`` runs, with the keys it reads and their types.
    func dictionariesSelect(
        _ request: FetchRequest, entity: EntityDescription
    ) throws -> (select: SQLFragment, keys: [String], types: [AttributeType]) {
        let store = coordinator.store(for: entity)
        let keys = request.propertiesToFetch.isEmpty
            ? entity.attributes.filter { !$0.isTransient }.map(\.name) : request.propertiesToFetch
        var columns: [SQLFragment] = []
        var types: [AttributeType] = []
        for key in keys {
            let path = key.split(separator: ".").map(String.init)
            if path.count == 1 {
                guard let attribute = entity.attribute(named: key), !attribute.isTransient else {
                    throw ObjectGraphError.unknownKey(key, entity: entity)
                }
                columns.append("\(column: attribute.name, of: FetchSQL.alias)")
                types.append(attribute.type)
            } else {
                columns.append(try PredicateSQLCompiler.compileKeyPath(path, entity: entity, alias: FetchSQL.alias))
                types.append(try Self.attributeType(at: path, from: entity))
            }
        }
        let select = FetchSQL.selectColumns(
            columns, layout: store.layout(for: entity), entity: entity,
            includesSubentities: request.includesSubentities, distinct: request.returnsDistinctResults,
            condition: try condition(for: request, entity: entity),
            orderBy: try orderBy(request.sortKeys, entity: entity, totalOrder: !request.returnsDistinctResults),
            limit: request.fetchLimit, offset: request.fetchOffset)
        return (select, keys, types)
    }

    private static func attributeType(at path: [String], from entity: EntityDescription) throws -> AttributeType {
        var current = entity
        for key in path.dropLast() {
            guard let relationship = current.relationship(named: key), !relationship.isToMany else {
                throw ObjectGraphError.unknownKey(key, entity: current)
            }
            current = relationship.destination
        }
        guard let attribute = current.attribute(named: path.last!) else {
            throw ObjectGraphError.unknownKey(path.last!, entity: current)
        }
        return attribute.type
    }

    /// Objects of `entity` (and, when asked, its sub-entities) that a fetch must match in
    /// memory: changed ones, and unchanged ones whose predicate reads a changed object
    /// through a relationship (``objectsAffectedByRelatedChanges(_:entity:includesSubentities:)``).
    private func pendingChanges(in entity: EntityDescription, _ request: FetchRequest) throws -> [ManagedObject] {
        func relevant(_ object: ManagedObject) -> Bool {
            request.includesSubentities ? object.entity.isKind(of: entity) : object.entity === entity
        }
        var result: [ManagedObject] = []
        for object in inserted where object.state == .inserted && relevant(object) { result.append(object) }
        for object in updated where object.state == .updated && relevant(object) { result.append(object) }
        for object in deleted where object.state == .deleted && relevant(object) { result.append(object) }
        if let predicate = request.predicate, hasChanges {
            result += objectsAffectedByRelatedChanges(try predicate.checked(for: entity).relationshipPaths,
                                                      entity: entity, includesSubentities: request.includesSubentities)
        }
        return result
    }

    /// Merges unsaved changes into store results: drops deleted objects, re-checks changed
    /// (and affected) ones in memory, adds matching ones the store missed, then sorts and
    /// applies the window.
    private func merge(
        _ stored: [ManagedObject], pending: [ManagedObject], request: FetchRequest, entity: EntityDescription
    ) throws -> [ManagedObject] {
        let matcher = try memoryMatcher(for: request, entity: entity)
        var seen = Set(stored.map(ObjectIdentifier.init))
        let rechecked = Set(pending.map(ObjectIdentifier.init))
        var result = stored.filter { object in
            switch object.state {
            case .deleted: return false
            case .inserted: return true
            default: return rechecked.contains(ObjectIdentifier(object)) ? matcher(object) : true
            }
        }
        for object in pending where object.state != .deleted {
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
