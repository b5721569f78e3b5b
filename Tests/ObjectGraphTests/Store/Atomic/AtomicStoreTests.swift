import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// The atomic stores: what they write comes back whole, saves are atomic on disk, and a
/// subclass that misses a customization point is refused when added.
@MainActor
struct AtomicStoreTests {
    /// A graph that uses every attribute type, nil and empty values, awkward text, every
    /// relationship shape (to-one, ordered to-many, many-to-many) and an inheritance tree.
    static func fill(_ context: MainContext) throws {
        let chef = try context.insert("Chef")
        chef["name"] = "Zoë \"<Ångström>\" & co\n\ttab\r\u{1}😀"
        let other = try context.insert("Chef")
        other["name"] = ""
        let tags = try ["winter", "quick", "vegan"].map { label in
            let tag = try context.insert("Tag")
            tag["label"] = label
            return tag
        }
        for (index, rating) in [4.25, 0.1, -0.0, .infinity, 1e-300].enumerated() {
            let recipe = try context.insert("Recipe")
            recipe["name"] = "Recipe \(index)"
            recipe["rating"] = index == 4 ? nil : rating
            recipe["servings"] = index * 3
            recipe["vegetarian"] = index % 2 == 0
            // Whole seconds are written as ISO 8601 text, others (and the year 702) as numbers.
            recipe["published"] = Date(timeIntervalSince1970: [1_700_000_000, 1_700_000_000.123456, -40_000_000_000, 0, -1][index])
            recipe["chef"] = index == 3 ? nil : (index % 2 == 0 ? chef : other)
            for position in 0..<index {
                let line = try context.insert("Line")
                line["text"] = "step \(position) <b>"
                line["position"] = position
                line["recipe"] = recipe
            }
            for tag in tags.prefix(index) { try recipe.add(tag, toKey: "tags") }
            let media = try context.insert(index % 2 == 0 ? "Photo" : "Video")
            media["caption"] = index == 1 ? nil : "media \(index)"
            if index % 2 == 0 { media["bytes"] = Data((0..<(index * 7)).map { UInt8($0 * 37 % 256) }) } else { media["seconds"] = Double(index) / 3 }
            media["recipe"] = recipe
        }
        try context.save()
    }

    @Test("Each atomic store writes a file that a new coordinator reads back whole", arguments: StoreKind.atomic)
    func roundTrip(kind: StoreKind) throws {
        let model = try TestModel.make()
        let coordinator = PersistentStoreCoordinator(model: model)
        let store = try kind.addStore(to: coordinator)
        let path = (store as! any AtomicStorePath).path
        defer { StoreKind.removeFolder(of: path) }
        let context = MainContext(coordinator: coordinator)
        try Self.fill(context)
        context.setMetadata("line 42", forKey: "position")
        let recipe = try #require(try context.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Recipe 2'"))).first)
        recipe["rating"] = 2.5
        try recipe.remove(try recipe.objects(forKey: "tags")[0], fromKey: "tags")
        context.delete(try #require(try context.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Recipe 4'"))).first))
        try context.save()
        let expected = try graphSnapshot(coordinator)
        #expect(expected.contains { $0.hasPrefix("Recipe/p4") && $0.contains("rating=inf") })

        let reopened = PersistentStoreCoordinator(model: model)
        let again = try reopened.addStore(type: kind.type, at: path)
        #expect(try graphSnapshot(reopened) == expected)
        #expect(again.metadata["position"] == "line 42")
        #expect(again.identifier == store.identifier && !store.identifier.isEmpty)
        #expect(try PersistentStoreType.recognize(fileAt: path) == kind.type)

        // New keys continue after the largest, also after reopening.
        let next = MainContext(coordinator: reopened)
        try next.insert("Tag")["label"] = "new"
        try next.save()
        #expect(try next.fetch(FetchRequest(entityName: "Tag", sortKeys: [SortKey("label")])).map { $0.objectID.key }.max() == 4)
    }

    @Test("Dates before 1582 and before year 1 are written as proleptic Gregorian ISO 8601 and read back exactly",
          arguments: [StoreKind.xml, .html])
    func datesBeforeTheGregorianReform(kind: StoreKind) throws {
        let dates: [(seconds: Double, text: String)] = [
            (-14_831_769_600, "1500-01-01T00:00:00Z"), (-12_219_379_200, "1582-10-14T00:00:00Z"),
            (-62_167_219_200, "0000-01-01T00:00:00Z"), (-63_549_316_800, "-0044-03-15T12:00:00Z"),
        ]
        let model = try TestModel.make()
        let coordinator = PersistentStoreCoordinator(model: model)
        let path = (try kind.addStore(to: coordinator) as! any AtomicStorePath).path
        defer { StoreKind.removeFolder(of: path) }
        let context = MainContext(coordinator: coordinator)
        for (index, date) in dates.enumerated() {
            let recipe = try context.insert("Recipe")
            recipe["name"] = "Recipe \(index)"
            recipe["published"] = Date(timeIntervalSince1970: date.seconds)
        }
        try context.save()
        let file = try String(contentsOfFile: path, encoding: .utf8)
        for date in dates { #expect(file.contains(date.text), "\(date.text) in the \(kind) file") }

        let reopened = PersistentStoreCoordinator(model: model)
        _ = try reopened.addStore(type: kind.type, at: path)
        let reader = MainContext(coordinator: reopened)
        let recipes = try reader.fetch(FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")]))
        #expect(recipes.map { ($0["published"] as? Date)?.timeIntervalSince1970 } == dates.map(\.seconds))
    }

    @Test("A save does not overwrite a file that another coordinator saved since this one read it; the context keeps its change",
          arguments: StoreKind.atomic)
    func staleFileIsKept(kind: StoreKind) throws {
        let model = try TestModel.make()
        let first = PersistentStoreCoordinator(model: model)
        let path = (try kind.addStore(to: first) as! any AtomicStorePath).path
        defer { StoreKind.removeFolder(of: path) }
        let a = MainContext(coordinator: first)
        try a.insert("Tag")["label"] = "from a"
        try a.save()
        let second = PersistentStoreCoordinator(model: model)
        _ = try second.addStore(type: kind.type, at: path)
        let b = MainContext(coordinator: second)
        try b.insert("Tag")["label"] = "from b"
        try b.save()

        // The first store still holds the file it wrote: writing it now would drop "from b".
        try a.insert("Tag")["label"] = "a again"
        let error = try #require(throws: ObjectGraphError.self) { try a.save() }
        #expect(error.code == .storeFailure && error.message.contains("changed by another process") && error.message.contains(path),
                "\(error)")
        #expect(a.hasChanges)
        try b.insert("Tag")["label"] = "b again"
        try b.save()  // the second store's file is the current one

        let reader = PersistentStoreCoordinator(model: model)
        _ = try reader.addStore(type: kind.type, at: path)
        let context = MainContext(coordinator: reader)
        let labels = try context.fetch(FetchRequest(entityName: "Tag")).compactMap { $0["label"] as? String }
        #expect(labels.sorted() == ["b again", "from a", "from b"])
    }

    @Test("The article's example subclass, a store of JSON lines, reads back what it wrote")
    func articleExample() throws {
        let model = try TestModel.make()
        let coordinator = PersistentStoreCoordinator(model: model)
        let path = try StoreKind.newFile(extension: "jsonl")
        defer { StoreKind.removeFolder(of: path) }
        try coordinator.addStore(JSONLinesStore.self, at: path)
        try Self.fill(MainContext(coordinator: coordinator))
        let reopened = PersistentStoreCoordinator(model: model)
        try reopened.addStore(JSONLinesStore.self, at: path)
        #expect(try graphSnapshot(reopened) == graphSnapshot(coordinator))
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1 + 2 + 3 + 5 + 10 + 5)  // metadata, chefs, tags, recipes, lines, media
    }

    @Test("The article's example names the line of a line it cannot read, counting blank lines")
    func articleExampleErrors() throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let path = try StoreKind.newFile(extension: "jsonl")
        defer { StoreKind.removeFolder(of: path) }
        try coordinator.addStore(JSONLinesStore.self, at: path)
        let metadata = try String(contentsOfFile: path, encoding: .utf8)
        for (text, problem) in [(metadata + "\n{\"entity\": \"Tag\"}\n", "line 3: expected an object: {\"entity\", \"key\", \"values\", \"links\"}"),
                                ("[1]\n", "line 1: expected the metadata, a JSON object of strings")] {
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            let error = try #require(throws: ObjectGraphError.self) {
                try PersistentStoreCoordinator(model: try TestModel.make()).addStore(JSONLinesStore.self, at: path)
            }
            #expect(error.message == "'\(path)' is not a valid JSONLinesStore file: \(problem)")
        }
    }

    @Test("A subclass that misses customization points is refused when added, naming each one")
    func missingOverride() throws {
        final class Incomplete: AtomicStore<String>, @unchecked Sendable {
            override func newReferenceObject(for object: StoredObject) throws -> Int64 { 1 }
            override func updateCacheNode(_ node: inout String, from object: StoredObject) throws {}
            override func load(from data: Data, into objects: inout [StoredObject], metadata: inout [String: String]) throws {}
        }
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let path = try StoreKind.newFile(extension: "txt")
        defer { StoreKind.removeFolder(of: path) }
        let error = try #require(throws: ObjectGraphError.self) { try coordinator.addStore(Incomplete.self, at: path) }
        #expect(error.message.hasPrefix("Incomplete does not implement newCacheNode(for:) and save(_:metadata:to:): an AtomicStore subclass overrides"))
        #expect(coordinator.stores.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: path), "nothing was written")
    }

    /// A store whose customization points fail on request, for the tests of what a save
    /// makes of a subclass's errors.
    final class Faulty: AtomicStore<String>, @unchecked Sendable {
        // @unchecked: `failing` is set before a save and read by the points, under the store's lock.
        struct Refusal: Error {}
        enum Failure { case none, node, save, sameKey }
        nonisolated(unsafe) var failing = Failure.none

        override func load(from data: Data, into objects: inout [StoredObject], metadata: inout [String: String]) throws {
            metadata = ["_storeUUID": String(decoding: data, as: UTF8.self)]
        }
        override func newReferenceObject(for object: StoredObject) throws -> Int64 {
            failing == .sameKey ? 7 : largestKey(of: object.entity) + 1
        }
        override func newCacheNode(for object: StoredObject) throws -> String {
            if failing == .node { throw Refusal() }
            return ""
        }
        override func updateCacheNode(_ node: inout String, from object: StoredObject) throws {}
        override func save(_ nodes: [(objectID: ObjectID, node: String)], metadata: [String: String], to file: AtomicStoreWriter) throws {
            if failing == .save { throw Refusal() }
            try file.write(metadata["_storeUUID"] ?? "")
        }
    }

    @Test("An error a customization point throws during a save is a storeFailure naming the file and the point; nothing is written",
          arguments: [(Faulty.Failure.node, "newCacheNode(for:)"), (.save, "save(_:metadata:to:)")])
    func customizationPointErrors(failure: Faulty.Failure, point: String) throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let path = try StoreKind.newFile(extension: "txt")
        defer { StoreKind.removeFolder(of: path) }
        let store = try coordinator.addStore(Faulty.self, at: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        store.failing = failure
        let context = MainContext(coordinator: coordinator)
        try context.insert("Tag")["label"] = "kept"
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.code == .storeFailure)
        #expect(error.message == "cannot save the store at '\(path)': Faulty.\(point) threw Refusal(); nothing was written")
        #expect(error.underlying is Faulty.Refusal)
        #expect(context.hasChanges)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["store.txt"], "no temporary file is left")
        store.failing = .none
        try context.save()
    }

    @Test("A subclass that gives two objects of one save the same key is refused; neither object is lost")
    func sameKeyTwiceInOneSave() throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let path = try StoreKind.newFile(extension: "txt")
        defer { StoreKind.removeFolder(of: path) }
        let store = try coordinator.addStore(Faulty.self, at: path)
        store.failing = .sameKey
        let context = MainContext(coordinator: coordinator)
        try context.insert("Tag")["label"] = "first"
        try context.insert("Tag")["label"] = "second"
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.message == "Faulty gave a new Tag the key 7, which another Tag has; nothing was saved")
        #expect(try MainContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Tag")) == 0)
        store.failing = .none
        try context.save()
        #expect(try MainContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Tag")) == 2)
    }

    /// A store that, when it saves, touches the XML store file beside it (`tags.xml`): the
    /// other program that changes a file between an atomic store's write and its rename.
    final class Meddling: AtomicStore<String>, @unchecked Sendable {
        // @unchecked: no state of its own (see AtomicStore).
        override func load(from data: Data, into objects: inout [StoredObject], metadata: inout [String: String]) throws {
            metadata = ["_storeUUID": "meddling"]
        }
        override func newReferenceObject(for object: StoredObject) throws -> Int64 { largestKey(of: object.entity) + 1 }
        override func newCacheNode(for object: StoredObject) throws -> String { "" }
        override func updateCacheNode(_ node: inout String, from object: StoredObject) throws {}
        override func save(_ nodes: [(objectID: ObjectID, node: String)], metadata: [String: String], to file: AtomicStoreWriter) throws {
            let other = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("tags.xml")
            guard !nodes.isEmpty, let handle = try? FileHandle(forWritingTo: other) else { return }
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("\n".utf8))
            try handle.close()
        }
    }

    @Test("A save that finds, at its rename, the file changed by another program leaves no temporary file")
    func changedBeforeRename() throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let path = try StoreKind.newFile(extension: "txt")
        defer { StoreKind.removeFolder(of: path) }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        // The XML store writes first and renames last, after the other store's save.
        try coordinator.addStore(XMLStore.self, at: folder + "/tags.xml", configuration: ["Tag"])
        try coordinator.addStore(Meddling.self, at: path)
        let context = MainContext(coordinator: coordinator)
        try context.insert("Tag")["label"] = "kept"
        try context.insert("Chef")["name"] = "Ana"
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.message.contains("'\(folder)/tags.xml' was changed by another process or program"), "\(error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["store.txt", "tags.xml"],
                "no temporary file is left")
    }

    @Test("A save whose write fails part-way leaves the file and the store as they were", arguments: StoreKind.atomic)
    func failedWrite(kind: StoreKind) throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let store = try kind.addStore(to: coordinator)
        let path = (store as! any AtomicStorePath).path
        defer { StoreKind.removeFolder(of: path) }
        let context = MainContext(coordinator: coordinator)
        try Self.fill(context)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let snapshot = try graphSnapshot(coordinator)

        (store as! any AtomicStorePath).failWrites(afterBytes: before.count / 2)
        try context.insert("Tag")["label"] = "lost"
        let recipe = try #require(try context.fetch(FetchRequest(entityName: "Recipe")).first)
        recipe["name"] = "Renamed"
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.code == .storeFailure && error.message.contains("failed after \(before.count / 2) bytes"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the old file is intact")
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["store.\(kind.rawValue)"], "no temporary file is left")
        #expect(try graphSnapshot(coordinator) == snapshot, "the store kept its rows")

        (store as! any AtomicStorePath).failWrites(afterBytes: nil)
        try context.save()
        let reopened = PersistentStoreCoordinator(model: coordinator.model)
        try reopened.addStore(type: kind.type, at: path)
        #expect(try graphSnapshot(reopened) == graphSnapshot(coordinator))
        #expect(try graphSnapshot(reopened).contains { $0.contains("name='Renamed'") })
    }

    @Test("A save removes the temporary files of writers killed mid-save, not those of running ones", arguments: StoreKind.atomic)
    func abandonedTemporaryFiles(kind: StoreKind) throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let path = (try kind.addStore(to: coordinator) as! any AtomicStorePath).path
        defer { StoreKind.removeFolder(of: path) }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let name = URL(fileURLWithPath: path).lastPathComponent
        // Process 2,147,483,647 cannot exist (Linux's largest is 4,194,304); this one runs.
        let abandoned = "\(folder)/.\(name).2147483647.17.tmp", running = "\(folder)/.\(name).\(getpid()).18.tmp"
        let unrelated = "\(folder)/.other.xml.2147483647.19.tmp"
        for file in [abandoned, running, unrelated] { try Data("half".utf8).write(to: URL(fileURLWithPath: file)) }
        let context = MainContext(coordinator: coordinator)
        try context.insert("Tag")["label"] = "after the kill"
        try context.save()
        #expect(!FileManager.default.fileExists(atPath: abandoned))
        #expect(FileManager.default.fileExists(atPath: running))
        #expect(FileManager.default.fileExists(atPath: unrelated))
    }

    @Test("A save keeps the file's permissions, and a read-only file is refused and left as it was", arguments: StoreKind.atomic)
    func filePermissions(kind: StoreKind) throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let path = (try kind.addStore(to: coordinator) as! any AtomicStorePath).path
        defer { StoreKind.removeFolder(of: path) }
        func mode() -> mode_t {
            var status = stat()
            stat(path, &status)
            return status.st_mode & 0o7777
        }
        let context = MainContext(coordinator: coordinator)
        chmod(path, 0o600)
        try context.insert("Tag")["label"] = "private"
        try context.save()
        #expect(mode() == 0o600, "a private file stays private")

        chmod(path, 0o444)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        try context.insert("Tag")["label"] = "refused"
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.code == .storeFailure && error.message.contains("'\(path)': the file is read-only"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before && mode() == 0o444)
        #expect(context.hasChanges, "the context keeps its changes")
    }

    @Test("A save, or a new store, in a read-only folder is refused naming the folder; the file and the store stay as they were",
          arguments: StoreKind.atomic)
    func readOnlyFolder(kind: StoreKind) throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let path = (try kind.addStore(to: coordinator) as! any AtomicStorePath).path
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        defer {
            chmod(folder, 0o755)
            StoreKind.removeFolder(of: path)
        }
        let context = MainContext(coordinator: coordinator)
        try context.insert("Tag")["label"] = "kept"
        try context.save()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let snapshot = try graphSnapshot(coordinator)

        chmod(folder, 0o555)
        try context.insert("Tag")["label"] = "refused"
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.code == .storeFailure)
        #expect(error.message == "cannot save the store at '\(path)': the folder '\(folder)' is read-only, and a save writes a new "
            + "file there before it replaces the old one; nothing was written (make the folder writable, or open a copy elsewhere)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before && context.hasChanges)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["store.\(kind.rawValue)"], "no temporary file")
        let other = "\(folder)/new.\(kind.rawValue)"
        let creating = try #require(throws: ObjectGraphError.self) {
            try PersistentStoreCoordinator(model: coordinator.model).addStore(type: kind.type, at: other)
        }
        #expect(creating.message.hasPrefix("cannot create the store at '\(other)': the folder '\(folder)' is read-only"))
        #expect(!FileManager.default.fileExists(atPath: other))

        chmod(folder, 0o755)
        #expect(try graphSnapshot(coordinator) == snapshot, "the store kept its rows")
        try context.save()
        let reopened = PersistentStoreCoordinator(model: coordinator.model)
        try reopened.addStore(type: kind.type, at: path)
        #expect(try graphSnapshot(reopened) == graphSnapshot(coordinator))
    }

    @Test("Store types are recognized by content, whatever the file's name")
    func recognition() throws {
        let model = try TestModel.make()
        for kind in StoreKind.allCases where kind != .memory && kind != .postgres {  // the file kinds
            let path = try StoreKind.newFile(extension: "dat")
            defer { StoreKind.removeFolder(of: path) }
            try PersistentStoreCoordinator(model: model).addStore(type: kind.type, at: path)
            #expect(try PersistentStoreType.recognize(fileAt: path) == kind.type, "\(kind)")
        }
        let text = try StoreKind.newFile(extension: "xml")
        defer { StoreKind.removeFolder(of: text) }
        try Data("hello".utf8).write(to: URL(fileURLWithPath: text))
        #expect(try PersistentStoreType.recognize(fileAt: text) == nil)
        #expect(PersistentStoreType(named: "HTML") == .html && PersistentStoreType(named: "csv") == nil)
    }

    @Test("A directory is refused naming it, not with Foundation's error")
    func recognitionOfDirectory() throws {
        let path = try StoreKind.newFile(extension: "dat")
        defer { StoreKind.removeFolder(of: path) }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let error = #expect(throws: ObjectGraphError.self) { try PersistentStoreType.recognize(fileAt: path) }
        #expect(error?.code == .storeFailure)
        #expect(error?.description == "cannot open the store at '\(path)': it is a directory")
    }

    @Test("A directory, or a file in a missing folder, is refused in the SQLite store's words, and nothing is created",
          arguments: StoreKind.atomic)
    func unusablePaths(kind: StoreKind) throws {
        let path = try StoreKind.newFile(extension: kind.rawValue)
        defer { StoreKind.removeFolder(of: path) }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let model = try TestModel.make()
        func error(_ path: String) throws -> ObjectGraphError {
            try #require(throws: ObjectGraphError.self) { try PersistentStoreCoordinator(model: model).addStore(type: kind.type, at: path) }
        }
        #expect(try error(path).description == "cannot open the store at '\(path)': it is a directory")
        #expect(try FileManager.default.contentsOfDirectory(atPath: path) == [])

        // The folder as the caller wrote it, relative or not.
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let relative = "og-no-such-folder-\(UUID().uuidString)"
        for (file, missing) in [("\(folder)/nodir/x.\(kind)", "\(folder)/nodir"), ("\(relative)/x.\(kind)", relative)] {
            let refusal = try error(file)
            #expect(refusal.code == .storeFailure)
            #expect(refusal.description == "cannot open the store at '\(file)': the folder '\(missing)' does not exist; create it or choose another path")
            #expect(!FileManager.default.fileExists(atPath: missing))
        }
    }
}

/// The parts of an atomic store the tests reach without knowing its node type.
protocol AtomicStorePath {
    var path: String { get }
    func failWrites(afterBytes bytes: Int?)
}

extension AtomicStore: AtomicStorePath {}
