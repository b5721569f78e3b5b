import ObjectGraphSQLite

/// The insert workload, and the ObjectGraph insert the save-each workload shares.
extension Workload {
    /// Inserts users with two strings into a new file, committing every 1,000
    /// (ObjectGraph saves and resets its context every 1,000). On PostgreSQL, raw PostgresNIO
    /// also inserts each 1,000 with one multi-row INSERT, which shows what a statement per
    /// row costs there (a round trip each).
    @MainActor
    static func insert(_ environment: BenchmarkEnvironment) -> Workload {
        let count = environment.options.scaled(environment.options.insertCount), batch = 1_000
        let scratch = environment.scratch
        return Workload(
            name: .insert, title: "\(Report.grouped(count)) users × 2 strings into a new file (or schema), committed every 1,000",
            check: "row count and the sum of the names' lengths in the store; ObjectGraph: one transaction per save",
            variants: [Variant(name: "save per 1,000", runs: environment.runs([
                (.raw, {
                    let path = scratch.freshPath("insert-raw")
                    defer { scratch.discard(path) }
                    return RawSQLite.insertUsers(path: path, count: count, batch: batch)
                }),
                (.objectGraph, { try objectGraphInsertUsers(environment, count: count, savingEvery: batch, resetting: true) }),
                (.grdb, {
                    let path = scratch.freshPath("insert-grdb")
                    defer { scratch.discard(path) }
                    return try GRDBPeer.insertUsers(path: path, count: count, batch: batch)
                }),
            ], onPostgres: { server in [
                (.objectGraphPostgres, {
                    try objectGraphInsertUsers(environment, count: count, savingEvery: batch, resetting: true, onPostgres: true)
                }),
                (.rawPostgres, { try RawPostgres.insertUsers(server, count: count, batch: batch) }),
            ]}), operations: Operations(count: (count + batch - 1) / batch, unit: "save")),
                // What ObjectGraph's store does with a save's rows of one table, done by hand.
                Variant(name: "raw, 50 rows per INSERT", runs: [
                    (.raw, {
                        let path = scratch.freshPath("insert-raw-50")
                        defer { scratch.discard(path) }
                        return RawSQLite.insertUsers(path: path, count: count, batch: batch, rowsPerStatement: 50)
                    }),
                ])]
            + (environment.postgres.map { server in [Variant(name: "one INSERT per 1,000", runs: [
                (.rawPostgres, { try RawPostgres.insertUsersMultiRow(server, count: count, batch: batch) }),
            ])] } ?? []),
            comparisons: [
                Comparison(label: "ObjectGraph ÷ raw with 50 rows per INSERT",
                           numerator: ("save per 1,000", .objectGraph), denominator: ("raw, 50 rows per INSERT", .raw)),
            ] + (environment.postgres == nil ? [] : [
                Comparison(label: "ObjectGraph on PostgreSQL ÷ raw PostgresNIO, one INSERT per 1,000",
                           numerator: ("save per 1,000", .objectGraphPostgres), denominator: ("one INSERT per 1,000", .rawPostgres)),
            ]))
    }

    /// Inserts `count` users through a context on a new store (a file, or a PostgreSQL
    /// schema), saving every `batch` inserts (and resetting the context after each save when
    /// asked); checks the saved rows and that each save was one transaction.
    @MainActor
    static func objectGraphInsertUsers(
        _ environment: BenchmarkEnvironment, count: Int, savingEvery batch: Int, resetting: Bool, onPostgres: Bool = false
    ) throws -> Sample {
        let store = try environment.makeStore("users_og", onPostgres: onPostgres)
        defer { environment.discard(store) }
        var context: MainContext? = try environment.openContext(store)
        defer { context = nil }  // closes the store's connections before the schema is dropped
        let sample = try insertUsers(context!, environment, count: count, savingEvery: batch, resetting: resetting)
        switch store {
        case .file(let path): RawSQLite.checkUsers(path: path, count: count)
        case .postgres(let location): try RawPostgres.checkUsers(environment.postgres!, location, count: count)
        }
        return sample
    }

    /// The measured insert of ``objectGraphInsertUsers(_:count:savingEvery:resetting:onPostgres:)``
    /// and the checks through the context.
    @MainActor
    private static func insertUsers(
        _ context: MainContext, _ environment: BenchmarkEnvironment, count: Int, savingEvery batch: Int, resetting: Bool
    ) throws -> Sample {
        let user = environment.model.entity(named: "User")!
        let name = user.attribute(named: "name")!, city = user.attribute(named: "city")!
        let saves = (count + batch - 1) / batch
        let heap = HeapWatch(steps: saves)
        var sample = try Sample.measure(context) {
            for index in 0..<count {
                let object = context.insert(user)
                object[name] = "User \(index)"
                object[city] = BenchmarkData.city(index)
                if (index + 1) % batch == 0 {
                    try context.save()
                    if resetting { context.reset() }
                    heap.step((index + 1) / batch)
                }
            }
            if context.hasChanges { try context.save() }
            if resetting { context.reset() }
            heap.step(saves)
        }
        // Saved and reset objects leave nothing behind: a megabyte covers the allocator's slack.
        if resetting { sample.heapGrowth = heap.check("insert", allowance: 1 << 20) }
        let saved = try context.count(for: FetchRequest(entityName: "User"))
        precondition(saved == count, "\(saved) users saved, not \(count)")
        precondition(sample.objectGraph!.transactions == saves,
                     "\(sample.objectGraph!.transactions) transactions for \(saves) saves")
        return sample
    }
}
