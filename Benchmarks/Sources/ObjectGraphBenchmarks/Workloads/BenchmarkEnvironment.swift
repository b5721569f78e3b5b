import ObjectGraphPostgres
import ObjectGraphSQLite

/// Where one ObjectGraph store of the benchmarks lives.
enum StoreLocation {
    /// A SQLite file.
    case file(String)
    /// A schema of the run's PostgreSQL database.
    case postgres(PostgresLocation)
}

/// What the workloads share: the options, the model, the scratch directory, the PostgreSQL
/// server (if any), and the word fixture (built the first time a workload asks for it).
@MainActor
final class BenchmarkEnvironment {
    /// The command line.
    let options: BenchmarkOptions
    /// The model of every ObjectGraph store.
    let model: ObjectModel
    /// Where database files go.
    let scratch: Scratch
    /// The PostgreSQL server, when the PostgreSQL engines run.
    let postgres: PostgresServer?
    /// The word fixture, once built.
    private var wordFixture: WordFixture?

    /// Creates the environment; fixtures come later, on demand.
    init(options: BenchmarkOptions, scratch: Scratch, postgres: PostgresServer?) throws {
        self.options = options
        self.scratch = scratch
        self.postgres = postgres
        model = try BenchmarkModel.make()
    }

    /// The index of the entity called `name` (the `_ent` column of its rows).
    func entityIndex(_ name: String) -> Int { model.entity(named: name)!.index }

    /// Creates an empty ObjectGraph store at a fresh path and returns the path.
    func makeStore(_ label: String) throws -> String {
        let path = scratch.freshPath(label)
        try PersistentStoreCoordinator(model: model).addStore(at: path)
        return path
    }

    /// Creates an empty ObjectGraph store in a fresh schema of the PostgreSQL database.
    func makePostgresStore(_ label: String) throws -> PostgresLocation {
        let location = postgres!.freshLocation(label)
        try PersistentStoreCoordinator(model: model).addPostgresStore(at: location)
        return location
    }

    /// Creates an empty ObjectGraph store in a fresh file, or a fresh PostgreSQL schema.
    func makeStore(_ label: String, onPostgres: Bool) throws -> StoreLocation {
        onPostgres ? .postgres(try makePostgresStore(label)) : .file(try makeStore(label))
    }

    /// Removes a store made by ``makeStore(_:onPostgres:)``.
    func discard(_ store: StoreLocation) {
        switch store {
        case .file(let path): scratch.discard(path)
        case .postgres(let location): postgres!.discard(location)
        }
    }

    /// A new context on a new coordinator over the store at `path`.
    func openContext(_ path: String) throws -> MainContext { try openContext(.file(path)) }

    /// A new context on a new coordinator over `store`.
    func openContext(_ store: StoreLocation) throws -> MainContext {
        let coordinator = PersistentStoreCoordinator(model: model)
        switch store {
        case .file(let path): try coordinator.addStore(at: path)
        case .postgres(let location): try coordinator.addPostgresStore(at: location)
        }
        return MainContext(coordinator: coordinator)
    }

    /// `runs`, followed by the runs `onPostgres` makes when the PostgreSQL engines run.
    func runs(_ runs: [EngineRun], onPostgres: (PostgresServer) -> [EngineRun]) -> [EngineRun] {
        runs + (postgres.map(onPostgres) ?? [])
    }

    /// The word fixture, built on first use.
    func words() throws -> WordFixture {
        if let wordFixture { return wordFixture }
        let fixture = try WordFixture(self)
        wordFixture = fixture
        return fixture
    }
}

/// An ObjectGraph store whose `Word` table the C API fills with `count` words (keys 1…count),
/// the same in a PostgreSQL schema when the PostgreSQL engines run, and the answers the
/// workloads check against.
struct WordFixture {
    /// The store file; the read workloads never write to it.
    let path: String
    /// The store in PostgreSQL (filled with PostgresNIO), when the PostgreSQL engines run.
    let postgres: PostgresLocation?
    /// The number of words.
    let count: Int
    /// The sum of the words' UTF-8 lengths.
    let totalLength: Int
    /// The length the count workload's predicate compares with (`length > 5`).
    static let minimumLength = 5
    /// How many words are longer than ``minimumLength``.
    let longerCount: Int

    /// Builds the fixture (untimed).
    @MainActor
    init(_ environment: BenchmarkEnvironment) throws {
        count = environment.options.scaled(environment.options.fetchCount)
        path = try environment.makeStore("words")
        RawSQLite.fillWords(path: path, count: count, entityIndex: environment.entityIndex("Word"))
        if let server = environment.postgres {
            let location = try environment.makePostgresStore("words")
            try RawPostgres.fillWords(server, location, count: count, entityIndex: environment.entityIndex("Word"))
            postgres = location
        } else {
            postgres = nil
        }
        let lengths = (1...count).map { BenchmarkData.word($0).utf8.count }
        totalLength = lengths.reduce(0, +)
        longerCount = lengths.count { $0 > Self.minimumLength }
    }
}
