import ObjectGraphSQLite

/// The delete workload.
extension Workload {
    /// Deletes every parent with its three children (a cascade): in one request or statement,
    /// and object by object, committed every 1,000 parents. Every run deletes from a fresh
    /// copy of one fixture file.
    @MainActor
    static func delete(_ environment: BenchmarkEnvironment) throws -> Workload {
        let parents = environment.options.scaled(100_000), batch = 1_000
        let scratch = environment.scratch
        let template = try environment.makeStore("delete-template")
        RawSQLite.fillParents(path: template, parents: parents, parentEntity: environment.entityIndex("Parent"),
                              childEntity: environment.entityIndex("Child"))
        /// Runs `body` on a fresh copy of the fixture, removed afterwards.
        func onCopy(_ body: @escaping @MainActor (String) throws -> Sample) -> @MainActor () throws -> Sample {
            {
                let path = try scratch.copy(template, "delete")
                defer { scratch.discard(path) }
                return try body(path)
            }
        }
        return Workload(
            name: .delete,
            title: "\(Report.grouped(parents)) parents with 3 children each (cascade), all deleted",
            check: "rows deleted per statement or request, and both tables empty afterwards",
            variants: [
                Variant(name: "batch", runs: [
                    (.raw, onCopy { RawSQLite.deleteAllParents(path: $0, parents: parents) }),
                    (.objectGraph, onCopy { try objectGraphBatchDelete(environment, path: $0, parents: parents) }),
                    (.grdb, onCopy { try GRDBPeer.deleteAllParents(path: $0, parents: parents) }),
                ]),
                Variant(name: "batch, count only", runs: [
                    (.raw, onCopy { RawSQLite.deleteAllParents(path: $0, parents: parents) }),
                    (.objectGraph, onCopy { try objectGraphBatchDelete(environment, path: $0, parents: parents, resultType: .count) }),
                ]),
                Variant(name: "one by one, save per 1,000", runs: [
                    (.raw, onCopy { RawSQLite.deleteParentsOneByOne(path: $0, parents: parents, batch: batch) }),
                    (.objectGraph, onCopy {
                        try objectGraphContextDelete(environment, path: $0, parents: parents, batch: batch)
                    }),
                    (.grdb, onCopy { try GRDBPeer.deleteParentsOneByOne(path: $0, parents: parents, batch: batch) }),
                ]),
                Variant(name: "1,000 per delete call, save per 1,000", runs: [
                    (.raw, onCopy { RawSQLite.deleteParentsOneByOne(path: $0, parents: parents, batch: batch) }),
                    (.objectGraph, onCopy {
                        try objectGraphContextDelete(environment, path: $0, parents: parents, batch: batch, together: true)
                    }),
                ]),
            ])
    }

    /// One `BatchDeleteRequest` for every parent, which cascades to the children in the store;
    /// its result lists every deleted row's ID, or with `.count` only counts them.
    @MainActor
    private static func objectGraphBatchDelete(
        _ environment: BenchmarkEnvironment, path: String, parents: Int, resultType: BatchDeleteRequest.ResultType = .objectIDs
    ) throws -> Sample {
        let context = try environment.openContext(path)
        _ = try context.count(for: FetchRequest(entityName: "Parent", predicate: .falsePredicate))
        var result = BatchResult()
        let sample = try Sample.measure(context) {
            result = try context.execute(BatchDeleteRequest(entityName: "Parent", resultType: resultType))
        }
        precondition(result.deletedCount == parents * 4, "\(result.deletedCount) rows deleted, not \(parents * 4)")
        precondition(result.deletedIDs.count == (resultType == .objectIDs ? parents * 4 : 0), "\(result.deletedIDs.count) IDs listed")
        try checkEmpty(context)
        return sample
    }

    /// Fetches every parent (untimed), then deletes them in the context, which cascades to
    /// the children through the relationship, saving every `batch` parents: one delete call
    /// per parent, or with `together` one per `batch` parents.
    @MainActor
    private static func objectGraphContextDelete(
        _ environment: BenchmarkEnvironment, path: String, parents: Int, batch: Int, together: Bool = false
    ) throws -> Sample {
        let context = try environment.openContext(path)
        let objects = try context.fetch(FetchRequest(entityName: "Parent"))
        precondition(objects.count == parents)
        var deleted = 0
        let sample = try Sample.measure(context) {
            for start in stride(from: 0, to: objects.count, by: batch) {
                let chunk = objects[start..<min(start + batch, objects.count)]
                if together {
                    context.delete(chunk)
                } else {
                    for parent in chunk { context.delete(parent) }
                }
                deleted += try context.save().deletedIDs.count
            }
        }
        precondition(deleted == parents * 4, "\(deleted) objects deleted, not \(parents * 4)")
        try checkEmpty(context)
        return sample
    }

    /// Traps unless no parent and no child is left.
    @MainActor
    private static func checkEmpty(_ context: MainContext) throws {
        let left = (try context.count(for: FetchRequest(entityName: "Parent")), try context.count(for: FetchRequest(entityName: "Child")))
        precondition(left == (0, 0), "left after delete: \(left)")
    }
}
