import ObjectGraph

/// Messages from background work, held until the session may print them.
///
/// Printing while the user types would corrupt the line libedit is drawing (and libedit
/// cannot be asked to redraw from another thread), so notes wait: the session prints
/// them after the output of the next command, as bash does with job messages.
///
/// ```swift
/// let notes = context.notes
/// Task.detached {
///     try await importer.run()
///     notes.post("[import #1] done: 50,000 recipes")
/// }
/// ```
final class DeferredNotes: Sendable {
    private let pending = Locked<[String]>([])

    /// Creates an empty queue.
    init() {}

    /// Queues `note` (one line, no newline), from any thread.
    func post(_ note: String) { pending.withLock { $0.append(note) } }

    /// Removes and returns the queued notes, oldest first.
    func drain() -> [String] { pending.withLock { notes in defer { notes = [] }; return notes } }
}
