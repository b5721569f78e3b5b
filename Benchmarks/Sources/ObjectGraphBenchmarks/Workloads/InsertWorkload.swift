import ObjectGraphSQLite

/// The insert workload, and the ObjectGraph insert the save-each workload shares.
extension Workload {
    /// Inserts users with two strings into a new file, committing every 1,000
    /// (ObjectGraph saves and resets its context every 1,000).
    @MainActor
    static func insert(_ environment: BenchmarkEnvironment) -> Workload {
        let count = environment.options.scaled(environment.options.insertCount), batch = 1_000
        let scratch = environment.scratch
        return Workload(
            name: .insert, title: "\(Report.grouped(count)) users × 2 strings into a new file, committed every 1,000",
            check: "row count and the sum of the names' lengths in the file; ObjectGraph: one transaction per save",
            variants: [Variant(name: "save per 1,000", runs: [
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
            ])])
    }

    /// Inserts `count` users through a context on a new store, saving every `batch` inserts
    /// (and resetting the context after each save when asked); checks the saved rows and
    /// that each save was one transaction.
    @MainActor
    static func objectGraphInsertUsers(
        _ environment: BenchmarkEnvironment, count: Int, savingEvery batch: Int, resetting: Bool
    ) throws -> Sample {
        let path = try environment.makeStore("users-og")
        defer { environment.scratch.discard(path) }
        let context = try environment.openContext(path)
        let user = environment.model.entity(named: "User")!
        let name = user.attribute(named: "name")!, city = user.attribute(named: "city")!
        let sample = try Sample.measure(context) {
            for index in 0..<count {
                let object = context.insert(user)
                object[name] = "User \(index)"
                object[city] = BenchmarkData.city(index)
                if (index + 1) % batch == 0 {
                    try context.save()
                    if resetting { context.reset() }
                }
            }
            if context.hasChanges { try context.save() }
            if resetting { context.reset() }
        }
        let saves = (count + batch - 1) / batch
        let saved = try context.count(for: FetchRequest(entityName: "User"))
        precondition(saved == count, "\(saved) users saved, not \(count)")
        precondition(sample.objectGraph!.transactions == saves,
                     "\(sample.objectGraph!.transactions) transactions for \(saves) saves")
        RawSQLite.checkUsers(path: path, count: count)
        return sample
    }
}
