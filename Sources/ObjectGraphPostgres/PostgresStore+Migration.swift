public import ObjectGraph
import ObjectGraphSQL

extension PersistentStoreCoordinator {
    /// Copies every object, value and relationship of `store` into a new PostgreSQL store at
    /// `location`, and puts the new store in its place: ``migrateStore(_:to:type:)`` for a
    /// database, so a SQLite (or XML, binary, HTML) store moves to a server.
    ///
    /// Objects keep their IDs; the caller's metadata keys come along, the new store has its
    /// own UUID. The way back is ``migrateStore(_:to:type:)`` with a file's path and type.
    /// When the copy fails, the tables opening the new store made (and the schema, when it
    /// made that) are dropped again: the location is left as it was, and a retry starts afresh.
    ///
    /// ```swift
    /// let server = try PostgresLocation(url: "postgres://og@127.0.0.1:5432/catalogue")
    /// try coordinator.migrateStore(coordinator.stores[0], to: server)
    /// ```
    /// - Parameters:
    ///   - store: one of this coordinator's stores.
    ///   - location: a database or schema that holds no objects yet (a missing schema is made).
    /// - Returns: the new store.
    /// - Throws: ``ObjectGraphError``: `storeFailure` when `store` is not this coordinator's
    ///   or the location holds objects already; as ``PostgresStore/init(location:model:creatingSchema:options:)``;
    ///   any error of reading the old store or saving the copy (nothing is saved, and the
    ///   coordinator keeps the old store).
    @discardableResult
    public func migrateStore(_ store: any PersistentStore, to location: PostgresLocation) throws -> PostgresStore {
        let target = location.schema == "public" ? "to \(location)" : "to \(location), schema \(location.schema)"
        var opened: PostgresStore?
        do {
            let new = try migrateStore(store, target: target) {
                let new = try PostgresStore(location: location, model: model)
                opened = new
                try new.requireNoObjects(target: target)
                try new.startListening { [weak self] note in self?.storeDidChangeElsewhere(note) }
                return new
            }
            return new as! PostgresStore  // the store the closure opened
        } catch {
            opened?.removeWhatOpeningMade()
            throw error
        }
    }
}

extension PostgresStore {
    /// Drops the tables opening the store made, or the schema when it made that, and stops
    /// listening: a failed migration into the store, or a failed
    /// ``PersistentStoreCoordinator/addPostgresStore(at:configuration:options:)``, leaves the
    /// location as it was. Nothing is dropped when the store was there before. A failure here
    /// is ignored (the caller's own error says what went wrong; the next try finds an empty store).
    func removeWhatOpeningMade() {
        stopListening()
        guard createdTables else { return }
        _ = try? write(exclusive: true) { session in
            if createdSchema {
                try session.run(SchemaSQL.dropSchema(location.schema, cascade: true))
            } else {
                for row in try session.run(SchemaSQL.userTables).rows {
                    if case .text(let table) = row[0] { try session.run("DROP TABLE \(SQLIdentifier(table).quoted)") }
                }
            }
        }
    }

    /// Throws unless no table of the store holds a row: a migration copies objects with their
    /// keys, which must not meet others.
    func requireNoObjects(target: String) throws {
        for layout in layouts where !(try writer.run("SELECT 1 FROM \(SQLIdentifier(layout.table).quoted) LIMIT 1").rows.isEmpty) {
            throw ObjectGraphError(.storeFailure,
                "cannot migrate the store \(target): a store there holds \(layout.root.name) objects already; "
                + "name an empty database or schema; the coordinator keeps the old store")
        }
    }
}

// MARK: Between model versions

extension PostgresStore {
    /// How a store written with another model version is opened: the migration options
    /// the SQLite store's `SQLiteStore.Options` holds too.
    public typealias Options = MigrationOptions

    /// Migrates the store in `session`'s schema to `model` when the options ask for it and the
    /// store was written with another model version: in one transaction, so that a failure
    /// leaves the old tables, rows and metadata as they were. PostgreSQL's schema changes are
    /// transactional, so the tables are changed in place (no working copy, as SQLite needs).
    static func migrateIfNeeded(_ session: PostgresSession, location: PostgresLocation, model: ObjectModel, options: Options) throws {
        guard options.shouldMigrateStoreAutomatically else { return }
        try session.inTransaction {
            // The lock of opening: two processes opening an old store at once migrate it once.
            try session.run("SELECT pg_advisory_xact_lock(4242)")
            let tables = try session.run(SchemaSQL.userTables).rows
            guard tables.contains(where: { $0.first == .text("_metadata") }) else { return }  // opening says what is wrong
            var metadata: [String: String] = [:]
            for row in try session.run(SchemaSQL.selectMetadata).rows {
                if case .text(let key) = row[0], case .text(let value) = row[1] { metadata[key] = value }
            }
            let hashes = RecordedModel.decodeJSON(metadata[MetadataKey.versionHashes] ?? "") ?? [:]
            guard hashes != model.versionHashes else { return }
            let mappings = try MappingModel.migrationPath(
                from: hashes, storedDescriptions: metadata[MetadataKey.entityDescriptions].flatMap(RecordedModel.decodeJSON),
                to: model, mappingModels: options.mappingModels, sourceModels: options.sourceModels,
                inferring: options.shouldInferMappingModelAutomatically, store: "the store at \(location)")
            if let custom = mappings.first(where: \.needsPolicies) {
                let names = custom.entityMappings.filter { $0.kind == .custom || $0.policy != nil }.map(\.name)
                let change = ModelDifferences(stored: custom.sourceModel.storageDescriptions,
                                              current: custom.destinationModel.storageDescriptions).summary
                throw ObjectGraphError(.migrationFailed,
                    "cannot migrate the store at \(location) from the model version where \(change): the mapping's entity mappings \(names.joined(separator: ", ")) have policies, which a PostgreSQL store does not run. Move the store into a SQLite file (migrateStore(_:to:type:)), migrate it there, and move it back; the store is unchanged.")
            }
            let channel = "objectgraph_" + (metadata[MetadataKey.storeUUID] ?? "").lowercased().filter { $0.isLetter || $0.isNumber }
            try session.run(SchemaSQL.lockStore(exclusive: true), [.text(channel)])
            let progress = options.migrationProgress
            do {
                for (step, mapping) in mappings.enumerated() {
                    try migrateInSQL(session, mapping: mapping) { progress?((Double(step) + $0) / Double(mappings.count) * 0.99) }
                }
            } catch var failure as ObjectGraphError {
                if failure.message.hasSuffix(".") { failure.message.removeLast() }
                failure.message += ". The store at \(location) is unchanged."
                throw failure
            }
        }
        options.migrationProgress?(1)
    }

    /// Runs an inferred mapping's SQL inside the caller's transaction, and records the new model.
    private static func migrateInSQL(_ session: PostgresSession, mapping: MappingModel, progress: (Double) -> Void) throws {
        var counts: [String: Int] = [:]
        for root in mapping.sourceModel.entities where root.parent == nil {
            if case .integer(let count)? = try session.run(MigrationSQL.countRows(root.name)).rows.first?.first {
                counts[root.name] = Int(count)
            }
        }
        let plan = MigrationSQL(mapping: mapping, rowCounts: counts, dialect: .postgreSQL)
        let total = max(1, plan.weights.reduce(0, +))
        var done = 0
        for (step, weight) in zip(plan.steps, plan.weights) {
            try run(step, on: session, mapping: mapping)
            done += weight
            if weight > 0 { progress(Double(done) / Double(total)) }
        }
        for (key, value) in [(MetadataKey.versionHashes, RecordedModel.encodeJSON(mapping.destinationModel.versionHashes)),
                             (MetadataKey.entityDescriptions, RecordedModel.encodeJSON(mapping.destinationModel.storageDescriptions))] {
            try session.run(SchemaSQL.upsertMetadata, [.text(key), .text(value)])
        }
    }

    private static func run(_ step: MigrationSQL.Step, on session: PostgresSession, mapping: MappingModel) throws {
        switch step {
        case .run(let fragment):
            try session.run(fragment.text, fragment.arguments)
        case .dropIndexes(let table):
            for row in try session.run(SchemaSQL.droppableIndexes, [.text(table)]).rows {
                if case .text(let name) = row[0] { try session.run(MigrationSQL.dropIndex(name)) }
            }
        case .copy(let fragment, let entity, let duplicates):
            // A failed statement ends the transaction's use; the savepoint keeps it open for the search.
            try session.run("SAVEPOINT og_copy")
            do {
                try session.run(fragment.text, fragment.arguments)
            } catch let error as ObjectGraphError where error.code == .constraintViolation {
                try session.run("ROLLBACK TO SAVEPOINT og_copy")
                for (keys, query) in duplicates {
                    if let failure = MigrationSQL.duplicates(try session.run(query).rows, entity: entity, keys: keys,
                                                             mapping: mapping, underlying: error) {
                        throw failure
                    }
                }
                throw ObjectGraphError(.migrationFailed, "migrating entity '\(entity)' failed: \(error.message)", underlying: error)
            }
            try session.run("RELEASE SAVEPOINT og_copy")
        case .canonicalize(let table, let column, let source, let entities):
            let select = "SELECT \"_pk\", \(SQLIdentifier(source).quoted) FROM \(SQLIdentifier(table).quoted) WHERE \"_ent\" = ANY(CAST($1 AS bigint[]))"
            let update = "UPDATE \(SQLIdentifier(table).quoted) SET \(SQLIdentifier(column).quoted) = $1 WHERE \"_pk\" = $2"
            var statements: [(sql: String, arguments: [StoredValue])] = []
            for row in try session.rows(select, [.text("{" + entities.map(String.init).joined(separator: ",") + "}")]) {
                guard case .text(let text) = row[1] else { continue }
                statements.append((update, [.text(text.canonicalFolded()), row[0]]))
                if statements.count == 1_000 {
                    try session.runAll(statements)
                    statements.removeAll(keepingCapacity: true)
                }
            }
            try session.runAll(statements)
        }
    }
}
