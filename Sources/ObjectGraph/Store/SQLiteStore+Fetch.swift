extension SQLiteStore {
    /// How fetched rows become objects.
    enum RowHandling {
        /// Fill new or faulted objects from the row at once.
        case populate
        /// Return faults; put the rows into the row cache for when they fire.
        case cache(RowCache)
        /// Read only keys: objects are faults with no cached values.
        case keysOnly
    }

    /// Runs a fetch and turns each row into an object through `register`, which returns the
    /// context's object for an ID and whether it still needs its values.
    func fetchObjects(
        _ select: SQLFragment, layout: TableLayout, handling: RowHandling,
        register: (ObjectID) -> (object: ManagedObject, needsValues: Bool)
    ) throws -> [ManagedObject] {
        try performRead { connection in
            let statement = try connection.cachedStatement(select.sql)
            try statement.bind(select.arguments)
            var objects: [ManagedObject] = []
            var cachedRows: [(ObjectID, RowCache.Row)] = []
            let width = layout.width
            var lastEntity = -1
            var sources: [TableLayout.SlotSource] = []
            try statement.forEachRow { row in
                let entityIndex = Int(row.int64(at: 1))
                let id = ObjectID(entityIndex: entityIndex, key: row.int64(at: 0))
                let (object, needsValues) = register(id)
                switch handling {
                case .populate:
                    if needsValues {
                        if entityIndex != lastEntity {
                            lastEntity = entityIndex
                            sources = layout.sources[entityIndex]
                        }
                        if object.state == .fault {
                            TableLayout.fill(object.slots, sources: sources) { row.slot(at: $0) }
                            object.state = .clean
                        } else {
                            // A fault changed before loading keeps its changed slots.
                            object.fillPreservingChanges(layout) { row.slot(at: $0) }
                        }
                        object.headerPointer.pointee.needsValues = false
                    }
                case .cache:
                    cachedRows.append((id, (0..<width).map { row.value(at: $0) }))
                case .keysOnly:
                    break
                }
                objects.append(object)
            }
            if case .cache(let cache) = handling { cache.store(cachedRows) }
            return objects
        }
    }

    /// Runs a fetch that reads only `_pk` and `_ent`.
    func fetchIDs(_ select: SQLFragment) throws -> [ObjectID] {
        try performRead { connection in
            let statement = try connection.cachedStatement(select.sql)
            try statement.bind(select.arguments)
            var ids: [ObjectID] = []
            try statement.forEachRow { row in
                ids.append(ObjectID(entityIndex: Int(row.int64(at: 1)), key: row.int64(at: 0)))
            }
            return ids
        }
    }

    /// Runs a statement and returns its rows as stored values.
    func fetchValues(_ select: SQLFragment) throws -> [[StoredValue]] {
        try performRead { connection in try connection.rows(select.sql, select.arguments) }
    }

    /// The (source, destination) key pairs of a many-to-many relationship for several sources.
    func fetchJoinPairs(of relationship: RelationshipDescription, sourceKeys: [Int64]) throws -> [(source: Int64, destination: Int64)] {
        try fetchValues(FetchSQL.selectJoinPairs(of: relationship, sourceKeys: sourceKeys)).compactMap { row in
            guard case .integer(let source) = row[0], case .integer(let destination) = row[1] else { return nil }
            return (source, destination)
        }
    }

    /// Runs a `SELECT count(*)`.
    func count(_ select: SQLFragment) throws -> Int {
        try performRead { connection in
            let statement = try connection.cachedStatement(select.sql)
            try statement.bind(select.arguments)
            var count = 0
            try statement.forEachRow { row in count = Int(row.int64(at: 0)) }
            return count
        }
    }

    /// The full row of one object, or nil when it is not in the store.
    func fetchRow(_ id: ObjectID, layout: TableLayout) throws -> RowCache.Row? {
        try performRead { connection in
            let statement = try connection.cachedStatement(layout.selectRowSQL)
            try statement.bind(.integer(id.key), at: 1)
            var result: RowCache.Row?
            try statement.forEachRow { row in result = (0..<layout.width).map { row.value(at: $0) } }
            return result
        }
    }

    /// The IDs of the destinations of a to-many relationship of the object with key `key`.
    func fetchDestinations(of relationship: RelationshipDescription, key: Int64) throws -> [ObjectID] {
        try performRead { connection in
            let statement = try connection.cachedStatement(FetchSQL.selectDestinations(of: relationship))
            try statement.bind(.integer(key), at: 1)
            var ids: [ObjectID] = []
            try statement.forEachRow { row in
                ids.append(ObjectID(entityIndex: Int(row.int64(at: 1)), key: row.int64(at: 0)))
            }
            return ids
        }
    }

    /// SQLite's plan for a statement, one line per step.
    func queryPlan(_ select: SQLFragment) throws -> [String] {
        try performRead { connection in
            try connection.cachedStatement(select.sql).queryPlan(arguments: select.arguments)
        }
    }
}

extension TableLayout {
    /// Fills `object`'s stored slots from a row's columns, read through `column`.
    @inline(__always)
    func fill(_ object: ManagedObject, column: (Int) -> Slot) {
        Self.fill(object.slots, sources: sources[Int(object.headerPointer.pointee.objectID.entityIndex)], column: column)
    }

    /// Fills slots from a row's columns, following `sources`.
    @inline(__always)
    static func fill(_ slots: UnsafeMutablePointer<ObjectSlot>, sources: [SlotSource], column: (Int) -> Slot) {
        for source in sources {
            switch source {
            case .attribute(let slot, let index):
                slots[slot].value = column(index)
            case .toOne(let slot, let index, let entityColumn, let destinationIndex):
                guard case .integer(let key) = column(index) else {
                    slots[slot].value = .null
                    continue
                }
                var entity = destinationIndex
                if let entityColumn, case .integer(let index) = column(entityColumn) { entity = Int(index) }
                slots[slot].value = .objectID(ObjectID(entityIndex: entity, key: key))
            }
        }
    }

    /// Fills `object` from a cached row.
    func fill(_ object: ManagedObject, from row: RowCache.Row) {
        fill(object) { Slot(row[$0]) }
    }
}
