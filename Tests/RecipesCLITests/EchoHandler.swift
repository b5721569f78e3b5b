@testable import recipes
import Foundation
import Synchronization

/// A stand-in command layer so the shell runs end to end before the real commands exist.
///
/// The session tests drive the session through it, independent of the recipe commands.
///
/// | command | effect |
/// | --- | --- |
/// | `echo TEXT` | prints TEXT |
/// | `fail TEXT` | fails with TEXT |
/// | `sleep SECONDS` | waits, polling Ctrl-C every 50 ms, with a progress bar |
/// | `dirty` | toggles fake unsaved changes (prompt `recipes*> `) |
/// | `note TEXT` | posts a deferred note |
/// | `job SECONDS` | starts a pretend background job that ticks every 20 ms |
/// | `job held` | starts one that runs until the session waits for it (then it finishes) |
/// | `.read FILE` | runs a script |
/// | `.quit`, `.exit` | leaves |
@MainActor final class EchoHandler: CommandHandler {
    private var isDirty = false
    /// The pretend job: how it ends, its stop request, a held job's release, and whether it still runs.
    private var job: (task: Task<String, Never>, stop: StopRequest, release: StopRequest?)?
    private var isJobRunning = false
    private let jobStarted = Atomic<Bool>(false)
    /// Whether `job` has started its pretend job; readable from any thread.
    nonisolated var hasStartedJob: Bool { jobStarted.load(ordering: .sequentiallyConsistent) }

    /// Creates the handler; the invocation is ignored.
    init(invocation: Invocation = Invocation()) {}

    func execute(_ line: String, context: CommandContext) async throws -> CommandResult {
        let command = String(line.prefix { $0 != " " })
        let argument = String(line.dropFirst(command.count).drop { $0 == " " })
        switch command {
        case "echo":
            context.print(argument)
        case "fail":
            throw CommandError(argument.isEmpty ? "failed" : argument)
        case "sleep":
            guard let seconds = Double(argument), seconds >= 0 else {
                throw CommandError("usage: sleep SECONDS")
            }
            let ticks = Int(seconds * 20)
            let progress = context.makeProgressBar(label: "sleep", total: ticks)
            defer { progress.finish() }
            for tick in 0..<ticks {
                try context.interrupt.check()
                try await Task.sleep(for: .milliseconds(50))
                progress.update(done: tick + 1)
            }
        case "dirty":
            isDirty.toggle()
        case "note":
            context.notes.post(argument)
        case "job":
            // A held job has no length of its own: it ends when the session waits for it, so a
            // test of that wait does not depend on how soon the session gets there.
            let seconds = argument == "held" ? Double.infinity : Double(argument)
            guard let seconds, seconds >= 0, !isJobRunning else {
                throw CommandError("usage: job SECONDS|held (one job at a time)")
            }
            let stop = StopRequest(), release = StopRequest()
            let ticks = seconds.isFinite ? Int(seconds * 50) : Int.max
            isJobRunning = true
            let task = Task { @MainActor in
                var done = 0
                while done < ticks && !stop.isRequested && !release.isRequested {
                    try? await Task.sleep(for: .milliseconds(20))
                    done += 1
                }
                self.isJobRunning = false
                return stop.isRequested && done < ticks ? "job #1: cancelled after tick \(done)" : "job #1: finished"
            }
            job = (task, stop, seconds.isFinite ? nil : release)
            jobStarted.store(true, ordering: .sequentiallyConsistent)
        case ".read":
            guard !argument.isEmpty else { throw CommandError("usage: .read FILE") }
            return try await context.runScript(at: argument)
        case ".quit", ".exit":
            return .quit
        default:
            throw CommandError("unknown command '\(command)'")
        }
        return .ok
    }

    var prompt: String { isDirty ? "recipes*> " : "recipes> " }

    var completionVocabulary: CompletionWords.Vocabulary {
        .init(commands: ["echo", "fail", "sleep", "dirty", "note", "job", ".read", ".quit", ".exit"])
    }

    var hasUnsavedChanges: Bool { isDirty }

    func discardUnsavedChanges() -> String {
        isDirty = false
        return "Rolled back unsaved changes."
    }

    var runningJobs: String? { isJobRunning ? "job #1" : nil }

    func finishJobs(cancelling: Bool, output: any ShellOutput) async -> Int {
        guard let job, isJobRunning else { return 0 }
        if cancelling { job.stop.request() } else { job.release?.request() }
        let message = await withTaskCancellationHandler { await job.task.value } onCancel: { job.stop.request() }
        output.printLine(message)
        self.job = nil
        return 0
    }
}

/// A stop request that any thread may make and a pretend job polls.
final class StopRequest: Sendable {
    private let flag = Atomic<Bool>(false)

    /// Asks the job to stop at its next tick.
    func request() { flag.store(true, ordering: .relaxed) }

    /// Whether ``request()`` was called.
    var isRequested: Bool { flag.load(ordering: .relaxed) }
}
