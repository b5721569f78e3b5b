@testable import recipes
import Foundation

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
/// | `.read FILE` | runs a script |
/// | `.quit`, `.exit` | leaves |
@MainActor final class EchoHandler: CommandHandler {
    private var isDirty = false

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

    var completionWords: [String] { ["echo", "fail", "sleep", "dirty", "note", ".read", ".quit", ".exit"] }

    var hasUnsavedChanges: Bool { isDirty }

    func discardUnsavedChanges() -> String {
        isDirty = false
        return "Rolled back unsaved changes."
    }
}
