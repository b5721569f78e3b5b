/// The seeds' three-context stack: a private persist context that alone writes to the
/// store, the main context as its child for what the user sees, and private update contexts
/// as children of the main context for background edits.
///
/// Pick it when background edits must be seen by the main context before they are saved
/// (a child's save lands in the main context at once) and the edits are small. Every
/// object a child saves stays in the main context, changed, until ``save()``: for large
/// imports the siblings of ``SiblingContextStack`` keep memory flat instead (see
/// `recipes bench stacks` and <doc:Concurrency>).
///
/// ```swift
/// let stack = NestedContextStack(coordinator: coordinator)
/// let update = stack.newUpdateContext()
/// try await update.perform { context in /* insert, edit */ _ = try context.save() }
/// try await stack.save()      // main → persist → store
/// ```
@MainActor
public final class NestedContextStack {
    /// The private context that writes to the store, named "persist" in messages.
    public let persist: PrivateContext
    /// The main context, a child of ``persist``, named "main" in messages.
    public let main: MainContext

    /// Builds the stack on `coordinator`'s stores.
    public init(coordinator: PersistentStoreCoordinator) {
        persist = PrivateContext(coordinator: coordinator, name: "persist")
        main = MainContext(parent: persist, name: "main")
    }

    /// A new private context for background edits, a child of ``main``: its saves go into
    /// the main context.
    public func newUpdateContext() -> PrivateContext { PrivateContext(parent: main) }

    /// Saves the main context into the persist context, then the persist context to the store.
    public func save() async throws {
        try main.save()
        try await persist.perform { context in _ = try context.save() }
    }
}

/// Sibling contexts on one coordinator: the main context for what the user sees, and
/// private background contexts that save straight to the store, merged into the main
/// context as they save.
///
/// Pick it for imports and other large background work: a background context can save
/// and reset after every batch, so memory stays flat, and the main context refreshes only
/// the objects it holds. The main context does not see a background context's changes
/// until they are saved.
///
/// ```swift
/// let stack = SiblingContextStack(coordinator: coordinator)
/// let importer = stack.newBackgroundContext()
/// try await importer.perform { context in /* insert a batch */ try context.save(); context.reset() }
/// // stack.main has merged the batch
/// ```
@MainActor
public final class SiblingContextStack {
    /// The coordinator the contexts share.
    public let coordinator: PersistentStoreCoordinator
    /// The main context, named "main" in messages; it merges every other context's saves
    /// as they happen.
    public let main: MainContext

    /// Builds the stack on `coordinator`'s stores.
    public init(coordinator: PersistentStoreCoordinator) {
        self.coordinator = coordinator
        main = MainContext(coordinator: coordinator, name: "main")
        main.automaticallyMergesChanges = true
    }

    /// A new private context for background work on the same stores.
    public func newBackgroundContext() -> PrivateContext { PrivateContext(coordinator: coordinator) }
}
