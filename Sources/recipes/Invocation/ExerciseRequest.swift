/// What `recipes exercise …` asks for.
///
/// ```
/// recipes exercise list       each exercise with its state
/// recipes exercise check 2    build and run exercise 2's checker on the learner's file
/// recipes exercise hint 2     the next hint of exercise 2
/// ```
enum ExerciseRequest: Sendable, Equatable {
    /// List the exercises with their state (not started, failing, passing).
    case list
    /// Build and check exercise `number`.
    case check(Int)
    /// Show the hints of exercise `number`, one more each time.
    case hint(Int)
}
