import Testing
@testable import ObjectGraph

/// The row cache agrees with a dictionary of rows through fetches, replacements, removals,
/// compaction and starting over at its limit.
struct RowCacheTests {
    /// A row of `width` values that names its ID and a version, so a stale row shows.
    static func row(_ id: ObjectID, width: Int, version: Int) -> [StoredValue] {
        [.integer(id.key), .integer(Int64(id.entityIndex))] + (2..<width).map { column in
            column == 2 ? .text("row \(id.key) v\(version)") : .integer(Int64(version * 100 + column))
        }
    }

    @Test("Lookups after stores, replacements and removals match a dictionary", arguments: [3, 11, 58])
    func matchesDictionary(seed: UInt64) {
        let cache = RowCache(limit: 5_000)
        var expected: [ObjectID: [StoredValue]] = [:]
        var random = SeededGenerator(seed: seed)
        for round in 0..<400 {
            switch random.next() % 3 {
            case 0, 1:
                // A fetch: up to 300 consecutive keys of one entity (two tables of different widths).
                let entity = Int(random.next() % 2), width = entity == 0 ? 4 : 6
                let first = Int64(random.next() % 3_000) - 500, count = Int64(random.next() % 300)
                var batch = RowCache.Batch(width: width)
                var rows: [ObjectID: [StoredValue]] = [:]
                for key in first..<first + count {
                    let id = ObjectID(entityIndex: entity, key: key), values = Self.row(id, width: width, version: round)
                    batch.append(id) { values[$0] }
                    rows[id] = values
                }
                cache.store(batch)
                if expected.count + rows.count > 5_000 { expected = [:] }
                expected.merge(rows) { _, new in new }
            default:
                // A save: scattered rows go, some of them not cached at all.
                for _ in 0..<Int(random.next() % 400) {
                    let id = ObjectID(entityIndex: Int(random.next() % 2), key: Int64(random.next() % 3_000) - 500)
                    cache.remove([id])
                    expected[id] = nil
                }
            }
            #expect(cache.count == expected.count)
        }
        for entity in 0..<2 {
            for key in Int64(-500)..<2_800 {
                let id = ObjectID(entityIndex: entity, key: key)
                #expect(cache.row(for: id) == expected[id], "row \(id)")
            }
        }
    }

    @Test("A fetch past the limit starts the cache over with all of its rows")
    func startsOverAtTheLimit() {
        let cache = RowCache(limit: 100)
        var small = RowCache.Batch(width: 3)
        let kept = ObjectID(entityIndex: 0, key: 1)
        small.append(kept) { Self.row(kept, width: 3, version: 0)[$0] }
        cache.store(small)
        var large = RowCache.Batch(width: 3)
        for key in Int64(1_000)..<1_250 {
            let id = ObjectID(entityIndex: 0, key: key)
            large.append(id) { Self.row(id, width: 3, version: 1)[$0] }
        }
        cache.store(large)
        #expect(cache.count == 250)
        #expect(cache.row(for: kept) == nil)
        #expect(cache.row(for: ObjectID(entityIndex: 0, key: 1_249)) == Self.row(ObjectID(entityIndex: 0, key: 1_249), width: 3, version: 1))
    }

    @Test("Once most values belong to removed rows, the live rows are packed together and still read back")
    func compactsDeadRows() {
        let cache = RowCache(limit: 100_000)
        var batch = RowCache.Batch(width: 5)
        for key in Int64(1)...3_000 {
            let id = ObjectID(entityIndex: 0, key: key)
            batch.append(id) { Self.row(id, width: 5, version: 0)[$0] }
        }
        cache.store(batch)
        #expect(cache.storedValueCount == 9_000, "three values a row: key and entity are not kept")
        cache.remove((1...2_000).map { ObjectID(entityIndex: 0, key: Int64($0) * 3 / 2) })
        #expect(cache.count == 1_000 + 2_000 - Set((1...2_000).map { $0 * 3 / 2 }).count)
        #expect(cache.storedValueCount == cache.count * 3)
        for key in Int64(1)...3_000 {
            let id = ObjectID(entityIndex: 0, key: key)
            let removed = (1...2_000).contains { Int64($0) * 3 / 2 == key }
            #expect(cache.row(for: id) == (removed ? nil : Self.row(id, width: 5, version: 0)))
        }
    }

    @Test("Temporary IDs are never cached, and the same key of another entity is another row")
    func idsAreExact() {
        let cache = RowCache(limit: 100)
        let id = ObjectID(entityIndex: 2, key: 7)
        var batch = RowCache.Batch(width: 3)
        batch.append(id) { Self.row(id, width: 3, version: 0)[$0] }
        cache.store(batch)
        #expect(cache.row(for: ObjectID(entityIndex: 2, key: 7, temporaryTag: 1)) == nil)
        #expect(cache.row(for: ObjectID(entityIndex: 3, key: 7)) == nil)
        #expect(cache.row(for: id) == Self.row(id, width: 3, version: 0))
    }

    @Test("A fetch's rows that a change touched after the fetch began are not cached: the fetch may have read them before it")
    func rowsChangedDuringTheFetchStayOut() {
        let cache = RowCache(limit: 100)
        let (changed, untouched) = (ObjectID(entityIndex: 0, key: 1), ObjectID(entityIndex: 0, key: 2))
        func fetched() -> RowCache.Batch {
            var batch = RowCache.Batch(width: 3)
            for id in [changed, untouched] { batch.append(id) { Self.row(id, width: 3, version: 0)[$0] } }
            return batch
        }
        // A save removes `changed` between the fetch's read and its rows' arrival.
        var seen = cache.latestChange
        cache.remove([changed])
        cache.store(fetched(), readAfter: seen)
        #expect(cache.row(for: changed) == nil)
        #expect(cache.row(for: untouched) == Self.row(untouched, width: 3, version: 0))
        // A change that named no rows (a count-only batch request): none of the fetch's rows stay.
        cache.removeAll()
        seen = cache.latestChange
        cache.removeAll()
        cache.store(fetched(), readAfter: seen)
        #expect(cache.count == 0)
        // A change before the fetch began keeps nothing out.
        cache.remove([changed])
        cache.store(fetched(), readAfter: cache.latestChange)
        #expect(cache.count == 2)
    }
}

extension RowCache {
    /// Adds `batch` as a fetch does that no change overtook.
    func store(_ batch: Batch) { store(batch, readAfter: latestChange) }

    /// The cached row of `id` as an array, read through ``withRow(for:_:)``.
    func row(for id: ObjectID) -> Row? {
        withRow(for: id) { width, column in (0..<width).map(column) }
    }
}
