import Foundation
import Synchronization

/// Samples the process's resident memory on a thread of its own, every 10 ms, relative to
/// what it was at ``start()``.
final class MemorySampler: Sendable {
    private let state = Mutex<(running: Bool, baseline: Int, start: ContinuousClock.Instant, samples: [StacksExperiment.MemorySample])>(
        (false, 0, .now, []))
    private let finished = Mutex<Bool>(false)

    /// The resident set size, from `/proc/self/statm`.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Records the baseline and starts sampling.
    func start() {
        state.withLock { $0 = (true, Self.residentBytes(), .now, []) }
        let thread = Thread { [self] in
            while state.withLock({ $0.running }) {
                let bytes = Self.residentBytes()
                state.withLock { state in
                    state.samples.append(.init(seconds: (ContinuousClock.now - state.start).seconds,
                                               bytes: max(0, bytes - state.baseline)))
                }
                Thread.sleep(forTimeInterval: 0.01)
            }
            finished.withLock { $0 = true }
        }
        thread.name = "memory-sampler"
        thread.start()
    }

    /// Stops sampling and returns the samples.
    func stop() -> [StacksExperiment.MemorySample] {
        let bytes = Self.residentBytes()
        return state.withLock { state in
            state.running = false
            state.samples.append(.init(seconds: (ContinuousClock.now - state.start).seconds, bytes: max(0, bytes - state.baseline)))
            return state.samples
        }
    }
}

/// Measures how late the main actor runs a tick it asked for every 5 ms: the stall a user
/// would feel while work runs elsewhere.
@MainActor
final class LatenessProbe {
    private var task: Task<[Double], Never>?
    private var running = false

    /// Starts ticking on the main actor.
    func start() {
        running = true
        task = Task { @MainActor [weak self] in
            var lateness: [Double] = []
            let clock = ContinuousClock()
            while self?.running == true {
                let due = clock.now + .milliseconds(5)
                try? await Task.sleep(until: due, clock: clock)
                lateness.append(max(0, (clock.now - due).seconds * 1000))
            }
            return lateness
        }
    }

    /// Stops ticking and returns each tick's lateness in milliseconds.
    func stop() async -> [Double] {
        running = false
        return await task?.value ?? []
    }
}
