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
    // A new peak starts from the objects alive now, not from the old high-water mark. Other
    // suites' objects count too, and a fetch there makes thousands at once: one right after
    // the reset raises the peak past the old one. So the reset is tried again until the peak
    // reads below the old one, which is at once unless other work keeps that many alive.
    var restarted = false
    for _ in 0..<1_000 where !restarted {
        ContextStatistics.resetPeakLiveObjects()
        let now = context.statistics
        restarted = now.peakLiveObjects < after.peakLiveObjects || now.liveObjects >= after.peakLiveObjects
            || after.liveObjects >= 2_000
    }
    #expect(restarted, "after a reset the peak stayed at or above the old one, \(after.peakLiveObjects)")
}

/// A fetch counts the objects it makes once, after its last row: the context's
/// `objectsCreated` and the process's peak still see every one of them, whether the fetch
/// fills them or leaves them faults, and objects it finds registered are not counted again.
@MainActor
@Test("A fetch counts each object it makes, once")
func fetchCountsTheObjectsItMakes() throws {
    let context = MainContext(coordinator: try TestModel.coordinator())
    for index in 0..<1_500 { try context.insert("Tag")["label"] = "tag \(index)" }
    try context.save()
    context.reset()
    for faults in [false, true] {
        var request = FetchRequest(entityName: "Tag")
        request.returnsObjectsAsFaults = faults
        ContextStatistics.resetPeakLiveObjects()
        let before = context.statistics
        let tags = try context.fetch(request)
        #expect((context.statistics - before).objectsCreated == 1_500)
        #expect(context.statistics.peakLiveObjects >= 1_500)
        _ = try context.fetch(request)  // every row is registered now: nothing new
        #expect((context.statistics - before).objectsCreated == 1_500)
        withExtendedLifetime(tags) {}
        context.reset()
    }
}
