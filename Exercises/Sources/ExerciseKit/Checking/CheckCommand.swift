internal import Foundation

/// The `check-NN` executables: `check-NN [--solution] [--json FILE]`.
///
/// Runs the exercise's checker on the learner's starter (or, with `--solution`, on the
/// reference solution), prints the report, writes it as JSON to `FILE` when asked, and
/// exits 0 when it passes, 1 when it fails, 2 for a usage error and 3 when the data could
/// not be prepared or the implementation threw.
///
/// ```swift
/// // Checkers/check-01/main.swift
/// await CheckCommand.run(BatchSaveCheck.self, starter: BatchSave.BatchSaver(),
///                        solution: BatchSaveSolution.BatchSaver())
/// ```
public enum CheckCommand {
    /// Parses the arguments, runs the check and exits.
    public static func run<Check: ExerciseCheck>(
        _ check: Check.Type, starter: Check.Implementation, solution: Check.Implementation,
        arguments: [String] = Array(CommandLine.arguments.dropFirst())
    ) async -> Never {
        var usesSolution = false
        var jsonPath: String?
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--solution": usesSolution = true
            case "--json" where !rest.isEmpty: jsonPath = rest.popFirst()
            default:
                fail("unexpected argument '\(argument)'; usage: check-NN [--solution] [--json FILE]", status: 2)
            }
        }
        let exercise = Check.exercise
        let subject = usesSolution ? "the reference solution" : "your code in \(exercise.path)"
        let result: CheckResult
        do {
            result = try await Check.check(usesSolution ? solution : starter, subject: subject)
        } catch {
            fail("exercise \(exercise.number): \(error)", status: 3)
        }
        FileHandle.standardOutput.write(Data(result.rendered().utf8))
        if let jsonPath {
            do {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                try encoder.encode(result).write(to: URL(fileURLWithPath: jsonPath))
            } catch {
                fail("cannot write \(jsonPath): \(error.localizedDescription)", status: 3)
            }
        }
        exit(result.isPassing ? 0 : 1)
    }

    private static func fail(_ message: String, status: Int32) -> Never {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        exit(status)
    }
}
