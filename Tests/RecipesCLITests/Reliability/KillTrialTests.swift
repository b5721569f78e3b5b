import Foundation
import Testing

/// `recipes` killed with SIGKILL at random (seeded) moments while it writes: context saves,
/// foreground and background imports, batch deletes. After each kill the store is opened
/// as the next program would (recovering its write-ahead log) and must be sound (SQLite's
/// integrity check, every reference and one-to-one inverse, the derived counts) and show
/// exactly the state before or after the transaction the kill interrupted, never a mix.
/// An interrupted import, run again, ends with every recipe exactly once.
///
/// A moment is a statement: the trial picks one at random among those an uninterrupted run
/// traces and kills the process as soon as it has traced it, which lands the kill inside a
/// transaction, in its commit, or between two, in proportion to where the work is. The
/// trace also says which commits surely finished, so the state to expect is known exactly
/// (or one of two, when the kill came during a commit).
///
/// `RELIABILITY_KILL_TRIALS` sets the trials per workload (5 here, 200 in `make soak`).
@Suite("SIGKILL at random moments", .serialized)
@MainActor
struct KillTrialTests {
    let home: TemporaryDirectory

    init() throws { home = try TemporaryDirectory() }

    // MARK: Workloads

    @Test("Context saves: each changes every recipe, deletes one with its lines, nullifies a chef, inserts two objects")
    func saves() async throws {
        let base = try await makeBaseStore()
        let before = try CatalogSnapshot.read(base)
        let ids = before.recipes.keys.sorted()
        let chefs = before.chefs.sorted()
        let steps = (1...6).map { k in [
            "update Recipe where sourceID BEGINSWITH 'g-' set servings=\(k * 10 + 1)",
            "delete Recipe where sourceID == '\(ids[k * 7])'",
            "delete Chef where name == \"\(chefs[k * 3])\"",
            "insert Chef name=\"Step Chef \(k)\"",
            "insert Recipe name=\"Step \(k)\" sourceID=step-\(k) servings=\(k) chef=\"Step Chef \(k)\"",
            "save",
        ] }
        try await runScriptTrials("save", steps: steps, base: base)
    }

    @Test("Batch deletes and updates: cascades, nullified chefs, recomputed counts, in one transaction each")
    func batchDeletes() async throws {
        let base = try await makeBaseStore()
        let before = try CatalogSnapshot.read(base)
        let cuisine = before.cuisines.sorted()[1]
        let steps = [
            ["delete Recipe where sourceID <= 'g-0000020' --batch"],
            ["delete Chef where name BEGINSWITH 'A' OR name BEGINSWITH 'M' --batch"],
            ["update Recipe where rating < 3 set servings=99 --batch"],
            ["delete RecipeIngredient where quantity > 300 --batch"],
            ["delete Recipe where rating < 2.5 --batch"],
            ["delete Cuisine where name == \"\(cuisine)\" --batch"],
            ["delete Recipe where hasPhoto == YES --batch"],
        ]
        try await runScriptTrials("batch delete", steps: steps, base: base)
    }

    @Test("Foreground import in batches of 10, resumed after each kill")
    func foregroundImports() async throws {
        try await runImportTrials("foreground import", background: false)
    }

    @Test("Background import in batches of 10 while the shell reads, resumed after each kill")
    func backgroundImports() async throws {
        try await runImportTrials("background import", background: true)
    }

    // MARK: Trials of scripts

    /// Kills `recipes -f script` at random moments of `steps` (each step's commands end in
    /// one transaction) and checks each store against the states after 0…n steps, which
    /// uninterrupted runs of the first n steps produce.
    func runScriptTrials(_ name: String, steps: [[String]], base: String) async throws {
        var expected: [CatalogSnapshot] = [try CatalogSnapshot.read(base)]
        for count in 1...steps.count {
            let store = try copy(base, to: "\(name)-expected-\(count).sqlite")
            let run = try await RecipesBinary.run([store, "-f", try script(Array(steps.prefix(count)), name: "\(name)-\(count)")])
            #expect(run.status == 0, "\(name), \(count) steps: \(run.standardError)")
            expected.append(try CatalogSnapshot.read(store))
            #expect(Bool(expected[count] != expected[count - 1]), "\(name): step \(count) changed nothing")
        }
        let script = try script(steps, name: name)
        let calibration = try await TracedProcess.run([try copy(base, to: "\(name)-calibration.sqlite"), "-f", script],
                                                      home: home.url, killAfter: nil)
        try #require(calibration.trace.commits == steps.count, "\(name): \(calibration.trace.commits) commits; \(calibration.messages)")

        var tally = KillTally(name)
        var random = TrialRandom(seed: ReliabilitySettings.seed ^ UInt64(name.hashValueStable))
        for trial in 0..<ReliabilitySettings.killTrials {
            let store = try copy(base, to: "\(name)-trial-\(trial).sqlite")
            let moment = Int.random(in: 1...calibration.trace.statements, using: &random)
            let outcome = try await TracedProcess.run([store, "-f", script], home: home.url, killAfter: moment)
            let snapshot = CatalogSnapshot.check(store)
            let possible = outcome.trace.possibleCommitCounts(isSequential: true)
            let matched = possible.filter { expected[$0] == snapshot }
            tally.record(outcome, matched: !matched.isEmpty, sound: snapshot.problems.isEmpty)
            #expect(snapshot.problems.isEmpty, "\(name) trial \(trial) (statement \(moment)): \(snapshot.problems)")
            #expect(!matched.isEmpty, """
                \(name) trial \(trial): killed after statement \(moment) of \(calibration.trace.statements) \
                (\(outcome.trace.moment), last: \(outcome.trace.lastStatement)); expected the state after \(possible) \
                steps: \(snapshot.difference(from: expected[possible.upperBound]))
                """)
            try removeStore(store)
        }
        tally.report()
    }

    // MARK: Trials of imports

    /// Recipes in the import file and per batch.
    static let importCount = 200, importBatch = 10

    /// Kills an import of a fresh store at random moments; checks the store holds exactly the
    /// recipes of the batches whose commits finished (and the resume marker says so), then
    /// runs the same import again and checks every recipe is there exactly once.
    func runImportTrials(_ name: String, background: Bool) async throws {
        let file = try await makeImportFile()
        var commands = ["-c", "import \(file) --batch \(Self.importBatch)\(background ? " --background" : "")"]
        if background {
            commands += ["-c", "count Recipe", "-c", "fetch Recipe where rating >= 4 sort name limit 3 keys name",
                         "-c", "search soup", "-c", "count RecipeIngredient"]
        }
        let fullStore = home.url.appendingPathComponent("\(name)-calibration.sqlite").path
        let calibration = try await TracedProcess.run([fullStore] + commands, home: home.url, killAfter: nil)
        let batches = Self.importCount / Self.importBatch
        // One commit per batch, then one that removes the resume marker.
        try #require(calibration.trace.commits == batches + 1, "\(name): \(calibration.trace.commits) commits; \(calibration.messages)")
        let full = try CatalogSnapshot.read(fullStore)
        #expect(full.problems.isEmpty && full.recipes.count == Self.importCount, "\(name): \(full.problems)")
        let order = try Self.sourceIDs(in: file)

        var tally = KillTally(name)
        var random = TrialRandom(seed: ReliabilitySettings.seed ^ UInt64(name.hashValueStable))
        for trial in 0..<ReliabilitySettings.killTrials {
            let store = home.url.appendingPathComponent("\(name)-trial-\(trial).sqlite").path
            let moment = Int.random(in: 1...calibration.trace.statements, using: &random)
            let outcome = try await TracedProcess.run([store] + commands, home: home.url, killAfter: moment)
            let snapshot = CatalogSnapshot.check(store)
            let possible = outcome.trace.possibleCommitCounts(isSequential: !background)
            let states = possible.map { commits -> CatalogSnapshot in
                let saved = min(commits, batches) * Self.importBatch
                var state = full.restricted(to: Set(order.prefix(saved)))
                if commits > 0 && commits <= batches { state.importMarkers = [Self.importFileName: String(saved)] }
                return state
            }
            let matched = states.contains(snapshot)
            tally.record(outcome, matched: matched, sound: snapshot.problems.isEmpty)
            #expect(snapshot.problems.isEmpty, "\(name) trial \(trial) (statement \(moment)): \(snapshot.problems)")
            #expect(matched, """
                \(name) trial \(trial): killed after statement \(moment) (\(outcome.trace.moment)); expected the \
                state after \(possible) commits: \(snapshot.difference(from: states.last!))
                """)

            let rerun = try await RecipesBinary.run([store, "-c", "import \(file) --batch \(Self.importBatch)"])
            #expect(rerun.status == 0, "\(name) trial \(trial): rerun: \(rerun.standardError)")
            let resumed = CatalogSnapshot.check(store)
            #expect(resumed.problems.isEmpty, "\(name) trial \(trial), resumed: \(resumed.problems)")
            #expect(Bool(resumed == full), "\(name) trial \(trial), resumed: \(resumed.difference(from: full))")
            tally.resumed += resumed == full && resumed.problems.isEmpty ? 1 : 0
            try removeStore(store)
        }
        tally.report()
    }

    static let importFileName = "kill.jsonl"

    /// 200 generated recipes, every fourth with a small photo (the catalogue's one-to-one).
    func makeImportFile() async throws -> String {
        let file = home.url.appendingPathComponent(Self.importFileName).path
        let generated = try await RecipesBinary.run(["generate", "--count", String(Self.importCount), "--seed", "11",
                                                     "--output", file])
        #expect(generated.status == 0, "\(generated.standardError)")
        let photo = #", "photo": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="}"#
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").enumerated().map { index, line in
            index % 4 == 3 ? String(line.dropLast()) + photo : String(line)
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// The `id` of each line of a JSON Lines file, in order.
    static func sourceIDs(in file: String) throws -> [String] {
        try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["id"] as? String ?? ""
        }
    }

    // MARK: Files

    /// A store with the import file's 200 recipes, closed (its log checkpointed into it).
    func makeBaseStore() async throws -> String {
        let file = try await makeImportFile()
        let store = home.url.appendingPathComponent("base.sqlite").path
        let run = try await RecipesBinary.run([store, "-c", "import \(file) --batch 50"])
        #expect(run.status == 0, "\(run.standardError)")
        return store
    }

    /// Writes a script of `steps`' lines and returns its path.
    func script(_ steps: [[String]], name: String) throws -> String {
        try home.write(steps.joined().joined(separator: "\n") + "\n", to: "\(name).recipes")
    }

    func copy(_ store: String, to name: String) throws -> String {
        let destination = home.url.appendingPathComponent(name).path
        try? removeStore(destination)
        try FileManager.default.copyItem(atPath: store, toPath: destination)
        return destination
    }

    func removeStore(_ store: String) throws {
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: store + suffix) {
            try FileManager.default.removeItem(atPath: store + suffix)
        }
    }
}

/// The counts a workload's trials print: where the kills landed and how the stores came out.
struct KillTally {
    let name: String
    var trials = 0, killed = 0, inTransaction = 0, atCommit = 0, between = 0
    var sound = 0, beforeOrAfter = 0, resumed = 0

    init(_ name: String) { self.name = name }

    mutating func record(_ outcome: TracedProcess.Outcome, matched: Bool, sound isSound: Bool) {
        trials += 1
        if outcome.wasKilled {
            killed += 1
            switch outcome.trace.moment {
            case "transaction": inTransaction += 1
            case "commit": atCommit += 1
            default: between += 1
            }
        }
        sound += isSound ? 1 : 0
        beforeOrAfter += matched ? 1 : 0
    }

    func report() {
        print("""
            kill trials, \(name): \(trials) trials (seed \(ReliabilitySettings.seed)), \(killed) killed \
            (\(inTransaction) inside a transaction, \(atCommit) at a commit, \(between) between transactions); \
            \(sound) stores sound, \(beforeOrAfter) in the state before or after\
            \(resumed > 0 ? ", \(resumed) resumed to every recipe exactly once" : "")
            """)
    }
}

extension String {
    /// A hash that is the same in every run (Swift's `hashValue` is seeded per process).
    var hashValueStable: UInt64 {
        utf8.reduce(14_695_981_039_346_656_037) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
    }
}
