@testable import ObjectGraph

/// Lets at most `width` bodies run at once; the others wait without blocking a thread.
///
/// The cases of a parameterized test all start together: a gate keeps those that each build
/// a store (files, connections to a server) to a few at a time.
final class TestGate: Sendable {
    private let state: Locked<(free: Int, waiting: [CheckedContinuation<Void, Never>])>

    init(width: Int) { state = Locked((width, [])) }

    /// Runs `body` once fewer than `width` bodies are running.
    func run<T>(_ body: () async throws -> T) async rethrows -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let entered = state.withLock { state in
                guard state.free > 0 else { state.waiting.append(continuation); return false }
                state.free -= 1
                return true
            }
            if entered { continuation.resume() }
        }
        defer {
            // Hand the place to the first waiting body, or give it back.
            let next = state.withLock { state in
                if state.waiting.isEmpty { state.free += 1; return nil as CheckedContinuation<Void, Never>? }
                return state.waiting.removeFirst()
            }
            next?.resume()
        }
        return try await body()
    }
}
