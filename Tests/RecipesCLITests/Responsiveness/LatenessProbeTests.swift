import Testing
@testable import RecipeCatalog
@testable import recipes

/// The lateness histogram's buckets and percentiles, and the probe's bookkeeping of ticks.
@Suite("LatenessProbe")
struct LatenessProbeTests {
    @Test("Values below 64 µs have buckets of their own", arguments: [0, 1, 17, 63] as [UInt64])
    func exactBuckets(value: UInt64) {
        let bucket = LatenessHistogram.bucket(of: value)
        #expect(LatenessHistogram.upperBound(of: bucket) == value)
    }

    @Test("Larger values land in a bucket at most about 3 % wide that holds them",
          arguments: [64, 65, 100, 1_000, 4_999, 16_000, 1_234_567, UInt64(1) << 40, UInt64.max] as [UInt64])
    func logBuckets(value: UInt64) {
        let bucket = LatenessHistogram.bucket(of: value)
        let upper = LatenessHistogram.upperBound(of: bucket)
        #expect(upper >= value)
        #expect(Double(upper - value) <= Double(value) / 32)
        #expect(bucket == 0 || LatenessHistogram.upperBound(of: bucket - 1) < value)
    }

    @Test("Percentiles come from the samples; the worst is exact; reset forgets them")
    func percentiles() {
        var histogram = LatenessHistogram()
        for value in 1...100 { histogram.record(microseconds: UInt64(value)) }
        histogram.record(microseconds: 12_345)
        #expect(histogram.count == 101)
        #expect(histogram.percentile(50) == 51)
        #expect(histogram.percentile(99) == 101)  // 100 shares the bucket 100...101
        #expect(histogram.percentile(100) == 12_345)
        #expect(histogram.worst == 12_345)
        histogram.reset()
        #expect(histogram.count == 0 && histogram.percentile(50) == 0 && histogram.worst == 0)
    }

    @Test("A late tick records its delay once, and the schedule skips the ticks it missed")
    @MainActor func ticks() {
        let probe = LatenessProbe(period: .milliseconds(5))  // not started: the first tick is due at 0
        probe.tick(at: 3_000_000)     // 3 ms late; next due at 5 ms
        probe.tick(at: 5_000_000)     // on time; next due at 10 ms
        probe.tick(at: 27_000_000)    // 17 ms late (the ticks due at 15, 20, 25 ms were missed)
        probe.tick(at: 30_400_000)    // 0.4 ms late: due at 30 ms, not 15
        let summary = probe.summary
        #expect(summary.ticks == 4)
        #expect(summary.worst == 17_000)
        #expect(summary.p50 >= 400 && summary.p50 <= 400 + 400 / 32)
        probe.reset()
        #expect(probe.summary == LatenessSummary(ticks: 0, p50: 0, p99: 0, worst: 0))
    }

    @Test("The shell's probe ticks while a background job runs, and an idle shell runs no timer")
    @MainActor func shellProbeRunsOnlyWhileBusy() async throws {
        let shell = RecipeShell(catalog: try Catalog.inMemory(), location: ":memory:", isDeterministic: true)
        #expect(!shell.probe.isRunning)
        let output = CapturedOutput()
        let context = CommandContext(output: output, interrupt: .never, notes: DeferredNotes(), location: nil,
                                     mode: .standardInput, isDeterministic: true, scriptRunner: { _ in .ok })
        _ = try await shell.execute("count Recipe", context: context)
        #expect(!shell.probe.isRunning, "a command that ended left the probe ticking")
        // The job ends on the main actor, which this test holds until it awaits.
        _ = try await shell.execute("import \(ShellCommandTests.sample) --background --batch 20", context: context)
        #expect(shell.runningJob != nil && shell.probe.isRunning)
        _ = await shell.finishJobs(cancelling: false, output: output)
        #expect(shell.runningJob == nil && !shell.probe.isRunning)
        #expect(shell.probe.summary.ticks > 0, "the probe did not tick while the job ran")
    }

    @Test("The summary reads in milliseconds")
    func description() {
        let summary = LatenessSummary(ticks: 12_345, p50: 41, p99: 1_310, worst: 14_250)
        #expect(summary.description == "p50 0.041 ms  p99 1.31 ms  worst 14.2 ms  (12,345 ticks)")
    }
}
