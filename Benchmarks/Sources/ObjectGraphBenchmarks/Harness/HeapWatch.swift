import CSQLiteBaseline
import Synchronization

/// Watches the program's heap over a phase of many saves, to catch bookkeeping that keeps
/// something of every save.
///
/// The heap is read twice: when a tenth of the steps are done, and at the last. Bookkeeping
/// that stays bounded leaves the two nearly equal however long the phase runs; a structure
/// that keeps a part of every save (as a change log once kept every save's IDs) makes the
/// second larger in proportion to the saves in between. The resident set cannot show this:
/// SQLite's page caches and the mapped store grow with the file, up to their limits.
final class HeapWatch: Sendable {
    /// Steps in the phase (saves, or imported records).
    let total: Int
    /// The heap when a tenth of the steps were done, and at the end.
    private let readings = Mutex<(early: Int?, late: Int?)>((nil, nil))

    /// A watch over a phase of `total` steps.
    init(steps total: Int) { self.total = total }

    /// Reports that `done` steps are done; the heap is read the first time `done` reaches a
    /// tenth of the total, and again when it reaches the total. Cheap otherwise.
    func step(_ done: Int) {
        let mark = max(1, total / 10)
        guard done >= mark else { return }
        readings.withLock { readings in
            if readings.early == nil { readings.early = ProcessMemory.programHeap() }
            if done >= total, readings.late == nil { readings.late = ProcessMemory.programHeap() }
        }
    }

    /// How much the heap grew from a tenth of the way to the end (nil before both readings).
    var growth: Int? {
        readings.withLock { readings in
            guard let early = readings.early, let late = readings.late else { return nil }
            return late - early
        }
    }

    /// Stops the program, saying why, unless the heap grew by at most `allowance` bytes.
    /// - Returns: the growth.
    func check(_ phase: String, allowance: Int) -> Int {
        guard let growth else { fatalError("\(phase): the heap was not read at both points") }
        guard growth <= allowance else {
            fatalError("\(phase): the heap grew by \(Report.megabytes(growth)) from a tenth of the way to the end, more than the \(Report.megabytes(allowance)) allowed; something keeps a part of every save")
        }
        return growth
    }
}

extension ProcessMemory {
    /// The bytes the C allocator has handed out and not taken back (glibc's `mallinfo2`,
    /// every arena), less SQLite's own allocations (`sqlite3_memory_used`): the heap the
    /// program itself holds. Zero where `mallinfo2` is missing.
    static func programHeap() -> Int {
        #if canImport(Glibc)
        let info = mallinfo2()
        return Int(info.uordblks) + Int(info.hblkhd) - Int(sqlite3_memory_used())
        #else
        return 0
        #endif
    }
}
