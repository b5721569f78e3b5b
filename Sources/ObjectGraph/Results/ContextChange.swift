/// An event that can change a results controller's results: a save of the context, a
/// merge of another context's save, or a batch request.
struct ContextChange {
    var insertedIDs: [ObjectID] = []
    var updatedIDs: [ObjectID] = []
    var deletedIDs: [ObjectID] = []
    /// Whether rows were deleted that `deletedIDs` does not list (a count-only batch delete),
    /// or the store changed in ways no one listed: a controller cannot tell whether it showed
    /// them, so it fetches again.
    var deletedUnlisted = false

    var isEmpty: Bool { insertedIDs.isEmpty && updatedIDs.isEmpty && deletedIDs.isEmpty && !deletedUnlisted }

    init(_ result: SaveResult) {
        insertedIDs = result.insertedIDs
        updatedIDs = result.updatedIDs
        deletedIDs = result.deletedIDs
    }

    init(_ note: DidSave) {
        insertedIDs = note.insertedIDs
        updatedIDs = note.updatedIDs
        deletedIDs = note.deletedIDs
        deletedUnlisted = note.deletedCount > note.deletedIDs.count || note.changesUnknown
    }

    init(_ result: BatchResult) {
        insertedIDs = result.insertedIDs
        updatedIDs = result.updatedIDs + result.nullifiedIDs + result.recomputedIDs
        deletedIDs = result.deletedIDs
        deletedUnlisted = result.deletedCount > result.deletedIDs.count
    }
}

/// The results controllers of a main context, held weakly, told about each event.
@MainActor
struct ResultsControllers {
    private struct Entry { weak var controller: FetchedResultsController? }
    private var entries: [Entry] = []

    mutating func add(_ controller: FetchedResultsController) {
        entries.removeAll { $0.controller == nil }
        entries.append(Entry(controller: controller))
    }

    /// Tells every live controller, in the order they started; an empty change tells none.
    func contextDidChange(_ change: ContextChange) {
        guard !change.isEmpty else { return }
        for entry in entries { entry.controller?.contextDidChange(change) }
    }
}
