import Foundation

/// A context for the main actor: the one user-facing code reads and edits objects in.
///
/// ```swift
/// let context = MainContext(coordinator: coordinator)
/// let chef = try context.insert("Chef")
/// chef["name"] = "Zoë Ångström"
/// try context.save()
/// ```
/// Objects fetched here stay on the main actor; hand their ``ObjectID``s to a
/// ``PrivateContext`` for background work, and back.
///
/// Like a private context, each main context is numbered in the order contexts are made
/// and may be given a ``name``: its ``description`` and the messages of
/// ``ConfinementChecks`` show both, as in `MainContext #2 "editor"`.
@MainActor
public final class MainContext {
    let core: ContextCore
    /// The name given when the context was made, if any: a debugging aid, shown in the
    /// context's ``description`` and confinement messages.
    public nonisolated let name: String?
    /// The context's number and ``name``, as in `MainContext #2 "editor"`: contexts are
    /// numbered in the order they are made, private contexts included.
    public nonisolated let description: String

    /// Creates a context on `coordinator`'s stores, called `name` in messages (see ``name``).
    public init(coordinator: PersistentStoreCoordinator, name: String? = nil) {
        self.coordinator = coordinator
        core = ContextCore(coordinator: coordinator)
        self.name = name
        description = Self.confine(core, name: name)
        prepareUndo()
    }

    /// Creates a nested context whose saves go into `parent`, in memory: only the root of
    /// a stack of contexts writes to the store. Fetches and faults here see the parents'
    /// unsaved changes; objects inserted here keep their temporary IDs until the root saves.
    /// Reading through the parent waits on its queue (see <doc:Concurrency>). `name` is
    /// shown in messages (see ``name``).
    public init(parent: PrivateContext, name: String? = nil) {
        coordinator = parent.coordinator
        core = ContextCore(coordinator: parent.coordinator, parent: .private(parent))
        self.name = name
        description = Self.confine(core, name: name)
        prepareUndo()
    }

    /// Creates a nested context whose saves go into another main context, in memory.
    /// `name` is shown in messages (see ``name``).
    public init(parent: MainContext, name: String? = nil) {
        coordinator = parent.coordinator
        core = ContextCore(coordinator: parent.coordinator, parent: .main(parent))
        self.name = name
        description = Self.confine(core, name: name)
        prepareUndo()
    }

    /// Confines `core` to the main actor; returns the context's description.
    private static func confine(_ core: ContextCore, name: String?) -> String {
        let description = "MainContext #\(core.serial)" + (name.map { " \"\($0)\"" } ?? "")
        core.confinement = .mainThread(context: description)
        return description
    }

    /// Undo starts off, as a Core Data or SwiftData context has no undo manager until it is
    /// given one: recording every change costs each edit, delete and save (a save of 5,000
    /// inserts about 12%). Once it is on, a change made with no group open starts one that
    /// ends when the current main-actor job does (one user event, one group).
    private func prepareUndo() {
        core.undo.scheduleImplicitEnd = { [weak self] in
            Task { @MainActor in self?.core.endImplicitUndoGroup() }
        }
    }

    /// The model of the context's coordinator.
    public var model: ObjectModel { core.model }
    /// The coordinator whose stores this context (or the root of its stack) reads and writes.
    public nonisolated let coordinator: PersistentStoreCoordinator

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
    @discardableResult public func save() throws -> SaveResult {
        let result = try core.save()
        didChange(ContextChange(result))
        return result
    }
    /// Discards every unsaved change.
    public func rollback() { core.rollback() }
    /// How a save resolves rows another context or process changed since this context
    /// loaded them; ``MergePolicy/error`` (the default) fails the save and names them.
    public var mergePolicy: MergePolicy {
        get { core.mergePolicy }
        set { core.mergePolicy = newValue }
    }

    /// Whether changes other contexts of the coordinator save (and batch requests) are
    /// merged into this context as they happen: at once when the save ran on the main
    /// actor, otherwise on the main queue after the work already waiting there (see
    /// ``mergeChanges(fromContextDidSave:)``).
    public var automaticallyMergesChanges: Bool {
        get { automaticMerge != nil }
        set {
            guard newValue != automaticallyMergesChanges else { return }
            guard newValue else { automaticMerge = nil; return }
            automaticMerge = coordinator.addDidSaveObserver { [weak self] note in
                if MainQueue.isCurrent {
                    MainActor.assumeIsolated { self?.mergeChanges(fromContextDidSave: note) }
                } else {
                    DispatchQueue.main.async { MainActor.assumeIsolated { self?.mergeChanges(fromContextDidSave: note) } }
                }
            }
        }
    }
    private var automaticMerge: DidSaveObservation?
    /// The results controllers that refetch after each save, merge and batch request. Read
    /// by every save, so without dynamic exclusivity checks: the context is confined to the
    /// main actor, and events go to a copy of the list, so no access overlaps another.
    @exclusivity(unchecked) var resultsControllers = ResultsControllers()

    /// Brings this context up to date with what another context saved: updated objects
    /// reload their saved values when next read (keeping this context's unsaved changes),
    /// deleted ones leave the context; inserted and newly matching objects appear in the
    /// next fetch. Its own saves are ignored.
    public func mergeChanges(fromContextDidSave note: DidSave) {
        core.mergeChanges(fromContextDidSave: note)
        if note.origin != identifier && note.reachedStore { didChange(ContextChange(note)) }
    }

    /// This context's identity, as ``DidSave/origin`` names it.
    public var identifier: ContextIdentifier { core.identifier }
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
    @discardableResult public func execute(_ request: BatchInsertRequest) throws -> BatchResult {
        try reported(core.execute(request))
    }
    /// Updates rows straight in the store; this context's objects are refreshed.
    @discardableResult public func execute(_ request: BatchUpdateRequest) throws -> BatchResult {
        try reported(core.execute(request))
    }
    /// Deletes rows straight in the store, applying delete rules in SQL; this context's objects are updated.
    @discardableResult public func execute(_ request: BatchDeleteRequest) throws -> BatchResult {
        try reported(core.execute(request))
    }
    /// Brings this context's objects up to date with a batch request run elsewhere.
    public func mergeChanges(from result: BatchResult) {
        core.mergeChanges(from: result)
        didChange(ContextChange(result))
    }
    /// The object for an ID: the registered one, or a fault that loads when touched.
    public func object(with id: ObjectID) -> ManagedObject { core.object(for: id) }
    /// The object for an ID, loaded now.
    /// - Throws: ``ObjectGraphError`` `objectNotFound` when the store has no such object.
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

extension MainContext: CustomStringConvertible {}
