/// Deleting objects: marking them deleted and applying their relationships' delete rules,
/// one level of the cascade at a time.
extension ContextCore {
    /// Deletes `object`, applying its relationships' delete rules now (deny is checked at save).
    func delete(_ object: ManagedObject) { delete(CollectionOfOne(object)) }

    /// Deletes `objects`, applying their relationships' delete rules now (deny is checked at
    /// save).
    ///
    /// The rules run a level at a time: the objects given, then the objects their cascades
    /// reach, then the objects those reach. Before a level's rules run, what they will visit
    /// is loaded together: every to-many relationship still a fault in one statement per
    /// relationship (two for a many-to-many one), the faults among the to-one destinations
    /// in one per entity. Deleting a thousand objects one call at a time costs a statement
    /// per object and relationship; in one call, a few statements.
    func delete<Objects: Sequence>(_ objects: Objects) where Objects.Element: ManagedObject {
        var level: [ManagedObject] = []
        for object in objects {
            precondition(object.contextCore === self, "\(model.describe(object.objectID)) belongs to another context")
            if object.state != .deleted { level.append(object) }
        }
        if level.count > 1 { loadFaults(level.map(\.objectID).filter(needsLoading)) }  // the level holds them
        level.removeAll { !markDeleted($0) }
        while !level.isEmpty {
            let loaded = loadRuleDestinations(of: level)
            var next: [ManagedObject] = []
            /// Applies `relationship`'s rule of the deleted `object` to one destination, adding
            /// it to `next` when it cascades. (`next` goes inout: a variable that a nested
            /// function captures is a heap box, checked for exclusivity at every access.)
            func apply(_ relationship: RelationshipDescription, of object: ManagedObject, to destination: ManagedObject,
                       next: inout [ManagedObject]) {
                guard destination.state != .deleted else { return }
                if relationship.deleteRule == .cascade {
                    if markDeleted(destination) { next.append(destination) }
                } else {
                    destination.fireFaultIfNeeded()
                    destination.inverseWillRemove(object, via: relationship.inverse)
                }
            }
            for object in level {
                for relationship in object.entity.relationships where Self.propagatesDelete(relationship) {
                    if relationship.isToMany {
                        let destinations = object.objects(of: relationship)
                        // Room for the first object's cascade at once: appending to an empty
                        // list allocated it, then grew it again at the third destination.
                        if next.isEmpty, relationship.deleteRule == .cascade, !destinations.isEmpty {
                            next.reserveCapacity(destinations.count)
                        }
                        for destination in destinations {
                            apply(relationship, of: object, to: destination, next: &next)
                        }
                    } else if let destination = object.object(of: relationship) {
                        apply(relationship, of: object, to: destination, next: &next)
                    }
                }
            }
            withExtendedLifetime(loaded) {}
            level = next
        }
    }

    /// Whether deleting a source visits the relationship's destinations: a cascade deletes
    /// them, a nullify takes the source out of their inverse (deny is checked at save).
    private static func propagatesDelete(_ relationship: RelationshipDescription) -> Bool {
        relationship.deleteRule == .cascade || relationship.deleteRule == .nullify
    }

    /// Marks `object` deleted; false when it already was.
    ///
    /// A clean object gets no snapshot: deleting changes none of its values, so they are
    /// still the saved ones, which rollback and `committedValues` read. Should one change
    /// while it is deleted (an inverse relationship updated), ``ManagedObject/willChange(slot:)``
    /// takes the snapshot first. Most deleted objects never change, and a snapshot of each
    /// (an array of its values, a copy of each to-many relationship) cost about a thousand
    /// instructions an object, made and then freed at the save.
    private func markDeleted(_ object: ManagedObject) -> Bool {
        guard object.state != .deleted else { return false }
        object.fireFaultIfNeeded()
        if undo.isRecording { recordForUndo(object) }
        // A fault that could not load (its row is gone) keeps one, to become a fault again.
        if object.state == .fault { objectWillBecomeUpdated(object, listed: false) }
        object.headerPointer.pointee.stateBeforeDelete = object.state
        object.state = .deleted
        deleted.append(object)
        return true
    }

    /// Loads what the delete rules of `level` (objects just marked deleted) will visit, and
    /// returns the to-one destinations it loaded: the registry holds objects weakly, so the
    /// caller keeps these alive while the rules run. (Realized to-many relationships hold
    /// their destinations themselves.)
    ///
    /// Each rule fires every destination (a cascade deletes it, a nullify clears its inverse);
    /// left to the rules, that costs a statement per relationship fault and one per
    /// destination. Where a statement fails, what it would have loaded stays a fault and the
    /// rule loads it the usual way, which records the error for the next save.
    private func loadRuleDestinations(of level: [ManagedObject]) -> [ManagedObject] {
        guard parent == nil, let first = level.first else { return [] }
        var toOneIDs: [ObjectID] = []
        /// Loads what the rules of `entity`'s relationships visit from `objects`, all of that
        /// entity, collecting the to-one destinations still to load in `toOneIDs`.
        func load(_ entity: EntityDescription, _ objects: [ManagedObject], _ toOneIDs: inout [ObjectID]) {
            for relationship in entity.relationships where Self.propagatesDelete(relationship) {
                if relationship.isToMany {
                    // The realized relationships hold what this loads.
                    try? realizeToMany(relationship, of: objects)
                } else {
                    for object in objects {
                        if let id = object.slots[relationship.slot].value.destinationID, needsLoading(id) { toOneIDs.append(id) }
                    }
                }
            }
        }
        // A level mostly holds objects of one entity (always, for a single delete); else a
        // few, where a list searched in order costs less than hashing. The objects share
        // this context's model, so their IDs' entity indexes tell their entities apart.
        let firstIndex = first.headerPointer.pointee.entityIndex
        if level.allSatisfy({ $0.headerPointer.pointee.entityIndex == firstIndex }) {
            load(first.entity, level, &toOneIDs)
        } else {
            var groups: [(entity: EntityDescription, objects: [ManagedObject])] = []
            for object in level {
                if let index = groups.firstIndex(where: { $0.entity.index == object.headerPointer.pointee.entityIndex }) {
                    groups[index].objects.append(object)
                } else {
                    groups.append((object.entity, [object]))
                }
            }
            for (entity, objects) in groups { load(entity, objects, &toOneIDs) }
        }
        return loadFaults(toOneIDs)
    }
}
