import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// A migration swaps files: it removes the store's write-ahead log, then renames the
/// migrated file over the store. A crash between the two must lose nothing, so before it
/// copies anything the migration moves the log's transactions into the store file
/// (a checkpoint); and a log left beside a file it does not belong to is never replayed.
@MainActor
struct MigrationCrashSafetyTests {
    static let version1 = try! ObjectModel(entities: [EntityDescription("Note", attributes: [AttributeDescription("title", .string)])])
    static let version2 = try! ObjectModel(entities: [
        EntityDescription("Note", attributes: [AttributeDescription("title", .string)], uniquenessConstraints: [["title"]]),
    ])

    /// A version-1 store whose last transactions are only in its log, as a process that
    /// was killed leaves it: the file and the log are copied while a connection holds them.
    func storeWithALog(_ fixture: MigrationFixture, titles: [String]) throws {
        let scratch = fixture.directory.appendingPathComponent("live.sqlite").path
        let coordinator = PersistentStoreCoordinator(model: Self.version1)
        try coordinator.addStore(at: scratch)
        let context = MainContext(coordinator: coordinator)
        for title in titles { try context.insert("Note")["title"] = title }
        try context.save()
        try FileManager.default.copyItem(atPath: scratch, toPath: fixture.path)
        try FileManager.default.copyItem(atPath: scratch + "-wal", toPath: fixture.path + "-wal")
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.path + "-wal")).count > 0)
    }

    /// The titles the store file alone holds, its log removed first (what a crash between the
    /// migration's two steps would leave).
    func titlesWithoutTheLog(_ fixture: MigrationFixture) throws -> [String] {
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: fixture.path + suffix) }
        let coordinator = PersistentStoreCoordinator(model: Self.version1)
        try coordinator.addStore(at: fixture.path)
        let context = MainContext(coordinator: coordinator)
        return try context.all("Note", by: "title").compactMap { $0["title"] as? String }
    }

    @Test("A failed migration has moved the log into the store file: without the log nothing is lost")
    func aFailedMigrationLeavesTheFileWhole() throws {
        let fixture = try MigrationFixture("crash")
        defer { fixture.remove() }
        try storeWithALog(fixture, titles: ["soup", "soup", "stew"])
        let error = try #require(throws: ObjectGraphError.self) {
            _ = try fixture.open(Self.version2, migratingFrom: [Self.version1])
        }
        #expect(error.code == .migrationFailed, "\(error.message)")
        let titles = try titlesWithoutTheLog(fixture)
        #expect(titles == ["soup", "soup", "stew"], "\(error.message)")
    }

    @Test("A migration while another connection holds a write transaction is refused, and that transaction commits")
    func writerHoldsTheStore() throws {
        let fixture = try MigrationFixture("writer")
        defer { fixture.remove() }
        try fixture.write(Self.version1) { context in try context.insert("Note")["title"] = "a" }
        let writer = try SQLiteConnection(path: fixture.path)
        try writer.execute("BEGIN IMMEDIATE")
        try writer.execute(#"INSERT INTO "_metadata" ("key", "value") VALUES ('written', 'meanwhile')"#)
        let before = try fixture.bytes()
        let error = try #require(throws: ObjectGraphError.self) {
            try SQLiteStore.migrateStore(at: fixture.path, using: try MappingModel.inferred(from: Self.version1, to: Self.version2))
        }
        #expect(error.code == .storeLocked)
        #expect(error.message.contains("another program has it open"))
        #expect(try fixture.bytes() == before)
        try writer.execute("COMMIT")
        #expect(try fixture.files().allSatisfy { !$0.contains("-migrat") })
        #expect(try SQLiteStore.metadata(ofStoreAt: fixture.path)["written"] == "meanwhile", "the other connection's commit is in the store")
    }

    @Test("Opening a migrated store removes the working copies a migration killed after its swap left")
    func leftoversOfAKilledMigrationGo() throws {
        let fixture = try MigrationFixture("leftovers")
        defer { fixture.remove() }
        try storeWithALog(fixture, titles: ["soup", "stew"])
        _ = try fixture.open(Self.version2, migratingFrom: [Self.version1])
        let leftovers = ["-migrating", "-migrating-wal", "-migrating-shm", "-migrated", "-migrated-journal"]
        for suffix in leftovers { try Data("left".utf8).write(to: URL(fileURLWithPath: fixture.path + suffix)) }
        let context = try fixture.open(Self.version2, migratingFrom: [Self.version1])
        #expect(try context.all("Note", by: "title").compactMap { $0["title"] as? String } == ["soup", "stew"])
        #expect(leftovers.filter { FileManager.default.fileExists(atPath: fixture.path + $0) } == [])
    }

    @Test("A migration of a store with a log keeps every transaction of the log")
    func aMigrationKeepsTheLog() throws {
        let fixture = try MigrationFixture("crash-ok")
        defer { fixture.remove() }
        try storeWithALog(fixture, titles: ["soup", "stew"])
        let context = try fixture.open(Self.version2, migratingFrom: [Self.version1])
        #expect(try context.all("Note", by: "title").compactMap { $0["title"] as? String } == ["soup", "stew"])
    }
}
