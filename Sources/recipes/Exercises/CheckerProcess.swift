import Dispatch
import Foundation

/// A child process of `recipes exercise check`: `swift build`, then the checker.
///
/// The child inherits standard error, so the build's messages stream to the terminal as
/// they come; its standard output goes to standard error too, or, with `capturingOutput`,
/// is collected (on a Dispatch thread: reading blocks) and returned. Cancelling the
/// waiting task terminates the child.
enum CheckerProcess {
    /// How a child ended.
    struct Outcome: Sendable {
        /// The exit status, or the signal number when ``wasSignalled``.
        var status: Int32
        /// Whether a signal stopped it.
        var wasSignalled: Bool
        /// Its standard output, when captured.
        var output: Data

        /// `exit status 1` or `signal 4`.
        var outcome: String { wasSignalled ? "signal \(status)" : "exit status \(status)" }
    }

    /// Runs `arguments[0]` with the rest as its arguments and waits for it; `environment`
    /// adds variables the caller's environment does not set.
    /// - Throws: ``CommandError`` when it cannot start; `CancellationError` when cancelled.
    static func run(_ arguments: [String], capturingOutput: Bool, environment extra: [String: String] = [:]) async throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(extra) { current, _ in current }
        process.standardInput = FileHandle.nullDevice
        process.standardError = FileHandle.standardError
        let pipe = Pipe()
        process.standardOutput = capturingOutput ? pipe : FileHandle.standardError
        let finished = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in finished.continuation.finish() }
        do {
            try process.run()
        } catch {
            throw CommandError("cannot start \(arguments[0]): \(error.localizedDescription)")
        }
        let output = await withTaskCancellationHandler {
            let output: Data = capturingOutput ? await withCheckedContinuation { continuation in
                let reader = pipe.fileHandleForReading
                DispatchQueue.global().async { continuation.resume(returning: reader.readDataToEndOfFile()) }
            } : Data()
            for await _ in finished.stream {}
            return output
        } onCancel: {
            process.terminate()
        }
        try Task.checkCancellation()
        return Outcome(status: process.terminationStatus, wasSignalled: process.terminationReason == .uncaughtSignal,
                       output: output)
    }
}
