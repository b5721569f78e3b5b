public import ObjectGraph
import ObjectGraphSQL
import Foundation
import Glibc

extension SQLiteStore {
    /// The metadata of the store file at `path`, read without opening it as a store (Core
    /// Data's `metadataForPersistentStore`): the keys callers set, and the store's own
    /// (starting with `_`).
    /// - Throws: ``ObjectGraph/ObjectGraphError`` (`storeFailure`, `notADatabase`).
    public static func metadata(ofStoreAt path: String) throws -> [String: String] {
        var isFolder: ObjCBool = false
        guard isFile(path), FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw ObjectGraphError(.storeFailure, "cannot read the store at '\(path)': there is no file there")
        }
        guard !isFolder.boolValue else {
            throw ObjectGraphError(.storeFailure, "cannot read the store at '\(path)': it is a directory")
        }
        let connection: SQLiteConnection
        do {
            // Without a log beside it, the file is all there is: read it without making one.
            let hasLog = FileManager.default.fileExists(atPath: path + "-wal")
            connection = try SQLiteConnection(path: path, readOnly: true, immutable: !hasLog)
        } catch {
            throw ObjectGraphError(.storeFailure, "cannot read the store at '\(path)': \(error.message)", underlying: error)
        }
        do {
            guard try connection.rows(SchemaSQL.userTables).contains(where: { $0.first == .text("_metadata") }) else {
                throw ObjectGraphError(.notADatabase,
                    "'\(path)' is a SQLite database but not an ObjectGraph store (it has no metadata table); open another path")
            }
            var result: [String: String] = [:]
            for row in try connection.rows(SchemaSQL.selectMetadata) {
                if case .text(let key) = row[0], case .text(let value) = row[1] { result[key] = value }
            }
            return result
        } catch let error as SQLiteError {
            throw translate(error, path: path)
        }
    }

    /// Whether the store at `path` was written with `model` (or one storing the same), so
    /// opening it with `model` needs no migration.
    public static func isStore(at path: String, compatibleWith model: ObjectModel) throws -> Bool {
        decode(try metadata(ofStoreAt: path)[MetadataKey.versionHashes] ?? "") == model.versionHashes
    }

    /// Migrates the store file at `path` from the mapping's source model to its destination
    /// model, leaving the file untouched if anything fails.
    ///
    /// The migration works on a copy next to the store (`<path>-migrating`) and renames it
    /// over the store only when it is complete. Inferred mappings run in SQL, in one
    /// transaction; a mapping with policies runs a ``ObjectGraph/MigrationManager`` from the
    /// copy into a new file. The store keeps its UUID and the metadata callers set.
    /// ```swift
    /// let mapping = try MappingModel.inferred(from: version1, to: version2)
    /// try SQLiteStore.migrateStore(at: "notes.sqlite", using: mapping) { print("\(Int($0 * 100))%") }
    /// ```
    /// It blocks the calling thread: call it from a thread of your own, not from Swift's
    /// cooperative pool. It waits while another migration in the store's folder runs (the
    /// folder's migration lock). No other program may have the store open meanwhile.
    /// - Parameters:
    ///   - path: the store file.
    ///   - mapping: from the model the store was written with to the one it is migrated to.
    ///   - progress: called with the fraction done, rising to 1.
    /// - Throws: ``ObjectGraph/ObjectGraphError``: `modelMismatch` when the store was not written with the
    ///   mapping's source model, `migrationFailed` naming the entity and object that failed,
    ///   or a store error; in every case the store at `path` is as it was.
    public static func migrateStore(
        at path: String, using mapping: MappingModel, progress: (@Sendable (Double) -> Void)? = nil
    ) throws {
        try withMigrationLock(path) { try migrate(at: path, using: [mapping], progress: progress) }
    }

    /// ``migrateStore(at:using:progress:)`` for a caller that holds the migration lock, with
    /// one mapping or a chain of them (each one's destination model the next one's source),
    /// run one after the other on the same working copy: the store is replaced once, at the end.
    private static func migrate(at path: String, using mappings: [MappingModel], progress: (@Sendable (Double) -> Void)?) throws {
        precondition(!mappings.isEmpty && zip(mappings, mappings.dropFirst()).allSatisfy {
            $0.destinationModel.versionHashes == $1.sourceModel.versionHashes
        }, "each mapping of a chain must start from the model the one before it ends with")
        let mapping = mappings[0]
        let manager = FileManager.default
        guard isFile(path), manager.fileExists(atPath: path) else {
            throw ObjectGraphError(.storeFailure, "cannot migrate '\(path)': there is no store file there")
        }
        let copy = path + "-migrating", result = path + "-migrated"
        removeStoreFiles(copy)
        removeStoreFiles(result)
        do {
            try checkpoint(path)
            try copyStore(at: path, to: copy)
            let metadata = try metadata(ofStoreAt: copy)
            let hashes = decode(metadata[MetadataKey.versionHashes] ?? "")
            guard hashes == mapping.sourceModel.versionHashes else {
                if hashes == mapping.destinationModel.versionHashes {
                    throw ObjectGraphError(.modelMismatch,
                        "the store at '\(path)' is already migrated: it was made with the mapping's destination model")
                }
                let differences = metadata[MetadataKey.entityDescriptions].flatMap(RecordedModel.decodeJSON).map {
                    ModelDifferences(stored: $0, current: mapping.sourceModel.storageDescriptions)
                } ?? ModelDifferences(stored: hashes, current: mapping.sourceModel.versionHashes)
                throw ObjectGraphError(.modelMismatch,
                    "the store at '\(path)' was not made with the mapping's source model: \(differences.summary)")
            }
            for (step, mapping) in mappings.enumerated() {
                let report = { (fraction: Double) -> Void in progress?((Double(step) + fraction) / Double(mappings.count) * 0.99) }
                if step > 0 { try manager.moveItem(atPath: result, toPath: copy) }
                if mapping.needsPolicies {
                    let kept = step == 0 ? metadata : try self.metadata(ofStoreAt: copy)
                    try migrateObjects(from: copy, into: result, mapping: mapping, metadata: kept, progress: report)
                    removeStoreFiles(copy)
                } else {
                    try migrateInSQL(copy, mapping: mapping, progress: report)
                    try manager.moveItem(atPath: copy, toPath: result)
                }
            }
            // The old file's log belongs to it; the migrated file needs none.
            for suffix in ["-wal", "-shm"] { try? manager.removeItem(atPath: path + suffix) }
            guard rename(result, path) == 0 else {
                throw ObjectGraphError(.storeFailure, "cannot rename '\(result)' to '\(path)': \(String(cString: strerror(errno)))")
            }
        } catch {
            removeStoreFiles(copy)
            removeStoreFiles(result)
            guard var failure = error as? ObjectGraphError else { throw error }
            if failure.message.hasSuffix(".") { failure.message.removeLast() }
            failure.message += ". The store at '\(path)' is unchanged."
            throw failure
        }
        progress?(1)
    }

    /// Moves the transactions of the store's write-ahead log into the file, so that the file
    /// alone holds the store: the swap at the end of a migration removes the log before it
    /// renames the migrated file over the store, and a crash between the two then loses
    /// nothing. (The other order would leave the old log beside the new file, and SQLite
    /// would replay it into the new file on the next open.)
    ///
    /// It runs whenever the log exists, even empty: a connection in the middle of a
    /// transaction may not have written to the log yet, and the checkpoint, which waits for
    /// it and then reports it busy, is what refuses to migrate under it (its commit would
    /// land in the old file, and be lost).
    private static func checkpoint(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path + "-wal") else { return }
        do {
            let connection = try SQLiteConnection(path: path)
            if case .integer(let busy)? = try connection.rows(SchemaSQL.checkpoint).first?.first, busy != 0 {
                throw ObjectGraphError(.storeLocked,
                    "cannot migrate the store at '\(path)': another program has it open; close it and try again")
            }
        } catch let error as SQLiteError {
            throw translate(error, path: path)
        }
    }

    /// Runs `body` holding the migration lock of the store at `path`: an exclusive `flock` on
    /// its folder, which every migration and every open that may migrate takes. Two processes
    /// opening an old store at once then migrate it once: the second waits, and finds it
    /// migrated (without the lock, each removed the other's working copies). The folder is
    /// locked, not the store file: closing a descriptor of a file this process has open in
    /// SQLite would drop SQLite's own locks on it.
    private static func withMigrationLock<T>(_ path: String, _ body: () throws -> T) throws -> T {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let descriptor = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return try body() }  // opening the store names what is wrong
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw ObjectGraphError(.storeFailure,
                    "cannot migrate the store at '\(path)': cannot lock its folder: \(String(cString: strerror(errno)))")
            }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    /// Migrates the store at `path` to `model` before it is opened, when the options ask for
    /// it and the store was written with another model (checked holding the migration lock,
    /// so a store another process migrated meanwhile is opened as it is).
    static func migrateIfNeeded(at path: String, to model: ObjectModel, options: Options) throws {
        guard options.shouldMigrateStoreAutomatically, isFile(path),
              let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size > 0 else { return }
        try withMigrationLock(path) { try migrateIfNeededHoldingLock(at: path, to: model, options: options) }
    }

    private static func migrateIfNeededHoldingLock(at path: String, to model: ObjectModel, options: Options) throws {
        let metadata: [String: String]
        do { metadata = try self.metadata(ofStoreAt: path) } catch { return }  // opening says what is wrong
        let hashes = decode(metadata[MetadataKey.versionHashes] ?? "")
        guard hashes != model.versionHashes else {
            // A migration killed after its swap leaves its working copies behind; the store is
            // migrated, so they are of no use. (One killed before the swap reruns, and removes
            // them as it starts.)
            removeStoreFiles(path + "-migrating")
            removeStoreFiles(path + "-migrated")
            return
        }
        let mappings = try MappingModel.migrationPath(
            from: hashes, storedDescriptions: metadata[MetadataKey.entityDescriptions].flatMap(RecordedModel.decodeJSON),
            to: model, mappingModels: options.mappingModels, sourceModels: options.sourceModels,
            inferring: options.shouldInferMappingModelAutomatically, store: "the store at '\(path)'")
        try migrate(at: path, using: mappings, progress: options.migrationProgress)
    }

    /// Removes a store file and its sidecars, if present.
    private static func removeStoreFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    // MARK: In SQL

    /// Runs an inferred mapping's SQL on the copy, in one transaction.
    private static func migrateInSQL(_ path: String, mapping: MappingModel, progress: (Double) -> Void) throws {
        let connection = try SQLiteConnection(path: path)
        do {
            try SQLFunctions.register(on: connection)
            var counts: [String: Int] = [:]
            for root in mapping.sourceModel.entities where root.parent == nil {
                if case .integer(let count)? = try connection.rows(MigrationSQL.countRows(root.name)).first?.first {
                    counts[root.name] = Int(count)
                }
            }
            let plan = MigrationSQL(mapping: mapping, rowCounts: counts, dialect: .sqlite)
            let total = max(1, plan.weights.reduce(0, +))
            var done = 0
            try connection.inTransaction {
                for (step, weight) in zip(plan.steps, plan.weights) {
                    try run(step, on: connection, mapping: mapping, path: path)
                    done += weight
                    if weight > 0 { progress(Double(done) / Double(total)) }
                }
                let upsert = try connection.makeStatement(SchemaSQL.upsertMetadata)
                for (key, value) in [(MetadataKey.versionHashes, encode(mapping.destinationModel.versionHashes)),
                                     (MetadataKey.entityDescriptions, RecordedModel.encodeJSON(mapping.destinationModel.storageDescriptions))] {
                    upsert.reset()
                    try upsert.bind([.text(key), .text(value)])
                    _ = try upsert.run()
                }
            }
            try connection.execute(MigrationSQL.singleFile)
        } catch let error as SQLiteError {
            throw ObjectGraphError(.migrationFailed, "migrating the store failed: \(error)", underlying: error)
        }
    }

    private static func run(_ step: MigrationSQL.Step, on connection: SQLiteConnection, mapping: MappingModel, path: String) throws {
        func execute(_ fragment: SQLFragment) throws {
            let statement = try connection.makeStatement(fragment.sql)
            try statement.bind(fragment.arguments)
            _ = try statement.run()
        }
        switch step {
        case .run(let fragment):
            try execute(fragment)
        case .dropIndexes(let table):
            for row in try connection.rows(MigrationSQL.tableIndexes, [.text(table)]) {
                if case .text(let name) = row[0] { try connection.execute(MigrationSQL.dropIndex(name)) }
            }
        case .copy(let fragment, let entity, let duplicates):
            do {
                try execute(fragment)
            } catch let error as SQLiteError where error.result == .constraint {
                for (keys, query) in duplicates {
                    if let failure = MigrationSQL.duplicates(try connection.rows(query), entity: entity, keys: keys, mapping: mapping, underlying: error) {
                        throw failure
                    }
                }
                throw ObjectGraphError(.migrationFailed, "migrating entity '\(entity)' failed: \(error.message)", underlying: error)
            }
        case .canonicalize:
            break  // SQLite computes canonical columns in SQL, with og_canonical
        }
    }

    // MARK: Object by object

    /// Runs a mapping with policies from the copy into a new file, keeping the store's UUID
    /// and the metadata callers set.
    private static func migrateObjects(
        from copy: String, into result: String, mapping: MappingModel, metadata: [String: String],
        progress: (Double) -> Void
    ) throws {
        do {
            let source = PersistentStoreCoordinator(model: mapping.sourceModel)
            source.add(try SQLiteStore(path: copy, model: mapping.sourceModel), configuration: nil)
            let destination = PersistentStoreCoordinator(model: mapping.destinationModel)
            destination.add(try SQLiteStore(path: result, model: mapping.destinationModel), configuration: nil)
            try MigrationManager(mapping: mapping, source: source, destination: destination).migrate(progress: progress)
        }
        // Every connection of both stores is closed now; carry the metadata over and make the file whole.
        let connection = try SQLiteConnection(path: result)
        do {
            try connection.inTransaction {
                let upsert = try connection.makeStatement(SchemaSQL.upsertMetadata)
                for (key, value) in metadata.sorted(by: { $0.key < $1.key })
                where key == MetadataKey.storeUUID || !key.hasPrefix("_") {
                    upsert.reset()
                    try upsert.bind([.text(key), .text(value)])
                    _ = try upsert.run()
                }
            }
            try connection.execute(MigrationSQL.singleFile)
        } catch let error as SQLiteError {
            throw translate(error, path: result)
        }
    }
}

extension MigrationSQL {
    /// The indexes a table has that can be dropped (not those of its constraints).
    static let tableIndexes = #"SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL"#

    /// Back to a rollback journal, so the migrated file is complete without a `-wal` beside it.
    static let singleFile = "PRAGMA journal_mode = DELETE"
}
