import Foundation
import RecipeCatalog

/// `recipes bench stacks [--count N] [--plot FILE.svg] [--only I|II|III|IV]`: the context-stack experiment.
///
/// Each stack runs in a child process of its own (`--only NUMERAL`, which prints its run as
/// JSON), so one stack's memory cannot hide or inflate the next one's; the parent prints
/// the table and, with `--plot`, writes the memory chart.
enum BenchStacksCommand {
    /// Runs the experiment, or with `only` one stack in this process.
    @MainActor
    static func run(count: Int, plot: String?, only: StacksExperiment.Strategy?) async throws {
        if let only {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recipes-stacks-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let run = try await StacksExperiment.run(only, count: count, path: directory.appendingPathComponent("stack.sqlite").path)
            FileHandle.standardOutput.write(try JSONEncoder().encode(run) + Data("\n".utf8))
            return
        }
        var runs: [StacksExperiment.Run] = []
        for strategy in StacksExperiment.Strategy.allCases {
            try Task.checkCancellation()
            FileHandle.standardError.write(Data("stack \(strategy.rawValue) (\(strategy.summary)): importing \(count) objects…\n".utf8))
            let output = try await runChild(["bench", "stacks", "--only", strategy.rawValue, "--count", String(count)])
            runs.append(try JSONDecoder().decode(StacksExperiment.Run.self, from: output))
        }
        print(StacksExperiment.table(runs))
        if let plot {
            try StacksExperiment.svg(runs).write(toFile: plot, atomically: true, encoding: .utf8)
            FileHandle.standardError.write(Data("wrote the memory chart to \(plot)\n".utf8))
        }
    }

    /// Runs this program with `arguments` and returns what it printed; cancelling the task
    /// stops the child.
    private static func runChild(_ arguments: [String]) async throws -> Data {
        let program = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let run = try await ChildProgram.run([program] + arguments, capturingOutput: true)
        guard run.status == 0, !run.wasSignalled else { throw CommandError("a stack's run failed (\(run.outcome))") }
        return run.output
    }
}
