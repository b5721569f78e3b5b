/// Batch requests: work done straight in the store, then merged into live contexts.
extension ContextCore {
    func execute(_ request: BatchInsertRequest) throws -> BatchResult {
        let entity = try model.requireEntity(named: request.entityName)
        try coordinator.requireStores()
        guard !entity.isAbstract else {
            throw ObjectGraphError(.invalidValue, "entity '\(entity.name)' is abstract: insert one of its sub-entities")
        }
        var result = BatchResult()
        result.insertedIDs = try coordinator.store(for: entity).batchInsert(entity, rows: request.objects)
        announce(result)
        return result
    }

    func execute(_ request: BatchUpdateRequest) throws -> BatchResult {
        let entity = try model.requireEntity(named: request.entityName)
        try coordinator.requireStores()
        guard !request.propertiesToUpdate.isEmpty else {
            throw ObjectGraphError(.invalidValue,
                "a batch update of '\(entity.name)' needs a value to set in propertiesToUpdate; nothing was updated")
        }
        var values: [String: StoredValue] = [:]
        for (key, value) in request.propertiesToUpdate {
            guard let attribute = entity.attribute(named: key) else {
                if entity.relationship(named: key) != nil {
                    throw ObjectGraphError(.invalidValue,
                        "'\(entity.name).\(key)' is a relationship: a batch update sets attributes only; change it through a context")
                }
                throw ObjectGraphError.unknownKey(key, entity: entity)
            }
            try entity.checkSettable(attribute)
            guard !attribute.isTransient else {
                throw ObjectGraphError(.invalidValue,
                    "'\(entity.name).\(key)' is transient: it is never stored, so a batch update cannot set it")
            }
            guard let stored = attribute.type.storedValue(from: value)?.savedForm else {
                throw ObjectGraphError(.invalidValue, "\(value) is not \(attribute.type.nameWithArticle) for '\(entity.name).\(key)'; nothing was updated")
            }
            if stored.isNull && !attribute.isOptional {
                throw ObjectGraphError(.validation, "'\(entity.name).\(key)' is required: a batch update cannot set it to nil; nothing was updated")
            }
            if let problem = attribute.rangeProblem(stored) {
                throw ObjectGraphError(.validation, "'\(entity.name).\(key)' \(problem); nothing was updated")
            }
            values[key] = stored
        }
        let store = coordinator.store(for: entity)
        var result = BatchResult()
        result.updatedIDs = try store.batchUpdate(entity, plan: try keysPlan(request.entityName, request.predicate, entity),
                                                 values: values)
        mergeChanges(from: result)
        announce(result)
        return result
    }

    func execute(_ request: BatchDeleteRequest) throws -> BatchResult {
        let entity = try model.requireEntity(named: request.entityName)
        try coordinator.requireStores()
        let store = coordinator.store(for: entity)
        let listsIDs = request.resultType == .objectIDs
        var result = try store.batchDelete(entity, plan: try keysPlan(request.entityName, request.predicate, entity), listingIDs: listsIDs)
        mergeChanges(from: result)
        announce(result)
        // A store may list the IDs anyway; the result is what the request asked for.
        if !listsIDs { result.deletedIDs = [] }
        return result
    }

    /// The plan of the rows a batch request changes: every matching row of the entity and
    /// its sub-entities, keys only.
    private func keysPlan(_ name: String, _ predicate: FetchPredicate?, _ entity: EntityDescription) throws -> FetchPlan {
        try plan(FetchRequest(entityName: name, predicate: predicate), entity: entity, output: .keys)
    }

    /// Tells the coordinator's did-save subscribers what a batch request changed.
    private func announce(_ result: BatchResult) {
        guard coordinator.didSaveCenter.hasSubscribers, result.count + result.nullifiedIDs.count + result.recomputedIDs.count > 0 else { return }
        var saved = SaveResult()
        saved.insertedIDs = result.insertedIDs
        saved.updatedIDs = result.updatedIDs + result.nullifiedIDs + result.recomputedIDs
        saved.deletedIDs = result.deletedIDs
        announce(saved, changedKeys: [:], reachedStore: true, deletedCount: max(result.deletedCount, result.deletedIDs.count))
    }

    /// Brings registered objects up to date with changes made outside this context.
    ///
    /// Updated, nullified and recomputed objects turn back into faults (keeping unsaved changes), so their
    /// next access reads the store; deleted objects leave the context and leave the
    /// relationships of the objects that held them. When the result does not list every
    /// deleted row (a count-only batch delete), every registered object turns back into a
    /// fault instead, and the row cache forgets every row: which ones went is unknown.
    func mergeChanges(from result: BatchResult) {
        // The saved rows are named by permanent IDs: find the objects held by temporary ones.
        adoptPermanentIDsFromParents()
        undo.suspensions += 1
        defer { undo.suspensions -= 1 }
        guard result.deletedCount <= result.deletedIDs.count else {
            coordinator.rowCache.removeAll()
            undo.removeAll()  // an undo group could bring back an object that is gone from the store
            refreshAllObjects()
            return
        }
        let changed = result.updatedIDs + result.nullifiedIDs + result.recomputedIDs
        coordinator.rowCache.remove(changed)
        coordinator.rowCache.remove(result.deletedIDs)
        // A batch request often changes rows no registered object stands for: the IDs of a
        // table that holds no object are not looked up one by one.
        let holdsObjects = model.entities.map { tables[$0.root.index].count > 0 }
        // Listed only when undo holds records: a group that recorded one of them holds the
        // values the store had before, and undoing or redoing it would bring those back as
        // saved, unsaved and out of sight of a save. An object deleted here is not refreshed,
        // but undoing its deletion would bring back the values it had: it counts too.
        let checksUndo = undo.hasRecords
        var merged: [ManagedObject] = []
        for id in changed where holdsObjects[Int(id.entityIndex)] {
            guard let object = registeredObject(for: id) else { continue }
            if checksUndo { merged.append(object) }
            guard object.state != .deleted else { continue }
            refresh(object, mergeChanges: true)
        }
        if checksUndo, undo.holdsAny(of: merged) { undo.removeAll() }
        guard !result.deletedIDs.isEmpty else { return }
        undo.removeAll()  // an undo group could bring back an object that is gone from the store
        var removed: [ManagedObject] = []
        for id in result.deletedIDs where holdsObjects[Int(id.entityIndex)] {
            guard let object = registeredObject(for: id) else { continue }
            removed.append(object)
            objectWillDeallocate(id, object)
            object.headerPointer.pointee.detach()
            object.releaseRelationships()
            object.state = .clean
        }
        if !removed.isEmpty {
            let identifiers = Set(removed.map(ObjectIdentifier.init))
            inserted.removeAll { identifiers.contains(ObjectIdentifier($0)) }
            updated.removeAll { identifiers.contains(ObjectIdentifier($0)) }
            deleted.removeAll { identifiers.contains(ObjectIdentifier($0)) }
        }
        let remaining = registeredObjects
        guard !remaining.isEmpty else { return }
        // Hashed only when some object may hold a deleted one (a batch delete can remove
        // hundreds of thousands of rows from a context that holds none of them).
        let gone = Set(result.deletedIDs)
        for object in remaining {
            for relationship in object.entity.toManyRelationships {
                guard case .toMany(let storage) = object.slots[relationship.slot].value else { continue }
                storage.removeAll { gone.contains($0.objectID) }
            }
            for relationship in object.entity.toOneRelationships {
                if let id = object.slots[relationship.slot].value.destinationID, gone.contains(id) {
                    object.slots[relationship.slot].value = .null
                }
            }
        }
    }

    /// Turns every registered object without unsaved changes back into a fault (and keeps
    /// the unsaved changes of the others), releasing the objects their relationships held.
    /// Clears the undo history when a group recorded one of them (see ``refreshRecorded(_:mergeChanges:)``).
    func refreshAllObjects() {
        let objects = registeredObjects.filter { $0.state != .inserted && $0.state != .deleted }
        for object in objects { refresh(object, mergeChanges: true) }
        if undo.holdsAny(of: objects) { undo.removeAll() }
    }
}
