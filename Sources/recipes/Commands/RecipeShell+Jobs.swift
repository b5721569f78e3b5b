import Foundation
import ObjectGraph
import RecipeCatalog

extension RecipeShell {
    /// The background import that is running, if any.
    var runningJob: ImportJob? { jobs.last { $0.isRunning } }

    /// Refuses work that must not overlap a background import: another import, or `.open`.
    func requireNoRunningJob(before action: String) throws {
        guard let job = runningJob else { return }
        throw CommandError("\(job.name) is still running in the background: wait for it to end (.jobs shows it), "
                           + "or .cancel it, before \(action)")
    }

    /// `import FILE --background`: starts the import on a private context of its own and
    /// returns at once. Each saved batch reaches this shell's context through the did-save
    /// path; the end is a deferred note unless a command waited for it.
    func startBackgroundImport(_ url: URL, options: RecipeImporter.Options, _ context: CommandContext) throws {
        try requireNoRunningJob(before: "starting another import")
        let job = ImportJob(number: jobs.count + 1, url: url, batchSize: options.batchSize,
                            isDeterministic: isDeterministic)
        jobs.append(job)
        let notes = context.notes
        job.start(RecipeImporter(options: options), into: PrivateContext(coordinator: catalog.coordinator)) { [weak self] job in
            self?.updateProbe()
            guard !job.isReported else { return }
            job.isReported = true
            for warning in job.warnings { notes.post(warning) }
            notes.post(job.endMessage)
        }
        context.print("\(job.name): \(job.fileName) in the background, batches of \(options.batchSize)"
                      + " (.jobs shows its progress, .cancel stops it)")
    }

    /// `.jobs`: one line per job of this session, running or ended, in columns.
    func listJobs(_ context: CommandContext) {
        guard !jobs.isEmpty else {
            context.print("no jobs (import FILE --background starts one)")
            return
        }
        let rows = jobs.map(\.listingColumns)
        let widths = (0..<(rows.map(\.count).max() ?? 0)).map { column in
            rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0
        }
        for row in rows {
            let cells = row.enumerated().map { column, cell in
                // Percentages line up on the right, everything else on the left.
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return column == 3 ? padding + cell : cell + padding
            }
            context.print(cells.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
        }
    }

    /// `.cancel [N]`: asks the running job (or job N) to stop after the batch it is saving,
    /// waits for that, and says where it stopped.
    func cancelJob(_ text: String, _ context: CommandContext) async throws {
        let job: ImportJob
        if text.isEmpty {
            guard let running = runningJob else {
                throw CommandError(jobs.isEmpty ? "no job is running (import FILE --background starts one)"
                                                : "no job is running (.jobs lists the ended ones)")
            }
            job = running
        } else {
            guard let number = Int(text.hasPrefix("#") ? String(text.dropFirst()) : text) else {
                throw CommandError(".cancel takes a job number from .jobs, such as .cancel 1, found '\(text)'")
            }
            guard let found = jobs.first(where: { $0.number == number }) else {
                let known = jobs.map { "#\($0.number)" }.joined(separator: ", ")
                throw CommandError("there is no job #\(number)" + (jobs.isEmpty
                    ? " (no job has run; import FILE --background starts one)" : " (the jobs are \(known); .jobs lists them)"))
            }
            job = found
        }
        guard job.isRunning else {
            throw CommandError("\(job.name) has already ended (.jobs shows how)")
        }
        await report(job, stopping: true, to: context.output)
    }

    /// Waits for `job` to end (asking it to stop first when `stopping`), then prints its
    /// warnings and how it ended, instead of the deferred note.
    private func report(_ job: ImportJob, stopping: Bool, to output: any ShellOutput) async {
        job.isReported = true
        if stopping { job.requestStop() }
        await job.waitUntilEnded()
        for warning in job.warnings { output.printErrorLine(warning) }
        output.printLine(job.endMessage)
    }

    // MARK: CommandHandler

    /// `import #1 (42%)` while a background import runs (`import #1 (1,000 recipes)` from a pipe).
    var runningJobs: String? { runningJob.map { "\($0.name) (\($0.progressText))" } }

    /// Waits for the running import (asking it to stop first when `cancelling`, or when the
    /// waiting task is cancelled), prints how it ended, and counts the failed jobs not counted yet.
    func finishJobs(cancelling: Bool, output: any ShellOutput) async -> Int {
        while let job = runningJob {
            await report(job, stopping: cancelling || Task.isCancelled, to: output)
        }
        let failed = jobs.filter { $0.hasFailed && !$0.isFailureCounted }
        for job in failed { job.isFailureCounted = true }
        return failed.count
    }
}
