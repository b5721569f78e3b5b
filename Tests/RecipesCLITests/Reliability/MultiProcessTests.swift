import Foundation
import Testing

/// Two and three processes on one store file at once: no lost update, conflicts resolved
/// by the merge policy, readers that never see half a save, and a lock held too long
/// reported with the store's name and the time waited. The processes are
/// `ReliabilityProbe` (a test-only program on the framework), the `sqlite3` shell and `recipes`.
@Suite("Several processes on one store", .serialized)
struct MultiProcessTests {
    let home: TemporaryDirectory
    let store: String

    init() throws {
        home = try TemporaryDirectory()
        store = home.url.appendingPathComponent("shared.sqlite").path
    }

    /// A store with 40 generated recipes.
    func makeStore() async throws {
        let file = home.url.appendingPathComponent("shared.jsonl").path
        let generated = try await RecipesBinary.run(["generate", "--count", "40", "--seed", "3", "--output", file])
        #expect(generated.status == 0, "\(generated.standardError)")
        let run = try await RecipesBinary.run([store, "-c", "import \(file)", "-c",
            "update Recipe where sourceID == 'g-0000001' set servings=1 prepMinutes=0 cookMinutes=0", "-c", "save"])
        #expect(run.status == 0, "\(run.standardError)")
    }

    static func probe(_ arguments: [String]) async throws -> RecipesBinary.Run {
        try await RecipesBinary.run(arguments, timeout: .seconds(600), executable: RecipesBinary.path(of: "ReliabilityProbe"))
    }

    /// The values of `keys` of recipe g-0000001, read by `recipes`.
    func counterValues(_ keys: String) async throws -> String {
        let run = try await RecipesBinary.run([store, "-c", ".mode csv", "-c", "fetch Recipe where sourceID == 'g-0000001' keys \(keys)"])
        return run.standardOutput.split(separator: "\n").dropFirst().first.map(String.init) ?? run.standardError
    }

    @Test("Three processes each add 1 to one counter 1,000 times, retrying conflicts: it ends 3,000 higher")
    func noLostUpdate() async throws {
        try await makeStore()
        let store = self.store
        async let first = Self.probe(["increment", store, "g-0000001", "1000"])
        async let second = Self.probe(["increment", store, "g-0000001", "1000"])
        async let third = Self.probe(["increment", store, "g-0000001", "1000"])
        let runs = try await [first, second, third]
        for run in runs { #expect(run.status == 0, "\(run.standardError)") }
        #expect(try await counterValues("servings") == "3001")  // from 1, the least servings the model allows
        let conflicts = runs.compactMap { Int($0.standardOutput.split(separator: " ").dropFirst(3).first ?? "") }.reduce(0, +)
        print("multi-process counter: 3 processes × 1,000 increments from 1 = \(try await counterValues("servings")), \(conflicts) conflicts retried")
    }

    @Test("Three processes change three properties of one object: inMemoryWins keeps each process's own change")
    func mergePolicyResolvesConflicts() async throws {
        try await makeStore()
        let store = self.store
        async let prep = Self.probe(["set", store, "g-0000001", "prepMinutes", "300"])
        async let cook = Self.probe(["set", store, "g-0000001", "cookMinutes", "300"])
        async let servings = Self.probe(["set", store, "g-0000001", "servings", "300"])
        for run in try await [prep, cook, servings] { #expect(run.status == 0, "\(run.standardError)") }
        #expect(try await counterValues("prepMinutes, cookMinutes, servings") == "300,300,300")
    }

    @Test("Two readers fetching recipes with their lines never see half of a save a third process makes")
    func readersNeverSeeHalfASave() async throws {
        try await makeStore()
        let store = self.store
        let first = try await Self.probe(["write-pairs", store, "1"])  // every value 1: one save's state
        #expect(first.status == 0, "\(first.standardError)")
        async let writer = Self.probe(["write-pairs", store, "150"])
        async let reader = Self.probe(["read-pairs", store, "400"])
        async let otherReader = Self.probe(["read-pairs", store, "400"])
        let runs = try await [writer, reader, otherReader]
        for run in runs { #expect(run.status == 0, "\(run.standardError)") }
        print("multi-process readers: \(runs.map { $0.standardOutput.trimmingCharacters(in: .newlines) }.joined(separator: "; "))")
    }

    @Test("A lock held past the busy timeout fails the save naming the store and the wait; a shorter one is waited for")
    func busyTimeout() async throws {
        try await makeStore()
        let store = self.store
        let holder = try SQLiteShell(store)
        defer { holder.close() }
        try await holder.run("BEGIN IMMEDIATE; INSERT INTO \"_metadata\" VALUES ('lock', 'held');")
        let refused = try await Self.probe(["save-one", store, "300"])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("the store at '\(store)' is locked by another connection or process: waited 0.3 s (the busy timeout) for it"),
                "\(refused.standardError)")

        async let waiting = Self.probe(["save-one", store, "20000"])
        try await Task.sleep(for: .milliseconds(300))
        holder.send("ROLLBACK;")
        let waited = try await waiting
        #expect(waited.status == 0 && waited.standardOutput == "saved\n", "\(waited.standardError)")
    }
}
