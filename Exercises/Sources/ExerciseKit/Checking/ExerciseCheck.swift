/// The checker of one exercise: runs an implementation (the learner's starter or the
/// reference solution) on seeded data and measures it.
///
/// A check confirms the result first (counts, no duplicates, no dangling rows) and then
/// compares counters from the framework's instrumentation with the exercise's budgets.
public protocol ExerciseCheck {
    /// What the learner writes: the exercise's protocol, as an existential.
    associatedtype Implementation: Sendable
    /// The exercise's number, title and files.
    static var exercise: ExerciseInfo { get }
    /// Runs `implementation` and reports what it did; `subject` names it in the report.
    /// - Throws: ``ExerciseSetupError`` when the data could not be prepared.
    static func check(_ implementation: Implementation, subject: String) async throws -> CheckResult
}

/// Every exercise's checker, in order.
public enum ExerciseChecks {
    /// The checkers' exercise descriptions, in order.
    public static let all: [ExerciseInfo] = [
        BatchSaveCheck.exercise, FindOrCreateCheck.exercise, SaveAndResetCheck.exercise,
        SearchShadowCheck.exercise, LargeDeleteCheck.exercise, RefreshCyclesCheck.exercise,
    ]
}
