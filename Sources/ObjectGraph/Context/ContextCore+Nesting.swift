import Foundation

/// The parent of a nested context: where its saves go and whose unsaved changes it sees.
enum ParentContext: Sendable {
    case main(MainContext)
    case `private`(PrivateContext)

    /// Runs `body` with the parent's core on the parent's own isolation and waits for it:
    /// at once when the caller is already there, otherwise by a synchronous hop to the main
    /// queue or the private context's queue (so a parent and child that wait on each other
    /// from two threads deadlock, as in Core Data).
    ///
    /// - Parameter callerIsMainActor: whether the caller runs on the main actor (a main
    ///   context), known statically; otherwise the main queue is asked.
    func withCore<T: Sendable>(callerIsMainActor: Bool, _ body: @Sendable (ContextCore) throws -> T) rethrows -> T {
        switch self {
        case .main(let context):
            if callerIsMainActor || MainQueue.isCurrent { return try MainActor.assumeIsolated { try body(context.core) } }
            return try DispatchQueue.main.sync { try MainActor.assumeIsolated { try body(context.core) } }
        case .private(let context):
            return try context.executor.sync { try context.assumeIsolated { try body($0.core) } }
        }
    }
}

/// A value an object holds, as a context hands it to its child or its parent: an
/// attribute's stored value, a to-one's destination, or the members a many-to-many
/// relationship gained and lost.
enum NestedValue: Sendable {
    case stored(StoredValue)
    case reference(ObjectID?)
    case members(added: [ObjectID], removed: [ObjectID])
}

/// An object's unsaved state in values: every property of an inserted object, the changed
/// ones of an updated object.
struct NestedObject: Sendable {
    let id: ObjectID
    let isInserted: Bool
    var values: [Int: NestedValue]
    /// What an updated object's changes were based on, when it was loaded: so that the
    /// root's save checks the row against that version, not the one its own copy loaded.
    var base: NestedBase? = nil
}

/// The row version an updated object was loaded at, and the values its changed
/// properties had then (optimistic locking through a stack of contexts).
struct NestedBase: Sendable {
    var version: Int64
    var values: [Int: NestedValue]
}

/// Unsaved changes as values: what a child's save pushes into its parent, and what a
/// parent shows its children of the changes it (and its own parents) hold.
struct NestedChanges: Sendable {
    var objects: [ObjectID: NestedObject] = [:]
    var order: [ObjectID] = []
    var deleted: Set<ObjectID> = []
    /// Temporary IDs that a save made permanent since a child took them.
    var renamed: [ObjectID: ObjectID] = [:]

    var isEmpty: Bool { objects.isEmpty && deleted.isEmpty }

    /// Lays `newer` over these changes: its values win, its deletions remove, and the members
    /// it added to or removed from a many-to-many apply to those these changes hold.
    mutating func overlay(_ newer: NestedChanges) {
        for id in newer.order {
            guard let object = newer.objects[id] else { continue }
            if var existing = objects[id] {
                existing.values.merge(object.values) { old, new in
                    // A child's members are relative to what it read, its parents' members
                    // included: composed, not replaced (a grandchild would lose the root's).
                    guard case .members(let oldAdded, let oldRemoved) = old,
                          case .members(let added, let removed) = new else { return new }
                    return .members(added: oldAdded.filter { !removed.contains($0) } + added.filter { !oldAdded.contains($0) },
                                    removed: oldRemoved.filter { !added.contains($0) } + removed.filter { !oldRemoved.contains($0) })
                }
                objects[id] = existing
            } else {
                objects[id] = object
                order.append(id)
            }
        }
        for id in newer.deleted {
            objects[id] = nil
            deleted.insert(id)
        }
        renamed.merge(newer.renamed) { _, new in new }
        order.removeAll { objects[$0] == nil }
    }
}

extension ContextCore {
    /// Runs `body` with the parent's core on the parent's isolation; nil without a parent.
    func withParent<T: Sendable>(_ body: @Sendable (ContextCore) throws -> T) rethrows -> T? {
        guard let parent else { return nil }
        return try parent.withCore(callerIsMainActor: confinement.isMainActor, body)
    }

    // MARK: Changes as values

    /// This context's unsaved changes as values.
    ///
    /// Attributes derived from another attribute are left out: the receiver derives them
    /// again as it sets their sources. Those derived from a relationship (`books.@count`,
    /// `publisher != nil`) travel with the rest: they hold what this context's last save
    /// computed (or an insert's defaults), which the receiver could only compute again by
    /// loading to-many relationships, and without which it would read them as nil.
    func nestedChanges(inserted: [ManagedObject], updated: [ManagedObject], deleted: [ManagedObject]) -> NestedChanges {
        var changes = NestedChanges()
        // An object inserted and deleted here never reaches the receiver, so a many-to-many's
        // removal of it (its delete rule's) must not either: the receiver has no such object.
        func insertedAndDeletedHere(_ id: ObjectID) -> Bool {
            guard id.isTemporary, let object = registeredObject(for: id), object.state == .deleted else { return false }
            return object.headerPointer.pointee.stateBeforeDelete == .inserted
        }
        func record(_ object: ManagedObject, all: Bool) {
            var values: [Int: NestedValue] = [:]
            for attribute in object.entity.storedAttributes
            where attribute.derivation == nil || attribute.sourceRelationship != nil {
                guard all || object.hasChangedSlot(attribute.slot) else { continue }
                values[attribute.slot] = .stored(object.slots[attribute.slot].value.storedValue)
            }
            for relationship in object.entity.relationships where all || object.hasChangedSlot(relationship.slot) {
                if !relationship.isToMany {
                    values[relationship.slot] = .reference(object.slots[relationship.slot].value.destinationID)
                } else if relationship.isManyToMany, case .toMany(let storage) = object.slots[relationship.slot].value {
                    values[relationship.slot] = .members(added: storage.added.map(\.objectID),
                                                         removed: storage.removed.filter { !insertedAndDeletedHere($0) })
                }
            }
            changes.objects[object.objectID] = NestedObject(
                id: object.objectID, isInserted: all, values: values, base: all ? nil : base(of: object, values))
            changes.order.append(object.objectID)
        }
        for object in inserted { record(object, all: true) }
        for object in updated { record(object, all: false) }
        for object in deleted where object.headerPointer.pointee.stateBeforeDelete != .inserted {
            changes.deleted.insert(object.objectID)
        }
        return changes
    }

    /// The version `object` was loaded at and the loaded values of the properties in
    /// `changed`; nil when it was changed before it was loaded (it has no version to check).
    private func base(of object: ManagedObject, _ changed: [Int: NestedValue]) -> NestedBase? {
        let version = object.headerPointer.pointee.rowVersion
        guard version >= 0, let loaded = loadedSlots(of: object) else { return nil }
        var values: [Int: NestedValue] = [:]
        for (slot, value) in changed {
            switch value {
            case .stored: values[slot] = .stored(loaded[slot].storedValue)
            case .reference: values[slot] = .reference(loaded[slot].destinationID)
            case .members: continue
            }
        }
        return NestedBase(version: version, values: values)
    }

    /// Takes a child's base for `object`, just changed by the child's save, where the child
    /// loaded other values than this context held (`before`, for the properties this
    /// context had not changed itself): the child's changes were then made on an older
    /// (or newer) row than this context's copy, which would let the root write over a
    /// save made in between. The object keeps the older of the two versions, and the
    /// child's loaded values stand for those properties when the root compares them with
    /// the store's, property by property, as a flat context does.
    ///
    /// Where the child loaded the same values, this context's version stays: a child that
    /// goes on with objects after the root saved holds an older version, but edits the
    /// values that save wrote, and must not conflict with them.
    private func inheritBase(_ base: NestedBase, of object: ManagedObject, before: [Int: Slot]) {
        guard object.state == .updated else { return }
        let key = ObjectIdentifier(object)
        let version = object.headerPointer.pointee.rowVersion
        var inherited = inheritedBases[key] ?? (ownVersion: version, slots: [:])
        var differs = false
        for (slot, value) in base.values {
            guard let current = before[slot] else { continue }
            let loaded: Slot
            switch value {
            case .stored(let stored): loaded = Slot(stored)
            case .reference(let id): loaded = id.map(Slot.objectID) ?? .null
            case .members: continue
            }
            if Self.same(current, loaded) { continue }
            inherited.slots[slot] = loaded
            differs = true
        }
        guard differs else { return }
        inheritedBases[key] = inherited
        object.headerPointer.pointee.rowVersion = version < 0 ? base.version : min(version, base.version)
    }

    /// What this context and its parents hold unsaved, as values: its parent's changes with
    /// its own laid over them.
    func pendingNestedChanges() -> NestedChanges {
        lendsTemporaryIDs = true
        var changes = withParent { $0.pendingNestedChanges() } ?? NestedChanges()
        changes.overlay(nestedChanges(
            inserted: inserted.filter { $0.state == .inserted },
            updated: updated.filter { $0.state == .updated },
            deleted: deleted.filter { $0.state == .deleted }))
        return changes
    }

    // MARK: A child's save

    /// Applies a child's saved changes to this context's objects, as if made here: the next
    /// save of this context (or of its root) writes them.
    /// - Throws: ``ObjectGraphError`` `objectNotFound`, with nothing applied, when the changes
    ///   name an object the child saved into this context (a root) that this context no longer
    ///   has: it was reset or rolled back after the child's save.
    func applyChildChanges(_ changes: NestedChanges) throws {
        if parent == nil, let lost = lostTemporaryID(in: changes) {
            throw ObjectGraphError(.objectNotFound, """
                cannot save into the parent context: \(model.describe(lost)) was saved into it by a child, \
                and the parent was reset or rolled back since, which discarded it; nothing was saved. \
                Reset the child contexts as well when resetting their parent, or save the parent first
                """)
        }
        // A child that caught up with the root's save names objects by their permanent IDs.
        adoptPermanentIDsFromParents()
        // Destinations first: a deleted object added to a many-to-many is changed too (its
        // inverse), and the error should name the relationship that points at it.
        let destinations = try checkDestinations(of: changes)
        defer { withExtendedLifetime(destinations) {} }
        let changedHere = try objectsToChange(for: changes)
        defer { withExtendedLifetime(changedHere) {} }
        // The child's changes are not recorded here: a group that recorded an object they
        // change would, undone, put back the state before it and silently drop what the child
        // saved (the object clean again, so no save would write it). The history goes.
        if undo.hasRecords, undo.holdsAny(of: (changes.order + changes.deleted).compactMap(registeredObject(for:))) {
            undo.removeAll()
        }
        undo.suspensions += 1
        defer { undo.suspensions -= 1 }
        for id in changes.order {
            guard let change = changes.objects[id], change.isInserted, registeredObject(for: id) == nil else { continue }
            let object = ManagedObject.make(entity: model.entities[Int(id.entityIndex)], id: id, context: self, state: .inserted)
            // A permanent ID is one the child obtained ahead of saving (`obtainPermanentIDs(for:)`).
            if id.isTemporary { adopt(object) } else { register(object) }
            inserted.append(object)
        }
        for id in changes.order {
            guard let change = changes.objects[id] else { continue }
            let object = self.object(for: id)
            // The values the child's changes replace, of the properties not changed here:
            // what this context loaded, to compare with what the child loaded.
            var before: [Int: Slot] = [:]
            if let base = change.base, object.state != .inserted {
                object.fireFaultIfNeeded()
                for slot in base.values.keys where !object.hasChangedSlot(slot) { before[slot] = object.slots[slot].value }
            }
            for (slot, value) in change.values.sorted(by: { $0.key < $1.key }) {
                switch value {
                case .stored(let stored):
                    guard let attribute = object.entity.storedAttributes.first(where: { $0.slot == slot }) else { continue }
                    if object.state == .inserted && !object.hasChangedSlot(slot) && object.slots[slot].value.storedValue == stored {
                        continue
                    }
                    object.setStoredValue(stored, of: attribute)
                case .reference(let destination):
                    guard let relationship = object.entity.relationships.first(where: { $0.slot == slot }) else { continue }
                    object.setObject(destination.map { self.object(for: $0) }, of: relationship)
                case .members(let added, let removed):
                    guard let relationship = object.entity.relationships.first(where: { $0.slot == slot }) else { continue }
                    for member in added { object.addObject(self.object(for: member), to: relationship) }
                    for member in removed { object.removeObject(self.object(for: member), from: relationship) }
                }
            }
            if let base = change.base { inheritBase(base, of: object, before: before) }
        }
        for id in changes.deleted.sorted() {
            delete(object(for: id))
        }
    }

    /// The first temporary ID that `changes` update, delete or point at (inserting it aside)
    /// which this context, a root, neither holds nor saved: a change the root could only
    /// apply to an object it has forgotten.
    private func lostTemporaryID(in changes: NestedChanges) -> ObjectID? {
        let insertedHere = Set(changes.order.filter { changes.objects[$0]?.isInserted == true })
        func isLost(_ id: ObjectID) -> Bool {
            id.isTemporary && !insertedHere.contains(id) && registeredObject(for: id) == nil && renamed[id] == nil
        }
        for id in changes.order {
            if isLost(id) { return id }
            for value in changes.objects[id]?.values.values ?? [:].values {
                switch value {
                case .reference(let destination?) where isLost(destination): return destination
                case .members(let added, let removed):
                    if let lost = (added + removed).first(where: isLost) { return lost }
                default: continue
                }
            }
        }
        return changes.deleted.sorted().first(where: isLost)
    }

    /// The objects whose properties a child's `changes` set (inserts aside), loaded.
    /// - Throws: ``ObjectGraphError`` `objectNotFound`, before anything is applied, for an
    ///   object this context deleted, or whose row is gone (the root saved its deletion, or
    ///   another context deleted it): the child's edit of it has nothing left to change.
    private func objectsToChange(for changes: NestedChanges) throws -> [ManagedObject] {
        var objects: [ManagedObject] = []
        for id in changes.order {
            guard let change = changes.objects[id], !change.isInserted, !change.values.isEmpty else { continue }
            let object = self.object(for: id)
            if object.isFault { fulfillFault(object) }
            if object.state == .deleted || object.isInaccessible {
                let what = object.state == .deleted
                    ? "which the parent deleted"
                    : "which is no longer in the store (a parent saved its deletion, or another context deleted it)"
                throw ObjectGraphError(.objectNotFound, """
                    cannot save into the parent context: the child changed \(model.describe(id)), \(what) \
                    after the child read it; nothing was saved. Delete or refresh the object in the child
                    """)
            }
            objects.append(object)
        }
        return objects
    }

    /// The saved objects that a child's `changes` point a relationship at, loaded.
    /// - Throws: ``ObjectGraphError`` `validation`, before anything is applied, when one of
    ///   them is deleted here or its row is gone: applied, the link would dangle (the root
    ///   would store a reference to a row that is not there), as Core Data's validation refuses.
    private func checkDestinations(of changes: NestedChanges) throws -> [ManagedObject] {
        var pointers: [(source: ObjectID, slot: Int, target: ObjectID)] = []
        for id in changes.order {
            for (slot, value) in (changes.objects[id]?.values ?? [:]).sorted(by: { $0.key < $1.key }) {
                switch value {
                case .reference(let destination?): pointers.append((id, slot, destination))
                case .members(let added, _): pointers += added.map { (id, slot, $0) }
                default: continue
                }
            }
        }
        var seen = Set<ObjectID>()
        let targets = pointers.map(\.target).filter { seen.insert($0).inserted }
        loadFaults(targets.filter(needsLoading))  // one statement per entity, not one per object
        // A temporary ID is an object inserted here (which may since be deleted) or in the child.
        let objects = targets.compactMap { $0.isTemporary ? registeredObject(for: $0) : object(for: $0) }
        for object in objects where object.isFault { fulfillFault(object) }
        guard let gone = objects.first(where: { $0.state == .deleted || $0.isInaccessible }),
              let pointer = pointers.first(where: { $0.target == gone.objectID }) else { return objects }
        let relationship = model.entities[Int(pointer.source.entityIndex)].relationships.first { $0.slot == pointer.slot }
        let what = gone.state == .deleted
            ? "which the parent deleted"
            : "which is no longer in the store (a parent saved its deletion, or another context deleted it)"
        throw ObjectGraphError(.validation, """
            cannot save into the parent context: \(model.describe(pointer.source))'s '\(relationship?.name ?? "?")' \
            points to \(model.describe(gone.objectID)), \(what) after the child read it; nothing was saved. \
            Point the relationship elsewhere, or refresh the object in the child
            """)
    }

    /// Registers an object whose temporary ID another (child) context issued.
    func adopt(_ object: ManagedObject) {
        adopted[object.objectID] = Unmanaged.passUnretained(object)
    }

    /// Saves a nested context: computes relationship-derived attributes and validates, as a
    /// root's save does, then pushes every change into the parent, where temporary IDs stay
    /// temporary until the root saves. Nothing reaches the store.
    func saveIntoParent(_ parent: ParentContext) throws -> SaveResult {
        let insertedNow = inserted.filter { $0.state == .inserted }
        let updatedNow = updated.filter { $0.state == .updated }
        let deletedNow = deleted.filter { $0.state == .deleted }
        if let error = faultError {
            faultError = nil
            throw error
        }
        guard !(insertedNow.isEmpty && updatedNow.isEmpty && deletedNow.isEmpty) else { return SaveResult() }
        updateRelationshipDerivedAttributes(insertedNow)
        updateRelationshipDerivedAttributes(updatedNow)
        try validate(inserted: insertedNow, updated: updatedNow, deleted: deletedNow)
        let changes = nestedChanges(inserted: insertedNow, updated: updatedNow, deleted: deletedNow)
        _ = try withParent { try $0.applyChildChanges(changes) }
        let changedKeys = coordinator.didSaveCenter.hasSubscribers
            ? Dictionary(uniqueKeysWithValues: updatedNow.map { ($0.objectID, $0.changedKeys) }) : [:]
        var result = SaveResult()
        for object in insertedNow {
            result.insertedIDs.append(object.objectID)
            markSaved(object)
        }
        if !insertedNow.isEmpty { holdsSavedTemporaries = true }
        for object in updatedNow {
            result.updatedIDs.append(object.objectID)
            markSaved(object)
        }
        finishSave(deleted: deletedNow, into: &result)
        if coordinator.didSaveCenter.hasSubscribers { announce(result, changedKeys: changedKeys, reachedStore: false) }
        return result
    }

    // MARK: A child's reads

    /// Lays the parents' unsaved values for `object` over the values it loaded from the
    /// store; an object the parents deleted becomes inaccessible.
    /// - Returns: whether the parents know the object (so the store has nothing to add).
    func applyParentState(to object: ManagedObject, _ state: NestedChanges) -> Bool {
        let id = object.objectID
        if state.deleted.contains(id) {
            markInaccessible(object)
            return true
        }
        guard let change = state.objects[id] else { return false }
        for (slot, value) in change.values where !object.hasChangedSlot(slot) {
            switch value {
            case .stored(let stored):
                object.slots[slot].value = Slot(stored)
                if let attribute = object.entity.storedAttributes.first(where: { $0.slot == slot }) {
                    for target in attribute.derivedTargets {
                        object.slots[target.slot].value = Slot(Derivations.derive(stored, target.derivation!))
                    }
                }
            case .reference(let destination):
                object.slots[slot].value = destination.map(Slot.objectID) ?? .null
            case .members:
                // The to-many loads when touched, and takes the parents' members then.
                object.slots[slot].value = .null
            }
        }
        return change.isInserted
    }

    /// Whether a predicate reads, through its relationships, objects the parents changed:
    /// then the store, which has the saved values only, cannot select for it.
    func parentChangesReach(_ predicate: CheckedPredicate?) -> Bool {
        guard parent != nil, let predicate else { return false }
        return parentChangesReach(predicate.relationshipPaths)
    }

    /// Whether the parents changed objects of an entity at the end of one of `paths`
    /// (``CheckedPredicate/relationshipPaths``, ``relationshipPaths(of:)``).
    func parentChangesReach(_ paths: [[RelationshipDescription]]) -> Bool {
        guard parent != nil, !paths.isEmpty else { return false }
        let reachable = Set(paths.flatMap { $0.map(\.destination.root.index) })
        let changes = withParent { $0.pendingNestedChanges() } ?? NestedChanges()
        return (changes.order + changes.deleted).contains { reachable.contains(model.entities[Int($0.entityIndex)].root.index) }
    }

    /// The parents' unsaved changes relevant to a fetch of `entity`: objects of that
    /// entity (and, when asked, its sub-entities) they changed, and what they deleted.
    func parentChanges(for entity: EntityDescription, includesSubentities: Bool) -> NestedChanges {
        guard parent != nil else { return NestedChanges() }
        var changes = withParent { $0.pendingNestedChanges() } ?? NestedChanges()
        for id in changes.order {
            let candidate = model.entities[Int(id.entityIndex)]
            if includesSubentities ? !candidate.isKind(of: entity) : candidate !== entity { changes.objects[id] = nil }
        }
        changes.order.removeAll { changes.objects[$0] == nil }
        return changes
    }

    /// Turns the registered objects the parents changed back into faults (keeping this
    /// context's own changes) and returns them, with fresh faults for those not registered,
    /// so that a fetch re-checks them with the values the parents hold.
    func objectsChangedByParents(_ changes: NestedChanges) -> [ManagedObject] {
        var result: [ManagedObject] = []
        for id in changes.order {
            let object = self.object(for: id)
            if object.state == .clean {
                object.state = .fault
                object.headerPointer.pointee.needsValues = true
            } else if object.state == .updated {
                object.headerPointer.pointee.needsValues = true
            }
            result.append(object)
        }
        return result
    }

    /// Corrects the saved destinations of `object`'s to-many relationship by its parents'
    /// unsaved changes: objects whose inverse they set to `object` join, those they moved
    /// elsewhere or deleted leave, and a many-to-many takes the members they added and removed.
    func adjust(_ ids: inout [ObjectID], of object: ManagedObject, relationship: RelationshipDescription, by state: NestedChanges) {
        if relationship.isManyToMany {
            if case .members(let added, let removed)? = state.objects[object.objectID]?.values[relationship.slot] {
                ids += added.filter { !ids.contains($0) }
                ids.removeAll { removed.contains($0) }
            }
        } else {
            let inverseSlot = relationship.inverse.slot
            for id in state.order {
                guard model.entities[Int(id.entityIndex)].isKind(of: relationship.destination),
                      case .reference(let owner)? = state.objects[id]?.values[inverseSlot] else { continue }
                if owner == object.objectID {
                    if !ids.contains(id) { ids.append(id) }
                } else {
                    ids.removeAll { $0 == id }
                }
            }
        }
        ids.removeAll { state.deleted.contains($0) }
    }

    /// What this context and its parents hold unsaved for one object, and whether saving
    /// gave a temporary ID a permanent one.
    func pendingNestedState(of id: ObjectID) -> NestedChanges {
        lendsTemporaryIDs = true
        var changes = withParent { $0.pendingNestedState(of: id) } ?? NestedChanges()
        if let permanent = renamed[id] { changes.renamed[id] = permanent }
        guard let object = registeredObject(for: id), object.contextCore === self else { return changes }
        var own: NestedChanges
        switch object.state {
        case .inserted: own = nestedChanges(inserted: [object], updated: [], deleted: [])
        case .updated: own = nestedChanges(inserted: [], updated: [object], deleted: [])
        case .deleted: own = nestedChanges(inserted: [], updated: [], deleted: [object])
        default: return changes
        }
        if object.objectID != id {
            // Saving renamed it here: the child asks, and matches, by the temporary ID.
            own.objects[id] = own.objects.removeValue(forKey: object.objectID)
            own.order = own.order.map { $0 == object.objectID ? id : $0 }
            if own.deleted.remove(object.objectID) != nil { own.deleted.insert(id) }
        }
        changes.overlay(own)
        return changes
    }
}
