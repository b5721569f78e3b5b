import Foundation
import ObjectGraph
import RecipeCatalog

/// One `import FILE --background`: the import runs on a ``PrivateContext`` of its own while
/// the shell goes on; this object is the shell's handle on it.
///
/// The import saves a batch, records it in ``progress``, and polls the stop request before
/// the next batch, so ``requestStop()`` ends it at a batch boundary: every saved batch
/// stays, with the resume marker written in the same transaction. Saves reach the shell's
/// ``MainContext`` through the coordinator's did-save notifications, not through the job.
///
/// The shell says how a job ended exactly once: a command that waits for it (`.cancel`,
/// quitting) prints the end itself and sets ``isReported``; otherwise the job posts it as a
/// deferred note when it ends.
///
/// ```swift
/// let job = ImportJob(number: 1, url: url, batchSize: 1_000, isDeterministic: false)
/// job.start(RecipeImporter(), into: PrivateContext(coordinator: coordinator)) { job in
///     notes.post(job.endMessage)
/// }
/// job.requestStop()
/// await job.waitUntilEnded()
/// ```
@MainActor final class ImportJob {
    /// How the job stands.
    enum State {
        /// Importing.
        case running
        /// Every line was read; bad lines, if any, are in the report.
        case done(RecipeImporter.Report)
        /// Stopped at a batch boundary by a stop request.
        case cancelled(RecipeImporter.Report)
        /// Stopped by an error (the file, the store); the message says which.
        case failed(String)
    }

    /// The job's number in this session, from 1.
    let number: Int
    /// The file imported.
    let url: URL
    /// Recipes per saved batch.
    let batchSize: Int
    /// Whether timings are left out of what the job prints (`--deterministic`).
    let isDeterministic: Bool
    /// Whether the file is a pipe or FIFO (`/dev/stdin`): read once, of a size unknown until
    /// its end, so the job shows recipes instead of a percentage and cannot be resumed.
    let readsPipe: Bool
    /// The batches saved so far, and the stop request.
    let progress = ImportJobProgress()
    /// When the job started.
    let started = ContinuousClock.now
    /// When it ended, once it has.
    private(set) var ended: ContinuousClock.Instant?
    /// How the job stands.
    private(set) var state = State.running
    /// Whether the shell already said how the job ended (so no note repeats it).
    var isReported = false
    /// Whether a script's exit status already counted this job's failure.
    var isFailureCounted = false
    private var task: Task<Void, Never>?

    /// Creates a job that has not started.
    init(number: Int, url: URL, batchSize: Int, isDeterministic: Bool) {
        self.number = number
        self.url = url
        self.batchSize = batchSize
        self.isDeterministic = isDeterministic
        self.readsPipe = !RecipeFileReader.isRegularFile(url)
    }

    /// `import #1`, as messages name the job.
    var name: String { "import #\(number)" }
    /// The file's name, as messages show it.
    var fileName: String { url.lastPathComponent }

    /// Whether the import is still running.
    var isRunning: Bool {
        if case .running = state { return true }
        return false
    }

    /// Whether it ended with an error or with lines that could not be imported.
    var hasFailed: Bool {
        switch state {
        case .running, .cancelled: false
        case .done(let report): !report.errors.isEmpty
        case .failed: true
        }
    }

    /// Starts the import; `whenEnded` runs on the main actor once it has ended.
    func start(_ importer: RecipeImporter, into context: PrivateContext,
               whenEnded: @escaping @MainActor (ImportJob) -> Void) {
        precondition(task == nil, "\(name) was started twice")
        let progress = self.progress, url = self.url
        task = Task {
            let result: Result<RecipeImporter.Report, any Error>
            do {
                // The whole import is one job on the context's own queue; this task only
                // waits for it, so it holds no thread meanwhile.
                result = .success(try await importer.importFile(
                    url, into: context, isCancelled: { progress.isStopRequested },
                    progress: { progress.record($0) }))
            } catch {
                result = .failure(error)
            }
            self.end(with: result)
            whenEnded(self)
        }
    }

    private func end(with result: Result<RecipeImporter.Report, any Error>) {
        ended = .now
        switch result {
        case .success(let report): state = report.wasCancelled ? .cancelled(report) : .done(report)
        case .failure(let error): state = .failed(String(describing: error))
        }
    }

    /// Asks the import to stop before its next batch.
    func requestStop() { progress.requestStop() }

    /// Returns once the job has ended. Cancelling the waiting task asks the job to stop
    /// (at its next batch boundary) and still waits for that.
    func waitUntilEnded() async {
        guard let task else { return }
        let progress = self.progress
        await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            progress.requestStop()
        }
    }

    /// The time since the start, or from start to end.
    var elapsed: Duration { (ended ?? .now) - started }
}
