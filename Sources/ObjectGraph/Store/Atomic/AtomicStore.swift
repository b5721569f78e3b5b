public import Foundation
import Synchronization

/// A store kept whole in memory and in one file: loaded on open, written whole on every
/// save. Subclass it to give the object graph a file format of your own.
///
/// The store reads the file once into ``StoredObject``s, keeps them as rows that the
/// in-memory evaluator queries (as ``MemoryStore`` does), and keeps a *cache node* per
/// object: the object in the file's own form. A save turns each inserted or changed object
/// into a node and writes every node to a temporary file beside the store's file, which
/// replaces it only when the whole save succeeded.
///
/// A subclass overrides the five customization points Core Data's `NSAtomicStore` names,
/// and nothing else:
///
/// | point | called | does |
/// | --- | --- | --- |
/// | ``load(from:into:metadata:)`` | once, on open | reads the file into objects and metadata |
/// | ``newReferenceObject(for:)`` | per inserted object | chooses its key |
/// | ``newCacheNode(for:)`` | per inserted (or loaded) object | makes its node |
/// | ``updateCacheNode(_:from:)`` | per changed object | brings its node up to date |
/// | ``save(_:metadata:to:)`` | per save | writes every node and the metadata |
///
/// ```swift
/// // Unchecked, as its superclass: the points below run one at a time, under the store's lock.
/// final class LineStore: AtomicStore<String>, @unchecked Sendable {
///     override func newCacheNode(for object: StoredObject) throws -> String { … }
///     …
/// }
/// try coordinator.addStore(LineStore.self, at: "catalog.lines")
/// ```
///
/// A subclass that does not override one of them fails when it is added, naming each point
/// it misses (the coordinator calls every point once, on sample input, before loading).
///
/// Concurrency: the customization points run one at a time, under the store's lock; a
/// subclass that keeps state of its own touches it only from them (or keeps it immutable).
open class AtomicStore<Node: Sendable>: StoreRequestHandler, MemoryStoreBacking, @unchecked Sendable {
    // @unchecked: the store's state lives in `engine` and in mutexes; subclasses' points run
    // under the engine's lock, one at a time (see above).

    /// The store's file.
    public let path: String
    /// The model the store was opened with.
    public let model: ObjectModel
    /// The rows, queried and written as a memory store's.
    let engine: MemoryStore
    /// Each object's cache node; replaced whole when a save commits.
    private let nodes = Locked<[ObjectID: Node]>([:])
    /// The largest key given out, per table (root entity index), for `largestKey(of:)`.
    private let largestKeys = Locked<[Int: Int64]>([:])
    /// For tests: make the next writes fail after this many bytes.
    private let failsAfter = Locked<Int?>(nil)
    /// The version of the file this store read or last wrote (nil: there was no file): a
    /// save refuses to replace a file that another process or program has replaced since.
    private let fileVersion = Locked<FileVersion?>(nil)
    /// How long a save waits for another process's save of the same file (see ``lockTimeout``).
    private let lockTimeoutValue = Locked<Duration>(.seconds(10))
    /// For tests: runs while a save holds the lock, after its last check, before the rename.
    private let beforeReplacing = Locked<(@Sendable () -> Void)?>(nil)
    /// The many-to-many relationship owning each join of ``MemoryStore``.
    let joinOwners: [String: RelationshipDescription]

    /// Creates the store object; the coordinator opens it (``PersistentStoreCoordinator/addStore(_:at:configuration:)``).
    public required init(path: String, model: ObjectModel) {
        self.path = path
        self.model = model
        engine = MemoryStore(model: model)
        var owners: [String: RelationshipDescription] = [:]
        for entity in model.entities {
            for relationship in entity.declaredRelationships where relationship.isManyToMany {
                let (name, owned) = MemoryStore.join(of: relationship)
                if owned { owners[name] = relationship }
            }
        }
        joinOwners = owners
    }

    // MARK: Customization points

    /// Reads a whole file: appends one ``StoredObject`` per object to `objects` and fills
    /// `metadata`. The store checks what you read (entities, types, references) afterwards.
    /// - Throws: ``StoreFileError`` naming the line or byte offset and the problem; never
    ///   trap on bad input.
    open func load(from data: Data, into objects: inout [StoredObject], metadata: inout [String: String]) throws {
        throw MissingOverride(point: "load(from:into:metadata:)")
    }

    /// The key of an object being inserted (its *reference object*): one that no object of
    /// its entity's inheritance tree has, nor any inserted by the same save (a save that gets a
    /// key twice fails, naming it). ``AtomicStore/largestKey(of:)`` helps.
    open func newReferenceObject(for object: StoredObject) throws -> Int64 {
        throw MissingOverride(point: "newReferenceObject(for:)")
    }

    /// The cache node of an object the store loaded or a save inserted: the object in the
    /// file's form.
    open func newCacheNode(for object: StoredObject) throws -> Node {
        throw MissingOverride(point: "newCacheNode(for:)")
    }

    /// Brings the cache node of an object a save changed up to date.
    open func updateCacheNode(_ node: inout Node, from object: StoredObject) throws {
        throw MissingOverride(point: "updateCacheNode(_:from:)")
    }

    /// Writes the whole file: every object's node, in ID order (entity, then key), and the
    /// metadata. Write only to `file`; the store makes it replace the old file afterwards.
    open func save(_ nodes: [(objectID: ObjectID, node: Node)], metadata: [String: String], to file: AtomicStoreWriter) throws {
        throw MissingOverride(point: "save(_:metadata:to:)")
    }

    // MARK: Helpers for subclasses

    /// The largest key an object of `entity`'s inheritance tree has had in this store (0 when none).
    public func largestKey(of entity: EntityDescription) -> Int64 {
        largestKeys.withLock { $0[entity.root.index] ?? 0 }
    }

    // MARK: Metadata

    /// The store's UUID, kept in its metadata; object URIs name it.
    public var identifier: String { engine.metadata[Self.uuidKey] ?? "" }

    /// The store's metadata: `_storeUUID`, the model the file was written with
    /// (`_versionHashes` and `_entityDescriptions`), and the keys callers set.
    public var metadata: [String: String] { engine.metadata }

    /// Sets (or, with nil, removes) a metadata value; the file is written at once.
    public func setMetadata(_ value: String?, forKey key: String) throws {
        try engine.write(self) { $0.metadata[key] = value }
    }

    static var uuidKey: String { "_storeUUID" }

    // MARK: Opening

    /// Checks the customization points and the path, creates the file if there is none, and
    /// loads it after checking the model it records.
    /// - Throws: ``ObjectGraphError``: `storeFailure` for a missing override, a directory, a
    ///   missing folder, or a file that cannot be read or created; `modelMismatch` for a file
    ///   that records another model; `notADatabase` for a file the reader rejects.
    func open() throws {
        try checkCustomizationPoints()
        try StorePath.checkOpenable(path)
        if !FileManager.default.fileExists(atPath: path) {
            try engine.write(self) { contents in
                contents.metadata[Self.uuidKey] = UUID().uuidString
                contents.metadata.merge(RecordedModel.metadata(of: model)) { $1 }
            }
        }
        fileVersion.withLock { $0 = FileVersion(of: path) }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ObjectGraphError(.storeFailure, "cannot read the store at '\(path)': \(FileErrorReason.of(error))", underlying: error)
        }
        var objects: [StoredObject] = []
        var metadata: [String: String] = [:]
        do {
            try load(from: data, into: &objects, metadata: &metadata)
        } catch {
            // A file of another model can fail to read (a property the model no longer has);
            // the model is the problem then, if the metadata read before the error says so.
            try checkModel(recordedIn: metadata)
            switch error {
            case let error as StoreFileError: throw invalidFile(error, data: data)
            case let error as ObjectGraphError: throw error
            default: throw invalidFile(StoreFileError(nil, "\(error)"))
            }
        }
        try checkModel(recordedIn: metadata)
        if metadata[Self.uuidKey] == nil { metadata[Self.uuidKey] = UUID().uuidString }
        // Saves record the model from now on (files written before stores recorded one).
        metadata.merge(RecordedModel.metadata(of: model)) { $1 }
        let contents = try makeContents(objects, metadata: metadata)
        var loadedNodes: [ObjectID: Node] = [:]
        for object in objects { loadedNodes[object.objectID] = try newCacheNode(for: object) }
        nodes.withLock { $0 = loadedNodes }
        largestKeys.withLock { keys in
            for (root, table) in contents.tables { keys[root] = table.keys.max() ?? 0 }
        }
        engine.contents.withLock { $0 = contents }
    }

    /// Throws `modelMismatch`, naming what differs, when `metadata` records a model other
    /// than this store's (see ``RecordedModel``); a file that records none is read as before.
    private func checkModel(recordedIn metadata: [String: String]) throws {
        guard let differences = RecordedModel.differences(between: metadata, and: model) else { return }
        throw ObjectGraphError(.modelMismatch, """
            the store at '\(path)' was made with a different model: \(differences.summary). Open it with the model \
            it was made with, or open a new path (to migrate it, move it to a SQLite store with \
            migrateStore(_:to:type:) and migrate that).
            """)
    }

    /// The error for a file the reader rejected: `notADatabase`, naming the file and the place,
    /// and, when `data` starts as another store type's files do, that type.
    func invalidFile(_ error: StoreFileError, data: Data? = nil) -> ObjectGraphError {
        var message = "'\(path)' is not a valid \(storeName) file: \(error)"
        if let data, let other = otherStoreType(of: [UInt8](data.prefix(512))) {
            message += "; it is \(other)"
        }
        return ObjectGraphError(.notADatabase, message, underlying: error)
    }

    /// How to open a file that starts as the files of another store type do ("a SQLite
    /// store's file: open it with addStore(at:)"), or nil.
    private func otherStoreType(of prefix: [UInt8]) -> String? {
        if prefix.starts(with: Array("SQLite format 3\0".utf8)) { return "a SQLite store's file: open it with addStore(at:)" }
        let others: [(type: PersistentStoreType, isThis: Bool)] = [(.xml, self is XMLStore), (.binary, self is BinaryStore), (.html, self is HTMLStore)]
        guard let other = others.first(where: { !$0.isThis && $0.type.recognizes(prefix) })?.type else { return nil }
        return "\(other == .xml ? "an" : "a") \(other.name) store's file: open it with addStore(type: .\(other.name), at:)"
    }

    /// The subclass's name, for messages.
    var storeName: String { String(describing: type(of: self)) }

    /// What a customization point not overridden throws.
    struct MissingOverride: Error {
        let point: String
    }

    /// Calls each customization point once on sample input; fails naming every point that
    /// still has the base implementation.
    private func checkCustomizationPoints() throws {
        var missing: [String] = []
        func probe(_ body: () throws -> Void) {
            do { try body() } catch let error as MissingOverride { missing.append(error.point) } catch {}
        }
        var objects: [StoredObject] = []
        var metadata: [String: String] = [:]
        probe { try load(from: Data(), into: &objects, metadata: &metadata) }
        if let entity = model.entities.first(where: { !$0.isAbstract }) {
            let sample = StoredObject(entity: entity, key: 1)
            probe { _ = try newReferenceObject(for: sample) }
            var node: Node?
            probe { node = try newCacheNode(for: sample) }
            if var node { probe { try updateCacheNode(&node, from: sample) } }
        }
        probe { try save([], metadata: [:], to: AtomicStoreWriter(descriptor: -1, path: path)) }
        guard !missing.isEmpty else { return }
        let list = missing.count == 1 ? missing[0] : missing.dropLast().joined(separator: ", ") + " and " + missing.last!
        throw ObjectGraphError(.storeFailure, """
            \(storeName) does not implement \(list): an AtomicStore subclass overrides load(from:into:metadata:), \
            newReferenceObject(for:), newCacheNode(for:), updateCacheNode(_:from:) and save(_:metadata:to:)
            """)
    }

    /// For tests: writes fail after `bytes` bytes (nil: they do not).
    package func failWrites(afterBytes bytes: Int?) { failsAfter.withLock { $0 = bytes } }

    /// For tests: runs `hook` in every save while it holds the file's lock, after its last
    /// check that nobody replaced the file and before its rename (nil: none).
    package func whileLockedBeforeReplacing(_ hook: (@Sendable () -> Void)?) { beforeReplacing.withLock { $0 = hook } }

    /// How long a save waits for the lock that another process's save of the same file
    /// holds (from its last check of the file to its rename) before it fails with
    /// `storeLocked`; 10 seconds unless set.
    public var lockTimeout: Duration {
        get { lockTimeoutValue.withLock { $0 } }
        set { lockTimeoutValue.withLock { $0 = newValue } }
    }

    // MARK: MemoryStoreBacking

    func newKey(for entity: EntityDescription, row: MemoryStore.Row?, in contents: MemoryStore.Contents) throws -> Int64 {
        var object = StoredObject(entity: entity, key: 0)
        if let row { object = storedObject(entity: entity, key: 0, row: row, contents: contents, pairs: nil) }
        let key = try point("newReferenceObject(for:)") { try newReferenceObject(for: object) }
        largestKeys.withLock { $0[entity.root.index] = max($0[entity.root.index] ?? 0, key) }
        return key
    }

    func stage(_ next: MemoryStore.Contents, replacing previous: MemoryStore.Contents) throws -> any StagedWrite {
        try checkFileIsTheOneRead()
        try checkFileIsWritable()
        var nodes = self.nodes.withLock { $0 }
        let (changed, deleted) = changes(from: previous, to: next)
        for id in deleted { nodes[id] = nil }
        largestKeys.withLock { keys in
            for id in changed { keys[model.entities[Int(id.entityIndex)].root.index] = max(keys[model.entities[Int(id.entityIndex)].root.index] ?? 0, id.key) }
        }
        let pairs = changed.isEmpty ? [:] : pairsBySource(next)
        for id in changed {
            let entity = model.entities[Int(id.entityIndex)]
            guard let row = next.tables[entity.root.index]?[id.key] else { continue }
            let object = storedObject(entity: entity, key: id.key, row: row, contents: next, pairs: pairs)
            if var node = nodes[id] {
                try point("updateCacheNode(_:from:)") { try updateCacheNode(&node, from: object) }
                nodes[id] = node
            } else {
                nodes[id] = try point("newCacheNode(for:)") { try newCacheNode(for: object) }
            }
        }
        let entries = nodes.sorted { $0.key < $1.key }.map { (objectID: $0.key, node: $0.value) }
        let staged = try AtomicFile.stage(path, failsAfter: failsAfter.withLock { $0 }) { file in
            try point("save(_:metadata:to:)") { try save(entries, metadata: next.metadata, to: file) }
        }
        return CommitNodes(staged: staged, path: path, lockTimeout: lockTimeout, check: checkFileIsTheOneRead,
                           beforeReplacing: beforeReplacing.withLock { $0 }) {
            self.nodes.withLock { $0 = nodes }
            self.fileVersion.withLock { $0 = FileVersion(of: self.path) }
        }
    }

    /// Runs a customization point during a write; an error of the subclass's own (not an
    /// ``ObjectGraphError``, which the writer throws) becomes a `storeFailure` naming the file
    /// and the point, with the error as its underlying error.
    private func point<T>(_ name: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as ObjectGraphError {
            throw error
        } catch {
            throw ObjectGraphError(.storeFailure, """
                cannot save the store at '\(path)': \(storeName).\(name) threw \(error); nothing was written
                """, underlying: error)
        }
    }

    /// Commits a staged file, then keeps the nodes it was written from and the new file's
    /// version: all under the file's lock, so that no other process's save comes between
    /// the last check and the rename, nor between the rename and the version kept.
    private struct CommitNodes: StagedWrite {
        let staged: AtomicFile.Staged
        let path: String
        let lockTimeout: Duration
        /// Checks again, just before the file is replaced, that nobody else replaced it.
        let check: () throws -> Void
        let beforeReplacing: (@Sendable () -> Void)?
        let keep: () -> Void
        func commit() throws {
            do {
                try StoreFileLock.withLock(of: path, timeout: lockTimeout) {
                    try check()
                    beforeReplacing?()
                    try staged.commit()
                    keep()
                }
            } catch {
                staged.discard()  // the caller discards only when a later store fails, not on this
                throw error
            }
        }
        func discard() { staged.discard() }
    }

    /// Throws when the file is no longer the one this store read or last wrote: another
    /// coordinator, process or program saved it since, and writing this store's rows would
    /// silently undo that save. (An atomic store holds the whole file and cannot merge.) A
    /// save checks once before it writes, and again holding ``StoreFileLock`` until its rename.
    private func checkFileIsTheOneRead() throws {
        let read = fileVersion.withLock { $0 }
        guard FileVersion(of: path) == read else {
            throw ObjectGraphError(.storeFailure, """
                the store at '\(path)' was changed by another process or program since this one read it; \
                nothing was written, so that change is kept (open the store again to see it, then save again)
                """)
        }
    }

    /// Throws when the file is read-only (no write permission for this user, or none for
    /// anyone): a save replaces the file by renaming, which the folder's permissions alone
    /// would allow, so the file's own are checked, as a write in place would. Throws too
    /// when the folder is read-only, where the save writes its new file before the rename
    /// (checked so too, so that the answer does not depend on the user being root).
    private func checkFileIsWritable() throws {
        let folder = StorePath.folder(of: path)
        var status = stat()
        if stat(folder, &status) == 0, access(folder, W_OK) != 0 || status.st_mode & 0o222 == 0 {
            let exists = access(path, F_OK) == 0
            throw ObjectGraphError(.storeFailure, """
                cannot \(exists ? "save" : "create") the store at '\(path)': the folder '\(folder)' is read-only, and a \
                save writes a new file there before it replaces the old one; nothing was written (make the folder \
                writable, or open a copy elsewhere)
                """)
        }
        guard stat(path, &status) == 0 else { return }
        guard access(path, W_OK) != 0 || status.st_mode & 0o222 == 0 else { return }
        throw ObjectGraphError(.storeFailure, """
            cannot save the store at '\(path)': the file is read-only; nothing was written (make it writable, or open \
            a copy)
            """)
    }

    // MARK: StoreRequestHandler: reads go to the rows

    package func layout(for entity: EntityDescription) -> TableLayout { engine.layout(for: entity) }
    package var statistics: StoreStatistics { engine.statistics }

    package func forEachRow(_ plan: FetchPlan, _ body: (ObjectID, any StoreRow) throws -> Void) throws {
        try engine.forEachRow(plan, body)
    }

    package func forEachRow(withKeys keys: [Int64], of entity: EntityDescription, _ body: (ObjectID, any StoreRow) throws -> Void) throws {
        try engine.forEachRow(withKeys: keys, of: entity, body)
    }

    package func forEachRow(
        destinationsOf relationship: RelationshipDescription, sourceKeys: [Int64], _ body: (ObjectID, any StoreRow) throws -> Void
    ) throws {
        try engine.forEachRow(destinationsOf: relationship, sourceKeys: sourceKeys, body)
    }

    package func fetchIDs(_ plan: FetchPlan) throws -> [ObjectID] { try engine.fetchIDs(plan) }
    package func fetchValues(_ plan: FetchPlan) throws -> [[StoredValue]] { try engine.fetchValues(plan) }
    package func count(_ plan: FetchPlan) throws -> Int { try engine.count(plan) }

    package func explain(_ plan: FetchPlan) throws -> QueryExplanation {
        var explanation = try engine.explain(plan)
        explanation.plan = explanation.plan.map { $0.replacingOccurrences(of: "(in memory)", with: "(in memory, loaded from \(storeName) file)") }
        return explanation
    }

    package func fetchJoinPairs(of relationship: RelationshipDescription, sourceKeys: [Int64]) throws -> [(source: Int64, destination: Int64)] {
        try engine.fetchJoinPairs(of: relationship, sourceKeys: sourceKeys)
    }

    package func fetchRow(_ id: ObjectID) throws -> [StoredValue]? { try engine.fetchRow(id) }

    package func fetchDestinations(of relationship: RelationshipDescription, key: Int64) throws -> [ObjectID] {
        try engine.fetchDestinations(of: relationship, key: key)
    }

    // MARK: StoreRequestHandler: writes also write the file

    package func save(_ changes: StoreChanges, beforeCommit: () throws -> Void) throws -> [ObjectID] {
        try engine.save(changes, beforeCommit: beforeCommit, backing: self)
    }

    package func reservePermanentIDs(for ids: [ObjectID]) throws -> [ObjectID] {
        try engine.reservePermanentIDs(for: ids, backing: self)
    }

    package func batchInsert(_ entity: EntityDescription, rows: [[String: any Sendable]]) throws -> [ObjectID] {
        try engine.batchInsert(entity, rows: rows, backing: self)
    }

    package func batchUpdate(_ entity: EntityDescription, plan: FetchPlan, values: [String: StoredValue]) throws -> [ObjectID] {
        try engine.batchUpdate(entity, plan: plan, values: values, backing: self)
    }

    /// Lists every deleted row whatever `listingIDs` says, as the memory store does.
    package func batchDelete(_ entity: EntityDescription, plan: FetchPlan, listingIDs: Bool) throws -> BatchResult {
        try engine.batchDelete(entity, plan: plan, backing: self)
    }
}

/// One version of a file: a save renames a new file over the old one (a new inode), and an
/// edit in place changes the size or the modification time.
struct FileVersion: Equatable {
    let inode: UInt64
    let size: Int64
    let modified: Int64
    let modifiedNanoseconds: Int

    /// The version of the file at `path`, or nil when there is none.
    init?(of path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        modified = Int64(status.st_mtim.tv_sec)
        modifiedNanoseconds = status.st_mtim.tv_nsec
    }
}
