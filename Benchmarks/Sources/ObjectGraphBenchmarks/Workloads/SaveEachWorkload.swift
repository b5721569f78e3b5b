/// The save-each workload.
extension Workload {
    /// Inserts users into a new file (or PostgreSQL schema) with a save (a commit) after each
    /// one, and all in one save.
    @MainActor
    static func saveEach(_ environment: BenchmarkEnvironment) -> Workload {
        let count = environment.options.scaled(5_000)
        let scratch = environment.scratch
        /// The three engines inserting `count` users, committing every `batch`.
        func runs(batch: Int) -> [EngineRun] {
            environment.runs([
                (.raw, {
                    let path = scratch.freshPath("saveeach-raw")
                    defer { scratch.discard(path) }
                    return RawSQLite.insertUsers(path: path, count: count, batch: batch)
                }),
                (.objectGraph, { try objectGraphInsertUsers(environment, count: count, savingEvery: batch, resetting: false) }),
                (.grdb, {
                    let path = scratch.freshPath("saveeach-grdb")
                    defer { scratch.discard(path) }
                    return try GRDBPeer.insertUsers(path: path, count: count, batch: batch)
                }),
            ], onPostgres: { server in [
                (.objectGraphPostgres, {
                    try objectGraphInsertUsers(environment, count: count, savingEvery: batch, resetting: false, onPostgres: true)
                }),
                (.rawPostgres, { try RawPostgres.insertUsers(server, count: count, batch: batch) }),
            ]})
        }
        return Workload(
            name: .saveeach, title: "\(Report.grouped(count)) users inserted with a save after each, and in one save",
            check: "row count and the sum of the names' lengths in the store; ObjectGraph: one transaction per save",
            variants: [
                Variant(name: "save each", runs: runs(batch: 1), operations: Operations(count: count, unit: "save")),
                Variant(name: "one save", runs: runs(batch: count), operations: Operations(count: count, unit: "object")),
            ],
            comparisons: [
                Comparison(label: "ObjectGraph: save each ÷ one save",
                           numerator: ("save each", .objectGraph), denominator: ("one save", .objectGraph)),
                Comparison(label: "raw: one transaction per row ÷ one transaction",
                           numerator: ("save each", .raw), denominator: ("one save", .raw)),
            ])
    }
}
