/// An open-addressing table from row key to an unretained object: the registry of one
/// table's objects in one context.
///
/// Entries do not retain their objects; an object removes its entry in `deinit`
/// (``ManagedObject``), which is how a context holds unchanged objects weakly without the
/// cost of Swift `weak` references. Keys are hashed in blocks of 16, so consecutive row
/// keys share a cache line group; linear probing, at most 3/4 full, backward-shift deletion.
/// Measured against a dictionary and `weak` references, it keeps fetches close to raw SQLite.
///
/// The entries live in a ``Buffer`` that frees them when the last table value holding it
/// goes away; a table value also keeps the buffer's pointer for lookups without an extra
/// indirection. A copy of a table is therefore safe (it keeps its buffer alive) though not
/// independent: only the value stored in the context is ever mutated.
struct ObjectTable {
    private struct Entry {
        var key: Int64
        var object: Unmanaged<ManagedObject>?
    }

    /// Owns the entries' memory.
    private final class Buffer {
        let entries: UnsafeMutablePointer<Entry>
        let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            entries = .allocate(capacity: capacity)
            entries.initialize(repeating: Entry(key: ObjectTable.empty, object: nil), count: capacity)
        }

        deinit {
            // Entries never retained their objects, so there is nothing to release.
            entries.deallocate()
        }
    }

    private static let empty = Int64.min
    private var buffer: Buffer
    private var entries: UnsafeMutablePointer<Entry>
    private var capacity: Int
    private var shift: Int
    private(set) var count = 0

    init(capacity requested: Int = 64) {
        var capacity = 64
        while capacity * 3 / 4 < requested { capacity *= 2 }
        self.capacity = capacity
        self.shift = 64 - capacity.trailingZeroBitCount + 4
        buffer = Buffer(capacity: capacity)
        entries = buffer.entries
    }

    @inline(__always)
    private func home(of key: Int64) -> Int {
        let group = Int(truncatingIfNeeded: (UInt64(bitPattern: key >> 4) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))
        return (group << 4 | Int(key & 15)) & (capacity - 1)
    }

    /// The object registered under `key`, if any.
    @inline(__always)
    func object(forKey key: Int64) -> ManagedObject? {
        var index = home(of: key)
        while true {
            let entry = entries[index]
            if entry.key == key { return entry.object?.takeUnretainedValue() }
            if entry.key == Self.empty { return nil }
            index = (index + 1) & (capacity - 1)
        }
    }

    /// Registers `object` under `key`, replacing any entry; returns the object it replaced.
    @discardableResult
    mutating func insert(_ object: ManagedObject, forKey key: Int64) -> ManagedObject? {
        if (count + 1) * 4 > capacity * 3 { grow() }
        var index = home(of: key)
        while true {
            if entries[index].key == key {
                let previous = entries[index].object?.takeUnretainedValue()
                entries[index].object = .passUnretained(object)
                return previous
            }
            if entries[index].key == Self.empty {
                entries[index] = Entry(key: key, object: .passUnretained(object))
                count += 1
                return nil
            }
            index = (index + 1) & (capacity - 1)
        }
    }

    /// Removes the entry for `key` if it holds `object` (a newer object may have replaced it).
    mutating func remove(_ key: Int64, ifObject object: ManagedObject) {
        var index = home(of: key)
        while true {
            let entry = entries[index]
            if entry.key == Self.empty { return }
            if entry.key == key {
                guard entry.object?.toOpaque() == Unmanaged.passUnretained(object).toOpaque() else { return }
                removeEntry(at: index)
                return
            }
            index = (index + 1) & (capacity - 1)
        }
    }

    /// Backward-shift deletion: pulls later entries of the probe run into the hole.
    private mutating func removeEntry(at start: Int) {
        var hole = start
        var index = (hole + 1) & (capacity - 1)
        while entries[index].key != Self.empty {
            let wanted = home(of: entries[index].key)
            // Move the entry if its home is not within (hole, index].
            let distanceToHole = (index - wanted) & (capacity - 1)
            let distanceToIndex = (index - hole) & (capacity - 1)
            if distanceToHole >= distanceToIndex {
                entries[hole] = entries[index]
                hole = index
            }
            index = (index + 1) & (capacity - 1)
        }
        entries[hole] = Entry(key: Self.empty, object: nil)
        count -= 1
    }

    /// Calls `body` with every registered object.
    func forEach(_ body: (ManagedObject) -> Void) {
        for index in 0..<capacity where entries[index].key != Self.empty {
            if let object = entries[index].object { body(object.takeUnretainedValue()) }
        }
    }

    private mutating func grow() {
        let oldBuffer = buffer, oldEntries = entries, oldCapacity = capacity
        capacity *= 2
        shift -= 1
        buffer = Buffer(capacity: capacity)
        entries = buffer.entries
        count = 0
        for index in 0..<oldCapacity where oldEntries[index].key != Self.empty {
            var slot = home(of: oldEntries[index].key)
            while entries[slot].key != Self.empty { slot = (slot + 1) & (capacity - 1) }
            entries[slot] = oldEntries[index]
            count += 1
        }
        withExtendedLifetime(oldBuffer) {}
    }
}
