import ObjectGraphSQLite

/// The workloads that read the word fixture: fetch, words three ways, faults and count.
extension Workload {
    /// Fetches every word into populated objects.
    @MainActor
    static func fetch(_ environment: BenchmarkEnvironment) throws -> Workload {
        let fixture = try environment.words()
        return Workload(
            name: .fetch, title: "\(Report.grouped(fixture.count)) words fetched into populated objects",
            check: "object count and the sum of lengths; ObjectGraph: no object is a fault",
            variants: [Variant(name: "populated objects", runs: environment.runs([
                (.raw, { RawSQLite.fetchWords(fixture) }),
                (.objectGraph, { try objectGraphFetchWords(environment, fixture, .file(fixture.path)) }),
                (.grdb, { try GRDBPeer.fetchWords(fixture) }),
            ], onPostgres: { _ in [
                (.objectGraphPostgres, { try objectGraphFetchWords(environment, fixture, .postgres(fixture.postgres!)) }),
                (.rawPostgres, { try RawPostgres.fetchWords(fixture) }),
            ]}), operations: Operations(count: 1, unit: "fetch"))])
    }

    /// Fetches every word of the fixture in `store` into populated objects.
    @MainActor
    private static func objectGraphFetchWords(
        _ environment: BenchmarkEnvironment, _ fixture: WordFixture, _ store: StoreLocation
    ) throws -> Sample {
        let context = try environment.openContext(store)
        var request = FetchRequest(entityName: "Word")
        request.returnsObjectsAsFaults = false
        _ = try context.count(for: request)  // opens the connection, as the others do before the clock
        var objects: [ManagedObject] = []
        let sample = try Sample.measure(context) { objects = try context.fetch(request) }
        precondition(objects.allSatisfy { !$0.isFault }, "a populated fetch returned faults")
        let length = objects.reduce(0) { $0 + ($1[attribute: "length"] as Int) }
        precondition(objects.count == fixture.count && length == fixture.totalLength)
        return sample
    }

    /// The words as one dictionary per row, as plain objects, and as ObjectGraph objects
    /// (from the default fetch, and fetched populated), each read back in full: the timed part
    /// ends when every word and length has been read.
    @MainActor
    static func words(_ environment: BenchmarkEnvironment) throws -> Workload {
        let fixture = try environment.words()
        return Workload(
            name: .words,
            title: "\(Report.grouped(fixture.count)) words as dictionaries, plain objects and ObjectGraph objects, each read back in full",
            check: "row count, the sum of lengths, and each word's length matching its text",
            variants: [
                Variant(name: "dictionaries", runs: [(.raw, { RawSQLite.readWordsAsDictionaries(fixture) })]),
                Variant(name: "objects", runs: environment.runs([
                    (.raw, { RawSQLite.readWordsAsObjects(fixture) }),
                    (.objectGraph, { try objectGraphReadWords(environment, fixture, .file(fixture.path), populated: false) }),
                ], onPostgres: { _ in [(.objectGraphPostgres, {
                    try objectGraphReadWords(environment, fixture, .postgres(fixture.postgres!), populated: false)
                })]}), operations: Operations(count: 1, unit: "fetch")),
                Variant(name: "objects, populated", runs: environment.runs([
                    (.objectGraph, { try objectGraphReadWords(environment, fixture, .file(fixture.path), populated: true) }),
                ], onPostgres: { _ in [(.objectGraphPostgres, {
                    try objectGraphReadWords(environment, fixture, .postgres(fixture.postgres!), populated: true)
                })]}), operations: Operations(count: 1, unit: "fetch")),
            ],
            comparisons: [
                Comparison(label: "dictionaries ÷ raw objects",
                           numerator: ("dictionaries", .raw), denominator: ("objects", .raw)),
                Comparison(label: "dictionaries ÷ ObjectGraph objects",
                           numerator: ("dictionaries", .raw), denominator: ("objects", .objectGraph)),
                Comparison(label: "dictionaries ÷ ObjectGraph populated",
                           numerator: ("dictionaries", .raw), denominator: ("objects, populated", .objectGraph)),
                Comparison(label: "ObjectGraph populated ÷ raw objects",
                           numerator: ("objects, populated", .objectGraph), denominator: ("objects", .raw)),
            ])
    }

    /// Fetches every word of the fixture in `store` through a context and reads every word
    /// and length: from the default fetch (faults whose values wait in the row cache, each
    /// fired by the read) or populated.
    @MainActor
    private static func objectGraphReadWords(
        _ environment: BenchmarkEnvironment, _ fixture: WordFixture, _ store: StoreLocation, populated: Bool
    ) throws -> Sample {
        let word = environment.model.entity(named: "Word")!
        let text = word.attribute(named: "word")!, length = word.attribute(named: "length")!
        let context = try environment.openContext(store)
        var request = FetchRequest(entityName: "Word")
        request.returnsObjectsAsFaults = !populated
        _ = try context.count(for: request)
        var objects: [ManagedObject] = [], total = 0, consistent = 0
        let sample = try Sample.measure(context) {
            objects = try context.fetch(request)
            for object in objects {
                let characters: String = object[text], count: Int = object[length]
                total += count
                if characters.utf8.count == count { consistent += 1 }
            }
        }
        precondition(objects.count == fixture.count && total == fixture.totalLength && consistent == objects.count)
        precondition(sample.objectGraph!.faultsFired == (populated ? 0 : fixture.count))
        return sample
    }

    /// Every word fetched as a fault (raw and GRDB: its key), then one in a hundred touched
    /// (ObjectGraph: one attribute read; raw and GRDB: the row fetched by key).
    @MainActor
    static func faults(_ environment: BenchmarkEnvironment) throws -> Workload {
        let fixture = try environment.words(), step = 100
        let text = environment.model.entity(named: "Word")!.attribute(named: "word")!
        let touchedCount = (fixture.count + step - 1) / step

        /// Fetches every word of the fixture in `store` as a fault, then touches 1%. With
        /// `values`, the default: the fetch reads every column into the row cache, where the
        /// touches find them; without, it reads keys only, as the raw side does, and each
        /// touch reads its row.
        @MainActor
        func objectGraphTouch(_ store: StoreLocation, values: Bool = true) throws -> Sample {
            let context = try environment.openContext(store)
            var request = FetchRequest(entityName: "Word")
            request.returnsObjectsAsFaults = true
            request.includesPropertyValues = values
            _ = try context.count(for: request)
            var objects: [ManagedObject] = [], touched: [(key: Int64, word: String)] = []
            let sample = try Sample.measure(context) {
                objects = try context.fetch(request)
                for index in stride(from: 0, to: objects.count, by: step) {
                    touched.append((objects[index].objectID.key, objects[index][text]))
                }
            }
            precondition(objects.count == fixture.count && touched.count == touchedCount)
            precondition(objects.indices.allSatisfy { objects[$0].isFault == !$0.isMultiple(of: step) },
                         "only the touched objects may have fired")
            precondition(touched.allSatisfy { $0.word == BenchmarkData.word(Int($0.key)) })
            precondition(sample.objectGraph!.faultsFired == touchedCount,
                         "\(sample.objectGraph!.faultsFired) faults fired for \(touchedCount) touches")
            return sample
        }

        /// Fetches the fixture lazily (`fetchLazily`: the IDs only, no object made), then
        /// reads 1% of the elements, each a fault that reads its own row.
        @MainActor
        func objectGraphLazyTouch(_ store: StoreLocation) throws -> Sample {
            let context = try environment.openContext(store)
            let request = FetchRequest(entityName: "Word")
            _ = try context.count(for: request)
            var count = 0, kept: [ManagedObject] = [], touched: [(key: Int64, word: String)] = []
            let sample = try Sample.measure(context) {
                let objects = try context.fetchLazily(request)
                count = objects.count
                for index in stride(from: 0, to: objects.count, by: step) {
                    let object = objects[index]
                    touched.append((object.objectID.key, object[text]))
                    kept.append(object)
                }
            }
            precondition(count == fixture.count && touched.count == touchedCount)
            precondition(context.registeredObjects.count == touchedCount, "only the read elements may be made")
            precondition(touched.allSatisfy { $0.word == BenchmarkData.word(Int($0.key)) })
            precondition(sample.objectGraph!.faultsFired == touchedCount,
                         "\(sample.objectGraph!.faultsFired) faults fired for \(touchedCount) touches")
            withExtendedLifetime(kept) {}
            return sample
        }

        return Workload(
            name: .faults,
            title: "\(Report.grouped(fixture.count)) words fetched as faults (keys), then \(Report.grouped(touchedCount)) (1%) touched",
            check: "fetched count, each touched word against its key; ObjectGraph: exactly the touched objects fired, one fault each",
            variants: [Variant(name: "faults, touch 1%", runs: environment.runs([
                (.raw, { RawSQLite.fetchKeysThenTouch(fixture, stride: step) }),
                (.objectGraph, { try objectGraphTouch(.file(fixture.path)) }),
                (.grdb, { try GRDBPeer.fetchKeysThenTouch(fixture, stride: step) }),
            ], onPostgres: { _ in [
                (.objectGraphPostgres, { try objectGraphTouch(.postgres(fixture.postgres!)) }),
            ]}), operations: Operations(count: 1, unit: "fetch")),
                Variant(name: "faults without values, touch 1%", runs: [
                    (.raw, { RawSQLite.fetchKeysThenTouch(fixture, stride: step) }),
                    (.objectGraph, { try objectGraphTouch(.file(fixture.path), values: false) }),
                ], operations: Operations(count: 1, unit: "fetch")),
                Variant(name: "lazily (fetchLazily), touch 1%", runs: environment.runs([
                    (.raw, { RawSQLite.fetchKeysThenTouch(fixture, stride: step) }),
                    (.objectGraph, { try objectGraphLazyTouch(.file(fixture.path)) }),
                    (.grdb, { try GRDBPeer.fetchKeysThenTouch(fixture, stride: step) }),
                ], onPostgres: { _ in [
                    (.objectGraphPostgres, { try objectGraphLazyTouch(.postgres(fixture.postgres!)) }),
                ]}), operations: Operations(count: 1, unit: "fetch")),
            ])
    }

    /// Counts the words longer than five bytes a hundred times (scaled), with no index on the length.
    @MainActor
    static func count(_ environment: BenchmarkEnvironment) throws -> Workload {
        let fixture = try environment.words(), repetitions = environment.options.scaled(100)
        let predicate = try FetchPredicate("length > %@", WordFixture.minimumLength)

        /// Counts the long words of the fixture in `store`, `repetitions` times.
        @MainActor
        func objectGraphCount(_ store: StoreLocation) throws -> Sample {
            let context = try environment.openContext(store)
            let request = FetchRequest(entityName: "Word", predicate: predicate)
            _ = try context.count(for: FetchRequest(entityName: "Word", predicate: .falsePredicate))
            var counts: [Int] = []
            let sample = try Sample.measure(context) {
                for _ in 0..<repetitions { counts.append(try context.count(for: request)) }
            }
            precondition(counts.count == repetitions && counts.allSatisfy { $0 == fixture.longerCount })
            return sample
        }

        return Workload(
            name: .count,
            title: "count of words with length > \(WordFixture.minimumLength) over \(Report.grouped(fixture.count)) rows, \(repetitions) times",
            check: "every count equals the one computed from the generated words (\(Report.grouped(fixture.longerCount)))",
            variants: [Variant(name: "count × \(repetitions)", runs: environment.runs([
                (.raw, { RawSQLite.countLonger(fixture, repetitions: repetitions) }),
                (.objectGraph, { try objectGraphCount(.file(fixture.path)) }),
                (.grdb, { try GRDBPeer.countLonger(fixture, repetitions: repetitions) }),
            ], onPostgres: { _ in [
                (.objectGraphPostgres, { try objectGraphCount(.postgres(fixture.postgres!)) }),
            ]}), operations: Operations(count: repetitions, unit: "count"))])
    }
}
