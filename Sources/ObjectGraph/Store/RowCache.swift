import Synchronization

/// Recently fetched rows, shared by every context of a coordinator, so firing a fault
/// usually needs no query; and the log of the rows changed through the coordinator.
///
/// A default fetch in a context without parents leaves each row in its fault
/// (``ValueState/prefilled``); the rows it cannot leave there (a nested context's, rows of
/// objects already loaded or changed) come here, where faults take their values from before
/// falling back to the store. Saves remove the rows they change, and log them
/// (``changes(since:)``), so a context can tell which prefilled faults are out of date; a
/// fetch's rows that a change logged after the fetch began stay out, since it may have read
/// them before that change (a save in another context, between the read and the caching).
///
/// The cache is bounded: when a fetch would take it past ``limit`` rows it starts over with
/// that fetch's rows (all of them, as Core Data keeps a fetch's rows, so touching every
/// object of one large fetch runs no more statements), so it never holds more than the last
/// large fetch.
///
/// Rows are kept the way a fetch hands them over: the values of every row one after
/// another in one array, found through an open-addressing index from ID to the row's first
/// value. A fetch of 500,000 rows thus adds two arrays to the cache instead of 500,000
/// (one per row) and hashes no ID with SipHash. The key and entity columns are not kept:
/// the ID in the index holds them. A removed or replaced row leaves its values behind until
/// they outnumber the live ones, when the live rows are copied together.
package final class RowCache: Sendable {
    /// A row's column values, in its table layout's order.
    package typealias Row = [StoredValue]

    /// The rows of one fetch, gathered without the lock and added in one step.
    struct Batch {
        /// The number of values of each row (every row of a fetch comes from one table),
        /// the key and entity columns included.
        let width: Int
        fileprivate var ids: [ObjectID] = []
        fileprivate var values: [StoredValue] = []

        /// An empty batch of rows `width` values wide.
        init(width: Int) { self.width = width }

        /// Adds the row of `id`, its values read through `value` (columns 0 and 1, the key
        /// and the entity index, are the ID's and not kept).
        @inline(__always)
        mutating func append(_ id: ObjectID, _ value: (Int) -> StoredValue) {
            ids.append(id)
            for column in 2..<width { values.append(value(column)) }
        }
    }

    private let storage = Locked(Storage())
    /// The most rows kept before the cache is emptied.
    let limit: Int
    /// The number of the latest change to rows through the coordinator (a save, a merge, a
    /// batch request): every ``remove(_:)`` and ``removeAll()`` is one.
    private let changeCount = Atomic<UInt64>(0)
    /// The rows each recent change touched (``changes(since:)``).
    private let changeLog = Locked(ChangeLog())

    init(limit: Int = 200_000) { self.limit = limit }

    /// Runs `body` with the width of the cached row of `id` and a reader of its columns (the
    /// key and entity columns included), while the cache's lock is held and without copying
    /// the row; nil when the row is not cached.
    func withRow<T>(for id: ObjectID, _ body: (_ width: Int, _ column: (Int) -> StoredValue) -> T) -> T? {
        // `storage` reached unretained (the cache keeps it): this runs on every fault.
        Unmanaged.passUnretained(self.storage)._withUnsafeGuaranteedRef { $0.withLock { storage in
            guard let (start, width) = storage.index.find(id) else { return nil }
            return storage.values.withUnsafeBufferPointer { values in
                body(width + 2) { column in
                    switch column {
                    case 0: .integer(id.key)
                    case 1: .integer(Int64(id.entityIndex))
                    default: values[start + column - 2]
                    }
                }
            }
        }}
    }

    /// Whether the row of `id` is cached.
    func contains(_ id: ObjectID) -> Bool {
        storage.withLock { $0.index.find(id) != nil }
    }

    /// Adds a fetch's rows, replacing older rows of the same objects, but for rows that a
    /// change after number `seen` (``latestChange`` before the fetch read them) touched: the
    /// fetch may have read them before that change, and its removal has come and gone.
    func store(_ batch: Batch, readAfter seen: UInt64) {
        storage.withLock { storage in
            // Changes log and remove under this lock, so one not seen here removes these rows after.
            var changed: Set<ObjectID> = []
            if changeCount.load(ordering: .acquiring) != seen {
                guard let ids = changes(since: seen).ids else { return }  // any row may have changed
                changed = Set(ids)
            }
            if storage.index.count + batch.ids.count > limit { storage = Storage() }
            let base = storage.values.count, width = batch.width - 2
            storage.index.reserve(storage.index.count + batch.ids.count)
            if base == 0 {
                storage.values = batch.values
            } else {
                storage.values.append(contentsOf: batch.values)
            }
            for (row, id) in batch.ids.enumerated() {
                if !changed.isEmpty, changed.contains(id) {
                    storage.dead += width
                } else if let old = storage.index.insert(id, start: base + row * width, width: width) {
                    storage.dead += old
                }
            }
            storage.compactIfMostlyDead()
        }
    }

    /// Forgets the rows of `ids` (saved or deleted since they were fetched), and logs them
    /// as changed.
    func remove(_ ids: [ObjectID]) {
        storage.withLock { storage in
            logChange(ids)
            guard storage.index.count > 0 else { return }
            for id in ids {
                if let width = storage.index.remove(id) { storage.dead += width }
            }
            storage.compactIfMostlyDead()
        }
    }

    /// Forgets every row, and logs every row as changed.
    func removeAll() {
        storage.withLock { storage in
            logChange(nil)
            storage = Storage()
        }
    }

    // MARK: Changed rows

    /// The number of the latest change to rows through the coordinator; it only grows.
    var latestChange: UInt64 { changeCount.load(ordering: .acquiring) }

    /// The rows changed after change number `seen`, and the latest change's number. The IDs
    /// are nil when the log no longer reaches back that far, or a change named no rows (a
    /// batch request that did not list them): then any row may have changed.
    ///
    /// A context checks the values a default fetch left in its faults against this before
    /// it trusts them (``ValueState/prefilled``).
    func changes(since seen: UInt64) -> (latest: UInt64, ids: [ObjectID]?) {
        changeLog.withLock { log in
            let latest = changeCount.load(ordering: .relaxed)
            guard seen >= log.forgottenThrough else { return (latest, nil) }
            var ids: [ObjectID] = []
            for entry in log.entries[log.start...].reversed() {
                if entry.change <= seen { break }
                ids += entry.ids
            }
            return (latest, ids)
        }
    }

    /// Logs a change to the rows of `ids` (nil: to any row).
    private func logChange(_ ids: [ObjectID]?) {
        if let ids, ids.isEmpty { return }
        changeLog.withLock { log in
            let change = changeCount.add(1, ordering: .releasing).newValue
            guard let ids else {
                log = ChangeLog(forgottenThrough: change)
                return
            }
            log.entries.append((change, ids))
            log.idCount += ids.count
            while log.idCount > ChangeLog.capacity, log.start < log.entries.count {
                let oldest = log.entries[log.start]
                // The forgotten IDs go now; the entry itself goes with the next bulk removal.
                // Keeping them until then kept every save's IDs of an import of a few hundred
                // batches, since the bulk removal waits for 1,024 forgotten entries.
                log.entries[log.start].ids = []
                log.start += 1
                log.idCount -= oldest.ids.count
                log.forgottenThrough = oldest.change
            }
            if log.start > 1_024, log.start * 2 > log.entries.count {
                log.entries.removeFirst(log.start)
                log.start = 0
            }
        }
    }

    /// The IDs the change log holds, forgotten changes included: at most its capacity
    /// plus the latest change's.
    var loggedIDCount: Int { changeLog.withLock { $0.entries.reduce(0) { $0 + $1.ids.count } } }

    /// The rows of recent changes, oldest first, up to ``capacity`` IDs.
    private struct ChangeLog {
        static let capacity = 65_536
        /// The changes; those before `start` are forgotten, and dropped in bulk.
        var entries: [(change: UInt64, ids: [ObjectID])] = []
        var start = 0
        var idCount = 0
        /// Changes up to this number are no longer listed.
        var forgottenThrough: UInt64 = 0
    }

    /// The number of rows cached.
    var count: Int { storage.withLock { $0.index.count } }

    /// The number of values kept, including those of removed rows not yet packed away.
    var storedValueCount: Int { storage.withLock { $0.values.count } }

    /// The values and their index, guarded by the cache's lock.
    private struct Storage {
        var index = RowIndex()
        var values: [StoredValue] = []
        /// Values no live row refers to any more.
        var dead = 0

        /// Copies the live rows into a new array once dead values are the majority.
        mutating func compactIfMostlyDead() {
            if index.count == 0 {
                if !values.isEmpty { self = Storage() }
                return
            }
            guard dead > 4_096, dead * 2 > values.count else { return }
            let old = values
            var packed: [StoredValue] = []
            packed.reserveCapacity(old.count - dead)
            index.relocateAll { start, width in
                let newStart = packed.count
                packed.append(contentsOf: old[start..<start + width])
                return newStart
            }
            values = packed
            dead = 0
        }
    }
}

/// An open-addressing table from a permanent ID to where its row's values start: the row
/// cache's index. Linear probing, at most 3/4 full counting tombstones; consecutive keys
/// of one entity hash into one group of 16 entries, so rows read in key order touch
/// neighbouring entries.
private struct RowIndex {
    private struct Entry {
        var key: Int64
        var entityIndex: UInt32
        var width: UInt32
        /// The first value's position; ``RowIndex/empty`` or ``RowIndex/tombstone`` when unused.
        var start: Int
    }

    private static let empty = -1, tombstone = -2
    private var entries: [Entry]
    private var shift: Int
    /// Live entries.
    private(set) var count = 0
    /// Live entries and tombstones.
    private var used = 0

    init(capacity: Int = 64) {
        entries = Array(repeating: Entry(key: 0, entityIndex: 0, width: 0, start: Self.empty), count: capacity)
        shift = 64 - capacity.trailingZeroBitCount + 4
    }

    @inline(__always)
    private func home(of id: ObjectID) -> Int {
        let mixed = UInt64(bitPattern: id.key >> 4) ^ UInt64(id.entityIndex) &* 0xC2B2_AE3D_27D4_EB4F
        let group = Int(truncatingIfNeeded: (mixed &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))
        return (group << 4 | Int(id.key & 15)) & (entries.count - 1)
    }

    @inline(__always)
    private func matches(_ entry: Entry, _ id: ObjectID) -> Bool {
        entry.key == id.key && entry.entityIndex == id.entityIndex && entry.start != Self.empty
    }

    /// Where the row of `id` starts and how wide it is, if cached.
    func find(_ id: ObjectID) -> (start: Int, width: Int)? {
        guard !id.isTemporary else { return nil }
        var slot = home(of: id)
        while true {
            let entry = entries[slot]
            if entry.start == Self.empty { return nil }
            if matches(entry, id) { return entry.start == Self.tombstone ? nil : (entry.start, Int(entry.width)) }
            slot = (slot + 1) & (entries.count - 1)
        }
    }

    /// Grows the table once, before a fetch's rows go in, so that it holds `count` live
    /// entries without rebuilding on the way (a rebuild re-inserts every entry).
    mutating func reserve(_ count: Int) {
        guard count * 4 > entries.count * 3 else { return }
        var capacity = entries.count
        while count * 4 > capacity * 3 { capacity *= 2 }
        rebuild(capacity: capacity)
    }

    /// Points `id` at a row; returns the width of the live row it replaced, if any.
    mutating func insert(_ id: ObjectID, start: Int, width: Int) -> Int? {
        guard !id.isTemporary else { return nil }
        if (used + 1) * 4 > entries.count * 3 { rebuild() }
        var slot = home(of: id)
        while true {
            let entry = entries[slot]
            if matches(entry, id) {
                entries[slot].start = start
                entries[slot].width = UInt32(width)
                if entry.start == Self.tombstone {
                    count += 1
                    return nil
                }
                return Int(entry.width)
            }
            if entry.start == Self.empty {
                entries[slot] = Entry(key: id.key, entityIndex: id.entityIndex, width: UInt32(width), start: start)
                count += 1
                used += 1
                return nil
            }
            slot = (slot + 1) & (entries.count - 1)
        }
    }

    /// Forgets `id`, leaving a tombstone; returns the width of its row, if it had one.
    mutating func remove(_ id: ObjectID) -> Int? {
        guard !id.isTemporary else { return nil }
        var slot = home(of: id)
        while true {
            let entry = entries[slot]
            if entry.start == Self.empty { return nil }
            if matches(entry, id) {
                guard entry.start != Self.tombstone else { return nil }
                entries[slot].start = Self.tombstone
                count -= 1
                return Int(entry.width)
            }
            slot = (slot + 1) & (entries.count - 1)
        }
    }

    /// Gives every live row the start `move` returns for it (its old start and width).
    mutating func relocateAll(_ move: (Int, Int) -> Int) {
        for slot in entries.indices where entries[slot].start >= 0 {
            entries[slot].start = move(entries[slot].start, Int(entries[slot].width))
        }
    }

    /// Copies the live entries into a new table without tombstones: twice as large when
    /// they fill more than 3/8 of it.
    private mutating func rebuild() {
        var capacity = entries.count
        if (count + 1) * 8 > capacity * 3 { capacity *= 2 }
        rebuild(capacity: capacity)
    }

    /// Copies the live entries into a new table of `capacity` entries, without tombstones.
    private mutating func rebuild(capacity: Int) {
        let old = entries
        self = RowIndex(capacity: capacity)
        for entry in old where entry.start >= 0 {
            var slot = home(of: ObjectID(entityIndex: Int(entry.entityIndex), key: entry.key))
            while entries[slot].start != Self.empty { slot = (slot + 1) & (entries.count - 1) }
            entries[slot] = entry
            count += 1
        }
        used = count
    }
}
