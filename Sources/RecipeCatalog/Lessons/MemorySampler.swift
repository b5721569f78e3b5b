import Foundation
import ObjectGraph

/// Samples the process's resident memory on a thread of its own, every 10 ms, relative to
/// what it was at ``start()``.
final class MemorySampler: Sendable {
    private let state = Locked<(running: Bool, baseline: Int, start: ContinuousClock.Instant, samples: [StacksExperiment.MemorySample])>(
        (false, 0, .now, []))
    private let finished = Locked<Bool>(false)

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
