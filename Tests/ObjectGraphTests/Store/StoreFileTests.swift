import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Wrong files and a full disk: each a specific error naming the file, never a crash, and
/// the user's file never changed. (Read-only files and folders need a user other than
/// root: `WrongFileTests` in RecipesCLITests runs those through the shell as `nobody`.)
@MainActor
struct StoreFileTests {
    let directory: URL
    /// Removes the test's directory when the suite value goes, after the test.
    private let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("og-files")
        directory = scratch.url
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The bytes of `file` and of its `-wal` and `-shm` companions (nil where missing).
    func contents(_ file: String) -> [Data?] {
        ["", "-wal", "-shm"].map { FileManager.default.contents(atPath: file + $0) }
    }

    /// A closed store of the test model holding a few objects.
    func makeStore(_ name: String) throws -> String {
        let file = path(name)
        let coordinator = try TestModel.coordinator(path: file)
        let context = MainContext(coordinator: coordinator)
        for index in 0..<200 { try context.insert("Tag")["label"] = "tag \(index) " + String(repeating: "x", count: 60) }
        try context.save()
        return file
    }

    func openError(_ file: String, model: ObjectModel? = nil) throws -> ObjectGraphError {
        let coordinator = PersistentStoreCoordinator(model: try model ?? TestModel.make())
        return try #require(throws: ObjectGraphError.self) { try coordinator.addStore(at: file) }
    }

    @Test("A missing folder is named, and nothing is created")
    func aMissingFolder() throws {
        let file = path("no-such-folder/store.sqlite")
        let error = try openError(file)
        #expect(error.code == .storeFailure)
        #expect(error.message == "cannot open the store at '\(file)': the folder '\(path("no-such-folder"))' does not exist; create it or choose another path")
        #expect(!FileManager.default.fileExists(atPath: path("no-such-folder")))
    }

    @Test("A write-ahead log without its database is refused, and the log kept")
    func aLogWithoutItsDatabase() throws {
        let store = try makeStore("moved.sqlite")
        // A log that holds committed transactions: copy it while a connection keeps it open.
        let keeper = try SQLiteConnection(path: store)
        try keeper.execute("PRAGMA journal_mode = WAL")
        try keeper.execute("CREATE TABLE extra (x)")
        let log = try #require(FileManager.default.contents(atPath: store + "-wal"))
        let file = path("orphan.sqlite")
        try log.write(to: URL(fileURLWithPath: file + "-wal"))

        let error = try openError(file)
        #expect(error.code == .storeFailure)
        #expect(error.message.contains("its write-ahead log '\(file)-wal' is there but the database is missing"), "\(error.message)")
        #expect(contents(file) == [nil, log, nil], "the log is untouched and no database was created")

        _ = FileManager.default.createFile(atPath: file, contents: Data())  // an empty file is no better
        #expect(try openError(file).message.contains("but the database is empty"))
    }

    @Test("A rollback journal without its database is refused, and the journal kept")
    func aJournalWithoutItsDatabase() throws {
        let file = path("journalled.sqlite")
        let journal = Data(repeating: 0xD9, count: 512)
        try journal.write(to: URL(fileURLWithPath: file + "-journal"))
        let error = try openError(file)
        #expect(error.code == .storeFailure)
        #expect(error.message == "cannot open the store at '\(file)': its rollback journal '\(file)-journal' is there but the "
                + "database is missing; restore the database next to it, or move the rollback journal away to start a new "
                + "store (opening now would lose what the rollback journal holds)")
        #expect(FileManager.default.contents(atPath: file + "-journal") == journal)
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test("A SQLite database of another program is refused and left exactly as it was")
    func anotherProgramsDatabaseIsNotChanged() throws {
        let file = path("other.sqlite")
        do {
            let connection = try SQLiteConnection(path: file)
            try connection.execute("CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('Ana')")
        }
        let before = contents(file)
        let error = try openError(file)
        #expect(error.code == .notADatabase && error.message.contains("not an ObjectGraph store"))
        #expect(contents(file) == before, "the file (and its journal mode) is unchanged")
    }

    @Test("Random bytes, a truncated store and a zeroed header: notADatabase, the file unchanged")
    func damagedFilesAreNotChanged() throws {
        var random = SeededGenerator(seed: 99)
        let noise = path("noise.sqlite")
        try Data((0..<10_000).map { _ in UInt8.random(in: 0...255, using: &random) }).write(to: URL(fileURLWithPath: noise))

        let truncated = try makeStore("truncated.sqlite")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: truncated))
        try bytes.prefix(bytes.count / 3).write(to: URL(fileURLWithPath: truncated))

        let header = try makeStore("header.sqlite")
        var headerBytes = try Data(contentsOf: URL(fileURLWithPath: header))
        headerBytes.replaceSubrange(0..<100, with: Data(count: 100))
        try headerBytes.write(to: URL(fileURLWithPath: header))

        for file in [noise, truncated, header] {
            let before = contents(file)
            let error = try #require(throws: ObjectGraphError.self) {
                let coordinator = try TestModel.coordinator(path: file)
                _ = try MainContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Tag"))
            }
            #expect(error.code == .notADatabase, "\(file): \(error.message)")
            #expect(error.message.contains(file), "\(error.message)")
            #expect(contents(file)[0] == before[0], "\(file) was changed")
        }
    }

    @Test("A store of a newer model: modelMismatch naming what differs, the file unchanged")
    func aNewerModelsStoreIsNotChanged() throws {
        let file = path("newer.sqlite")
        do {
            let newer = try TestModel.make(chefAttributes: [AttributeDescription("born", .date, isOptional: true)])
            let coordinator = PersistentStoreCoordinator(model: newer)
            try coordinator.addStore(at: file)
            let context = MainContext(coordinator: coordinator)
            try context.insert("Chef")["name"] = "Ana"
            try context.save()
        }
        let before = contents(file)
        let error = try openError(file)
        #expect(error.code == .modelMismatch)
        #expect(error.message.contains("Chef changed (attribute 'born' removed)"), "\(error.message)")
        #expect(contents(file)[0] == before[0])
    }

    @Test("Waiting for a lock names the store and how long it waited")
    func theBusyTimeoutIsNamed() throws {
        let file = try makeStore("busy.sqlite")
        var options = SQLiteStore.Options()
        options.busyTimeout = .milliseconds(250)
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        try coordinator.addStore(at: file, options: options)
        let context = MainContext(coordinator: coordinator)
        try context.insert("Tag")["label"] = "late"
        let blocker = try SQLiteConnection(path: file)
        try blocker.execute("BEGIN IMMEDIATE")
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.code == .storeLocked)
        #expect(error.message == "the store at '\(file)' is locked by another connection or process: waited 0.25 s (the busy timeout) for it; close the other program or try again")
        try blocker.execute("ROLLBACK")
        try context.save()
        #expect(SQLiteStore.describe(.seconds(5)) == "5 s" && SQLiteStore.describe(.milliseconds(50)) == "50 ms")
    }

    @Test("A full disk: the save fails naming it, keeps the context's changes, and succeeds once space is freed")
    func aFullDisk() throws {
        let file = path("full.sqlite")
        var options = SQLiteStore.Options()
        options.maximumPageCount = 60  // 240 KB
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let store = try coordinator.addStore(at: file, options: options)
        let context = MainContext(coordinator: coordinator)
        var saved = 0
        var failure: ObjectGraphError?
        while failure == nil && saved < 10_000 {
            for index in 0..<20 { try context.insert("Tag")["label"] = "ballast \(saved + index) " + String(repeating: "x", count: 500) }
            do {
                try context.save()
                saved += 20
            } catch let error as ObjectGraphError {
                failure = error
            }
        }
        let error = try #require(failure)
        #expect(error.code == .storeFailure)
        #expect(error.message == "the disk holding the store at '\(file)' is full; free some space and try again")
        #expect(context.hasChanges && context.insertedObjects.count == 20)
        #expect(context.insertedObjects.allSatisfy { $0.objectID.isTemporary })
        #expect(try store.checkIntegrity().isEmpty)
        #expect(try MainContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Tag")) == saved)

        let freed = try MainContext(coordinator: coordinator).execute(BatchDeleteRequest(
            entityName: "Tag", predicate: try FetchPredicate("label BEGINSWITH 'ballast 1'")))
        #expect(freed.count > 20)
        try context.save()
        #expect(!context.hasChanges)
        #expect(try MainContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Tag")) == saved - freed.count + 20)
        #expect(try store.checkIntegrity().isEmpty)
    }
}
