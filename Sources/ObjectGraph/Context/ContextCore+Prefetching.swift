/// Prefetching relationships and loading faults in batches: fewer, larger queries.
extension ContextCore {
    /// Fetches the destinations of relationship key paths for `objects`, one query per key
    /// path level (two for a many-to-many level), and realizes the relationships.
    func prefetch(_ paths: [String], from objects: [ManagedObject], entity: EntityDescription) throws {
        var children: [String: [String]] = [:]
        var order: [String] = []
        for path in paths {
            let parts = path.split(separator: ".", maxSplits: 1).map(String.init)
            guard let first = parts.first else { continue }
            if children[first] == nil { order.append(first) }
            children[first, default: []] += parts.count > 1 ? [parts[1]] : []
        }
        for key in order {
            guard let relationship = entity.relationship(named: key) else {
                throw ObjectGraphError.notARelationship(key, entity: entity)
            }
            let sources = objects.filter { $0.entity.isKind(of: relationship.entity) }
            let destinations = relationship.isToMany
                ? try prefetchToMany(relationship, for: sources)
                : try prefetchToOne(relationship, for: sources)
            if let rest = children[key], !rest.isEmpty, !destinations.isEmpty {
                try prefetch(rest, from: destinations, entity: relationship.destination)
            }
        }
    }

    private func prefetchToOne(_ relationship: RelationshipDescription, for sources: [ManagedObject]) throws -> [ManagedObject] {
        for source in sources { source.fireFaultIfNeeded() }
        var keys: [Int64] = []
        var seen = Set<Int64>()
        // A nested context's destinations load one by one, through the parents: the store's
        // rows lack the parents' unsaved changes.
        for source in sources where parent == nil {
            guard let id = source.slots[relationship.slot].value.destinationID, !id.isTemporary else { continue }
            if let registered = registeredObject(for: id), !registered.isFault { continue }
            if seen.insert(id.key).inserted { keys.append(id.key) }
        }
        // Keep the fetched objects alive until the relationships hold them.
        let fetched = keys.isEmpty ? [] : try fetchPopulated(relationship.destination, keys: keys)
        var destinations: [ManagedObject] = []
        for source in sources {
            if let destination = source.object(of: relationship) { destinations.append(destination) }
        }
        withExtendedLifetime(fetched) {}
        return destinations
    }

    /// Realizes the to-many `relationship` of `sources` (``realizeToMany(_:of:)``) and
    /// returns every destination.
    private func prefetchToMany(_ relationship: RelationshipDescription, for sources: [ManagedObject]) throws -> [ManagedObject] {
        try realizeToMany(relationship, of: sources)
        return sources.count == 1 ? sources[0].objects(of: relationship) : sources.flatMap { $0.objects(of: relationship) }
    }

    /// Realizes the to-many `relationship` of each of `sources` not realized yet, loading
    /// the destinations populated in one statement (two for a many-to-many). Callers that
    /// only need the relationships realized (a delete rule, a deny check) skip building
    /// the list of destinations ``prefetchToMany(_:for:)`` returns.
    func realizeToMany(_ relationship: RelationshipDescription, of sources: [ManagedObject]) throws {
        func needsRealizing(_ source: ManagedObject) -> Bool { !source.objectID.isTemporary && !source.isRealized(relationship) }
        // Mostly every source does (a delete rule's level, one object's fault): the list is
        // then shared, not copied into a new one.
        let pending = sources.allSatisfy(needsRealizing) ? sources : sources.filter(needsRealizing)
        guard !pending.isEmpty else { return }
        if parent != nil {
            // One by one, through the parents, which may have added, moved or deleted members.
            for source in pending { fulfillToManyFault(source.storage(of: relationship), of: source, relationship: relationship) }
            return
        }
        relationshipFaultsFired += pending.count
        let keys = pending.map(\.objectID.key)
        var groups: [Int64: [ManagedObject]] = [:]
        if relationship.isManyToMany {
            let pairs = try coordinator.store(for: relationship.destination).fetchJoinPairs(of: relationship, sourceKeys: keys)
            let destinationKeys = Array(Set(pairs.map(\.destination)))
            let destinations = try fetchPopulated(relationship.destination, keys: destinationKeys)
            let byKey = Dictionary(destinations.map { ($0.objectID.key, $0) }) { first, _ in first }
            for (source, destination) in pairs {
                if let object = byKey[destination] { groups[source, default: []].append(object) }
            }
        } else {
            let store = coordinator.store(for: relationship.destination)
            let destinations = try objects(.populate, layout: store.layout(for: relationship.destination)) {
                try store.forEachRow(destinationsOf: relationship, sourceKeys: keys, $0)
            }
            for destination in destinations { linkToOnes(destination) }
            let inverseSlot = relationship.inverse.slot
            // One source (a fault firing, a delete rule for one object): its destinations
            // need no grouping by key, only the check that each still points at it.
            if pending.count == 1 {
                let key = keys[0]
                func pointsHere(_ destination: ManagedObject) -> Bool { destination.slots[inverseSlot].value.destinationID?.key == key }
                let stored = destinations.allSatisfy(pointsHere) ? destinations : destinations.filter(pointsHere)
                pending[0].storage(of: relationship).realize(stored: stored)
                return
            }
            for destination in destinations {
                guard let owner = destination.slots[inverseSlot].value.destinationID else { continue }
                groups[owner.key, default: []].append(destination)
            }
        }
        for source in pending {
            let stored = groups[source.objectID.key] ?? []
            source.storage(of: relationship).realize(stored: stored)
        }
    }

    /// Fetches the rows with `keys` of `entity`'s table, populated, in one query.
    @discardableResult
    func fetchPopulated(_ entity: EntityDescription, keys: [Int64]) throws -> [ManagedObject] {
        let store = coordinator.store(for: entity)
        let objects = try objects(.populate, layout: store.layout(for: entity)) {
            try store.forEachRow(withKeys: keys, of: entity, $0)
        }
        for object in objects { linkToOnes(object) }
        return objects
    }

    // MARK: Batches

    /// Records that `objects` load their values together, `size` at a time. An object that
    /// waits in an earlier group moves to its new one.
    func groupIntoBatches(_ objects: [ManagedObject], size: Int) {
        var start = 0
        while start < objects.count {
            let group = nextBatchGroup
            nextBatchGroup += 1
            let members = objects[start..<min(objects.count, start + size)].map(\.objectID)
            batchGroups[group] = (members, members.count)
            for id in members {
                if let earlier = pendingBatch.updateValue(group, forKey: id) { leave(group: earlier) }
            }
            start += size
        }
    }

    /// Takes the fault of `id`, released or loaded otherwise, out of the group it waits in.
    func leaveBatch(_ id: ObjectID) {
        if let group = pendingBatch.removeValue(forKey: id) { leave(group: group) }
    }

    /// Counts one member less waiting in `group`, and forgets the group when none is left.
    private func leave(group: Int) {
        guard let waiting = batchGroups[group]?.waiting else { return }
        if waiting > 1 { batchGroups[group]!.waiting = waiting - 1 } else { batchGroups[group] = nil }
    }

    /// Loads the whole batch of `object` if it belongs to one; returns whether it did.
    func fulfillBatch(of object: ManagedObject) -> Bool {
        guard !pendingBatch.isEmpty, let group = pendingBatch[object.objectID],
              let members = batchGroups.removeValue(forKey: group)?.members else { return false }
        // Members that moved to a later group wait there.
        for id in members where pendingBatch[id] == group { pendingBatch[id] = nil }
        let keys = members.filter { registeredObject(for: $0)?.headerPointer.pointee.values == .needed }.map(\.key)
        guard let loaded = try? fetchPopulated(object.entity.root, keys: keys) else { return false }
        faultsFired += loaded.count
        return !object.isFault
    }

    /// Whether the object of `id` is a fault (or not registered yet) that neither its own
    /// slots (prefilled by a fetch) nor the row cache can fill, so filling it takes a statement.
    func needsLoading(_ id: ObjectID) -> Bool {
        guard !id.isTemporary else { return false }
        if let object = registeredObject(for: id) {
            if object.headerPointer.pointee.values == .prefilled { checkPrefilledFaultsIfStale() }
            if object.headerPointer.pointee.values != .needed { return false }
        }
        return !coordinator.rowCache.contains(id)
    }

    /// Fills the objects of `ids`, each of which ``needsLoading(_:)``, in one statement per
    /// entity; returns them.
    @discardableResult
    func loadFaults(_ ids: [ObjectID]) -> [ManagedObject] {
        guard parent == nil, !ids.isEmpty else { return [] }
        var keys: [Int: [Int64]] = [:], seen = Set<ObjectID>()
        for id in ids where seen.insert(id).inserted {
            keys[model.entities[Int(id.entityIndex)].root.index, default: []].append(id.key)
        }
        var loaded: [ManagedObject] = []
        for (root, keys) in keys {
            guard let objects = try? fetchPopulated(model.entities[root], keys: keys) else { continue }
            faultsFired += objects.count
            loaded += objects
        }
        return loaded
    }
}
