import ObjectGraphSQLite

/// What the workloads share: the options, the model, the scratch directory, and the
/// word fixture (built the first time a workload asks for it).
@MainActor
final class BenchmarkEnvironment {
    /// The command line.
    let options: BenchmarkOptions
    /// The model of every ObjectGraph store.
    let model: ObjectModel
    /// Where database files go.
    let scratch: Scratch
    /// The word fixture, once built.
    private var wordFixture: WordFixture?

    /// Creates the environment; fixtures come later, on demand.
    init(options: BenchmarkOptions, scratch: Scratch) throws {
        self.options = options
        self.scratch = scratch
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

    /// A new context on a new coordinator over the store at `path`.
    func openContext(_ path: String) throws -> MainContext {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(at: path)
        return MainContext(coordinator: coordinator)
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
/// and the answers the workloads check against.
struct WordFixture {
    /// The store file; the read workloads never write to it.
    let path: String
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
        let lengths = (1...count).map { BenchmarkData.word($0).utf8.count }
        totalLength = lengths.reduce(0, +)
        longerCount = lengths.count { $0 > Self.minimumLength }
    }
}
