import ObjectGraph
import Foundation

/// A live view of a fetch (`.watch`): a results controller on the shell's context whose
/// change sets print one line per object, `+` inserted, `-` deleted, `~` updated, `>` moved,
/// then the object's ID and its name (or first attribute):
///
/// ```
/// + Recipe/p170 Aaa Thai Test
/// ~ Recipe/p12 Pad Thai
/// ```
///
/// When the lines print: a change set that arrives while a command runs (the command's own
/// `save`, or a merge while it waits) prints after that command's output; one that arrives
/// between commands prints at once in scripts and piped input, and after the next
/// command's output at a terminal, where the prompt owns the line (as job notes do).
///
/// When the store may have changed in ways no one listed (a PostgreSQL catalogue listens
/// again after its connection to the server dropped, and saves announced meanwhile are
/// lost), one line says so, and the changes the fresh fetch found follow.
@MainActor final class ResultsWatch: FetchedResultsControllerDelegate {
    /// The command as typed after `.watch`.
    let command: String
    let controller: FetchedResultsController
    private let output: any ShellOutput
    private let notes: DeferredNotes
    private let isInteractive: Bool
    /// Whether a command is running now.
    private let isBusy: @MainActor () -> Bool
    /// The label each shown object had, by ID, for the lines of objects that are gone.
    private var labels: [ObjectID: String] = [:]
    /// The shown objects that were unsaved, by the temporary ID their label is under: a save
    /// gives them permanent IDs, which the next change set names them by.
    private var unsaved: [ObjectID: ManagedObject] = [:]
    /// Lines waiting for the running command to end.
    private var pending: [String] = []
    /// Hears of notes that changes went unlisted (``DidSave/changesUnknown``).
    private var unknownChanges: DidSaveObservation?

    /// The line printed when the store's changes went unlisted.
    static let changesUnknownLine =
        "(the connection to the database server was made again: saves made meanwhile are unknown, so the watch fetched afresh)"

    /// Fetches `request` and starts watching it.
    /// - Throws: what the fetch throws.
    init(_ command: String, request: FetchRequest, context: MainContext, commandContext: CommandContext,
         isBusy: @escaping @MainActor () -> Bool) throws {
        self.command = command
        controller = try FetchedResultsController(fetchRequest: request, context: context)
        output = commandContext.output
        notes = commandContext.notes
        isInteractive = commandContext.mode == .interactive
        self.isBusy = isBusy
        try controller.performFetch()
        controller.delegate = self
        for object in controller.fetchedObjects { remember(object, label: Self.label(of: object)) }
        // Queued on the main queue, as the context's automatic merge of the same note is.
        unknownChanges = context.coordinator.addDidSaveObserver { [weak self] note in
            guard note.changesUnknown else { return }
            DispatchQueue.main.async { MainActor.assumeIsolated { self?.show([Self.changesUnknownLine]) } }
        }
    }

    /// Keeps `label` for `object`, under its ID now.
    private func remember(_ object: ManagedObject, label: String) {
        labels[object.objectID] = label
        if object.objectID.isTemporary { unsaved[object.objectID] = object }
    }

    /// How many objects the view shows.
    var count: Int { controller.fetchedObjects.count }

    func controller(_ controller: FetchedResultsController, didChangeContentWith changes: ResultsChangeSet) {
        // Objects saved since their label was kept: the change set names them by their new ID.
        for (temporary, object) in unsaved where object.objectID != temporary {
            unsaved[temporary] = nil
            labels[object.objectID] = labels.removeValue(forKey: temporary)
        }
        var lines: [String] = []
        for change in changes.objectChanges {
            let id = change.objectID
            let describedID = controller.context.model.describe(id)
            guard let path = change.newIndexPath else {
                unsaved[id] = nil
                lines.append("- \(describedID) \(labels.removeValue(forKey: id) ?? "")")
                continue
            }
            let object = controller.object(at: path)
            let label = Self.label(of: object)
            remember(object, label: label)
            let mark = switch change.type {
            case .insert: "+"
            case .update: "~"
            default: ">"
            }
            lines.append("\(mark) \(describedID) \(label)")
        }
        show(lines)
    }

    /// Prints `lines` now, or after the running command (see the type's comment).
    private func show(_ lines: [String]) {
        if isBusy() {
            pending += lines
        } else if isInteractive {
            for line in lines { notes.post(line) }
        } else {
            for line in lines { output.printLine(line) }
        }
    }

    /// Prints the lines that waited for a command to end.
    func flush() {
        guard !pending.isEmpty else { return }
        for line in pending { output.printLine(line) }
        pending = []
    }

    /// The object's `name` when its entity has one, otherwise its first attribute, as printed.
    static func label(of object: ManagedObject) -> String {
        let attributes = object.entity.attributes.filter { !$0.isTransient }
        guard let attribute = attributes.first(where: { $0.name == "name" }) ?? attributes.first else { return "" }
        return ObjectPrinter.plain(ObjectPrinter.value(of: object, key: attribute.name))
    }
}
