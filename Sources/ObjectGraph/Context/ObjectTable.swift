/// An open-addressing table from row key to an unretained object: the registry of one
/// table's objects in one context.
///
/// Entries do not retain their objects; an object removes its entry in `deinit`
/// (``ManagedObject``), which is how a context holds unchanged objects weakly without the
/// cost of Swift `weak` references. Keys are hashed in blocks of 16, so consecutive row
/// keys share a cache line group; linear probing, at most 3/4 full (counting tombstones).
/// Measured against a dictionary and `weak` references, it keeps fetches close to raw SQLite.
///
/// A removed entry becomes a tombstone (its key stays, its object is nil), so a removal
/// costs one probe. Backward-shift deletion walked the whole run of occupied entries after
/// the hole on every removal, and blocks of consecutive keys make those runs long: a save
/// that let go of 1,000 objects spent about 600 instructions per object there. Tombstones
/// are dropped when the table is rebuilt, which an insert does when live entries and
/// tombstones reach 3/4 of the capacity.
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
    private(set) var capacity: Int
    private var shift: Int
    /// Live entries.
    private(set) var count = 0
    /// Live entries and tombstones: what lookups probe over.
    private var used = 0

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

    /// The object registered under `key`, or, when there is none, the one `make` returns,
    /// registered under it (`inserted` tells which). A fetch's row costs one probe this way,
    /// where a lookup and then an insert cost two.
    @inline(__always)
    mutating func object(
        forKey key: Int64, orInsert make: () -> ManagedObject
    ) -> (object: ManagedObject, inserted: Bool) {
        if (used + 1) * 4 > capacity * 3 { rebuild() }
        var index = home(of: key)
        while true {
            let entry = entries[index]
            if entry.key == key, let object = entry.object { return (object.takeUnretainedValue(), false) }
            if entry.key == key || entry.key == Self.empty {
                // The key's tombstone, or the end of its run: the new entry goes here.
                let object = make()
                if entry.key == Self.empty { used += 1 }
                entries[index] = Entry(key: key, object: .passUnretained(object))
                count += 1
                return (object, true)
            }
            index = (index + 1) & (capacity - 1)
        }
    }

    /// Registers `object` under `key`, replacing any entry; returns the object it replaced,
    /// unretained (an entry's object is alive: its deinit would have removed the entry), so
    /// a caller that ignores it pays no release.
    @discardableResult
    mutating func insert(_ object: ManagedObject, forKey key: Int64) -> Unmanaged<ManagedObject>? {
        if (used + 1) * 4 > capacity * 3 { rebuild() }
        var index = home(of: key)
        while true {
            if entries[index].key == key {
                // The key's live entry, or its tombstone (a key has one entry either way).
                let previous = entries[index].object
                entries[index].object = .passUnretained(object)
                if previous == nil { count += 1 }
                return previous
            }
            if entries[index].key == Self.empty {
                entries[index] = Entry(key: key, object: .passUnretained(object))
                count += 1
                used += 1
                return nil
            }
            index = (index + 1) & (capacity - 1)
        }
    }

    /// Removes the entry for `key` if it holds `object` (a newer object may have replaced
    /// it), leaving a tombstone.
    mutating func remove(_ key: Int64, ifObject object: ManagedObject) {
        var index = home(of: key)
        while true {
            let entry = entries[index]
            if entry.key == Self.empty { return }
            if entry.key == key {
                guard entry.object?.toOpaque() == Unmanaged.passUnretained(object).toOpaque() else { return }
                entries[index].object = nil
                count -= 1
                return
            }
            index = (index + 1) & (capacity - 1)
        }
    }

    /// Empties the table. A small table keeps its memory, as a context that saves and resets
    /// every 1,000 objects refills it to the same size (growing it again doubled it about five
    /// times per batch); a large one starts over at the initial capacity.
    mutating func removeAll() {
        guard capacity <= Self.largestKeptCapacity else {
            self = ObjectTable()
            return
        }
        entries.update(repeating: Entry(key: Self.empty, object: nil), count: capacity)
        count = 0
        used = 0
    }

    /// The largest capacity ``removeAll()`` keeps: 16,384 entries, 256 KB.
    private static let largestKeptCapacity = 16_384

    /// Calls `body` with every registered object.
    func forEach(_ body: (ManagedObject) -> Void) {
        for index in 0..<capacity where entries[index].key != Self.empty {
            if let object = entries[index].object { body(object.takeUnretainedValue()) }
        }
    }

    /// Copies the live entries into a new buffer, dropping tombstones: twice the capacity
    /// when they fill more than 3/8 of it, else the same capacity.
    private mutating func rebuild() {
        let oldBuffer = buffer, oldEntries = entries, oldCapacity = capacity
        if (count + 1) * 8 > capacity * 3 {
            capacity *= 2
            shift -= 1
        }
        buffer = Buffer(capacity: capacity)
        entries = buffer.entries
        count = 0
        for index in 0..<oldCapacity where oldEntries[index].object != nil {
            var slot = home(of: oldEntries[index].key)
            while entries[slot].key != Self.empty { slot = (slot + 1) & (capacity - 1) }
            entries[slot] = oldEntries[index]
            count += 1
        }
        used = count
        withExtendedLifetime(oldBuffer) {}
    }
}
