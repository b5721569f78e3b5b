import Synchronization

/// What one save or batch request changed in the stores: the IDs another context merges
/// with ``MainContext/mergeChanges(fromContextDidSave:)``.
///
/// Every save of a context (nested ones included) and every batch insert, update or delete
/// publishes one, after its transaction committed, through the coordinator's ``PersistentStoreCoordinator/didSaveNotifications``
/// and its ``PersistentStoreCoordinator/addDidSaveObserver(_:)`` callbacks.
public struct DidSave: Sendable {
    /// Objects the save inserted, with their permanent IDs.
    public var insertedIDs: [ObjectID] = []
    /// Objects whose changes the save wrote (for a batch request: rows it updated, nullified
    /// or recomputed).
    public var updatedIDs: [ObjectID] = []
    /// Objects the save deleted (for a batch delete: cascades included).
    public var deletedIDs: [ObjectID] = []
    /// How many rows were deleted: `deletedIDs.count`, or more when a count-only batch
    /// delete did not list them. A context merging such a note cannot tell which of its
    /// objects went, so it turns every registered object back into a fault.
    public var deletedCount = 0
    /// For each updated object, the names of the properties that changed (empty for a batch
    /// request, which does not know them per row).
    public var changedKeys: [ObjectID: Set<String>] = [:]
    /// The context that saved or ran the batch request.
    public var origin: ContextIdentifier?
    /// Whether the changes reached the store: false for the save of a nested context,
    /// which went into its parent (and is announced again when the root saves).
    public var reachedStore = true
    /// Whether the store may have changed in ways no one listed: a store that lost touch with
    /// other processes' saves for a while (a PostgreSQL store whose notification connection
    /// dropped and was made again) posts one, as it cannot tell what it missed. A context
    /// merging it turns every registered object back into a fault, and results controllers
    /// fetch again.
    public var changesUnknown = false

    /// Creates an empty notification.
    public init() {}

    /// Whether the save changed nothing.
    public var isEmpty: Bool {
        insertedIDs.isEmpty && updatedIDs.isEmpty && deletedIDs.isEmpty && deletedCount == 0 && !changesUnknown
    }
}

/// The identity of a context, to tell its own saves from others'.
public struct ContextIdentifier: Sendable, Hashable {
    let serial: UInt32
}

/// A registered did-save callback; the callback stops when this is cancelled or released.
public final class DidSaveObservation: Sendable {
    private let remove: @Sendable () -> Void
    private let removed = Atomic<Bool>(false)

    init(remove: @escaping @Sendable () -> Void) { self.remove = remove }

    /// Stops the callback.
    public func cancel() {
        if !removed.exchange(true, ordering: .relaxed) { remove() }
    }

    deinit { cancel() }
}

/// The coordinator's did-save subscribers: callbacks and async streams.
final class DidSaveCenter: Sendable {
    private let subscribers = Locked<(next: Int, handlers: [Int: @Sendable (DidSave) -> Void])>((0, [:]))

    /// Whether anyone listens (savers skip computing changed keys otherwise).
    var hasSubscribers: Bool { subscribers.withLock { !$0.handlers.isEmpty } }

    /// Adds `handler`; the result removes it.
    func subscribe(_ handler: @escaping @Sendable (DidSave) -> Void) -> DidSaveObservation {
        let key = subscribers.withLock { state in
            state.next += 1
            state.handlers[state.next] = handler
            return state.next
        }
        return DidSaveObservation { [weak self] in self?.subscribers.withLock { _ = $0.handlers.removeValue(forKey: key) } }
    }

    /// Hands `note` to every subscriber, in the order they subscribed, on the calling thread.
    func post(_ note: DidSave) {
        let handlers = subscribers.withLock { $0.handlers.sorted { $0.key < $1.key }.map(\.value) }
        for handler in handlers { handler(note) }
    }
}

extension PersistentStoreCoordinator {
    /// Calls `handler` after every save and batch request of this coordinator's contexts,
    /// on the thread that saved, right after the commit. Keep it short: hand the
    /// notification to a context's own queue to merge it.
    ///
    /// ```swift
    /// let observation = coordinator.addDidSaveObserver { note in
    ///     Task { @MainActor in context.mergeChanges(fromContextDidSave: note) }
    /// }
    /// ```
    /// - Returns: the registration; the callback stops when it is cancelled or released.
    public func addDidSaveObserver(_ handler: @escaping @Sendable (DidSave) -> Void) -> DidSaveObservation {
        didSaveCenter.subscribe(handler)
    }

    /// Every save and batch request from now on, as an async sequence; iteration ends when
    /// the iterating task is cancelled. Notifications wait in the stream until read.
    ///
    /// ```swift
    /// for await note in coordinator.didSaveNotifications {
    ///     context.mergeChanges(fromContextDidSave: note)
    /// }
    /// ```
    public var didSaveNotifications: AsyncStream<DidSave> {
        let (stream, continuation) = AsyncStream.makeStream(of: DidSave.self)
        let observation = didSaveCenter.subscribe { continuation.yield($0) }
        continuation.onTermination = { _ in observation.cancel() }
        return stream
    }
}

extension ContextCore {
    /// This context's identity in ``DidSave/origin``.
    var identifier: ContextIdentifier { ContextIdentifier(serial: serial) }

    /// Brings this context up to date with changes another context (or a batch request)
    /// saved: registered objects that were updated turn back into faults, keeping this
    /// context's own unsaved changes (so the next access reads the saved values); deleted
    /// ones leave the context and the relationships that held them. Inserted and newly
    /// matching objects need nothing: the next fetch reads them from the store.
    func mergeChanges(fromContextDidSave note: DidSave) {
        guard note.origin != identifier, note.reachedStore else { return }
        var result = BatchResult()
        result.updatedIDs = note.updatedIDs
        result.deletedIDs = note.deletedIDs
        // Changes no one listed take the path of deletions no one listed: everything refreshes.
        result.deletedCount = note.changesUnknown ? note.deletedIDs.count + 1 : note.deletedCount
        mergeChanges(from: result)
    }
}

extension PersistentStoreCoordinator {
    /// Announces a save that another process or machine committed to one of this
    /// coordinator's stores (a database server's change notification): the rows it changed
    /// leave the row cache, then every did-save subscriber hears of it, as of a save here
    /// (with no ``DidSave/origin``), so contexts that merge automatically refresh. After a
    /// note of ``DidSave/changesUnknown`` the row cache forgets every row.
    package func storeDidChangeElsewhere(_ note: DidSave) {
        if note.changesUnknown { rowCache.removeAll() } else { rowCache.remove(note.updatedIDs + note.deletedIDs) }
        didSaveCenter.post(note)
    }
}
