/// A context with its own isolation, for imports and batch edits off the main actor.
///
/// Work runs on the context through ``perform(_:)``, so many steps share one hop:
/// ```swift
/// let importer = PrivateContext(coordinator: coordinator)
/// let ids = try await importer.perform { context in
///     let chef = try context.insert("Chef")
///     chef["name"] = "Ana"
///     try context.save()
///     return [chef.objectID]
/// }
/// ```
/// Only Sendable values (IDs, counts) leave a `perform`; objects stay inside.
///
/// Each context is numbered in the order contexts are made, and may be given a ``name``
/// (Core Data's `name`): its ``description``, its queue's label and the messages of
/// ``ConfinementChecks`` show both, as in `PrivateContext #4 "importer"`.
///
/// The context's work runs on a serial queue of its own, not on Swift's cooperative
/// thread pool, so a long import cannot starve other tasks. Cancelling the task that
/// awaits a fetch or count stops the statement and throws `CancellationError`; a save
/// always runs to its end.
public actor PrivateContext {
    let core: ContextCore
    /// The coordinator whose stores this context reads and writes.
    public nonisolated let coordinator: PersistentStoreCoordinator
    nonisolated let executor: ContextExecutor
    /// The name given when the context was made, if any: a debugging aid, shown in the
    /// context's ``description``, its queue's label and confinement messages.
    public nonisolated let name: String?
    /// The context's number and ``name``, as in `PrivateContext #4 "importer"`: contexts are
    /// numbered in the order they are made, main contexts included.
    public nonisolated let description: String
    /// Whether a main context is among this context's parents (its reads and saves then
    /// wait for the main actor).
    nonisolated let readsThroughMainActor: Bool

    /// Creates a context on `coordinator`'s stores, called `name` in messages (see ``name``).
    public init(coordinator: PersistentStoreCoordinator, name: String? = nil) {
        self.coordinator = coordinator
        readsThroughMainActor = false
        core = ContextCore(coordinator: coordinator)
        self.name = name
        (description, executor) = Self.confine(core, name: name)
        // With undo switched on, a change made with no group open starts one that ends
        // after the current job of this context's queue.
        core.undo.scheduleImplicitEnd = { [weak self] in Task { await self?.endImplicitUndoGroup() } }
    }

    /// Creates a nested context whose saves go into `parent`, in memory: only the root of
    /// a stack of contexts writes to the store. Fetches and faults here see the parents'
    /// unsaved changes; objects inserted here keep their temporary IDs until the root saves.
    /// Reading through a main-context parent waits on the main queue: do not let the main
    /// actor wait for this context at the same time (see <doc:Concurrency>). `name` is
    /// shown in messages (see ``name``).
    public init(parent: MainContext, name: String? = nil) {
        coordinator = parent.coordinator
        readsThroughMainActor = true
        core = ContextCore(coordinator: parent.coordinator, parent: .main(parent))
        self.name = name
        (description, executor) = Self.confine(core, name: name)
        // With undo switched on, a change made with no group open starts one that ends
        // after the current job of this context's queue.
        core.undo.scheduleImplicitEnd = { [weak self] in Task { await self?.endImplicitUndoGroup() } }
    }

    /// Creates a nested context whose saves go into another private context, in memory.
    /// `name` is shown in messages (see ``name``).
    public init(parent: PrivateContext, name: String? = nil) {
        coordinator = parent.coordinator
        readsThroughMainActor = parent.readsThroughMainActor
        core = ContextCore(coordinator: parent.coordinator, parent: .private(parent))
        self.name = name
        (description, executor) = Self.confine(core, name: name)
        // With undo switched on, a change made with no group open starts one that ends
        // after the current job of this context's queue.
        core.undo.scheduleImplicitEnd = { [weak self] in Task { await self?.endImplicitUndoGroup() } }
    }

    /// The description of `core`'s context and its serial executor, whose queue is labelled
    /// after it; sets the confinement that checks objects are used on that queue.
    private static func confine(_ core: ContextCore, name: String?) -> (String, ContextExecutor) {
        let description = "PrivateContext #\(core.serial)" + (name.map { " \"\($0)\"" } ?? "")
        let executor = ContextExecutor(label: "ObjectGraph." + description)
        core.confinement = .executor(executor, context: description)
        return (description, executor)
    }

    /// The context's own serial queue (a serial executor of its own).
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Runs `body` on this context.
    public func perform<T: Sendable>(_ body: @Sendable (isolated PrivateContext) throws -> T) rethrows -> T {
        try body(self)
    }

    /// Runs `body` on this context and waits for it, from code that cannot `await`
    /// (Core Data's `performAndWait`).
    ///
    /// The calling thread blocks until the context's queue has run `body`; called from
    /// the context's own queue (inside `perform` or another `performAndWait`) it runs at
    /// once; a nested context's reads through this one, from inside this one's `performAndWait`,
    /// run at once too. Call it from threads you own (the main thread, a dispatch queue, a `Thread`),
    /// not from an async task: a blocked task holds one of the few cooperative threads.
    /// Two contexts that wait on each other this way deadlock, as two queues calling
    /// `sync` on each other do. Calling it from the main actor on a context nested under a
    /// main context would be such a deadlock (the context reads and saves through the main
    /// actor, which waits): that stops the program with a message.
    public nonisolated func performAndWait<T: Sendable>(_ body: @Sendable (isolated PrivateContext) throws -> T) rethrows -> T {
        precondition(!(readsThroughMainActor && MainQueue.isCurrent && !executor.isCurrent), """
            performAndWait from the main actor on a private context nested under the main context would deadlock: \
            the context reads and saves through the main actor, which would be waiting for it. Use perform (await) instead.
            """)
        return try executor.sync { try assumeIsolated { try body($0) } }
    }

    /// Whether changes other contexts of the coordinator save (and batch requests) are
    /// merged into this context as they happen, on its own queue, after the work already
    /// waiting there (see ``mergeChanges(fromContextDidSave:)``).
    public var automaticallyMergesChanges: Bool {
        get { automaticMerge != nil }
        set {
            guard newValue != automaticallyMergesChanges else { return }
            guard newValue else { automaticMerge = nil; return }
            let executor = self.executor
            automaticMerge = coordinator.addDidSaveObserver { [weak self] note in
                guard let context = self else { return }
                executor.async { context.assumeIsolated { $0.core.mergeChanges(fromContextDidSave: note) } }
            }
        }
    }
    private var automaticMerge: DidSaveObservation?

    /// Brings this context up to date with what another context saved: updated objects
    /// reload their saved values when next read (keeping this context's unsaved changes),
    /// deleted ones leave the context; inserted and newly matching objects appear in the
    /// next fetch. Its own saves are ignored.
    public func mergeChanges(fromContextDidSave note: DidSave) { core.mergeChanges(fromContextDidSave: note) }

    /// This context's identity, as ``DidSave/origin`` names it.
    public var identifier: ContextIdentifier { core.identifier }

    /// The model of the context's coordinator.
    public nonisolated var model: ObjectModel { coordinator.model }

    /// Inserts a new object of the entity called `entityName`, with default values.
    /// - Throws: ``ObjectGraphError`` `unknownEntity`, or `invalidValue` for an abstract entity.
    public func insert(_ entityName: String) throws -> ManagedObject {
        core.insert(try model.requireInsertableEntity(named: entityName))
    }
    /// Inserts a new object of `entity`.
    public func insert(_ entity: EntityDescription) -> ManagedObject { core.insert(entity) }
    /// Deletes an object; delete rules apply now, the row goes at the next save.
    public func delete(_ object: ManagedObject) { core.delete(object) }
    /// Deletes every object of `objects`, as deleting each would, but loads what their delete
    /// rules visit together: a few statements for the whole sequence, not a few per object.
    public func delete<Objects: Sequence>(_ objects: Objects) where Objects.Element: ManagedObject {
        core.delete(objects)
    }
    /// Fetches the objects matching `request`, including unsaved changes.
    public func fetch(_ request: FetchRequest) throws -> [ManagedObject] { try core.fetch(request) }
    /// The IDs of the objects matching `request`, without creating objects.
    public func fetchObjectIDs(_ request: FetchRequest) throws -> [ObjectID] { try core.fetchObjectIDs(request) }
    /// The objects matching `request`, as a collection that makes each object when it is
    /// read (and, with a ``FetchRequest/fetchBatchSize``, loads a batch at a time): one
    /// statement for the IDs up front, no object made for what is never read.
    public func fetchLazily(_ request: FetchRequest) throws -> FetchResultsCollection { try core.fetchLazily(request) }
    /// The chosen properties (``FetchRequest/propertiesToFetch``) of the matching rows as
    /// dictionaries, optionally distinct; saved values only, no objects created.
    public func fetchDictionaries(_ request: FetchRequest) throws -> [[String: Any?]] {
        try core.fetchDictionaries(request)
    }
    /// Counts the objects matching `request` without creating them.
    public func count(for request: FetchRequest) throws -> Int { try core.count(for: request) }
    /// Writes every change in one transaction (one per store, none committed before every store
    /// has written); on failure every store and the context are unchanged.
    @discardableResult public func save() throws -> SaveResult { try core.save() }
    /// Discards every unsaved change.
    public func rollback() { core.rollback() }
    /// How a save resolves rows another context or process changed since this context
    /// loaded them; ``MergePolicy/error`` (the default) fails the save and names them.
    public var mergePolicy: MergePolicy {
        get { core.mergePolicy }
        set { core.mergePolicy = newValue }
    }
    /// Sets (or, with nil, removes) a value in the store's metadata at the next save, in the
    /// same transaction as the objects: a marker saved with the data it describes, such as
    /// how far an import got. Rollback and reset drop it; the first store receives it.
    public func setMetadata(_ value: String?, forKey key: String) { core.pendingMetadata[key] = .some(value) }
    /// Forgets every object; registered objects are detached and keep their values.
    public func reset() { core.reset() }
    /// Turns an object back into a fault (keeping unsaved changes with `mergeChanges`). When an
    /// undo group recorded the object, the undo history is cleared: undo would put back
    /// values read before the refresh, or changes it discarded.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) { core.refreshRecorded(object, mergeChanges: mergeChanges) }
    /// Turns every registered object back into a fault (keeping unsaved changes), releasing
    /// the objects their relationships held: the way to break relationship cycles. Clears the
    /// undo history when a group recorded one of them, as ``refresh(_:mergeChanges:)`` does.
    public func refreshAllObjects() { core.refreshAllObjects() }
    /// Inserts rows straight into the store; no objects are created.
    @discardableResult public func execute(_ request: BatchInsertRequest) throws -> BatchResult { try core.execute(request) }
    /// Updates rows straight in the store; this context's objects are refreshed.
    @discardableResult public func execute(_ request: BatchUpdateRequest) throws -> BatchResult { try core.execute(request) }
    /// Deletes rows straight in the store, applying delete rules in SQL; this context's objects are updated.
    @discardableResult public func execute(_ request: BatchDeleteRequest) throws -> BatchResult { try core.execute(request) }
    /// Brings this context's objects up to date with a batch request run elsewhere.
    public func mergeChanges(from result: BatchResult) { core.mergeChanges(from: result) }
    /// The object for an ID: the registered one, or a fault that loads when touched.
    public func object(with id: ObjectID) -> ManagedObject { core.object(for: id) }
    /// The object for an ID, loaded now.
    public func existingObject(with id: ObjectID) throws -> ManagedObject { try core.existingObject(with: id) }
    /// Gives inserted objects permanent IDs before they are saved.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws { try core.obtainPermanentIDs(for: objects) }
    /// Whether anything was inserted, updated or deleted since the last save.
    public var hasChanges: Bool { core.hasChanges }
    /// Objects inserted and not yet saved.
    public var insertedObjects: Set<ManagedObject> { core.changedObjects(.inserted) }
    /// Objects changed and not yet saved.
    public var updatedObjects: Set<ManagedObject> { core.changedObjects(.updated) }
    /// Objects deleted and not yet saved.
    public var deletedObjects: Set<ManagedObject> { core.changedObjects(.deleted) }
    /// Every object registered in the context.
    public var registeredObjects: [ManagedObject] { core.registeredObjects }
    /// The SQL, values and query plan that fetching (or, with `counting`, counting) `request` runs.
    public func explain(_ request: FetchRequest, counting: Bool = false) throws -> QueryExplanation {
        try core.explain(request, resultType: counting ? .count : .objects)
    }
    /// The SQL, values and query plan of the statement that fetching `request` as
    /// `resultType` runs: objects, IDs, dictionaries or a count.
    public func explain(_ request: FetchRequest, resultType: FetchResultType) throws -> QueryExplanation {
        try core.explain(request, resultType: resultType)
    }
    /// Counters of the work done so far.
    public var statistics: ContextStatistics { core.statistics }
}

extension PrivateContext: CustomStringConvertible {}
