import Testing
@testable import ObjectGraph

/// The registry table agrees with a dictionary through inserts, replacements and removals,
/// including keys that come back after their entry was removed.
struct ObjectTableTests {
    /// Unregistered objects of a one-entity model (no context: their deinit touches no table).
    static func objects(_ count: Int) throws -> [ManagedObject] {
        let model = try ObjectModel(entities: [EntityDescription("Item", attributes: [AttributeDescription("n", .integer64)])])
        let entity = model.entities[0]
        return (0..<count).map { key in
            ManagedObject.make(entity: entity, id: ObjectID(entityIndex: 0, key: Int64(key)), context: nil, state: .clean)
        }
    }

    @Test("Lookups, find-or-inserts, replacements and removals match a dictionary over many directory rebuilds", arguments: [1, 7, 42])
    func matchesDictionary(seed: UInt64) throws {
        let pool = try Self.objects(600)
        var table = ObjectTable()
        var expected: [Int64: ObjectIdentifier] = [:]
        var random = SeededGenerator(seed: seed)
        for _ in 0..<40_000 {
            // Keys in a narrow range, so removed keys return and blocks of consecutive keys fill.
            let key = Int64(random.next() % 2_000) - 300
            let object = pool[Int(random.next() % UInt64(pool.count))]
            switch random.next() % 4 {
            case 0:
                let previous = table.insert(object, forKey: key)
                #expect(previous.map { ObjectIdentifier($0.takeUnretainedValue()) } == expected[key])
                expected[key] = ObjectIdentifier(object)
            case 1:
                // Removes only when the entry holds that object, as an object's deinit does.
                table.remove(key, ifObject: object)
                if expected[key] == ObjectIdentifier(object) { expected[key] = nil }
            case 2:
                // Find-or-insert makes an object only for a key with no live entry (a removed
                // key's tombstone included), and then registers it.
                var made = 0
                let (found, inserted) = table.object(forKey: key) { made += 1; return object }
                if let registered = expected[key] {
                    #expect(!inserted && made == 0 && ObjectIdentifier(found) == registered)
                } else {
                    #expect(inserted && made == 1 && found === object)
                    expected[key] = ObjectIdentifier(object)
                }
            default:
                #expect(table.object(forKey: key).map(ObjectIdentifier.init) == expected[key])
            }
        }
        #expect(table.count == expected.count)
        for key in Int64(-300)..<1_700 {
            #expect(table.object(forKey: key).map(ObjectIdentifier.init) == expected[key])
        }
        var seen = 0
        let registered = Set(expected.values)
        table.forEach { object in
            seen += 1
            #expect(registered.contains(ObjectIdentifier(object)))
        }
        #expect(seen == expected.count)
        withExtendedLifetime(pool) {}
    }

    @Test("Removing every entry and inserting again over ever larger keys keeps the pages bounded")
    func churnDoesNotGrowWithoutBound() throws {
        let pool = try Self.objects(1_000)
        var table = ObjectTable()
        for round in 0..<50 {
            let base = Int64(round * 1_000)
            for (offset, object) in pool.enumerated() { table.insert(object, forKey: base + Int64(offset)) }
            #expect(table.count == 1_000)
            for (offset, object) in pool.enumerated() { table.remove(base + Int64(offset), ifObject: object) }
            #expect(table.count == 0)
            #expect(table.object(forKey: base) == nil)
        }
        // 1,000 keys fill 32 pages a round; emptied pages go when the directory is rebuilt.
        #expect(table.capacity <= 128)
        #expect(table.pageCount * 4 <= table.capacity * 3)
        withExtendedLifetime(pool) {}
    }

    @Test("Consecutive keys share pages; scattered keys take a page each")
    func pagesFollowTheKeys() throws {
        let pool = try Self.objects(64)
        var dense = ObjectTable(), sparse = ObjectTable()
        for (offset, object) in pool.enumerated() {
            dense.insert(object, forKey: 1_000 + Int64(offset))
            sparse.insert(object, forKey: Int64(offset) * 1_000_003 - 20_000_000)
        }
        #expect(dense.pageCount == 3 && dense.count == 64)  // keys 1,000...1,063: pages 31, 32 and 33
        #expect(sparse.pageCount == 64 && sparse.count == 64)
        for (offset, object) in pool.enumerated() {
            #expect(dense.object(forKey: 1_000 + Int64(offset)) === object)
            #expect(sparse.object(forKey: Int64(offset) * 1_000_003 - 20_000_000) === object)
            #expect(sparse.object(forKey: Int64(offset) * 1_000_003 - 20_000_001) == nil)
        }
        withExtendedLifetime(pool) {}
    }

    @Test("Emptying a small table keeps its directory and forgets every entry; a large one starts over")
    func removeAllKeepsSmallCapacity() throws {
        let pool = try Self.objects(1_000)
        var table = ObjectTable()
        for (key, object) in pool.enumerated() { table.insert(object, forKey: Int64(key)) }
        let grown = table.capacity
        #expect(grown > ObjectTable().capacity && table.pageCount == 32)
        table.removeAll()
        #expect(table.count == 0 && table.pageCount == 0 && table.capacity == grown)
        for key in 0..<1_000 { #expect(table.object(forKey: Int64(key)) == nil) }
        var seen = 0
        table.forEach { _ in seen += 1 }
        #expect(seen == 0)
        // Filled again, the table needs no growth and finds the new entries.
        for (key, object) in pool.reversed().enumerated() { table.insert(object, forKey: Int64(key)) }
        #expect(table.capacity == grown && table.count == 1_000)
        #expect(table.object(forKey: 0) === pool[999])

        var large = ObjectTable(capacity: 40_000)
        large.insert(pool[0], forKey: 1)
        large.removeAll()
        #expect(large.count == 0 && large.capacity == ObjectTable().capacity)
        withExtendedLifetime(pool) {}
    }
}
