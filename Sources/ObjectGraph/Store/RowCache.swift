
/// Recently fetched rows, shared by every context of a coordinator, so firing a fault
/// usually needs no query.
///
/// A default fetch (objects returned as faults) puts each row here; a fault takes its
/// values from here and falls back to the store. Saves replace or remove the rows they
/// change. The cache is bounded: when a fetch would take it past ``limit`` rows it starts
/// over with that fetch's rows (all of them, as Core Data keeps a fetch's rows, so touching
/// every object of one large fetch runs no more statements), so it never holds more than
/// the last large fetch.
package final class RowCache: Sendable {
    /// A row's column values, in its table layout's order.
    package typealias Row = [StoredValue]

    private let rows = Locked<[ObjectID: Row]>([:])
    /// The most rows kept before the cache is emptied.
    let limit: Int

    init(limit: Int = 200_000) { self.limit = limit }

    func row(for id: ObjectID) -> Row? { rows.withLock { $0[id] } }

    func store(_ newRows: [(ObjectID, Row)]) {
        rows.withLock { rows in
            if rows.count + newRows.count > limit { rows.removeAll(keepingCapacity: true) }
            for (id, row) in newRows { rows[id] = row }
        }
    }

    func remove(_ ids: some Sequence<ObjectID>) {
        rows.withLock { rows in for id in ids { rows[id] = nil } }
    }

    func removeAll() { rows.withLock { $0.removeAll() } }
}
