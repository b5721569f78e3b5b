import Foundation

/// How long a test waits for a child process before it calls the wait a hang.
///
/// The limits in the tests are generous for a plain debug run. Under a sanitizer every
/// instruction costs 5 to 20 times more, so `make check-sanitizers` sets
/// `RECIPES_TEST_TIME_SCALE` and every limit stretches by that factor. Nothing asserts on
/// elapsed time: a limit only turns a hang into a failure instead of a stuck run.
enum HangLimit {
    /// The factor from `RECIPES_TEST_TIME_SCALE` (1 when unset or not a positive number).
    static let scale: Int = {
        guard let text = ProcessInfo.processInfo.environment["RECIPES_TEST_TIME_SCALE"],
              let value = Int(text), value > 0 else { return 1 }
        return value
    }()

    /// The moment a wait that starts at `start` and may take `timeout` gives up.
    static func deadline(after timeout: Duration,
                         from start: ContinuousClock.Instant = .now) -> ContinuousClock.Instant {
        start + timeout * scale
    }
}
