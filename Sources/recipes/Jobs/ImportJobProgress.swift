import ObjectGraph
import RecipeCatalog
import Synchronization

/// What a background import has saved so far, and whether it was asked to stop: the state
/// the import (on its context's queue) and the shell (on the main actor) share.
///
/// The importer records each saved batch here; the prompt and `.jobs` read a
/// ``Snapshot``. Both sides hold the lock only to copy a few integers, so neither can
/// stall the other.
///
/// ```swift
/// let progress = ImportJobProgress()
/// let report = try await importer.importFile(url, into: context,
///     isCancelled: { progress.isStopRequested }, progress: { progress.record($0) })
/// progress.requestStop()   // from .cancel: the importer stops before its next batch
/// ```
final class ImportJobProgress: Sendable {
    /// One reading of the progress.
    struct Snapshot: Sendable, Equatable {
        /// The last line of the last batch saved (0 before the first).
        var savedThroughLine = 0
        /// Recipes this import saved.
        var imported = 0
        /// Bytes of the file read so far, and its size.
        var bytesRead = 0, totalBytes = 0
        /// Batches saved.
        var batches = 0

        /// How much of the file was read, from 0 to 100.
        var percent: Int { totalBytes > 0 ? min(100, bytesRead * 100 / totalBytes) : 0 }
    }

    private let state = Locked(Snapshot())
    private let stopRequested = Atomic<Bool>(false)

    /// Creates the progress of a job that has saved nothing yet.
    init() {}

    /// Records one saved batch (called by the importer on its context's queue).
    func record(_ progress: RecipeImporter.Progress) {
        state.withLock { state in
            state.savedThroughLine = progress.lines
            state.imported = progress.imported
            state.bytesRead = progress.bytesRead
            state.totalBytes = progress.totalBytes
            state.batches += 1
        }
    }

    /// The progress now.
    var snapshot: Snapshot { state.withLock { $0 } }

    /// Asks the import to stop before its next batch; the batch being saved is finished.
    func requestStop() { stopRequested.store(true, ordering: .relaxed) }

    /// Whether ``requestStop()`` was called; the importer polls it between batches.
    var isStopRequested: Bool { stopRequested.load(ordering: .relaxed) }
}
