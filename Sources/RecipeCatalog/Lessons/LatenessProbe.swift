import Dispatch

/// Measures how responsive the main actor is: a timer on the main queue ticks every few
/// milliseconds and records how late each tick ran (the shell's `.stats` and
/// `recipes bench stacks` print the percentiles).
///
/// On Linux the main actor is the main dispatch queue (served by a libdispatch worker
/// thread, not the process's main thread), so a main-queue timer is late by exactly the
/// time other main-actor work held that queue: a long merge, a slow command, a stall. A
/// `Task.sleep` loop would also wait for a free thread of the cooperative pool, and so
/// measure the pool rather than the main actor.
///
/// Each tick costs a clock read and one histogram increment (``LatenessHistogram``):
/// memory stays fixed however long the shell runs. When ticks are missed because the
/// queue was busy, the one late tick records the whole delay and the schedule moves on.
///
/// ```swift
/// let probe = LatenessProbe()
/// probe.start()
/// // … work …
/// let summary = probe.summary      // ticks, p50, p99, worst
/// probe.reset()
/// ```
@MainActor public final class LatenessProbe {
    /// The time between two ticks.
    public let period: Duration
    private var histogram = LatenessHistogram()
    /// When the next tick is due, in `DispatchTime` uptime nanoseconds.
    private var due: UInt64 = 0
    private var timer: (any DispatchSourceTimer)?

    /// Creates a stopped probe ticking every `period` once started.
    public init(period: Duration = .milliseconds(5)) { self.period = period }

    /// Starts ticking (again after ``stop()``: the time it was stopped is not counted as
    /// lateness); calls while it ticks do nothing.
    public func start() {
        guard timer == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: .main)
        due = DispatchTime.now().uptimeNanoseconds + periodNanoseconds
        timer.schedule(deadline: DispatchTime(uptimeNanoseconds: due), repeating: .nanoseconds(Int(periodNanoseconds)),
                       leeway: .nanoseconds(0))
        // The handler runs on the main queue, which is the main actor's executor; saying
        // so explicitly makes a wrong queue trap instead of racing.
        timer.setEventHandler { [weak self] in
            MainActor.assumeIsolated { self?.tick(at: DispatchTime.now().uptimeNanoseconds) }
        }
        timer.resume()
        self.timer = timer
    }

    /// Whether the probe is ticking (started and not stopped since).
    public var isRunning: Bool { timer != nil }

    /// Stops ticking; the samples stay.
    public func stop() {
        timer?.cancel()
        timer = nil
    }

    /// Records the tick that ran at `now` (uptime nanoseconds) and schedules the next due time.
    func tick(at now: UInt64) {
        histogram.record(microseconds: now > due ? (now - due) / 1_000 : 0)
        repeat { due += periodNanoseconds } while due <= now  // missed ticks are folded into this one
    }

    /// Forgets the samples so far (`.stats reset`).
    public func reset() { histogram.reset() }

    /// The samples since the last reset.
    public var summary: LatenessSummary {
        LatenessSummary(ticks: histogram.count, p50: histogram.percentile(50), p99: histogram.percentile(99),
                        worst: histogram.worst)
    }

    private var periodNanoseconds: UInt64 {
        UInt64(period.components.seconds) * 1_000_000_000 + UInt64(period.components.attoseconds / 1_000_000_000)
    }

    isolated deinit { timer?.cancel() }
}

/// Percentiles of a ``LatenessProbe``, in microseconds.
public struct LatenessSummary: Sendable, Equatable {
    /// Ticks recorded.
    public var ticks: Int
    /// Median, 99th percentile and largest lateness, in microseconds.
    public var p50: UInt64, p99: UInt64, worst: UInt64

    /// Creates a summary.
    public init(ticks: Int, p50: UInt64, p99: UInt64, worst: UInt64) {
        self.ticks = ticks
        self.p50 = p50
        self.p99 = p99
        self.worst = worst
    }
}
