import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite
import ObjectGraphSQL

/// A file store reads on a pool of read-only connections and writes on one writer: reads
/// never wait for a save in progress, reads inside a write see its rows, in-memory stores
/// keep one connection. Threads that hold a connection open block on semaphores on their
/// own threads (a private context's queue or a `Thread`), never on the cooperative pool;
/// every wait has a generous deadline, and results are checked by the order of events.
@MainActor
struct ReaderPoolTests {
    let directory: URL
    /// Removes the test's directory when the suite value goes, after the test.
    private let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("og-pool")
        directory = scratch.url
    }

    nonisolated func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Events in the order they happened, from any thread.
    final class EventLog: Sendable {
        private let events = Locked<[String]>([])
        func append(_ event: String) { events.withLock { $0.append(event) } }
        var all: [String] { events.withLock { $0 } }
        func contains(_ event: String) -> Bool { all.contains(event) }
    }

    /// Waits without blocking until `log` has `event`; fails the test after `timeout`.
    nonisolated func waitFor(_ event: String, in log: EventLog, timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !log.contains(event) {
            guard ContinuousClock.now < deadline else {
                Issue.record("'\(event)' did not happen within \(timeout); events: \(log.all)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    func chefNames(_ context: MainContext) throws -> [String] {
        try context.fetch(FetchRequest(entityName: "Chef", sortKeys: [SortKey("name")])).map { $0["name"] as? String ?? "?" }
    }

    /// The names of the chefs, read through a private context (its own queue, not the main
    /// actor, so the test does not depend on the main actor being free).
    nonisolated static func chefNames(_ context: PrivateContext) async throws -> [String] {
        try await context.perform { context in
            try context.fetch(FetchRequest(entityName: "Chef", sortKeys: [SortKey("name")])).map { $0["name"] as? String ?? "?" }
        }
    }

    @Test("Cancelling a fetch stops it inside a long MATCHES, between SQLite's own checks, with CancellationError")
    nonisolated func cancellingStopsALongMatch() async throws {
        let coordinator = try TestModel.coordinator(path: path("regex.sqlite"))
        // Each name costs the backtracking expression below most of a second; SQLite checks
        // for cancellation only every 1,000 steps, which all 30 rows fit in.
        try await PrivateContext(coordinator: coordinator).perform { context in
            for index in 0..<30 { try context.insert("Chef")["name"] = String(repeating: "a", count: 200 + index) }
            try context.save()
        }
        let log = EventLog()
        let reader = PrivateContext(coordinator: coordinator)
        let fetching = Task.detached {
            try await reader.perform { context in
                log.append("fetching")
                return try context.fetch(FetchRequest(entityName: "Chef", predicate: try FetchPredicate("name MATCHES '(.*[aeiou]){5}q'"))).count
            }
        }
        try await waitFor("fetching", in: log)
        try await Task.sleep(for: .milliseconds(100))
        fetching.cancel()
        await #expect(throws: CancellationError.self) { try await fetching.value }
    }

    @Test("A cancelled task's read transactions begin and end whole: neither BEGIN nor COMMIT stops halfway, so the next BEGIN works")
    nonisolated func cancelledReadsEndTheirTransactions() async throws {
        let file = path("cancelled-reads.sqlite")
        let context = PrivateContext(coordinator: try TestModel.coordinator(path: file))
        // On the context's queue, not the cooperative pool, in a task that cancels itself.
        let stuckAfter = try await Task.detached {
            try await context.perform { _ -> Int? in
                withUnsafeCurrentTask { $0?.cancel() }
                let reader = try SQLiteConnection(path: file, readOnly: true)
                for round in 1...5_000 {
                    try reader.beginReading()
                    if !reader.isInTransaction { return round }
                    reader.endReading()
                    if reader.isInTransaction { return round }
                }
                return nil
            }
        }.value
        #expect(stuckAfter == nil, "a read transaction stayed open after round \(stuckAfter ?? 0)")
    }

    @Test("A fetch runs while another thread holds a save's transaction open, and sees only committed rows")
    nonisolated func aFetchDoesNotWaitForASaveInProgress() async throws {
        let coordinator = try TestModel.coordinator(path: path("busy.sqlite"))
        let store = coordinator.sqliteStore
        try await PrivateContext(coordinator: coordinator).perform { context in
            try context.insert("Chef")["name"] = "Ana"
            try context.save()
        }

        // The writer: a private context writes two chefs, then waits inside the transaction
        // (on the context's own queue) until the reader has read.
        let log = EventLog()
        let release = DispatchSemaphore(value: 0)
        let writer = PrivateContext(coordinator: coordinator)
        let saving = Task.detached {
            try await writer.perform { context in
                let chefs = try ["Bea", "Cid"].map { name in
                    let chef = try context.insert("Chef")
                    chef["name"] = name
                    return chef
                }
                try store.saveInserting(chefs) {
                    log.append("written")
                    if release.wait(timeout: .now() + 60) == .timedOut { log.append("writer gave up waiting") }
                    log.append("committing")
                }
                log.append("committed")
            }
        }
        try await waitFor("written", in: log)

        // The read and the release happen on the reader's own queue: nothing here waits for
        // the main actor while the writer holds its transaction.
        let reader = PrivateContext(coordinator: coordinator)
        let seenDuringWrite = try await reader.perform { context in
            let names = try context.fetch(FetchRequest(entityName: "Chef", sortKeys: [SortKey("name")])).map { $0["name"] as? String ?? "?" }
            log.append("read")
            release.signal()
            return names
        }
        try await saving.value

        #expect(log.all == ["written", "read", "committing", "committed"])
        #expect(seenDuringWrite == ["Ana"], "the read saw uncommitted rows")
        #expect(try await Self.chefNames(reader) == ["Ana", "Bea", "Cid"])
        #expect(store.pool.openedReaderCount >= 1)
    }

    @Test("A save commits while another thread is in the middle of reading rows")
    nonisolated func aWriteDoesNotWaitForAReadInProgress() async throws {
        let coordinator = try TestModel.coordinator(path: path("reading.sqlite"))
        let store = coordinator.sqliteStore

        // The reader: steps to the first metadata row, then waits with its statement open.
        let log = EventLog()
        let release = DispatchSemaphore(value: 0)
        let reader = Thread {
            do {
                try store.performRead { connection in
                    var first = true
                    try connection.cachedStatement(SchemaSQL.selectMetadata).forEachRow { _ in
                        guard first else { return }
                        first = false
                        log.append("reading")
                        if release.wait(timeout: .now() + 60) == .timedOut { log.append("reader gave up waiting") }
                    }
                }
            } catch {
                log.append("read failed: \(error)")
            }
            log.append("read done")
        }
        reader.start()
        try await waitFor("reading", in: log)

        let saver = PrivateContext(coordinator: coordinator)
        try await saver.perform { context in
            try context.insert("Chef")["name"] = "Ana"
            try context.save()
            log.append("saved")
            release.signal()
        }
        try await waitFor("read done", in: log)

        #expect(log.all == ["reading", "saved", "read done"])
        #expect(try await Self.chefNames(saver) == ["Ana"])
    }

    @Test("A read on the thread inside a write runs on the writer, sees the write's rows and does not deadlock")
    func aReadInsideAWriteSeesItsRows() throws {
        let coordinator = try TestModel.coordinator(path: path("inside.sqlite"))
        let store = coordinator.sqliteStore
        let context = MainContext(coordinator: coordinator)
        let other = MainContext(coordinator: coordinator)
        try context.insert("Chef")["name"] = "Ana"
        try context.save()

        try context.insert("Chef")["name"] = "Bea"
        var countInside = 0
        try store.saveInserting(Array(context.insertedObjects)) {
            countInside = try other.count(for: FetchRequest(entityName: "Chef"))
        }
        #expect(countInside == 2)
        #expect(try other.count(for: FetchRequest(entityName: "Chef")) == 2)
        try store.perform { writer in
            try store.performRead { connection in #expect(connection === writer) }
        }
        #expect(try store.performRead { connection in connection } !== store.pool.write { $0 })
    }

    @Test("A read right after a save sees the saved rows")
    func readsAfterWritesSeeTheCommit() throws {
        let coordinator = try TestModel.coordinator(path: path("after.sqlite"))
        let writer = MainContext(coordinator: coordinator)
        let reader = MainContext(coordinator: coordinator)
        for index in 0..<20 {
            try writer.insert("Chef")["name"] = "Chef \(index)"
            try writer.save()
            #expect(try reader.count(for: FetchRequest(entityName: "Chef")) == index + 1)
        }
    }

    /// A coordinator on `file` whose loads keep a read transaction for `lifetime`, with a
    /// saved chef named Ana; and that chef's ID.
    func storeWithAna(_ file: String, faultSnapshotLifetime lifetime: Duration) throws -> (PersistentStoreCoordinator, ObjectID) {
        var options = SQLiteStore.Options()
        options.faultSnapshotLifetime = lifetime
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        try coordinator.addStore(at: file, options: options)
        let context = MainContext(coordinator: coordinator)
        let ana = try context.insert("Chef")
        ana["name"] = "Ana"
        try context.save()
        return (coordinator, ana.objectID)
    }

    /// The chef's name as a fault's load reads it, from the store.
    nonisolated func loadedName(_ id: ObjectID, _ store: SQLiteStore) throws -> String? {
        guard let row = try store.fetchRow(id) else { return nil }
        let column = store.layout(for: store.model.entities[Int(id.entityIndex)]).columnIndex["name"]!
        guard case .text(let name) = row[column] else { return nil }
        return name
    }

    /// Renames the chef as another process would: on a connection of its own, outside every pool.
    nonisolated func renameOutside(_ file: String, _ id: ObjectID, to name: String) throws {
        try SQLiteConnection(path: file).execute("UPDATE \"Chef\" SET \"name\" = '\(name)' WHERE \"_pk\" = \(id.key)")
    }

    @Test("Loads keep their reader's read transaction until this process writes; fetches read the latest state")
    func loadsReuseAReadTransaction() throws {
        let file = path("loads.sqlite")
        let (coordinator, ana) = try storeWithAna(file, faultSnapshotLifetime: .seconds(600))
        let store = coordinator.sqliteStore
        #expect(try loadedName(ana, store) == "Ana")
        #expect(store.pool.idleReadersInTransaction == 1)

        try renameOutside(file, ana, to: "Bea")
        #expect(try loadedName(ana, store) == "Ana", "a load began a read transaction of its own")
        // A fetch reads the latest state, and the loads after it read that state.
        #expect(try chefNames(MainContext(coordinator: coordinator)) == ["Bea"])
        #expect(try loadedName(ana, store) == "Bea")

        // A write in this process, here by another coordinator on the file (named by another
        // path), ends it at once.
        try renameOutside(file, ana, to: "Cid")
        #expect(try loadedName(ana, store) == "Bea")
        let (other, _) = try storeWithAna(directory.path + "/./loads.sqlite", faultSnapshotLifetime: .seconds(600))
        #expect(try loadedName(ana, store) == "Cid")

        // So does a write through this pool, which also ends idle readers' transactions first.
        try renameOutside(file, ana, to: "Dee")
        #expect(try loadedName(ana, store) == "Cid")
        let context = MainContext(coordinator: coordinator)
        try context.insert("Tag")["label"] = "quick"
        try context.save()
        #expect(store.pool.idleReadersInTransaction == 0)
        #expect(try loadedName(ana, store) == "Dee")
        #expect(try chefNames(MainContext(coordinator: other)) == ["Ana", "Dee"])
    }

    @Test("existingObject(with:) reads the latest state, though loads keep an older one")
    func existingObjectReadsTheLatest() throws {
        let file = path("existing.sqlite")
        let (coordinator, ana) = try storeWithAna(file, faultSnapshotLifetime: .seconds(600))
        let store = coordinator.sqliteStore
        #expect(try loadedName(ana, store) == "Ana")
        try renameOutside(file, ana, to: "Bea")
        #expect(try loadedName(ana, store) == "Ana")
        #expect(try MainContext(coordinator: coordinator).existingObject(with: ana)["name"] as? String == "Bea")
    }

    @Test("With a zero fault snapshot lifetime every load reads the latest state and keeps no transaction")
    func zeroLifetimeLoadsReadTheLatest() throws {
        let file = path("zero.sqlite")
        let (coordinator, ana) = try storeWithAna(file, faultSnapshotLifetime: .zero)
        let store = coordinator.sqliteStore
        #expect(try loadedName(ana, store) == "Ana")
        #expect(store.pool.idleReadersInTransaction == 0)
        try renameOutside(file, ana, to: "Bea")
        #expect(try loadedName(ana, store) == "Bea")
        #expect(store.pool.idleReadersInTransaction == 0)
    }

    @Test("An idle reader ends its read transaction after the lifetime, and loads then see other processes' saves")
    func idleReadersLetGo() async throws {
        let file = path("idle.sqlite")
        let (coordinator, ana) = try storeWithAna(file, faultSnapshotLifetime: .milliseconds(50))
        let store = coordinator.sqliteStore
        #expect(try loadedName(ana, store) == "Ana")
        try renameOutside(file, ana, to: "Bea")
        // On the main actor, like the SQLite calls around it; Task.sleep blocks no thread.
        let deadline = ContinuousClock.now + .seconds(60)
        while store.pool.idleReadersInTransaction > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(store.pool.idleReadersInTransaction == 0, "the idle reader kept its read transaction for a minute")
        // The log's read locks are free: a checkpoint from outside copies every page at once.
        let checkpoint = try SQLiteConnection(path: file, busyTimeout: .zero).rows("PRAGMA wal_checkpoint(TRUNCATE)")
        #expect(checkpoint.first?.first == .integer(0), "a reader still holds the log: \(checkpoint)")
        #expect(try loadedName(ana, store) == "Bea")
    }

    @Test("An in-memory or temporary store reads and writes on its one connection", arguments: [":memory:", ""])
    func anInMemoryStoreUsesTheWriter(path: String) throws {
        let coordinator = try TestModel.coordinator(path: path)
        let store = coordinator.sqliteStore
        let context = MainContext(coordinator: coordinator)
        try context.insert("Chef")["name"] = "Ana"
        try context.save()
        let reader = MainContext(coordinator: coordinator)
        #expect(try chefNames(reader) == ["Ana"])
        let predicate = try FetchPredicate("name ==[cd] 'ANA'")
        #expect(try reader.count(for: FetchRequest(entityName: "Chef", predicate: predicate)) == 1)
        #expect(store.pool.openedReaderCount == 0)
        #expect(store.pool.readerStatistics.statements == 0)
    }

    @Test("A [cd] predicate runs in SQL on a reader, which has the SQL functions")
    func foldingPredicatesRunOnAReader() throws {
        let coordinator = try TestModel.coordinator(path: path("folding.sqlite"))
        let store = coordinator.sqliteStore
        let context = MainContext(coordinator: coordinator)
        for name in ["Crème", "Ana", "CREME"] { try context.insert("Chef")["name"] = name }
        try context.save()
        let sql = EventLog()
        store.setSQLDebugLevel(.statements, includesTimings: false) { line in
            if line.hasPrefix("sql: ") { sql.append(line) }
        }
        let writerBefore = store.pool.writerStatistics.statements

        let reader = MainContext(coordinator: coordinator)
        let request = FetchRequest(entityName: "Chef", predicate: try FetchPredicate("name CONTAINS[cd] 'creme'"),
                                   sortKeys: [SortKey("name")])
        let names = try reader.fetch(request).map { $0["name"] as? String }
        #expect(names == ["CREME", "Crème"])
        #expect(store.pool.openedReaderCount >= 1)
        #expect(store.pool.readerStatistics.statements >= 1)
        #expect(store.pool.writerStatistics.statements == writerBefore, "the fetch ran on the writer")
        #expect(sql.all.contains { $0.contains("og_") }, "the fetch did not use the SQL functions: \(sql.all)")
    }

    @Test("Statistics add up the writer's and the readers' statements, rows and transactions")
    func statisticsCountEveryConnection() throws {
        let coordinator = try TestModel.coordinator(path: path("statistics.sqlite"))
        let store = coordinator.sqliteStore
        let context = MainContext(coordinator: coordinator)
        let start = context.statistics
        for name in ["Ana", "Bea", "Cid"] { try context.insert("Chef")["name"] = name }
        try context.save()
        let afterSave = context.statistics - start
        #expect(afterSave.transactions == 1)
        #expect(afterSave.statements >= 3)

        let writerBefore = store.pool.writerStatistics
        let readersBefore = store.pool.readerStatistics
        let reader = MainContext(coordinator: coordinator)
        #expect(try reader.fetch(FetchRequest(entityName: "Chef")).count == 3)
        #expect(try reader.count(for: FetchRequest(entityName: "Chef")) == 3)
        let afterReads = context.statistics - start - afterSave

        #expect(store.pool.writerStatistics.statements == writerBefore.statements)
        #expect(store.pool.readerStatistics.statements == readersBefore.statements + 2)
        #expect(store.pool.readerStatistics.rows == readersBefore.rows + 4)  // 3 chefs and a count
        #expect(afterReads.statements == 2 && afterReads.rows == 4 && afterReads.transactions == 0)
        let total = store.connectionStatistics
        let sum = store.pool.writerStatistics + store.pool.readerStatistics
        #expect(total.statements == sum.statements && total.rows == sum.rows && total.transactions == sum.transactions)
    }

    @Test("The SQL debug trace reaches readers opened before and after it is set")
    func theTraceReachesEveryReader() throws {
        let coordinator = try TestModel.coordinator(path: path("trace.sqlite"))
        let store = coordinator.sqliteStore
        let context = MainContext(coordinator: coordinator)
        let lines = EventLog()
        store.setSQLDebugLevel(.statements, includesTimings: false) { lines.append($0) }
        #expect(store.pool.openedReaderCount == 0)
        _ = try context.count(for: FetchRequest(entityName: "Chef"))  // opens a reader
        #expect(store.pool.openedReaderCount == 1)
        #expect(lines.all.contains { $0.hasPrefix("sql: SELECT count(*)") }, "\(lines.all)")

        store.setSQLDebugLevel(.off) { lines.append($0) }
        let traced = lines.all.count
        _ = try context.count(for: FetchRequest(entityName: "Tag"))
        #expect(lines.all.count == traced, "an idle reader kept the old trace")

        store.setSQLDebugLevel(.statements, includesTimings: false) { lines.append($0) }
        _ = try context.count(for: FetchRequest(entityName: "Recipe"))
        #expect(lines.all.count > traced)
    }

    @Test("Closing a store closes its readers first, so the writer checkpoints the WAL and removes it")
    func closingCheckpointsTheWAL() throws {
        let file = path("close.sqlite")
        do {
            let coordinator = try TestModel.coordinator(path: file)
            let context = MainContext(coordinator: coordinator)
            for index in 0..<100 { try context.insert("Chef")["name"] = "Chef \(index)" }
            try context.save()
            #expect(try MainContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Chef")) == 100)
            #expect(coordinator.sqliteStore.pool.openedReaderCount == 1)
            #expect(FileManager.default.fileExists(atPath: file + "-wal"))
        }
        #expect(!FileManager.default.fileExists(atPath: file + "-wal"), "the WAL was not checkpointed on close")
        let coordinator = try TestModel.coordinator(path: file)
        #expect(try MainContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Chef")) == 100)
    }

    @Test("Reads on several threads at once each get a reader, up to the maximum")
    func concurrentReadsShareThePool() async throws {
        var options = SQLiteStore.Options()
        options.maximumReaderCount = 2
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let store = try coordinator.addStore(at: path("concurrent.sqlite"), options: options)
        let context = MainContext(coordinator: coordinator)
        for index in 0..<50 { try context.insert("Chef")["name"] = "Chef \(index)" }
        try context.save()

        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let reader = PrivateContext(coordinator: coordinator)
                    return try await reader.perform { context in
                        var total = 0
                        for _ in 0..<25 { total += try context.count(for: FetchRequest(entityName: "Chef")) }
                        return total
                    }
                }
            }
            var counts: [Int] = []
            for try await count in group { counts.append(count) }
            return counts
        }
        #expect(counts == [1_250, 1_250, 1_250, 1_250])
        #expect((1...2).contains(store.pool.openedReaderCount))
    }
}

extension SQLiteStore {
    /// Writes inserted objects as their context's save would, running `beforeCommit`
    /// inside the transaction; the objects keep their temporary IDs.
    func saveInserting(_ objects: [ManagedObject], beforeCommit: () throws -> Void) throws {
        let changes = objects[0].contextCore!.storeChanges(inserted: objects, updated: [], deleted: [], store: self)
        _ = try save(changes, beforeCommit: beforeCommit)
    }
}
