import Dispatch
import Foundation
import ObjectGraphPostgres
import ObjectGraphSQLite
import RecipeCatalog

/// The catalogue import: the seeds' main job.
extension Workload {
    /// Imports generated recipes (`recipes generate --seed 7`) into a new catalogue through
    /// ``RecipeImporter`` (uniquing cache, canonical shadow, ingredient lines), against raw
    /// sqlite3 inserts of the same parsed records into the same schema. Both read the file
    /// with the same parser and commit once per importer batch. GRDB does not take part:
    /// it would need its own import, which is not the peer's everyday path. On PostgreSQL,
    /// the importer runs against a catalogue in a new schema (no raw PostgresNIO import yet).
    @MainActor
    static func catalogue(_ environment: BenchmarkEnvironment) throws -> Workload {
        let fixture = try CatalogueFixture(environment)
        let batch = RecipeImporter.Options().batchSize
        let scratch = environment.scratch
        return Workload(
            name: .catalogue,
            title: "\(Report.grouped(fixture.count)) generated recipes (\(Report.grouped(fixture.expected.lines)) ingredient lines) into a new catalogue, committed every \(Report.grouped(batch))",
            check: "rows per table, name and folded-name lengths, each line's linked ingredient, stored line counts; equal for every engine",
            variants: [Variant(name: "import", runs: environment.runs([
                (.raw, {
                    let path = try fixture.emptyCatalogue(scratch, "catalogue-raw")
                    defer { scratch.discard(path) }
                    let sample = try Sample.measure {
                        try RawSQLite.importCatalogue(path: path, url: fixture.file, batch: batch, entities: fixture.entities)
                    }
                    fixture.check(path, engine: "raw")
                    return sample
                }),
                (.objectGraph, {
                    let path = try fixture.emptyCatalogue(scratch, "catalogue-og")
                    defer { scratch.discard(path) }
                    let sample = try fixture.importWithObjectGraph(into: try Catalog.open(at: path).coordinator)
                    fixture.check(path, engine: "ObjectGraph")
                    return sample
                }),
            ], onPostgres: { server in [(.objectGraphPostgres, {
                let location = server.freshLocation("catalogue")
                defer { server.discard(location) }
                let coordinator = PersistentStoreCoordinator(model: try CatalogModel.make())
                try coordinator.addPostgresStore(at: location)
                let sample = try fixture.importWithObjectGraph(into: coordinator)
                fixture.check(try RawPostgres.catalogueTotals(server, location), engine: Engine.objectGraphPostgres.rawValue)
                return sample
            })]}), operations: Operations(count: (fixture.count + batch - 1) / batch, unit: "batch"))])
    }
}

/// The generated recipe file the catalogue workload imports, and what it must produce.
@MainActor
struct CatalogueFixture {
    /// The JSON Lines file.
    let file: URL
    /// Recipes in it.
    let count: Int
    /// The figures an import must reproduce (from a raw import made while building the fixture).
    let expected: RawSQLite.CatalogueTotals
    /// The catalogue's entity numbers.
    let entities: RawSQLite.CatalogueEntities

    /// Generates the file (seed 7, as `recipes generate --seed 7`) and works out the
    /// expected figures from the parsed records (untimed).
    init(_ environment: BenchmarkEnvironment) throws {
        count = environment.options.scaled(environment.options.catalogueCount)
        guard let sample = Catalog.sampleDataDirectory else {
            throw UsageError("the catalogue workload needs the repository's SampleData folder (or RECIPES_SAMPLE_DATA)")
        }
        let names = try IngredientCatalogFile.load(from: sample.appendingPathComponent("ingredients.tsv")).map(\.name)
        file = environment.scratch.directory.appendingPathComponent("recipes-\(count).jsonl")
        try CatalogGenerator(seed: 7, ingredientNames: names).write(count: count, to: file)
        let model = try CatalogModel.make()
        func index(_ name: String) -> Int64 { Int64(model.entity(named: name)!.index) }
        entities = RawSQLite.CatalogueEntities(
            recipe: index(CatalogModel.recipe), chef: index(CatalogModel.chef), cuisine: index(CatalogModel.cuisine),
            ingredient: index(CatalogModel.ingredient), line: index(CatalogModel.recipeIngredient),
            photo: index(CatalogModel.recipePhoto))
        var totals = RawSQLite.CatalogueTotals()
        var ingredients = Set<String>(), chefs = Set<String>(), cuisines = Set<String>()
        let reader = try RecipeFileReader(url: file)
        while let batch = try reader.nextBatch() {
            for record in batch.records {
                totals.recipes += 1
                totals.lines += record.ingredients.count
                totals.storedLineCount += record.ingredients.count
                if record.photo != nil { totals.photos += 1 }
                totals.nameLength += record.name.unicodeScalars.count
                totals.canonicalLength += RawSQLite.canonical(record.name).unicodeScalars.count
                if let chef = record.chef { chefs.insert(chef) }
                if let cuisine = record.cuisine { cuisines.insert(cuisine) }
                for line in record.ingredients {
                    ingredients.insert(line.name)
                    totals.linkedIngredientLength += line.name.unicodeScalars.count
                }
            }
        }
        totals.ingredients = ingredients.count
        totals.chefs = chefs.count
        totals.cuisines = cuisines.count
        expected = totals
    }

    /// How much the heap may grow from a tenth of the way through the import to its end:
    /// 0.1 MB is usual at 300,000 recipes; a change log that kept every save's IDs grew it
    /// by 34 MB.
    static let heapAllowance = 2 << 20

    /// A new, empty catalogue (its schema made by ObjectGraph) at a fresh path.
    func emptyCatalogue(_ scratch: Scratch, _ label: String) throws -> String {
        let path = scratch.freshPath(label)
        _ = try Catalog.open(at: path)
        return path
    }

    /// Stops the program unless the catalogue at `path` holds exactly the expected rows.
    func check(_ path: String, engine: String) {
        check(RawSQLite.catalogueTotals(path: path), engine: engine)
    }

    /// Stops the program unless `found` are exactly the expected rows.
    func check(_ found: RawSQLite.CatalogueTotals, engine: String) {
        precondition(found == expected, "\(engine) catalogue: \(found), expected \(expected)")
    }

    /// Imports the file into the empty catalogue of `coordinator` through ``RecipeImporter``
    /// on a private context (measured), and checks the importer's report.
    func importWithObjectGraph(into coordinator: PersistentStoreCoordinator) throws -> Sample {
        var report: RecipeImporter.Report?
        let liveBefore = MainContext(coordinator: coordinator).statistics.liveObjects
        let file = self.file
        let heap = HeapWatch(steps: count)
        var sample = try Sample.measure {
            report = try CatalogueFixture.blocking {
                try await RecipeImporter().importFile(file, into: PrivateContext(coordinator: coordinator),
                                                  progress: { heap.step($0.imported) })
            }
        }
        precondition(report!.imported == count && report!.errors.isEmpty,
                     "ObjectGraph imported \(report!.imported) of \(count), \(report!.errors.count) errors")
        sample.objectGraph = ObjectGraphCounts(report!.statistics, liveBefore: liveBefore)
        sample.heapGrowth = heap.check("catalogue import", allowance: CatalogueFixture.heapAllowance)
        return sample
    }

    /// Runs `work` as a task and waits for it on this thread (the main thread, outside
    /// Swift's cooperative pool; the importer runs on its context's own queue).
    static func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let box = ResultBox<T>()
        Task.detached {
            do { box.result = .success(try await work()) } catch { box.result = .failure(error) }
            box.done.signal()
        }
        box.done.wait()
        return try box.result!.get()
    }

    /// The task's result, handed to the waiting thread.
    // Unchecked: `result` is written once by the task before `done` is signalled, and read
    // by the waiting thread only after it returns from `done.wait()`.
    private final class ResultBox<T>: @unchecked Sendable {
        var result: Result<T, any Error>?
        let done = DispatchSemaphore(value: 0)
    }
}

extension ObjectGraphCounts {
    /// The counters of a piece of work that ran on a private context (an import), from its
    /// statistics; registered objects as the work left them.
    init(_ work: ContextStatistics, liveBefore: Int) {
        liveObjects = work.liveObjects
        liveObjectsBefore = liveBefore
        registeredObjects = work.registeredObjects
        statements = work.statements
        faultsFired = work.faultsFired
        transactions = work.transactions
    }
}
