import Foundation

extension SQLiteStore {
    /// Writes one save's changes in one transaction; inserted objects with temporary IDs get
    /// their permanent key in `plannedKey`.
    ///
    /// Nothing else in the objects changes here: the context applies the keys only after the
    /// transaction has committed, so a failed save leaves the context as it was.
    ///
    /// `beforeCommit` runs after this store's rows are written, inside its transaction: a
    /// save across stores writes every other store there, so a failure anywhere rolls back
    /// this store too.
    /// - Throws: ``ObjectGraphError`` (`constraintViolation` naming the entity, object and
    ///   keys; `storeLocked`; `storeFailure`); the transaction is rolled back.
    func save(
        inserted: [ManagedObject], updated: [ManagedObject], deleted: [ManagedObject], metadata: [String: String?] = [:],
        beforeCommit: () throws -> Void = {}
    ) throws {
        var current: ManagedObject?
        do {
            try pool.write { connection in
                try connection.inTransaction {
                    try reserveKeys(for: inserted.filter { $0.objectID.isTemporary }, connection)
                    let contextCore = (inserted.first ?? updated.first)?.contextCore
                    // A temporary ID resolves to the key planned for its object in this save.
                    func key(of id: ObjectID) -> Int64? {
                        guard id.isTemporary else { return id.key }
                        guard let object = contextCore?.registeredObject(for: id), object.state == .inserted else { return nil }
                        return object.headerPointer.pointee.plannedKey
                    }
                    for object in deleted {
                        current = object
                        try delete(object, connection)
                    }
                    var insertStatement: (layout: TableLayout, statement: SQLiteStatement)?
                    for object in inserted {
                        current = object
                        let id = object.objectID
                        let layout = layout(for: object.entity)
                        // Consecutive objects of one table share one statement lookup.
                        if insertStatement?.layout !== layout {
                            insertStatement = (layout, try connection.cachedStatement(layout.insertSQL))
                        }
                        try insert(object, key: id.isTemporary ? object.headerPointer.pointee.plannedKey : id.key,
                                   layout: layout, statement: insertStatement!.statement, key: key)
                    }
                    for object in updated {
                        current = object
                        try update(object, connection, key: key)
                    }
                    for object in inserted + updated {
                        current = object
                        try writeJoinRows(of: object, connection, key: key)
                    }
                    try writeMetadata(metadata, connection)
                    current = nil  // errors from here on belong to the other stores
                    try beforeCommit()
                }
            }
            didCommitMetadata(metadata)
        } catch let error as SQLiteError {
            if error.result == .constraint, let object = current {
                throw constraintError(error, object: object)
            }
            throw Self.translate(error, path: path)
        }
    }

    /// Reserves permanent keys (into `plannedKey`) for objects in their own transaction.
    func reservePermanentKeys(for objects: [ManagedObject]) throws {
        try perform { connection in
            try connection.inTransaction { try reserveKeys(for: objects, connection) }
        }
    }

    private func reserveKeys(for objects: [ManagedObject], _ connection: SQLiteConnection) throws {
        var byTable: [Int: [ManagedObject]] = [:]
        if let first = objects.first, objects.allSatisfy({ $0.entity.root === first.entity.root }) {
            byTable[first.entity.root.index] = objects  // the usual case: one table
        } else {
            for object in objects { byTable[object.entity.root.index, default: []].append(object) }
        }
        for (rootIndex, group) in byTable.sorted(by: { $0.key < $1.key }) {
            let table = layout(for: model.entities[rootIndex]).table
            let statement = try connection.cachedStatement(SchemaSQL.reserveKeys(table: table))
            try statement.bind([.text(table), .integer(Int64(group.count))])
            var maximum: Int64 = 0
            try statement.forEachRow { row in maximum = row.int64(at: 0) }
            var next = maximum - Int64(group.count) + 1
            for object in group {
                object.headerPointer.pointee.plannedKey = next
                next += 1
            }
        }
    }

    private func insert(
        _ object: ManagedObject, key: Int64, layout: TableLayout, statement: SQLiteStatement,
        key keyOf: (ObjectID) -> Int64?
    ) throws {
        let entityIndex = object.entity.index
        // Columns the object has no slot for must be NULL: clear the previous row's values.
        statement.reset(clearingBindings: !layout.coversAllColumns[entityIndex])
        try statement.bind(.integer(key), at: 1)
        try statement.bind(.integer(Int64(entityIndex)), at: 2)
        try bindSlots(of: object, layout: layout, statement: statement, key: keyOf)
        try statement.run()
    }

    private func update(
        _ object: ManagedObject, _ connection: SQLiteConnection, key keyOf: (ObjectID) -> Int64?
    ) throws {
        let layout = layout(for: object.entity)
        var columns: [String] = []
        var values: [StoredValue] = []
        for source in layout.sources[object.entity.index] {
            switch source {
            case .attribute(let slot, let column) where object.hasChangedSlot(slot):
                columns.append(layout.columns[column - 2])
                values.append(object.slots[slot].value.storedValue)
            case .toOne(let slot, let column, let entityColumn, _) where object.hasChangedSlot(slot):
                let id = object.slots[slot].value.destinationID
                columns.append(layout.columns[column - 2])
                values.append(try id.map { .integer(try resolvedKey($0, keyOf)) } ?? .null)
                if let entityColumn {
                    columns.append(layout.columns[entityColumn - 2])
                    values.append(id.map { .integer(Int64($0.entityIndex)) } ?? .null)
                }
            default: break
            }
        }
        guard !columns.isEmpty else { return }
        let statement = try connection.cachedStatement(SchemaSQL.update(layout, columns: columns))
        try statement.bind(values + [.integer(object.objectID.key)])
        guard try statement.run() == 1 else {
            throw ObjectGraphError(.objectNotFound,
                "cannot save the changes to \(model.describe(object.objectID)): its row is no longer in the store (deleted by another context or process); nothing was saved")
        }
    }

    private func delete(_ object: ManagedObject, _ connection: SQLiteConnection) throws {
        let layout = layout(for: object.entity)
        let statement = try connection.cachedStatement(layout.deleteSQL)
        try statement.bind(.integer(object.objectID.key), at: 1)
        try statement.run()
        for relationship in object.entity.relationships where relationship.isManyToMany {
            let join = SchemaNaming.joinTable(for: relationship)
            let statement = try connection.cachedStatement(SchemaSQL.deleteJoinRows(join.table, column: join.sourceColumn))
            try statement.bind(.integer(object.objectID.key), at: 1)
            try statement.run()
        }
    }

    /// Binds every column of `object`'s row from its slots (columns 3…), NULL where the entity has none.
    private func bindSlots(
        of object: ManagedObject, layout: TableLayout, statement: SQLiteStatement, key keyOf: (ObjectID) -> Int64?
    ) throws {
        let slots = object.slots
        for source in layout.sources[object.entity.index] {
            switch source {
            case .attribute(let slot, let column):
                try statement.bind(slots[slot].value.storedValue, at: Int32(column + 1))
            case .toOne(let slot, let column, let entityColumn, _):
                // Bound even when nil: the statement keeps the previous row's values otherwise.
                let id = slots[slot].value.destinationID
                try statement.bind(try id.map { .integer(try resolvedKey($0, keyOf)) } ?? .null, at: Int32(column + 1))
                if let entityColumn {
                    try statement.bind(id.map { .integer(Int64($0.entityIndex)) } ?? .null, at: Int32(entityColumn + 1))
                }
            }
        }
    }

    private func writeJoinRows(
        of object: ManagedObject, _ connection: SQLiteConnection, key keyOf: (ObjectID) -> Int64?
    ) throws {
        for relationship in object.entity.relationships where relationship.isManyToMany {
            let join = SchemaNaming.joinTable(for: relationship)
            // Both sides record the change; the side that names the join table writes it.
            guard join.sourceColumn == "_source", object.hasChangedSlot(relationship.slot),
                  case .toMany(let storage) = object.slots[relationship.slot].value else { continue }
            let source = try resolvedKey(object.objectID, keyOf)
            for destination in storage.added {
                let statement = try connection.cachedStatement(SchemaSQL.insertJoin(join.table))
                try statement.bind([.integer(source), .integer(try resolvedKey(destination.objectID, keyOf))])
                try statement.run()
            }
            for destination in storage.removed where !destination.isTemporary {
                let statement = try connection.cachedStatement(SchemaSQL.deleteJoin(join.table))
                try statement.bind([.integer(source), .integer(destination.key)])
                try statement.run()
            }
        }
    }

    private func resolvedKey(_ id: ObjectID, _ keyOf: (ObjectID) -> Int64?) throws -> Int64 {
        guard let key = keyOf(id) else {
            throw ObjectGraphError(.validation,
                "\(model.describe(id)) is referenced but was never saved: insert it in the same context, or remove the reference")
        }
        return key
    }

    private func constraintError(_ error: SQLiteError, object: ManagedObject) -> ObjectGraphError {
        let entity = object.entity
        // SQLite says "UNIQUE constraint failed: Chef.name"; name the keys and their values.
        let columns = error.message.components(separatedBy: ": ").last?
            .split(separator: ",").map { $0.split(separator: ".").last.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? "" } ?? []
        let values = columns.compactMap { column -> String? in
            guard let attribute = entity.attribute(named: column) else { return nil }
            let value = attribute.type.swiftValue(from: object.slots[attribute.slot].value.storedValue)
            return "\(column) = \(value.map { "\($0)" } ?? "nil")"
        }
        let detail = values.isEmpty ? error.message : values.joined(separator: ", ")
        return ObjectGraphError(.constraintViolation,
            "cannot save \(entity.name): another \(entity.root.name) already has \(detail); nothing was saved",
            underlying: error)
    }
}
