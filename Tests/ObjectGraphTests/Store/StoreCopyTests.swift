import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// `SQLiteStore.copyStore(at:to:)`: one moment of the store, its log included, into a new
/// file; never over anything that exists, and nothing left behind when it is refused.
@MainActor
struct StoreCopyTests {
    private let scratch: ScratchDirectory

    init() throws { scratch = try ScratchDirectory("og-copy") }

    func path(_ name: String) -> String { scratch.url.appendingPathComponent(name).path }

    /// The names in the test's directory.
    func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted() }

    /// How many tags the store at `file` holds, read through a new coordinator.
    func tagCount(_ file: String) throws -> Int {
        try MainContext(coordinator: TestModel.coordinator(path: file)).count(for: FetchRequest(entityName: "Tag"))
    }

    @Test("A copy of an open store holds the saves still in its write-ahead log, and leaves no log of its own")
    func copiesTheLog() throws {
        let source = path("open.sqlite")
        let context = try MainContext(coordinator: TestModel.coordinator(path: source))
        for index in 0..<50 { try context.insert("Tag")["label"] = "tag \(index)" }
        try context.save()
        let file = try #require(FileManager.default.contents(atPath: source))
        #expect(((try? FileManager.default.attributesOfItem(atPath: source + "-wal")[.size] as? Int) ?? 0) > 0,
                "the saves are still in the log")

        try SQLiteStore.copyStore(at: source, to: path("copy.sqlite"))
        #expect(FileManager.default.contents(atPath: source) == file, "the source's file is as it was")
        #expect(try tagCount(path("copy.sqlite")) == 50)
        #expect(try names() == ["copy.sqlite", "open.sqlite", "open.sqlite-shm", "open.sqlite-wal"])
        #expect(try SQLiteStore.metadata(ofStoreAt: path("copy.sqlite"))[SQLiteStore.MetadataKey.storeUUID]
                == SQLiteStore.metadata(ofStoreAt: source)[SQLiteStore.MetadataKey.storeUUID], "the copy is the same store")
    }

    @Test("A save another connection has not committed is not in the copy; a committed one is")
    func oneMomentOfTheStore() throws {
        let source = path("busy.sqlite")
        let context = try MainContext(coordinator: TestModel.coordinator(path: source))
        try context.insert("Tag")["label"] = "saved"
        try context.save()
        let writer = try SQLiteConnection(path: source)
        try writer.execute("BEGIN IMMEDIATE")
        try writer.execute(#"DELETE FROM "Tag""#)
        try SQLiteStore.copyStore(at: source, to: path("during.sqlite"))
        try writer.execute("COMMIT")
        try SQLiteStore.copyStore(at: source, to: path("after.sqlite"))
        #expect(try tagCount(path("during.sqlite")) == 1)
        #expect(try tagCount(path("after.sqlite")) == 0)
    }

    @Test("A destination that is the source, exists, has a journal beside it or has no folder is refused, touching nothing")
    func refusals() throws {
        let source = path("store.sqlite")
        try MainContext(coordinator: TestModel.coordinator(path: source)).save()
        try FileManager.default.createSymbolicLink(atPath: path("link.sqlite"), withDestinationPath: "store.sqlite")
        try Data("notes".utf8).write(to: URL(fileURLWithPath: path("notes.txt")))
        try FileManager.default.createDirectory(atPath: path("shelf"), withIntermediateDirectories: false)
        try Data("journal".utf8).write(to: URL(fileURLWithPath: path("stale.sqlite-journal")))
        let before = try names()
        let cases: [(String, String)] = [
            ("link.sqlite", "it is the store being copied ('\(source)'); choose a new path for the copy"),
            ("notes.txt", "the file exists; choose a new path or remove it first"),
            ("shelf", "it is a directory; choose a new path for the copy, such as \(path("shelf"))/store.sqlite"),
            ("stale.sqlite", "'\(path("stale.sqlite"))-journal' exists, left from another store, and would corrupt the copy; "
                + "choose a new path or remove it first"),
            ("nowhere/new.sqlite", "the folder '\(path("nowhere"))' does not exist; create it or choose another path"),
        ]
        for (name, reason) in cases {
            let error = try #require(throws: ObjectGraphError.self) { try SQLiteStore.copyStore(at: source, to: path(name)) }
            #expect(error.code == .storeFailure)
            #expect(error.message == "cannot copy to '\(path(name))': \(reason)")
        }
        #expect(try names() == before)
    }

    @Test("A source that is missing or not a store is named, and no copy is made")
    func wrongSources() throws {
        let missing = try #require(throws: ObjectGraphError.self) {
            try SQLiteStore.copyStore(at: path("missing.sqlite"), to: path("copy.sqlite"))
        }
        #expect(missing.message == "cannot copy '\(path("missing.sqlite"))': there is no store file there")
        do {
            let other = try SQLiteConnection(path: path("other.sqlite"))
            try other.execute("CREATE TABLE people (name TEXT)")
        }
        let foreign = try #require(throws: ObjectGraphError.self) {
            try SQLiteStore.copyStore(at: path("other.sqlite"), to: path("copy.sqlite"))
        }
        #expect(foreign.code == .notADatabase)
        #expect(try names() == ["other.sqlite"])
    }

    @Test("A move to another store type that fails removes every file the new store made, so the path can be used again")
    func failedMoveLeavesNothing() throws {
        // A store holding two chefs that share a name, which the model's uniqueness
        // constraint forbids, so that copying it into SQLite fails. (Opening a file that
        // holds them is refused, so the rows are edited in memory, after the load.)
        let xml = path("catalog.xml")
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let store = try coordinator.addStore(XMLStore.self, at: xml)
        do {
            let context = MainContext(coordinator: coordinator)
            try context.insert("Chef")["name"] = "dup-a"
            try context.insert("Chef")["name"] = "dup-b"
            try context.save()
        }
        let chef = try #require(coordinator.model.entity(named: "Chef"))
        let name = try #require(store.engine.layout(for: chef).columnIndex["name"])
        store.engine.contents.withLock { $0.tables[chef.root.index]?[2]?[name] = .text("dup-a") }

        let target = path("catalog.sqlite")
        let error = try #require(throws: ObjectGraphError.self) { try coordinator.migrateStore(store, to: target, type: .sqlite) }
        #expect(error.code == .constraintViolation)
        #expect(error.message.hasPrefix("cannot migrate the store to '\(target)' (sqlite): cannot save Chef"), "\(error.message)")
        #expect(try names() == ["catalog.xml"], "no database, log or shared-memory file is left")
        #expect(coordinator.stores.first === store)

        let context = MainContext(coordinator: coordinator)
        try context.fetch(FetchRequest(entityName: "Chef", sortKeys: [SortKey("name")]))[1]["name"] = "dup-b"
        try context.save()
        try coordinator.migrateStore(store, to: target, type: .sqlite)
        #expect(try MainContext(coordinator: TestModel.coordinator(path: target)).count(for: FetchRequest(entityName: "Chef")) == 2)
    }
}
