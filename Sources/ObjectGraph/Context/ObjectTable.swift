/// The registry of one table's objects in one context: row key to unretained object.
///
/// Entries do not retain their objects; an object removes its entry in `deinit`
/// (``ManagedObject``), which is how a context holds unchanged objects weakly without the
/// cost of Swift `weak` references.
///
/// Row keys are mostly dense (a store hands them out in order), so the table is paged: a
/// key's page holds the 32 consecutive keys that share all but its last five bits, one
/// pointer each, and a small open-addressing directory finds a page by its number. The
/// last page used is remembered, so a fetch in key order reaches the directory once every
/// 32 rows. Growing moves directory entries, one per page, never the objects' entries:
/// a hashed table of keys rehashed every registered object at each doubling, which cost
/// about 90 instructions and a cache miss per fetched row over a 500,000-row fetch, and
/// its 16-byte entries at most 3/4 full took two to four times the memory of a page's
/// 8 bytes a key. Sparse keys cost at most a page (256 bytes) per object.
///
/// A page emptied by removals stays until the directory is rebuilt, which an insert does
/// when pages reach 3/4 of its capacity: empty pages are freed then, so a context whose
/// objects come and go over ever larger keys keeps a bounded number of pages.
///
/// The directory and its pages belong to a ``Directory`` object, freed with the last table
/// value that holds it. A copy of a table is a view of the same pages, valid only until the
/// table it was copied from changes: only the value stored in the context is ever mutated,
/// and copies are read at once (``forEach(_:)``, counts).
struct ObjectTable {
    /// An unretained reference to a registered object, or nil.
    private typealias Entry = Unmanaged<ManagedObject>?
    private typealias Page = UnsafeMutablePointer<Entry>

    /// One directory entry: a page number and its page.
    private struct PageEntry {
        var number: Int64
        var page: Page?
    }

    /// Owns the directory's entries and every page they point to.
    private final class Directory {
        let entries: UnsafeMutablePointer<PageEntry>
        let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            entries = .allocate(capacity: capacity)
            entries.initialize(repeating: PageEntry(number: ObjectTable.noPage, page: nil), count: capacity)
        }

        /// Frees every page and marks every entry empty.
        func freePages() {
            for index in 0..<capacity where entries[index].number != ObjectTable.noPage {
                entries[index].page?.deallocate()
                entries[index] = PageEntry(number: ObjectTable.noPage, page: nil)
            }
        }

        deinit {
            // Entries never retained their objects, so freeing the pages releases nothing.
            freePages()
            entries.deallocate()
        }
    }

    private static let pageShift = 5
    private static let pageSize = 1 << pageShift
    /// The number of an unused directory entry (no key's page: `key >> 5` never reaches it).
    private static let noPage = Int64.min

    private var directory: Directory
    private var entries: UnsafeMutablePointer<PageEntry>
    /// The directory's capacity, a power of two.
    private(set) var capacity: Int
    private var shift: Int
    /// Live entries.
    private(set) var count = 0
    /// Pages in the directory, empty ones included.
    private(set) var pageCount = 0
    /// The page used last, for keys that come in order; `noPage` when none.
    private var lastNumber = ObjectTable.noPage
    private var lastPage: Page?

    /// A table with room for about `requested` consecutive keys before its directory grows.
    init(capacity requested: Int = 64) {
        var capacity = 16
        while capacity * 3 / 4 < (requested + Self.pageSize - 1) / Self.pageSize { capacity *= 2 }
        self.capacity = capacity
        self.shift = 64 - capacity.trailingZeroBitCount
        directory = Directory(capacity: capacity)
        entries = directory.entries
    }

    @inline(__always)
    private func home(of number: Int64) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: number) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))
    }

    /// The page with `number`, if the directory has one.
    @inline(__always)
    private func page(_ number: Int64) -> Page? {
        if number == lastNumber { return lastPage }
        var index = home(of: number)
        while true {
            let entry = entries[index]
            if entry.number == number { return entry.page }
            if entry.number == Self.noPage { return nil }
            index = (index + 1) & (capacity - 1)
        }
    }

    /// The page with `number`, remembered as the last one used; made (empty) when missing.
    @inline(__always)
    private mutating func pageForWriting(_ number: Int64) -> Page {
        if number == lastNumber, let lastPage { return lastPage }
        let page = findOrAddPage(number)
        lastNumber = number
        lastPage = page
        return page
    }

    private mutating func findOrAddPage(_ number: Int64) -> Page {
        var index = home(of: number)
        while true {
            let entry = entries[index]
            if entry.number == number { return entry.page! }
            if entry.number == Self.noPage { break }
            index = (index + 1) & (capacity - 1)
        }
        if (pageCount + 1) * 4 > capacity * 3 {
            rebuild()
            index = home(of: number)
            while entries[index].number != Self.noPage { index = (index + 1) & (capacity - 1) }
        }
        let page = Page.allocate(capacity: Self.pageSize)
        page.initialize(repeating: nil, count: Self.pageSize)
        entries[index] = PageEntry(number: number, page: page)
        pageCount += 1
        return page
    }

    /// The object registered under `key`, if any.
    @inline(__always)
    func object(forKey key: Int64) -> ManagedObject? {
        page(key >> Self.pageShift)?[Int(key & Int64(Self.pageSize - 1))]?.takeUnretainedValue()
    }

    /// The object registered under `key`, or, when there is none, the one `make` returns,
    /// registered under it (`inserted` tells which). A fetch's row finds its entry once
    /// this way, where a lookup and then an insert found it twice.
    @inline(__always)
    mutating func object(
        forKey key: Int64, orInsert make: () -> ManagedObject
    ) -> (object: ManagedObject, inserted: Bool) {
        let entry = pageForWriting(key >> Self.pageShift) + Int(key & Int64(Self.pageSize - 1))
        if let object = entry.pointee { return (object.takeUnretainedValue(), false) }
        let object = make()
        entry.pointee = .passUnretained(object)
        count += 1
        return (object, true)
    }

    /// Registers `object` under `key`, replacing any entry; returns the object it replaced,
    /// unretained (an entry's object is alive: its deinit would have removed the entry), so
    /// a caller that ignores it pays no release.
    @discardableResult
    mutating func insert(_ object: ManagedObject, forKey key: Int64) -> Unmanaged<ManagedObject>? {
        let entry = pageForWriting(key >> Self.pageShift) + Int(key & Int64(Self.pageSize - 1))
        let previous = entry.pointee
        entry.pointee = .passUnretained(object)
        if previous == nil { count += 1 }
        return previous
    }

    /// Removes the entry for `key` if it holds `object` (a newer object may have replaced it).
    mutating func remove(_ key: Int64, ifObject object: ManagedObject) {
        let number = key >> Self.pageShift
        guard let page = page(number) else { return }
        // Objects often go in the order they came (a fetch's array released): remember the page.
        lastNumber = number
        lastPage = page
        let entry = page + Int(key & Int64(Self.pageSize - 1))
        guard entry.pointee?.toOpaque() == Unmanaged.passUnretained(object).toOpaque() else { return }
        entry.pointee = nil
        count -= 1
    }

    /// Empties the table. A small directory keeps its memory, as a context that saves and
    /// resets every 1,000 objects refills it to the same size; a large one starts over at
    /// the initial capacity.
    mutating func removeAll() {
        if capacity <= Self.largestKeptCapacity {
            directory.freePages()
        } else {
            self = ObjectTable()
            return
        }
        count = 0
        pageCount = 0
        lastNumber = Self.noPage
        lastPage = nil
    }

    /// The largest directory ``removeAll()`` keeps: 1,024 pages' entries, 16 KB.
    private static let largestKeptCapacity = 1_024

    /// Calls `body` with every registered object, page by page.
    func forEach(_ body: (ManagedObject) -> Void) {
        for index in 0..<capacity where entries[index].number != Self.noPage {
            guard let page = entries[index].page else { continue }
            for slot in 0..<Self.pageSize {
                if let object = page[slot] { body(object.takeUnretainedValue()) }
            }
        }
    }

    /// Moves the pages into a new directory, freeing the empty ones: twice the capacity
    /// when the pages left fill more than 3/8 of it, else the same capacity.
    private mutating func rebuild() {
        let old = directory, oldCapacity = capacity
        var kept = 0
        for index in 0..<oldCapacity where old.entries[index].number != Self.noPage {
            guard let page = old.entries[index].page else { continue }
            if (0..<Self.pageSize).allSatisfy({ page[$0] == nil }) {
                page.deallocate()
                old.entries[index].page = nil
                if lastPage == page {
                    lastNumber = Self.noPage
                    lastPage = nil
                }
            } else {
                kept += 1
            }
        }
        if (kept + 1) * 8 > capacity * 3 {
            capacity *= 2
            shift -= 1
        }
        directory = Directory(capacity: capacity)
        entries = directory.entries
        for index in 0..<oldCapacity where old.entries[index].page != nil {
            var slot = home(of: old.entries[index].number)
            while entries[slot].number != Self.noPage { slot = (slot + 1) & (capacity - 1) }
            entries[slot] = old.entries[index]
            // The page belongs to the new directory now; the old one frees only its entries.
            old.entries[index] = PageEntry(number: Self.noPage, page: nil)
        }
        pageCount = kept
    }
}
