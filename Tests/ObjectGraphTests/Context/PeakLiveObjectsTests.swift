import Testing
@testable import ObjectGraph

/// `ContextStatistics.peakLiveObjects`: the most objects alive at once since the last reset.
///
/// The gauge is process-wide and other suites create objects in parallel, so the checks
/// are bounds that hold whatever else runs: objects this test held at once raise the peak
/// to at least their number, and the peak is never below the live count.
@MainActor
@Test("The peak of live objects rises with objects held at once and restarts from the live count")
func peakLiveObjectsFollowsObjectsHeldAtOnce() throws {
    let context = MainContext(coordinator: try TestModel.coordinator())
    ContextStatistics.resetPeakLiveObjects()
    let start = context.statistics
    #expect(start.peakLiveObjects >= start.liveObjects)
    do {
        var held: [ManagedObject] = []
        for index in 0..<2_000 {
            let tag = try context.insert("Tag")
            tag["label"] = "tag \(index)"
            held.append(tag)
        }
        #expect(context.statistics.peakLiveObjects >= 2_000)
        context.rollback()  // the inserted tags are discarded; `held` is the last reference
    }
    let after = context.statistics
    #expect(after.peakLiveObjects >= 2_000, "the 2,000 tags were alive at once")
    #expect(after.peakLiveObjects >= after.liveObjects)
    // A new peak starts from the objects alive now, not from the old high-water mark.
    ContextStatistics.resetPeakLiveObjects()
    #expect(context.statistics.peakLiveObjects < after.peakLiveObjects || after.liveObjects >= 2_000)
}
