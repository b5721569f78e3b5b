/// The IDs a save wrote: what other contexts need to merge its changes.
public struct SaveResult: Sendable {
    /// Objects inserted by the save, with their permanent IDs.
    public var insertedIDs: [ObjectID] = []
    /// Objects whose changes the save wrote.
    public var updatedIDs: [ObjectID] = []
    /// Objects the save deleted.
    public var deletedIDs: [ObjectID] = []
}

extension ContextCore {
    /// Validates and writes every change in one transaction; on failure nothing changes.
    func save() throws -> SaveResult {
        undo.suspensions += 1
        defer { undo.suspensions -= 1 }
        if let parent { return try saveIntoParent(parent) }
        // Each object is listed once: on insert, on its first change, on delete.
        let insertedNow = Self.objects(in: inserted, .inserted)
        var updatedNow = Self.objects(in: updated, .updated)
        let deletedNow = Self.objects(in: deleted, .deleted)
        if let error = faultError {
            faultError = nil
            throw error
        }
        guard !(insertedNow.isEmpty && updatedNow.isEmpty && deletedNow.isEmpty && pendingMetadata.isEmpty) else {
            return SaveResult()
        }
        let stores = try coordinator.requiredHandlers()
        updateRelationshipDerivedAttributes(insertedNow)
        updateRelationshipDerivedAttributes(updatedNow)
        try validate(inserted: insertedNow, updated: updatedNow, deleted: deletedNow)

        // Objects inserted and deleted before any save never reach the store.
        let deletedStored = deletedNow.filter {
            $0.headerPointer.pointee.stateBeforeDelete != .inserted
        }
        // Rows changed underneath (optimistic locking) are resolved by the merge policy and
        // the save tried again, holding every store's write lock from the first read of
        // the changed rows to the write, so no other save can slip in between and the
        // retry cannot lose the same race. The error policy reports the rows where both
        // sides changed a property, before resolving any; where the changes are disjoint
        // it keeps both, as the other policies do.
        let written: StoreWrites
        do {
            written = try writeAll(stores, insertedNow, updatedNow, deletedStored)
        } catch let conflicts as SaveConflicts {
            (written, updatedNow) = try Self.holdingLocks(of: stores[...]) {
                var pending = conflicts.ids, attempt = 1
                while true {
                    if mergePolicy == .error, try hasOverlappingChanges(pending) { throw try conflictError(pending) }
                    try resolveConflicts(pending)
                    let updatedNow = updated.filter { $0.state == .updated }
                    do {
                        return (try writeAll(stores, insertedNow, updatedNow, deletedStored), updatedNow)
                    } catch let more as SaveConflicts {
                        // Only a store that cannot lock (another context of this process saved) gets here.
                        guard attempt < 5 else { throw try conflictError(more.ids) }
                        pending = more.ids
                        attempt += 1
                    }
                }
            }
        }
        pendingMetadata.removeAll()

        var result = SaveResult()
        let observed = coordinator.didSaveCenter.hasSubscribers
        var changedKeys: [ObjectID: Set<String>] = [:]
        if observed {
            for object in updatedNow { changedKeys[object.objectID] = object.changedKeys }
        }
        let renamedBefore = renamed.count
        var index = 0
        written.insertedObjects.forEachUnretained { object in
            if object.objectID.isTemporary { adopt(written.permanentIDs[index], for: object) }
            index += 1
        }
        if renamed.count != renamedBefore { announceTemporaryIDRenames() }
        result.insertedIDs.reserveCapacity(insertedNow.count)
        insertedNow.forEachUnretained { object in
            result.insertedIDs.append(object.objectID)
            object.headerPointer.pointee.rowVersion = 0
            markSaved(object)
        }
        for object in updatedNow {
            result.updatedIDs.append(object.objectID)
            if written.rewritten.contains(object.objectID), object.headerPointer.pointee.rowVersion >= 0 {
                object.headerPointer.pointee.rowVersion += 1
            }
            markSaved(object)
        }
        finishSave(deleted: deletedNow, into: &result)
        if !(result.updatedIDs.isEmpty && result.deletedIDs.isEmpty) {
            coordinator.rowCache.remove(result.updatedIDs + result.deletedIDs)
        }
        if observed { announce(result, changedKeys: changedKeys, reachedStore: true) }
        return result
    }

    /// What a save wrote: the inserted objects with the IDs their stores gave them, store
    /// after store, and the rows of updated objects it rewrote. With one store the lists
    /// are that store's own, not copied (a list of each store's pair of lists cost a save an
    /// allocation).
    private struct StoreWrites {
        /// The inserted objects, in the order of ``permanentIDs``.
        var insertedObjects: [ManagedObject] = []
        /// The permanent ID of each of ``insertedObjects``.
        var permanentIDs: [ObjectID] = []
        var rewritten = Set<ObjectID>()
    }

    /// Writes the changes to every store, each inside the transactions of the stores before
    /// it, so every store has written before any commits, and a failure in any one rolls them
    /// all back. (Commits then run last store first; only a failing COMMIT itself, after
    /// another store committed, could leave them apart.) Metadata goes to the first store.
    ///
    /// A method with its results in a value, not a nested function: local variables that
    /// nested functions capture are boxed, and each access to a box is checked for
    /// exclusivity at run time. With one store (the usual case) the changes go to it as they
    /// are, without the list of each store's share (an array of tuples built and destroyed
    /// through generic code on every save).
    private func writeAll(
        _ stores: [any StoreRequestHandler], _ inserted: [ManagedObject], _ updated: [ManagedObject], _ deleted: [ManagedObject]
    ) throws -> StoreWrites {
        var written = StoreWrites()
        if stores.count == 1 {
            try write(inserted, updated, deleted, to: stores[0], withMetadata: true, into: &written) { _ in }
        } else {
            try write(groupedByStore(stores, inserted, updated, deleted)[...], into: &written)
        }
        return written
    }

    /// Writes the first group's changes to its store, and the other groups' inside its transaction.
    private func write(
        _ groups: ArraySlice<(any StoreRequestHandler, ([ManagedObject], [ManagedObject], [ManagedObject]))>,
        into written: inout StoreWrites
    ) throws {
        guard let (store, group) = groups.first else { return }
        try write(group.0, group.1, group.2, to: store, withMetadata: groups.startIndex == 0, into: &written) {
            try write(groups.dropFirst(), into: &$0)
        }
    }

    /// Writes these changes to `store`, and runs `inside` (the other stores' writes) inside
    /// its transaction.
    private func write(
        _ inserted: [ManagedObject], _ updated: [ManagedObject], _ deleted: [ManagedObject],
        to store: any StoreRequestHandler, withMetadata: Bool, into written: inout StoreWrites,
        inside: (inout StoreWrites) throws -> Void
    ) throws {
        var changes = storeChanges(inserted: inserted, updated: updated, deleted: deleted, store: store)
        if withMetadata { changes.metadata = pendingMetadata }
        let ids = try store.save(changes) { try inside(&written) }
        if written.permanentIDs.isEmpty {
            (written.insertedObjects, written.permanentIDs) = (inserted, ids)
        } else {
            written.insertedObjects += inserted
            written.permanentIDs += ids
        }
        if !changes.updates.isEmpty { written.rewritten.formUnion(changes.updates.map(\.id)) }
    }

    /// Runs `body` holding the write lock of every store in `stores`, the first one first.
    private static func holdingLocks<T>(of stores: ArraySlice<any StoreRequestHandler>, _ body: () throws -> T) throws -> T {
        guard let first = stores.first else { return try body() }
        return try first.holdingWriteLock { try holdingLocks(of: stores.dropFirst(), body) }
    }

    /// Gives an inserted object the permanent ID its store assigned, and registers it under it.
    private func adopt(_ id: ObjectID, for object: ManagedObject) {
        let old = object.objectID
        if old.temporaryTag == serial {
            temporaries.remove(old.key, ifObject: object)
            // A child may hold it by this ID, read from this context's changes.
            if lendsTemporaryIDs { renamed[old] = id }
        } else {
            adopted[old] = nil
            renamed[old] = id
        }
        object.headerPointer.pointee.objectID = id
        register(object)
    }

    /// The objects of a change list that are still in `state`: the list itself when all of
    /// them are, as is usual (no copy, no retain per object).
    static func objects(in list: [ManagedObject], _ state: ObjectState) -> [ManagedObject] {
        list.allSatisfy { $0.state == state } ? list : list.filter { $0.state == state }
    }

    /// The end of every save: deleted objects leave the context, and the change lists empty.
    func finishSave(deleted deletedNow: [ManagedObject], into result: inout SaveResult) {
        for object in deletedNow {
            if object.headerPointer.pointee.stateBeforeDelete != .inserted { result.deletedIDs.append(object.objectID) }
            objectWillDeallocate(object.objectID, object)
            object.headerPointer.pointee.detach()
        }
        // Deleted objects that pointed at each other (a recipe and its cascaded lines) would
        // keep each other alive in cycles: let go of what they held, now that every one is
        // detached (and held by `deletedNow`, so none ends while this runs).
        for object in deletedNow { object.releaseRelationships() }
        forgetChanges()
    }

    /// Tells the coordinator's did-save subscribers what a save changed.
    func announce(_ result: SaveResult, changedKeys: [ObjectID: Set<String>], reachedStore: Bool, deletedCount: Int? = nil) {
        var note = DidSave()
        note.insertedIDs = result.insertedIDs
        note.updatedIDs = result.updatedIDs
        note.deletedIDs = result.deletedIDs
        note.deletedCount = deletedCount ?? result.deletedIDs.count
        note.changedKeys = changedKeys
        note.origin = identifier
        note.reachedStore = reachedStore
        coordinator.didSaveCenter.post(note)
    }

    /// Computes `ingredients.@count` and `photo != nil` attributes of objects about to be
    /// written, from the relationships in memory, where the relationship changed (or the
    /// object is new); the write then stores them with the object's other changes. Counting
    /// a changed to-many relationship that is still a fault loads its object IDs. A nested
    /// context's save computes them too, and hands them to its parent with its changes.
    func updateRelationshipDerivedAttributes(_ objects: [ManagedObject]) {
        objects.forEachUnretained { object in
            guard object.needsSaveWork(.derivesFromRelationships) else { return }
            let derived = object.entity.relationshipDerivedAttributes
            let isNew = object.state == .inserted
            for attribute in derived {
                let relationship = attribute.sourceRelationship!
                guard isNew || object.hasChangedSlot(relationship.slot) else { continue }
                let value: StoredValue = relationship.isToMany
                    ? .integer(Int64(object.objects(of: relationship).count))
                    : .integer(object.slots[relationship.slot].value.destinationID == nil ? 0 : 1)
                guard object.slots[attribute.slot].value.storedValue != value else { continue }
                object.willChange(slot: attribute.slot)
                object.slots[attribute.slot].value = Slot(value)
            }
        }
    }

    func markSaved(_ object: ManagedObject) {
        object.state = .clean
        object.clearChangedSlots()
        guard object.needsSaveWork(.hasToMany) else { return }
        for relationship in object.entity.toManyRelationships {
            if case .toMany(let storage) = object.slots[relationship.slot].value { storage.clearChanges() }
        }
    }

    /// Each of `stores` with the changes that go to it.
    private func groupedByStore(
        _ stores: [any StoreRequestHandler], _ inserted: [ManagedObject], _ updated: [ManagedObject], _ deleted: [ManagedObject]
    ) -> [(any StoreRequestHandler, ([ManagedObject], [ManagedObject], [ManagedObject]))] {
        stores.map { store in
            func mine(_ object: ManagedObject) -> Bool { coordinator.store(for: object.entity) === store }
            return (store, (inserted.filter(mine), updated.filter(mine), deleted.filter(mine)))
        }
    }

    // MARK: Validation

    func validate(inserted: [ManagedObject], updated: [ManagedObject], deleted: [ManagedObject]) throws {
        var problems: [String] = []
        // A registered object is deleted only while it is in the context's list of deleted
        // objects (delete, undo and redo keep the two in step), so when this save deletes
        // nothing no relationship can point to a deleted object, and an import's batch skips
        // looking up the destination of every to-one relationship of every new object.
        let checksDeletedDestinations = !deleted.isEmpty
        func name(_ object: ManagedObject) -> String {
            let label = object.entity.attributes.first { $0.type == .string && $0.name == "name" }
                .flatMap { object.slots[$0.slot].value.storedValue == .null ? nil : object.slots[$0.slot].value.storedValue }
            if case .text(let text)? = label { return "\(object.entity.name) '\(text)'" }
            return object.objectID.isTemporary ? "new \(object.entity.name)" : model.describe(object.objectID)
        }
        // `problems` goes to the checks inout: a variable that nested functions capture is
        // a heap box, checked for exclusivity at every access.
        func check(_ object: ManagedObject, _ problems: inout [String]) {
            guard object.needsSaveWork(validatesRelationships ? [.checksAttributes, .hasRelationships] : .checksAttributes)
            else { return }
            object.withEntity { check(object, $0, &problems) }
        }
        func check(_ object: ManagedObject, _ entity: EntityDescription, _ problems: inout [String]) {
            let isNew = object.state == .inserted
            let slots = object.slots
            entity.requiredAttributes.forEachUnretained { attribute in
                guard isNew || object.hasChangedSlot(attribute.slot) else { return }
                if slots[attribute.slot].value.isNull {
                    problems.append("\(name(object)): required attribute '\(attribute.name)' is nil")
                }
            }
            for attribute in entity.rangedAttributes {
                guard isNew || object.hasChangedSlot(attribute.slot),
                      let problem = attribute.rangeProblem(slots[attribute.slot].value.storedValue) else { continue }
                problems.append("\(name(object)): '\(attribute.name)' \(problem)")
            }
            guard validatesRelationships else { return }
            for relationship in entity.relationships {
                guard isNew || object.hasChangedSlot(relationship.slot) else { continue }
                if relationship.isToMany {
                    // An object deleted and then added (a relationship set on it after its
                    // delete): Core Data's dangling reference, refused as for a to-one.
                    if checksDeletedDestinations, case .toMany(let storage) = object.slots[relationship.slot].value,
                       let gone = storage.added.first(where: { $0.state == .deleted }) {
                        problems.append("\(name(object)): '\(relationship.name)' holds \(name(gone)), which is deleted")
                    }
                    guard relationship.minCount > 0 || relationship.maxCount > 0 else { continue }
                    let count = object.objects(of: relationship).count
                    if count < relationship.minCount {
                        problems.append("\(name(object)): '\(relationship.name)' needs at least \(relationship.minCount) objects, has \(count)")
                    }
                    if relationship.maxCount > 0 && count > relationship.maxCount {
                        problems.append("\(name(object)): '\(relationship.name)' allows at most \(relationship.maxCount) objects, has \(count)")
                    }
                } else if !relationship.isOptional, object.slots[relationship.slot].value.destinationID == nil {
                    problems.append("\(name(object)): required relationship '\(relationship.name)' is nil")
                } else if checksDeletedDestinations, let target = destinationIfRegistered(object.slots[relationship.slot].value),
                          target.state == .deleted {
                    problems.append("\(name(object)): '\(relationship.name)' points to a deleted \(target.entity.name)")
                }
            }
        }
        inserted.forEachUnretained { check($0, &problems) }
        updated.forEachUnretained { check($0, &problems) }
        loadDenyingRelationships(of: deleted)
        for object in deleted {
            for relationship in object.entity.relationships where relationship.deleteRule == .deny {
                let remaining = relationship.isToMany
                    ? object.objects(of: relationship).filter { $0.state != .deleted }
                    : object.object(of: relationship).map { $0.state == .deleted ? [] : [$0] } ?? []
                if !remaining.isEmpty {
                    problems.append("cannot delete \(name(object)): '\(relationship.name)' denies deletion while it holds \(remaining.count) \(relationship.destination.name) object\(remaining.count == 1 ? "" : "s")")
                }
            }
        }
        if !problems.isEmpty {
            throw ObjectGraphError(.validation, problems.joined(separator: "; ") + "; nothing was saved")
        }
    }

    /// Loads the to-many relationships with a deny rule that `deleted` objects still hold as
    /// faults, one statement per relationship for all the objects, as a delete loads what
    /// its rules visit: checked one object at a time, each would cost a statement. Where the
    /// statement fails, the check loads each relationship the usual way, which reports the
    /// error.
    private func loadDenyingRelationships(of deleted: [ManagedObject]) {
        guard parent == nil else { return }
        var groups: [(relationship: RelationshipDescription, objects: [ManagedObject])] = []
        for object in deleted {
            for relationship in object.entity.relationships
            where relationship.deleteRule == .deny && relationship.isToMany && !object.isRealized(relationship) {
                if let index = groups.firstIndex(where: { $0.relationship === relationship }) {
                    groups[index].objects.append(object)
                } else {
                    groups.append((relationship, [object]))
                }
            }
        }
        for group in groups where group.objects.count > 1 {
            try? realizeToMany(group.relationship, of: group.objects)
        }
    }

    /// The registered destination a to-one slot names: the object it holds (no registry
    /// lookup), or the registered object for the ID it holds.
    func destinationIfRegistered(_ slot: Slot) -> ManagedObject? {
        switch slot {
        case .object(let object): object.contextCore === self ? object : registeredObject(for: object.objectID)
        case .objectID(let id): registeredObject(for: id)
        default: nil
        }
    }

    // MARK: Permanent IDs

    /// Gives inserted objects permanent IDs now, before they are saved.
    func obtainPermanentIDs(for objects: [ManagedObject]) throws {
        let pending = objects.filter { $0.objectID.isTemporary && $0.contextCore === self }
        guard !pending.isEmpty else { return }
        var assigned: [(ManagedObject, ObjectID)] = []
        for store in coordinator.handlers {
            let mine = pending.filter { coordinator.store(for: $0.entity) === store }
            if !mine.isEmpty { assigned += zip(mine, try store.reservePermanentIDs(for: mine.map(\.objectID))) }
        }
        let renamedBefore = renamed.count
        defer { if renamed.count != renamedBefore { announceTemporaryIDRenames() } }
        for (object, id) in assigned {
            if object.objectID.temporaryTag == serial {
                temporaries.remove(object.objectID.key, ifObject: object)
                // A child may hold it by this ID, read from this context's changes.
                if lendsTemporaryIDs { renamed[object.objectID] = id }
            } else {
                adopted[object.objectID] = nil
                renamed[object.objectID] = id
            }
            object.headerPointer.pointee.objectID = id
            register(object)
        }
    }

    // MARK: Rollback, reset, refresh

    /// Discards every unsaved change: inserted objects leave the context, the others get
    /// their saved values back.
    func rollback() {
        undo.suspensions += 1
        defer { undo.suspensions -= 1 }
        pendingMetadata.removeAll()
        let discarded = inserted.filter { object in object.state == .inserted
            || (object.state == .deleted && object.headerPointer.pointee.stateBeforeDelete == .inserted) }
        for object in discarded {
            objectWillDeallocate(object.objectID, object)
            object.headerPointer.pointee.detach()
        }
        // As after a save's deletes: discarded objects may hold each other in cycles.
        defer { for object in discarded { object.releaseRelationships() } }
        for object in updated + deleted where !(object.state == .deleted
            && object.headerPointer.pointee.stateBeforeDelete == .inserted) {
            restore(object)
        }
        forgetChanges()
    }

    /// Forgets every object: registered objects are detached and keep their current values.
    func reset() {
        undo.suspensions += 1
        defer { undo.suspensions -= 1 }
        pendingMetadata.removeAll()
        detachAll()
        forgetChanges()
    }

    /// Empties the change lists, the snapshots and the undo history. Lists of moderate size
    /// keep their memory: a context that saves every 1,000 changes fills them to the same
    /// size again (regrowing the snapshots rehashed every entry about a dozen times a batch).
    private func forgetChanges() {
        let keeps = inserted.count + updated.count + deleted.count <= 16_384
        // An empty list that keeps its memory is left as it is: emptying it still checked
        // its buffer and, shared as a save's lists are, made a new one (a save that only
        // inserts has two empty lists, no snapshots and no inherited bases).
        if !(keeps && inserted.isEmpty) { inserted.removeAll(keepingCapacity: keeps) }
        if !(keeps && updated.isEmpty) { updated.removeAll(keepingCapacity: keeps) }
        if !(keeps && deleted.isEmpty) { deleted.removeAll(keepingCapacity: keeps) }
        if !(keeps && snapshots.isEmpty) { snapshots.removeAll(keepingCapacity: keeps && snapshots.count <= 16_384) }
        if !inheritedBases.isEmpty { inheritedBases.removeAll() }
        undo.removeAll()
    }

    /// A refresh the app asked for (``MainContext/refresh(_:mergeChanges:)``): as
    /// ``refresh(_:mergeChanges:)``, and when a group recorded the object, the undo history
    /// is cleared. The refreshed object reads the store again (and without `mergeChanges`
    /// loses its changes), so a group's recorded states would bring back values the store
    /// may no longer hold, as if saved, or changes the refresh discarded.
    func refreshRecorded(_ object: ManagedObject, mergeChanges: Bool) {
        let refreshes = object.contextCore === self && object.state != .inserted && object.state != .deleted
        refresh(object, mergeChanges: mergeChanges)
        if refreshes, undo.holdsAny(of: [object]) { undo.removeAll() }
    }

    /// Turns an object back into a fault, releasing the objects its relationships held.
    ///
    /// With `mergeChanges` an updated object keeps its unsaved changes and reloads the rest;
    /// without it, unsaved changes are discarded. The undo history is the caller's to clear.
    func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        undo.suspensions += 1
        defer { undo.suspensions -= 1 }
        guard object.contextCore === self, object.state != .inserted, object.state != .deleted else { return }
        if object.state == .updated && mergeChanges && parent != nil {
            refreshThroughParents(object)
            return
        }
        if object.state == .updated && mergeChanges {
            let count = object.entity.slotCount
            let store = coordinator.store(for: object.entity)
            let layout = store.layout(for: object.entity)
            let changed = (0..<count).filter { object.hasChangedSlot($0) }
            let kept = changed.map { object.slots[$0].value }
            let row: [StoredValue]?
            do {
                row = try store.fetchLatestRow(object.objectID)
            } catch {
                // The values stay as they were; the next save reports the store's error.
                keepFaultError(ObjectGraphError(.storeFailure,
                    "could not refresh \(model.describe(object.objectID)): \(Self.reason(error)); nothing was saved",
                    underlying: error))
                return
            }
            // Reload unchanged values; relationship slots go back to IDs, breaking cycles.
            for index in 0..<count where !changed.contains(index) { object.slots[index].value = .null }
            guard let row else {
                // Deleted elsewhere: inaccessible, as a fault whose row is gone; saving fails.
                object.headerPointer.pointee.isInaccessible = true
                return
            }
            let saved = Array(zip(changed, kept))
            layout.fill(object, from: row)
            // What was loaded is now this row (its version too): rollback returns to it.
            snapshots[ObjectIdentifier(object)] = nil
            inheritedBases[ObjectIdentifier(object)] = nil
            objectWillBecomeUpdated(object, listed: false)
            for (index, slot) in saved { object.slots[index].value = slot }
            return
        }
        if object.state == .updated {
            snapshots[ObjectIdentifier(object)] = nil
            inheritedBases[ObjectIdentifier(object)] = nil
            updated.removeAll { $0 === object }
        }
        object.releaseRelationships()
        for index in 0..<object.entity.slotCount { object.slots[index].value = .null }
        object.clearChangedSlots()
        object.headerPointer.pointee.shadowsPending = false
        object.headerPointer.pointee.needsValues = true
        object.headerPointer.pointee.isInaccessible = false
        object.state = .fault
    }

    /// ``refresh(_:mergeChanges:)`` with `mergeChanges` in a nested context: the object
    /// reloads as a fault does, through the parents (the saved row with their unsaved
    /// values laid over it, or what a parent inserted; inaccessible when a parent deleted
    /// it), and takes its changed properties back. The store's row alone would lose the
    /// parents' changes, and for a temporary ID it would be another object's row.
    private func refreshThroughParents(_ object: ManagedObject) {
        let changed = (0..<object.entity.slotCount).filter { object.hasChangedSlot($0) }
        let kept = changed.map { object.slots[$0].value }
        refresh(object, mergeChanges: false)
        do {
            try loadFault(object)
        } catch let error as ObjectGraphError where error.code == .objectNotFound {
            // Gone, as loadFault recorded on the object: saving it fails.
        } catch {
            // The object stays a fault; the next save reports the store's error.
            keepFaultError(ObjectGraphError(.storeFailure,
                "could not refresh \(model.describe(object.objectID)): \(Self.reason(error)); nothing was saved",
                underlying: error))
        }
        // What was loaded is now what the changes are based on: rollback returns to it.
        objectWillBecomeUpdated(object)
        for (index, slot) in zip(changed, kept) {
            object.slots[index].value = slot
            object.slots[index].changed = true
        }
        object.state = .updated
    }
}
