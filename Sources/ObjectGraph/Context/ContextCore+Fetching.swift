extension ContextCore {
    /// Fetches the objects matching `request`.
    ///
    /// A fetch that prefetches runs several statements; they read one committed state, so a
    /// save another process makes meanwhile never shows by half (objects without the
    /// related objects that save gave them).
    func fetch(_ request: FetchRequest) throws -> [ManagedObject] {
        let entity = try model.requireEntity(named: request.entityName)
        try coordinator.requireStores()
        adoptPermanentIDsFromParents()
        guard !request.relationshipKeyPathsForPrefetching.isEmpty else { return try fetch(request, entity: entity) }
        return try coordinator.store(for: entity).readingOneState { try fetch(request, entity: entity) }
    }

    private func fetch(_ request: FetchRequest, entity: EntityDescription) throws -> [ManagedObject] {
        let store = coordinator.store(for: entity)
        var plan = try plan(request, entity: entity, output: Self.readsKeysOnly(request) ? .keys : .rows)
        var pending = request.includesPendingChanges
            ? pendingChanges(in: entity, request, predicate: plan.predicate, sortTerms: plan.sortTerms) : []
        // A nested context's parents hold unsaved changes the store does not have yet.
        let fromParents = parent == nil ? NestedChanges() : parentChanges(for: entity, includesSubentities: request.includesSubentities)
        // A predicate that reads related objects the parents changed is matched in memory,
        // on every row of the entity.
        let matchesInMemory = parentChangesReach(plan.predicate)
        let checked = plan.predicate
        if matchesInMemory { plan.predicate = nil }
        // A sort key that reads related objects the parents changed: the store's order is stale.
        let sortsInMemory = parent != nil && parentChangesReach(Self.relationshipPaths(of: plan.sortTerms))
        // With unsaved changes in play the window is applied after merging them in memory.
        let windowsInMemory = !pending.isEmpty || !fromParents.isEmpty || matchesInMemory || sortsInMemory
        if windowsInMemory {
            plan.limit = 0
            plan.offset = 0
        }
        let handling: RowHandling? = Self.readsKeysOnly(request) ? nil
            : request.returnsObjectsAsFaults ? .cache : .populate
        var objects = if let handling {
            try objects(handling, layout: store.layout(for: entity)) { try store.forEachRow(plan, $0) }
        } else {
            // Keys only: the store reads them in one tight loop, and no row is handed on.
            faults(for: try store.fetchIDs(plan))
        }
        if parent != nil {
            // The root may have saved while the store was read: rows of objects held here by
            // temporary IDs came back under permanent ones, as new objects.
            let replaced = adoptPermanentIDsFromParents(madeBy: objects)
            if !replaced.isEmpty { objects = objects.map { replaced[ObjectIdentifier($0)] ?? $0 } }
        }
        if handling == .populate, entity.root.selfAndDescendants.contains(where: { !$0.toOneRelationships.isEmpty }) {
            for object in objects { linkToOnes(object) }
        }
        if !fromParents.isEmpty {
            objects.removeAll { fromParents.deleted.contains($0.objectID) }
            var changedByParents = objectsChangedByParents(fromParents)
            // A parent that saved an insert after its changes were read and before the store
            // was: the store's row is the same object, so it is not listed twice.
            let temporary = changedByParents.map(\.objectID).filter(\.isTemporary)
            if !temporary.isEmpty {
                let saved = permanentIDs(of: temporary)
                if !saved.isEmpty {
                    let fetched = Set(objects.map(\.objectID))
                    changedByParents.removeAll { saved[$0.objectID].map(fetched.contains) ?? false }
                }
            }
            pending += changedByParents
        }
        if matchesInMemory || sortsInMemory {
            plan.predicate = checked
            pending += objects
        }
        // Whenever the window came off the store's query, also with nothing left to merge
        // (the parents' only changes were deletions): the merge applies it.
        if windowsInMemory {
            objects = try merge(objects, pending: pending, request: request, plan: plan)
        }
        // A nested context's faults load one by one, through the parents, as with a lazy
        // fetch: a batch would read the store's rows without the parents' changes.
        if request.fetchBatchSize > 0 && request.includesPropertyValues && parent == nil {
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

    /// How fetched rows become objects.
    enum RowHandling {
        /// Fill new or faulted objects from the row at once.
        case populate
        /// Return faults, each holding its row for when it fires (``ValueState/prefilled``);
        /// rows no fault can hold go into the row cache.
        case cache
    }

    /// Whether a changed object (not deleted) that a fetch or count checks in memory has lost
    /// its row: a count-only batch delete elsewhere leaves such objects registered. Its fault
    /// then finds no row, and a gone object matches nothing, whatever its unsaved changes say.
    static func rowIsGone(_ object: ManagedObject) -> Bool {
        if object.state != .inserted { object.fireFaultIfNeeded() }
        return object.isInaccessible
    }

    /// The registered objects for the rows that `run` hands over (new faults for rows not
    /// registered yet), filled or cached as `handling` says. The new and the populated
    /// objects are counted in ``ContextStatistics`` once, after the last row.
    func objects(
        _ handling: RowHandling, layout: TableLayout,
        from run: ((ObjectID, any StoreRow) throws -> Void) throws -> Void
    ) throws -> [ManagedObject] {
        var objects: [ManagedObject] = []
        var cachedRows = RowCache.Batch(width: layout.rowWidth)
        var created = 0, populated = 0
        defer {
            countCreated(created)
            objectsRealized += populated
        }
        // A fault of a context without parents keeps its fetched values in its own slots
        // (prefilled); rows for other objects go to the row cache. A nested context's faults
        // load through their parents, whose unsaved changes come first.
        let prefills = parent == nil
        if prefills, case .cache = handling {
            // Values filled from here on are at least as new as every change logged so far.
            checkPrefilledFaultsIfStale()
        }
        let cacheSeen = coordinator.rowCache.latestChange
        try run { id, row in
            let (object, needsValues, isNew) = registerFetched(id, created: &created)
            // What the row's values become: the object's (populated or prefilled), or none.
            var filled: ValueState?
            switch handling {
            case .populate:
                if needsValues {
                    filled = .loaded
                    populated += 1
                }
            case .cache:
                if prefills, needsValues, object.state == .fault {
                    filled = .prefilled
                } else {
                    cachedRows.append(id) { row.value(at: $0) }
                }
            }
            if let filled {
                if object.state == .fault {  // a new object is one too
                    layout.fill(object, fresh: isNew) { row.slot(at: $0) }
                    if filled == .loaded { object.state = .clean }
                } else {
                    // A fault changed before loading keeps its changed slots (populated only).
                    object.fillPreservingChanges(layout) { row.slot(at: $0) }
                }
                object.headerPointer.pointee.values = filled
                if let version = row.version(at: layout.versionColumn) {
                    object.headerPointer.pointee.rowVersion = version
                }
            }
            // Small fetches (a relationship fault, a delete rule's load) are the common case:
            // room for eight at the first row saves growing the array twice for three rows.
            if objects.isEmpty { objects.reserveCapacity(8) }
            objects.append(consume object)
        }
        if case .cache = handling { coordinator.rowCache.store(cachedRows, readAfter: cacheSeen) }
        return objects
    }

    /// The registered objects for fetched `ids`, in order: new faults, without values, for
    /// those not registered yet. The array is made at its full size and filled in place (no
    /// append, no growth, per row); the new objects are counted once, at the end.
    func faults(for ids: [ObjectID]) -> [ManagedObject] {
        var created = 0
        defer { countCreated(created) }
        return [ManagedObject](unsafeUninitializedCapacity: ids.count) { buffer, initialized in
            for id in ids {
                buffer.initializeElement(at: initialized, to: registerFetched(id, created: &created).object)
                initialized += 1
            }
        }
    }

    /// Counts `count` objects a fetch made uncounted.
    private func countCreated(_ count: Int) {
        guard count > 0 else { return }
        ContextStatistics.objectsDidAllocate(count)
        objectsCreated += count
    }

    /// The entity of a fetched row's ID. Rows of one fetch come from one table and mostly
    /// one entity: the entity is looked up only when it changes.
    @inline(__always)
    private func fetchedEntity(_ id: ObjectID) -> Unmanaged<EntityDescription> {
        let index = Int(id.entityIndex)
        if lastFetchedEntity?.index != index {
            lastFetchedEntity = (index, .passUnretained(model.entities[index]))
        }
        return lastFetchedEntity!.entity
    }

    /// The registered object for a fetched row's ID (a new fault when there is none, which
    /// `created` counts for ``countCreated(_:)``), whether it still needs its values, and
    /// whether it is that new fault, its slots all null.
    @inline(__always)
    private func registerFetched(
        _ id: ObjectID, created: inout Int
    ) -> (object: ManagedObject, needsValues: Bool, isNew: Bool) {
        let entity = fetchedEntity(id)
        let (object, inserted) = tables[tableOfEntity[Int(id.entityIndex)]].object(forKey: id.key) {
            entity._withUnsafeGuaranteedRef { ManagedObject.make(entity: $0, id: id, context: self, state: .fault, counted: false) }
        }
        guard inserted else { return (object, object.headerPointer.pointee.needsValues, false) }
        created += 1
        return (object, true, true)
    }

    /// Counts the objects matching `request` in the store, without creating any for saved rows.
    ///
    /// Unsaved changes correct the store's count: each changed (or affected) object that
    /// matches now counts, and each whose saved row matched is taken off, which one more
    /// count over just those rows' keys tells.
    func count(for request: FetchRequest) throws -> Int {
        let entity = try model.requireEntity(named: request.entityName)
        adoptPermanentIDsFromParents()
        if parent != nil, try !parentChanges(for: entity, includesSubentities: request.includesSubentities).isEmpty
            || parentChangesReach(plan(request, entity: entity, output: .count).predicate) {
            var keys = request
            keys.includesPropertyValues = false
            keys.relationshipKeyPathsForPrefetching = []
            return try fetch(keys).count
        }
        let plan = try plan(request, entity: entity, output: .count)
        var count = try coordinator.store(for: entity).count(plan)
        adoptPermanentIDsFromParents()  // for a root that saved while the store counted
        if request.includesPendingChanges {
            let pending = pendingChanges(in: entity, request, predicate: plan.predicate)
            if !pending.isEmpty {
                let matcher = memoryMatcher(for: plan)
                var unique = Set<ObjectIdentifier>()
                var saved: [ObjectID] = []
                for object in pending where unique.insert(ObjectIdentifier(object)).inserted {
                    if object.state != .deleted && !Self.rowIsGone(object) && matcher(object) { count += 1 }
                    let wasSaved = object.state == .deleted
                        ? object.headerPointer.pointee.stateBeforeDelete != .inserted : object.state != .inserted
                    if wasSaved { saved.append(object.objectID) }
                }
                count -= try savedMatches(of: saved, plan: plan)
            }
        }
        if request.fetchOffset > 0 { count = max(0, count - request.fetchOffset) }
        if request.fetchLimit > 0 { count = min(count, request.fetchLimit) }
        return count
    }

    /// How many of the saved rows with `ids` match `plan` in the store, counted in chunks.
    private func savedMatches(of ids: [ObjectID], plan: FetchPlan) throws -> Int {
        var matches = 0
        var restricted = plan
        restricted.output = .count
        let store = coordinator.store(for: plan.entity)
        for start in stride(from: 0, to: ids.count, by: 500) {
            let chunk = CheckedNode.identity(CheckedObjectReference(scope: 0, hops: []),
                                             Array(ids[start..<min(start + 500, ids.count)]), matchesNil: false)
            restricted.predicate = CheckedPredicate(
                entity: plan.entity, root: plan.predicate.map { .and([$0.root, chunk]) } ?? chunk,
                scopeCount: plan.predicate?.scopeCount ?? 1)
            matches += try store.count(restricted)
        }
        return matches
    }

    /// The IDs of the objects matching `request`; no objects are created unless unsaved
    /// changes have to be taken into account.
    func fetchObjectIDs(_ request: FetchRequest) throws -> [ObjectID] {
        switch try matchingKeys(request) {
        case .ids(let ids, _): ids
        case .objects(let objects, _): objects.map(\.objectID)
        }
    }

    /// What ``fetchObjectIDs(_:)`` and ``fetchLazily(_:)`` start from.
    enum MatchingKeys {
        /// The saved rows' IDs, from the store alone.
        case ids([ObjectID], entity: EntityDescription)
        /// Objects (faults, keys only): unsaved changes here or in the parents had to be
        /// matched in memory, which takes objects.
        case objects([ManagedObject], entity: EntityDescription)
    }

    /// The matching keys of `request`, read from the store in one statement unless unsaved
    /// changes must be taken into account.
    func matchingKeys(_ request: FetchRequest) throws -> MatchingKeys {
        let entity = try model.requireEntity(named: request.entityName)
        adoptPermanentIDsFromParents()
        let plan = try plan(request, entity: entity, output: .keys)
        if request.includesPendingChanges,
           !pendingChanges(in: entity, request, predicate: plan.predicate, sortTerms: plan.sortTerms).isEmpty
            || (parent != nil && (!parentChanges(for: entity, includesSubentities: request.includesSubentities).isEmpty
                                  || parentChangesReach(plan.predicate)
                                  || parentChangesReach(Self.relationshipPaths(of: plan.sortTerms)))) {
            var plain = request
            plain.relationshipKeyPathsForPrefetching = []
            plain.includesPropertyValues = false
            return .objects(try fetch(plain), entity: entity)
        }
        let ids = try coordinator.store(for: entity).fetchIDs(plan)
        adoptPermanentIDsFromParents()  // for a root that saved while the store was read
        return .ids(ids, entity: entity)
    }

    /// The matching objects as a collection that makes each when it is read.
    func fetchLazily(_ request: FetchRequest) throws -> FetchResultsCollection {
        let keys = try matchingKeys(request)
        let entity = switch keys { case .ids(_, let entity), .objects(_, let entity): entity }
        // An unknown key path fails here, not when the first batch loads.
        try prefetch(request.relationshipKeyPathsForPrefetching, from: [], entity: entity)
        return FetchResultsCollection(LazyResults(core: self, keys: keys, request: request))
    }

    /// Registers the objects of `ids`: faults for those not registered yet.
    func objects(for ids: ArraySlice<ObjectID>) -> [ManagedObject] { ids.map(object(for:)) }

    /// Loads the values of the faults among `batch` (one batch of a lazy fetch) that the
    /// row cache cannot fill, in one statement, and prefetches `keyPaths` for the batch.
    /// In a nested context the faults fire one by one, through the parents, as in a fetch.
    /// A failed statement leaves its objects faults; firing them records the error for the
    /// next save.
    func loadBatch(_ batch: [ManagedObject], prefetching keyPaths: [String], entity: EntityDescription) {
        guard parent == nil else { return }
        let store = coordinator.store(for: entity)
        _ = try? store.readingOneState {
            loadFaults(batch.map(\.objectID).filter(needsLoading))
            if !keyPaths.isEmpty { try prefetch(keyPaths, from: batch, entity: entity) }
        }
    }

    /// The chosen properties of the matching rows, as dictionaries; saved values only.
    func fetchDictionaries(_ request: FetchRequest) throws -> [[String: Any?]] {
        let entity = try model.requireEntity(named: request.entityName)
        let (plan, keys, types) = try dictionariesPlan(request, entity: entity)
        return try coordinator.store(for: entity).fetchValues(plan).map { row in
            var dictionary: [String: Any?] = [:]
            for (index, key) in keys.enumerated() { dictionary[key] = types[index].swiftValue(from: row[index]) }
            return dictionary
        }
    }

    /// The plan that ``fetchDictionaries(_:)`` runs, with the keys it reads and their types.
    func dictionariesPlan(
        _ request: FetchRequest, entity: EntityDescription
    ) throws -> (plan: FetchPlan, keys: [String], types: [AttributeType]) {
        let (keys, types, output) = try request.dictionaryColumns(of: entity)
        var plan = try plan(request, entity: entity, output: output)
        if case .groups = output { plan.sortTerms = [] }  // the grouping orders the groups
        return (plan, keys, types)
    }

    /// The statement, values and store's plan of what fetching `request` as `resultType`
    /// runs first (with batches, the statement that reads the keys): the very plan the
    /// fetch methods build.
    func explain(_ request: FetchRequest, resultType: FetchResultType) throws -> QueryExplanation {
        let entity = try model.requireEntity(named: request.entityName)
        let plan: FetchPlan
        switch resultType {
        case .objects: plan = try self.plan(request, entity: entity, output: Self.readsKeysOnly(request) ? .keys : .rows)
        case .objectIDs: plan = try self.plan(request, entity: entity, output: .keys)
        case .dictionaries: plan = try dictionariesPlan(request, entity: entity).plan
        case .count: plan = try self.plan(request, entity: entity, output: .count)
        }
        return try coordinator.store(for: entity).explain(plan)
    }

    /// Objects of `entity` (and, when asked, its sub-entities) that a fetch must match in
    /// memory: changed ones, and unchanged ones whose predicate, or one of `sortTerms`,
    /// reads a changed object through a relationship
    /// (``objectsAffectedByRelatedChanges(_:entity:includesSubentities:)``): a fetch sorted
    /// by `chef.name` sorts in memory after an unsaved rename of a chef.
    private func pendingChanges(
        in entity: EntityDescription, _ request: FetchRequest, predicate: CheckedPredicate?,
        sortTerms: [FetchPlan.SortTerm] = []
    ) -> [ManagedObject] {
        func relevant(_ object: ManagedObject) -> Bool {
            request.includesSubentities ? object.entity.isKind(of: entity) : object.entity === entity
        }
        var result: [ManagedObject] = []
        for object in inserted where object.state == .inserted && relevant(object) { result.append(object) }
        for object in updated where object.state == .updated && relevant(object) { result.append(object) }
        for object in deleted where object.state == .deleted && relevant(object) { result.append(object) }
        guard hasChanges else { return result }
        let paths = (predicate?.relationshipPaths ?? []) + Self.relationshipPaths(of: sortTerms)
        result += objectsAffectedByRelatedChanges(paths, entity: entity, includesSubentities: request.includesSubentities)
        return result
    }

    /// Merges unsaved changes into store results: drops deleted objects, re-checks changed
    /// (and affected) ones in memory, adds matching ones the store missed, then sorts and
    /// applies the window.
    private func merge(
        _ stored: [ManagedObject], pending: [ManagedObject], request: FetchRequest, plan: FetchPlan
    ) throws -> [ManagedObject] {
        let matcher = memoryMatcher(for: plan)
        var seen = Set(stored.map(ObjectIdentifier.init))
        let rechecked = Set(pending.map(ObjectIdentifier.init))
        var result = stored.filter { object in
            switch object.state {
            case .deleted: return false
            case .inserted: return true
            default: return rechecked.contains(ObjectIdentifier(object)) ? matcher(object) : true
            }
        }
        for object in pending where object.state != .deleted && !seen.contains(ObjectIdentifier(object)) {
            // The store did not return it: its row may be gone.
            if !Self.rowIsGone(object) && matcher(object) {
                result.append(object)
                seen.insert(ObjectIdentifier(object))
            }
        }
        // Faults the store returned unchanged keep its order: when they fire they show the
        // values it sorted by. Objects with values are sorted by those, which may be unsaved,
        // or older than the store's when another context's changes were not merged here.
        result = sortedAsStored(result, by: request.sortKeys) { object in
            !object.isFault || object.state == .inserted || rechecked.contains(ObjectIdentifier(object))
        }
        if request.fetchOffset > 0 { result = Array(result.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0 { result = Array(result.prefix(request.fetchLimit)) }
        return result
    }
}
