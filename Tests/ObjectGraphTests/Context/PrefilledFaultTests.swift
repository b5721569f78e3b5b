import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// A default fetch leaves each row's values in its fault's own slots; the fault fires
/// without a copy or a statement unless a change through the coordinator reached its row
/// since, which the row cache's change log tells.
@MainActor
struct PrefilledFaultTests {
    let coordinator: PersistentStoreCoordinator
    let writer: MainContext
    let reader: MainContext

    init() throws {
        coordinator = try TestModel.coordinator()
        writer = MainContext(coordinator: coordinator)
        reader = MainContext(coordinator: coordinator)
        for label in ["apple", "bean", "cumin"] { try writer.insert("Tag")["label"] = label }
        try writer.save()
    }

    /// The reader's tags from a default fetch, in label order, and the writer's copies.
    func fetchTags() throws -> (read: [ManagedObject], written: [ManagedObject]) {
        let request = FetchRequest(entityName: "Tag", sortKeys: [SortKey("label")])
        return (try reader.fetch(request), try writer.fetch(request))
    }

    /// What reading `key` of `object` cost the reader, and the value read.
    func read(_ object: ManagedObject, _ key: String = "label") -> (value: String?, cost: ContextStatistics) {
        let before = reader.statistics
        let value = object[key] as? String
        return (value, reader.statistics - before)
    }

    @Test("A fetched fault holds its values: firing it runs no statement and caches no row")
    func firesFromItsOwnSlots() throws {
        let (tags, _) = try fetchTags()
        #expect(tags.allSatisfy { $0.isFault })
        #expect(coordinator.rowCache.count == 0)
        let (label, cost) = read(tags[1])
        #expect(label == "bean")
        #expect(cost.statements == 0 && cost.faultsFired == 1)
        #expect(!tags[1].isFault && tags[0].isFault)
    }

    @Test("A populated fetch fills the fetched faults it meets with their rows, replacing the values they held")
    func aPopulatedFetchRefillsFaults() throws {
        let (tags, written) = try fetchTags()
        written[0]["label"] = "almond"
        try writer.save()
        var populated = FetchRequest(entityName: "Tag", sortKeys: [SortKey("label")])
        populated.returnsObjectsAsFaults = false
        let before = reader.statistics
        let refetched = try reader.fetch(populated)
        #expect(refetched.map(ObjectIdentifier.init) == tags.map(ObjectIdentifier.init))
        #expect(refetched.allSatisfy { !$0.isFault })
        #expect(refetched.map { $0["label"] as? String } == ["almond", "bean", "cumin"])
        #expect((reader.statistics - before).statements == 1)
    }

    @Test("Another context's save reaches the faults of the rows it changed, and only those")
    func aSaveElsewhereReloadsTheRowsItChanged() throws {
        let (tags, written) = try fetchTags()
        written[0]["label"] = "almond"
        try writer.save()
        let changed = read(tags[0])
        #expect(changed.value == "almond")
        #expect(changed.cost.statements == 1)
        let unchanged = read(tags[2])
        #expect(unchanged.value == "cumin")
        #expect(unchanged.cost.statements == 0)
    }

    @Test("A save on a background context's queue reaches the main context's fetched faults")
    func aBackgroundSaveIsSeen() async throws {
        let (tags, written) = try fetchTags()
        let id = written[2].objectID
        try await PrivateContext(coordinator: coordinator).perform { context in
            context.object(with: id)["label"] = "coriander"
            try context.save()
        }
        #expect(read(tags[2]).value == "coriander")
        #expect(read(tags[0]).cost.statements == 0)
    }

    @Test("A deletion elsewhere makes the fetched fault inaccessible, not a ghost of the row")
    func aDeletionElsewhereIsSeen() throws {
        let (tags, written) = try fetchTags()
        writer.delete(written[1])
        try writer.save()
        #expect(tags[1]["label"] == nil)
        #expect(tags[1].isInaccessible)
    }

    @Test("A batch update reaches fetched faults")
    func aBatchUpdateIsSeen() throws {
        let (tags, _) = try fetchTags()
        try writer.execute(BatchUpdateRequest(entityName: "Tag", predicate: try FetchPredicate("label == 'cumin'"),
                                              propertiesToUpdate: ["label": "caraway"]))
        #expect(read(tags[2]).value == "caraway")
        #expect(read(tags[0]).cost.statements == 0)
    }

    @Test("When the log cannot list the changes, every fetched fault loads its row again")
    func anUnlistedChangeReloadsEveryFault() throws {
        let (tags, _) = try fetchTags()
        try coordinator.sqliteStore.perform { try $0.execute(#"UPDATE "Tag" SET "label" = upper("label")"#) }
        coordinator.rowCache.removeAll()  // what a count-only batch request does: any row may have changed
        #expect(tags.map { read($0).value } == ["APPLE", "BEAN", "CUMIN"])
    }

    @Test("Moving a fetched fault after another context changed its row saves, and reads the latest row")
    func aFaultMovedAfterAChangeElsewhere() throws {
        let recipe = try writer.insert("Recipe")
        recipe["name"] = "Soup"
        let line = try writer.insert("Line")
        line["text"] = "salt"
        line["position"] = 1
        try line.setValue(recipe, forKey: "recipe")
        let other = try writer.insert("Recipe")
        other["name"] = "Stew"
        try writer.save()

        let lines = try reader.fetch(FetchRequest(entityName: "Line"))
        let stew = try reader.existingObject(with: other.objectID)
        #expect(lines[0].isFault)
        // Another context changes the line's text after the fetch; the reader moves the line,
        // which sets its to-one while it is still a fault.
        line["text"] = "sea salt"
        try writer.save()
        try stew.add(lines[0], toKey: "lines")
        try reader.save()
        #expect(lines[0]["text"] as? String == "sea salt")
        #expect((lines[0]["recipe"] as? ManagedObject) === stew)
    }

    @Test("A nested context's fetched faults load through their parent's unsaved changes")
    func nestedFaultsSeeTheirParent() throws {
        let (tags, _) = try fetchTags()
        tags[0]["label"] = "apricot"  // unsaved in the reader
        let child = MainContext(parent: reader)
        let seen = try child.fetch(FetchRequest(entityName: "Tag", sortKeys: [SortKey("label")]))
        #expect(!seen.contains { $0.headerPointer.pointee.values == .prefilled })
        #expect(seen.compactMap { $0["label"] as? String }.sorted() == ["apricot", "bean", "cumin"])
    }

    @Test("The change log lists the rows changed after a given change, until it overflows")
    func theLogListsRecentChanges() {
        let cache = RowCache()
        let start = cache.latestChange
        let first = (Int64(1)...3).map { ObjectID(entityIndex: 0, key: $0) }
        cache.remove(first)
        #expect(cache.changes(since: start).ids == first)
        #expect(cache.changes(since: cache.latestChange).ids == [])
        // One change more than the log holds with the first: the first is forgotten.
        let many = (Int64(10)..<10 + 65_535).map { ObjectID(entityIndex: 0, key: $0) }
        let beforeMany = cache.latestChange
        cache.remove(many)
        #expect(cache.changes(since: beforeMany).ids?.count == many.count)
        #expect(cache.changes(since: start).ids == nil, "the first change was forgotten")
        // Many small changes: the oldest are dropped as they pass the log's capacity.
        for key in Int64(1)...70_000 { cache.remove([ObjectID(entityIndex: 2, key: key)]) }
        let recent = cache.changes(since: cache.latestChange - 3).ids
        #expect(recent == [70_000, 69_999, 69_998].map { ObjectID(entityIndex: 2, key: $0) })
        #expect(cache.changes(since: cache.latestChange - 65_536).ids?.count == 65_536)
        #expect(cache.changes(since: cache.latestChange - 65_537).ids == nil)
        cache.removeAll()
        #expect(cache.changes(since: cache.latestChange - 1).ids == nil)
    }

    @Test("The change log lets go of forgotten IDs at once, not only when it drops old entries in bulk")
    func theLogFreesForgottenIDs() {
        let cache = RowCache()
        // An import's saves: a few hundred changes of thousands of rows each.
        for change in Int64(0)..<300 {
            cache.remove((change * 10_000..<change * 10_000 + 8_000).map { ObjectID(entityIndex: 0, key: $0) })
        }
        #expect(cache.loggedIDCount <= 65_536 + 8_000)
        #expect(cache.changes(since: cache.latestChange - 8).ids?.count == 64_000)
    }
}
