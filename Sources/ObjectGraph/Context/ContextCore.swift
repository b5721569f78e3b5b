import Synchronization

/// The confined engine behind ``MainContext`` and ``PrivateContext``: the object registry,
/// change tracking, fault fulfilment, fetching and saving.
///
/// Not Sendable: each context wraps one core and touches it only on its own isolation
/// domain. Objects point back to their core without retaining it; the core holds unchanged
/// objects weakly (they unregister in `deinit`) and changed objects strongly until they
/// are saved, rolled back or reset.
final class ContextCore {
    let coordinator: PersistentStoreCoordinator
    let model: ObjectModel
    /// The tag of this context's temporary IDs.
    let serial: UInt32

    /// Registered objects with permanent IDs, one table per inheritance tree (by root index).
    ///
    /// A buffer allocated once, its tables changed in place: an array of them checked its
    /// storage's uniqueness (a runtime call) at every lookup, once per fetched row. A
    /// pointer has no dynamic exclusivity checks either. What could re-enter a table during
    /// an access is an object's deinit, which removes its entry (`objectWillDeallocate`);
    /// no access releases an object: lookups and inserts take unretained references,
    /// `forEach` callers only collect, and `detachAll` holds every object while it empties
    /// the tables.
    let tables: UnsafeMutableBufferPointer<ObjectTable>
    /// The index in ``tables`` of each entity's table (its root's index), by entity index:
    /// looking it up through the entity would retain and release the entity and its root.
    let tableOfEntity: [Int]
    /// The model's entities by index, unretained: an object's header finds its entity here
    /// in two loads (``ObjectHeader/entity``), with no bounds check or retain. The model,
    /// which keeps the entities, outlives every context on it.
    let entityTable: UnsafeMutablePointer<Unmanaged<EntityDescription>>
    /// Registered objects with temporary IDs, by key (they are also held strongly in `inserted`).
    @exclusivity(unchecked) var temporaries = ObjectTable()
    /// Whether some of `temporaries` may have been saved into the parent and so take a
    /// permanent ID when the root saves: set by a save into the parent, cleared when
    /// ``adoptPermanentIDsFromParents()`` finds none left, so a context that only inserts
    /// (or is a root) never looks.
    var holdsSavedTemporaries = false
    /// Whether a child has read this context's changes, and so may hold its inserted objects
    /// by their temporary IDs: its saves then remember the permanent IDs they give them
    /// (``renamed``), for the child to follow.
    var lendsTemporaryIDs = false
    @exclusivity(unchecked) private var nextTemporaryKey: Int64 = 1

    /// Changed objects, held strongly until save, rollback or reset. May hold objects whose
    /// state has moved on (an inserted object later deleted); readers check `state`.
    @exclusivity(unchecked) var inserted: [ManagedObject] = []
    @exclusivity(unchecked) var updated: [ManagedObject] = []
    @exclusivity(unchecked) var deleted: [ManagedObject] = []
    /// Slot values of updated and deleted objects as last saved, for rollback and committed values.
    @exclusivity(unchecked) var snapshots: [ObjectIdentifier: (slots: [Slot], wasFault: Bool)] = [:]
    /// For objects a child context changed, what the child's changes were based on where it
    /// loaded older values than this context holds: the loaded values of those properties,
    /// and this context's own row version, which the object's version was lowered from. The
    /// root's save checks the row against the lowered version, and compares these values
    /// (not the snapshot's) with the store's (see ``inheritBase(_:of:before:)``). Emptied by
    /// every save, so without dynamic exclusivity checks, like the change lists: a context is
    /// confined to one queue, and no access to it calls out while it lasts.
    @exclusivity(unchecked) var inheritedBases: [ObjectIdentifier: (ownVersion: Int64, slots: [Int: Slot])] = [:]

    /// Groups of faults that load together (``FetchRequest/fetchBatchSize``), by number, with
    /// how many of their members still wait in them; and the group of each fault still
    /// waiting. A group goes when its first member fires or its last one is released, so a
    /// batched fetch whose objects are dropped unread (a results controller refetches after
    /// every save) leaves nothing behind.
    var batchGroups: [Int: (members: [ObjectID], waiting: Int)] = [:]
    var nextBatchGroup = 0
    @exclusivity(unchecked) var pendingBatch: [ObjectID: Int] = [:]

    /// The entity of the last fetched row (a cache for ``registerFetched(_:created:)``).
    /// Unretained: entities live as long as their model (see ``ObjectHeader``), and reading
    /// a strong reference here retained and released the entity once per fetched row.
    @exclusivity(unchecked) var lastFetchedEntity: (index: Int, entity: Unmanaged<EntityDescription>)?

    /// Counters for ``ContextStatistics`` (bumped per object, so without dynamic exclusivity
    /// checks, like the registry: no access to them can overlap another).
    @exclusivity(unchecked) var faultsFired = 0
    /// The latest change to rows through the coordinator that this context's prefilled
    /// faults were checked against (``checkPrefilledFaults()``).
    @exclusivity(unchecked) var checkedRowChange: UInt64
    /// Metadata changes (nil removes a key) that the next save writes in its transaction.
    /// Read and emptied by every save, so without dynamic exclusivity checks, as
    /// ``inheritedBases``.
    @exclusivity(unchecked) var pendingMetadata: [String: String?] = [:]
    /// How a save resolves rows changed underneath it.
    var mergePolicy = MergePolicy.error
    /// The undo and redo stacks (see UndoHistory.swift). Read on every change, so without
    /// dynamic exclusivity checks, like the registry: a context is confined to one queue.
    @exclusivity(unchecked) var undo = UndoHistory()
    /// Where this context's objects may be used (checked when ``ConfinementChecks`` is on).
    var confinement = Confinement.unchecked
    /// The context this one saves into, for a nested context; nil for one that saves to the store.
    let parent: ParentContext?
    /// Registered objects with temporary IDs a child context issued (unretained; they
    /// unregister in `deinit` like the others).
    @exclusivity(unchecked) var adopted: [ObjectID: Unmanaged<ManagedObject>] = [:]
    /// The permanent IDs that saving gave adopted objects, for children that still use
    /// the temporary ones. Counted by every save, so without dynamic exclusivity checks, as
    /// ``pendingMetadata``: no access to it overlaps another.
    @exclusivity(unchecked) var renamed: [ObjectID: ObjectID] = [:]
    /// The coordinator's ``PersistentStoreCoordinator/temporaryIDRenames`` when this context
    /// last asked its parents for permanent IDs (``adoptPermanentIDsFromParents(madeBy:)``).
    var seenTemporaryIDRenames: UInt64 = 0
    @exclusivity(unchecked) var objectsCreated = 0
    /// Objects whose values were loaded: faults fired, and objects a fetch populated.
    @exclusivity(unchecked) var objectsRealized = 0
    /// The first store error met while firing a fault since the last save; the next save throws it.
    var faultError: ObjectGraphError?
    @exclusivity(unchecked) var relationshipFaultsFired = 0
    /// Whether a save checks required relationships and counts (a migration sets them in a
    /// later stage than it saves the objects, and checks them itself).
    var validatesRelationships = true

    private static let serials = Atomic<UInt32>(0)

    init(coordinator: PersistentStoreCoordinator, parent: ParentContext? = nil) {
        ConfinementChecks.applyEnvironment()
        self.coordinator = coordinator
        self.parent = parent
        self.model = coordinator.model
        self.serial = Self.serials.add(1, ordering: .relaxed).newValue
        self.tables = .allocate(capacity: model.entities.count)
        _ = tables.initialize(from: model.entities.map { $0.parent == nil ? ObjectTable() : ObjectTable(capacity: 0) })
        self.tableOfEntity = model.entities.map(\.root.index)
        self.entityTable = .allocate(capacity: model.entities.count)
        entityTable.initialize(from: model.entities.map { .passUnretained($0) }, count: model.entities.count)
        self.checkedRowChange = coordinator.rowCache.latestChange
    }

    deinit {
        detachAll()  // detaching reads the objects' entities from the table
        entityTable.deallocate()
        tables.deinitialize()
        tables.deallocate()
    }

    // MARK: Registry

    /// The registered object for `id`, if any.
    func registeredObject(for id: ObjectID) -> ManagedObject? {
        if id.isTemporary {
            if id.temporaryTag == serial, let object = temporaries.object(forKey: id.key) { return object }
            if let object = adopted[id] { return object.takeUnretainedValue() }
            return renamed[id].flatMap { registeredObject(for: $0) }
        }
        return tables[tableOfEntity[Int(id.entityIndex)]].object(forKey: id.key)
    }

    /// The registered object for `id`, or a new fault registered for it.
    ///
    /// In a context without a parent, a temporary ID names an object only in the context
    /// that inserted it, and only while that object is registered; anything else is a
    /// programming error and stops with a message (Core Data raises), since a fault for it
    /// would load an unrelated row.
    ///
    /// In a nested context, an unregistered temporary ID becomes a fault that loads through
    /// the parents: an object a parent inserted, or one this context inserted and saved into
    /// them, and released since (saved objects are held weakly). Once the root has saved, the
    /// fault reaches the saved row by the permanent ID the root's save gave it. An ID no
    /// parent knows makes an inaccessible fault (``loadFault(_:)``).
    ///
    /// A permanent ID the root's save gave an object this context still holds by its
    /// temporary ID finds that object (``heldObject(renamedTo:)``), not a second one.
    func object(for id: ObjectID) -> ManagedObject {
        if let object = registeredObject(for: id) { return object }
        if !id.isTemporary, let object = heldObject(renamedTo: id) { return object }
        if id.isTemporary, let permanent = renamed[id] { return object(for: permanent) }
        if id.isTemporary, parent != nil {
            let object = ManagedObject.make(entity: model.entities[Int(id.entityIndex)], id: id, context: self, state: .fault)
            if id.temporaryTag == serial { register(object) } else { adopt(object) }
            return object
        }
        if id.isTemporary {
            preconditionFailure(id.temporaryTag == serial
                ? "\(model.describe(id)) is a temporary ID whose object is no longer in this context (rolled back or reset)"
                : "\(model.describe(id)) is a temporary ID of another context; save that context, or call obtainPermanentIDs(for:) there, before passing the ID on")
        }
        let entity = model.entities[Int(id.entityIndex)]
        let object = ManagedObject.make(entity: entity, id: id, context: self, state: .fault)
        register(object)
        return object
    }

    func register(_ object: ManagedObject) {
        let id = object.objectID
        if id.isTemporary {
            temporaries.insert(object, forKey: id.key)
        } else if let stale = tables[tableOfEntity[Int(id.entityIndex)]].insert(object, forKey: id.key)?.takeUnretainedValue(),
                  stale !== object {
            stale.headerPointer.pointee.detach()
        }
    }

    /// Called from an object's `deinit`: forget it.
    func objectWillDeallocate(_ id: ObjectID, _ object: ManagedObject) {
        if id.isTemporary {
            if id.temporaryTag == serial {
                temporaries.remove(id.key, ifObject: object)
            } else if adopted[id]?.takeUnretainedValue() === object {
                adopted[id] = nil
            }
        } else {
            tables[tableOfEntity[Int(id.entityIndex)]].remove(id.key, ifObject: object)
        }
        if !pendingBatch.isEmpty { leaveBatch(id) }
    }

    /// Detaches every registered object and empties the registry.
    ///
    /// Detached objects keep their attribute values but let go of the objects their
    /// relationships held, so realized relationships (which reference each other) do not
    /// keep a reset context's objects alive in cycles.
    ///
    /// Releasing a relationship can end another object's life, and an object that ends
    /// while still attached removes itself from the table. So nothing is released while a
    /// table is walked: every object is first held here and detached, the tables are
    /// emptied, and only then are relationships released.
    func detachAll() {
        var objects = registeredObjects
        objects += inserted
        objects += updated
        objects += deleted
        for object in objects {
            object.forgetPrefilledValues()  // a detached fault reads as empty, whatever it was fetched with
            object.headerPointer.pointee.detach()
        }
        for index in tables.indices { tables[index].removeAll() }
        temporaries.removeAll()
        holdsSavedTemporaries = false
        adopted.removeAll()
        batchGroups.removeAll()
        pendingBatch.removeAll()
        for object in objects { object.releaseRelationships() }
    }

    /// Every registered object, changed or not.
    var registeredObjects: [ManagedObject] {
        var result: [ManagedObject] = []
        for table in tables { table.forEach { result.append($0) } }
        temporaries.forEach { result.append($0) }
        for object in adopted.values { result.append(object.takeUnretainedValue()) }
        return result
    }

    var registeredObjectCount: Int { tables.reduce(temporaries.count + adopted.count) { $0 + $1.count } }

    // MARK: Inserting and deleting

    /// Inserts a new object of `entity`, with its attributes' default values.
    func insert(_ entity: EntityDescription) -> ManagedObject {
        precondition(!entity.isAbstract, "entity '\(entity.name)' is abstract: insert one of its sub-entities")
        let id = ObjectID(entityIndex: entity.index, key: nextTemporaryKey, temporaryTag: serial)
        nextTemporaryKey += 1
        let object = ManagedObject.make(entity: entity, id: id, context: self, state: .inserted)
        for attribute in entity.attributesWithDefaults {
            object.slots[attribute.slot].value = Slot(attribute.defaultValue)
            for target in attribute.derivedTargets {
                object.slots[target.slot].value = Slot(Derivations.derive(attribute.defaultValue, target.derivation!))
            }
        }
        register(object)
        inserted.append(object)
        if undo.isRecording { recordInsertionForUndo(object) }
        return object
    }

    // MARK: Change tracking

    /// Records an object's saved values before its first change since the last save.
    func objectWillBecomeUpdated(_ object: ManagedObject, listed: Bool = true) {
        let key = ObjectIdentifier(object)
        if snapshots[key] == nil {
            object.loadShadows()
            let count = object.entity.slotCount
            var slots: [Slot] = []
            slots.reserveCapacity(count)
            for index in 0..<count {
                let slot = object.slots[index].value
                if case .toMany(let storage) = slot { slots.append(.toMany(storage.copy())) } else { slots.append(slot) }
            }
            snapshots[key] = (slots, object.headerPointer.pointee.needsValues)
        }
        if listed { updated.append(object) }
    }

    /// The saved slot values of a changed object, or nil when it has no snapshot.
    func snapshot(of object: ManagedObject) -> [Slot]? { snapshots[ObjectIdentifier(object)]?.slots }

    var hasChanges: Bool {
        inserted.contains { $0.state == .inserted } || updated.contains { $0.state == .updated }
            || deleted.contains(where: Self.isDeletedSavedObject)
    }

    /// Whether `object` is deleted and was saved before: an object inserted and deleted
    /// before any save is simply discarded (Core Data lists it as neither).
    static func isDeletedSavedObject(_ object: ManagedObject) -> Bool {
        object.state == .deleted && object.headerPointer.pointee.stateBeforeDelete != .inserted
    }

    /// Puts an object back to its snapshot (or into a fault when it had none).
    func restore(_ object: ManagedObject) {
        if let inherited = inheritedBases.removeValue(forKey: ObjectIdentifier(object)) {
            object.headerPointer.pointee.rowVersion = inherited.ownVersion
        }
        if let (slots, wasFault) = snapshots.removeValue(forKey: ObjectIdentifier(object)) {
            for (index, slot) in slots.enumerated() { object.slots[index].value = slot }
            object.state = wasFault ? .fault : .clean
            object.headerPointer.pointee.needsValues = wasFault
        } else {
            object.state = .clean
        }
        object.clearChangedSlots()
    }

    // MARK: Faults

    /// Loads a fault's values from its own slots (prefilled by a fetch), the row cache or
    /// the store.
    ///
    /// Property reads cannot throw, so a failure is kept, never swallowed: a row that is gone
    /// makes the object inaccessible (its properties read as nil and ``ManagedObject/fulfill()``
    /// throws, Core Data's inaccessible fault); a store error leaves the object a fault and is
    /// reported by the next ``save()``.
    func fulfillFault(_ object: ManagedObject) {
        if firePrefilled(object) || fulfillBatch(of: object) { return }
        do {
            try loadFault(object)
        } catch let error as ObjectGraphError where error.code == .objectNotFound {
            // Recorded on the object by loadFault.
        } catch {
            keepFaultError(ObjectGraphError(.storeFailure,
                "could not load \(model.describe(object.objectID)) while reading it: \(Self.reason(error)); nothing was saved",
                underlying: error))
        }
    }

    /// Keeps `error`, met while a property read fired a fault or a refresh read a row, for
    /// the next save to throw, unless an earlier one is kept. Met inside an undo group that
    /// records, it goes when the group is discarded (``discardUndoGroup()``): every change made
    /// after the failed read is then put back, so none can rest on what it could not read.
    func keepFaultError(_ error: @autoclosure () -> ObjectGraphError) {
        guard faultError == nil else { return }
        faultError = error()
        if undo.isEnabled { undo.discardable?.metFaultError = true }
    }

    /// How a failed read is described: a cancelled one (Ctrl-C in the shell, a cancelled
    /// task) says so rather than printing `CancellationError()`.
    static func reason(_ error: any Error) -> String {
        error is CancellationError ? "the read was cancelled" : "\(error)"
    }

    /// Loads a fault's values now.
    /// - Throws: ``ObjectGraphError`` `objectNotFound` when the store has no row for it (the
    ///   object becomes inaccessible), or the store's error (the object stays a fault).
    func loadFault(_ object: ManagedObject) throws {
        if firePrefilled(object) { return }
        defer { if !object.isFault && !object.isInaccessible { objectsRealized += 1 } }
        faultsFired += 1
        var id = object.objectID
        let loadedID = id
        let parentState = withParent { $0.pendingNestedState(of: loadedID) }
        if let parentState {
            if parentState.deleted.contains(id) || parentState.objects[id]?.isInserted == true {
                // A parent made it, or deleted it: the store has nothing to add.
                if object.state == .fault { object.state = .clean }
                object.headerPointer.pointee.needsValues = false
                _ = applyParentState(to: object, parentState)
                if object.headerPointer.pointee.isInaccessible { throw Self.inaccessible(id, model: model) }
                linkToOnes(object)
                return
            }
            if let permanent = parentState.renamed[id] { id = permanent }
        }
        if id.isTemporary {
            // No parent holds it and no save made it permanent: the store's row with the
            // same key is another object.
            markInaccessible(object)
            throw ObjectGraphError(.objectNotFound,
                "no object \(model.describe(id)) in this context or its parents; it was rolled back or reset before it was saved, or belongs to an unrelated context")
        }
        let (store, layout) = coordinator.storeAndLayout(ofEntityAt: Int(id.entityIndex))
        // A row a fetch cached is read in place, under the cache's lock, without a copy.
        // The cache is reached unretained (the coordinator keeps it): a retain and release
        // less on every fault.
        let isCached = Unmanaged.passUnretained(coordinator.rowCache)._withUnsafeGuaranteedRef { cache in
            cache.withRow(for: id) { _, value in fillValues(object, layout: layout, reading: value) } != nil
        }
        if !isCached {
            guard try store.readRow(id, { row in fillValues(object, layout: layout, from: row) }) else {
                markInaccessible(object)
                throw Self.inaccessible(id, model: model)
            }
        }
        linkToOnes(object)
        if let parentState, applyParentState(to: object, parentState) || !parentState.isEmpty { linkToOnes(object) }
    }

    /// Fires a fault whose slots hold what a default fetch read, when no save through the
    /// coordinator has changed its row since; false for any other object, which then loads
    /// from the row cache or the store.
    @inline(__always)
    func firePrefilled(_ object: ManagedObject) -> Bool {
        guard object.headerPointer.pointee.values == .prefilled else { return false }
        checkPrefilledFaultsIfStale()
        guard object.headerPointer.pointee.values == .prefilled else { return false }
        faultsFired += 1
        objectsRealized += 1
        object.headerPointer.pointee.values = .loaded
        if object.state == .fault { object.state = .clean }
        linkToOnes(object)
        return true
    }

    /// ``checkPrefilledFaults()`` when a change was logged since the last check: one
    /// atomic load otherwise.
    @inline(__always)
    func checkPrefilledFaultsIfStale() {
        if coordinator.rowCache.latestChange != checkedRowChange { checkPrefilledFaults() }
    }

    /// Turns the prefilled faults whose rows a save through the coordinator changed since
    /// the last check back into faults that load their row (all of them, when the row
    /// cache's log no longer lists the changes).
    func checkPrefilledFaults() {
        let (latest, ids) = coordinator.rowCache.changes(since: checkedRowChange)
        checkedRowChange = latest
        if let ids {
            for id in ids { registeredObject(for: id)?.forgetPrefilledValues() }
        } else {
            for table in tables { table.forEach { $0.forgetPrefilledValues() } }
        }
    }

    /// Marks a fault whose row is gone: no values to load, properties read as nil (Core
    /// Data's inaccessible fault).
    func markInaccessible(_ object: ManagedObject) {
        object.headerPointer.pointee.needsValues = false
        object.headerPointer.pointee.isInaccessible = true
        if object.state == .fault { object.state = .clean }
    }

    /// The error for an object whose row is no longer in the store.
    static func inaccessible(_ id: ObjectID, model: ObjectModel) -> ObjectGraphError {
        ObjectGraphError(.objectNotFound,
            "could not fulfill a fault for \(model.describe(id)): its row is no longer in the store (deleted by another context or process)")
    }

    /// Loads a fault's values from a row, keeping any slot changed before it loaded.
    func fill(_ object: ManagedObject, from row: RowCache.Row, layout: TableLayout) {
        fillValues(object, layout: layout) { row[$0] }
        linkToOnes(object)
    }

    /// Loads a fault's values from a store's row, read in place.
    private func fillValues(_ object: ManagedObject, layout: TableLayout, from row: any StoreRow) {
        fillValues(object, layout: layout, version: row.version(at: layout.versionColumn) ?? -1) { row.slot(at: $0) }
    }

    /// Loads a fault's values from a full row read column by column.
    private func fillValues(_ object: ManagedObject, layout: TableLayout, reading value: (Int) -> StoredValue) {
        fillValues(object, layout: layout, version: layout.version(reading: value)) { Slot(value($0)) }
    }

    /// Loads a fault's values and its row's `version`, keeping any slot changed before it
    /// loaded; the to-ones are left to the caller (``linkToOnes(_:)``). Inlined into each
    /// caller, so that the column reader specializes as it did when each had its own copy.
    @inline(__always)
    private func fillValues(_ object: ManagedObject, layout: TableLayout, version: Int64, column: (Int) -> Slot) {
        if object.state == .fault {
            layout.fill(object, column: column)
            object.state = .clean
        } else {
            object.fillPreservingChanges(layout, column: column)
        }
        object.headerPointer.pointee.rowVersion = version
        object.headerPointer.pointee.needsValues = false
    }

    /// Points loaded to-one relationships at their destinations when those are registered,
    /// as Core Data does: realized objects then reference each other (and form the cycles
    /// that ``refresh(_:mergeChanges:)`` breaks).
    @inline(__always)
    func linkToOnes(_ object: ManagedObject) {
        // Checked first: the loop below holds (retains) the array, a retain and release on
        // every fault fired even for an entity without to-ones.
        if object.entity.toOneRelationships.isEmpty { return }
        for relationship in object.entity.toOneRelationships {
            if case .objectID(let id) = object.slots[relationship.slot].value, let target = registeredObject(for: id) {
                object.slots[relationship.slot].value = .object(target)
            }
        }
    }

    /// Loads a to-many relationship's destinations from the store.
    func fulfillToManyFault(_ storage: ToManyStorage, of object: ManagedObject, relationship: RelationshipDescription) {
        relationshipFaultsFired += 1
        guard !object.objectID.isTemporary || parent != nil else {
            storage.realize(stored: [])
            return
        }
        // The store names the destinations by permanent IDs: find those held by temporary ones.
        adoptPermanentIDsFromParents()
        var ids: [ObjectID] = []
        let savedID = permanentID(of: object.objectID)
        if let savedID {
            do {
                ids = try coordinator.store(for: relationship.destination).fetchDestinations(of: relationship, key: savedID.key)
            } catch {
                keepFaultError(ObjectGraphError(.storeFailure,
                    "could not load \(relationship.name) of \(model.describe(object.objectID)): \(Self.reason(error)); nothing was saved",
                    underlying: error))
            }
        }
        if let state = withParent({ $0.pendingNestedChanges() }) { adjust(&ids, of: object, relationship: relationship, by: state) }
        var stored = ids.map { self.object(for: $0) }
        // Destinations whose inverse now points elsewhere (unsaved changes) are not members.
        if !relationship.isManyToMany {
            stored.removeAll { destination in
                !destination.isFault && destination.slots[relationship.inverse.slot].value.destinationID != object.objectID
            }
        }
        storage.realize(stored: stored)
    }
}

extension ContextCore {
    /// The registered object for `id`, with its values loaded, or an error when the store has none.
    func existingObject(with id: ObjectID) throws -> ManagedObject {
        if let object = registeredObject(for: id), !object.isFault {
            // A fault that found its row gone is no object of the store's any more.
            if object.isInaccessible {
                throw ObjectGraphError(.objectNotFound,
                    "the store has no object \(model.describe(id)); another context or process deleted it")
            }
            return object
        }
        guard model.entities.indices.contains(Int(id.entityIndex)) && (!id.isTemporary || parent != nil) else {
            throw ObjectGraphError(.objectNotFound, "no object \(model.describe(id)) in this context")
        }
        if id.isTemporary {
            // A nested context's: the parents hold it, or the root's save made it permanent.
            let object = self.object(for: id)
            if object.isFault { try loadFault(object) }
            if object.isInaccessible { throw Self.inaccessible(object.objectID, model: model) }
            return object
        }
        let entity = model.entities[Int(id.entityIndex)]
        try coordinator.requireStores()
        let store = coordinator.store(for: entity)
        guard let row = try store.fetchLatestRow(id),
              case .integer(let index) = row[1], index == Int64(id.entityIndex) else {
            throw ObjectGraphError(.objectNotFound, "the store has no object \(model.describe(id)); it may have been deleted")
        }
        let object = self.object(for: id)
        if object.isFault {
            fill(object, from: row, layout: store.layout(for: entity))
            objectsRealized += 1
        }
        return object
    }

    /// The ID `id` has in the store: itself when permanent; for a temporary ID, the
    /// permanent one that saving gave it here or in a parent, or nil while it is unsaved.
    func permanentID(of id: ObjectID) -> ObjectID? {
        guard id.isTemporary else { return id }
        if let permanent = renamed[id] { return permanent }
        return withParent { $0.permanentID(of: id) } ?? nil
    }

    /// The permanent IDs that saving gave some of the temporary `ids`, here or in a parent:
    /// one hop to each parent for all of them.
    func permanentIDs(of ids: [ObjectID]) -> [ObjectID: ObjectID] {
        var found: [ObjectID: ObjectID] = [:]
        for id in ids { if let permanent = renamed[id] { found[id] = permanent } }
        let rest = ids.filter { found[$0] == nil }
        guard !rest.isEmpty, let fromParents = withParent({ $0.permanentIDs(of: rest) }) else { return found }
        return found.merging(fromParents) { own, _ in own }
    }

    /// In a nested context, gives the objects it holds by temporary IDs the permanent IDs
    /// that the root's save gave them since, as the root's own save does, and registers them
    /// under those: a fetch then finds the held object for the saved row instead of making a
    /// second one, and a count does not count it twice. The temporary IDs keep naming the
    /// objects (``registeredObject(for:)`` follows ``renamed``). Called before each fetch,
    /// count, merge, to-many fault and child's save into this context, and again after each
    /// store read of a fetch or count, for a root that saved while the store was read.
    ///
    /// An object whose permanent ID already names another registered object keeps its
    /// temporary ID, unless that other one is among `read` (the objects a read just made)
    /// without changes: then the read raced the root's save, and the held object takes its
    /// place in the context.
    ///
    /// - Returns: for each object of `read` replaced so, the held object that replaced it.
    /// - Complexity: one hop to each parent when the context holds objects it saved into
    ///   them (or that they inserted), none otherwise.
    @discardableResult
    func adoptPermanentIDsFromParents(madeBy read: [ManagedObject] = []) -> [ObjectIdentifier: ManagedObject] {
        guard parent != nil, holdsSavedTemporaries || !adopted.isEmpty else { return [:] }
        // Read before asking: a rename that lands while the parents answer is asked for again.
        seenTemporaryIDRenames = coordinator.temporaryIDRenames.load(ordering: .acquiring)
        var held: [ManagedObject] = []
        // An object inserted here and not saved into the parent has no permanent ID anywhere.
        if holdsSavedTemporaries { temporaries.forEach { if $0.state != .inserted { held.append($0) } } }
        holdsSavedTemporaries = !held.isEmpty
        for object in adopted.values { held.append(object.takeUnretainedValue()) }
        held.removeAll { $0.state == .deleted && $0.headerPointer.pointee.stateBeforeDelete == .inserted }
        guard !held.isEmpty else { return [:] }
        let saved = permanentIDs(of: held.map(\.objectID))
        guard !saved.isEmpty else { return [:] }
        var madeByRead: Set<ObjectIdentifier>?
        var replaced: [ObjectIdentifier: ManagedObject] = [:]
        for object in held {
            let old = object.objectID
            guard let id = saved[old] else { continue }
            if let other = registeredObject(for: id) {
                if madeByRead == nil { madeByRead = Set(read.map(ObjectIdentifier.init)) }
                guard other !== object, other.state == .clean, madeByRead!.contains(ObjectIdentifier(other)) else { continue }
                replaced[ObjectIdentifier(other)] = object
            }
            if old.temporaryTag == serial { temporaries.remove(old.key, ifObject: object) } else { adopted[old] = nil }
            renamed[old] = id
            object.headerPointer.pointee.objectID = id
            register(object)  // detaches the object the read made, if any
        }
        return replaced
    }

    /// In a nested context, the object it holds by a temporary ID that a save in a parent
    /// has since made `id`, now registered under `id`; nil when there is none. Asks the
    /// parents (``adoptPermanentIDsFromParents(madeBy:)``) only when a save renamed such
    /// IDs since this context last asked: a miss costs an atomic load otherwise.
    func heldObject(renamedTo id: ObjectID) -> ManagedObject? {
        guard parent != nil, holdsSavedTemporaries || !adopted.isEmpty,
              coordinator.temporaryIDRenames.load(ordering: .acquiring) != seenTemporaryIDRenames else { return nil }
        adoptPermanentIDsFromParents()
        return registeredObject(for: id)
    }

    /// Tells the nested contexts on this coordinator that permanent IDs replaced temporary
    /// IDs they may hold (``heldObject(renamedTo:)``).
    func announceTemporaryIDRenames() {
        coordinator.temporaryIDRenames.add(1, ordering: .releasing)
    }

    /// The objects in one state of change.
    func changedObjects(_ state: ObjectState) -> Set<ManagedObject> {
        if state == .deleted { return Set(deleted.filter(Self.isDeletedSavedObject)) }
        return Set((state == .inserted ? inserted : updated).filter { $0.state == state })
    }
}
