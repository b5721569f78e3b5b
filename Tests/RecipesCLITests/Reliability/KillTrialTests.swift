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
/// `RELIABILITY_KILL_TRIALS` sets the trials per workload (10 in `make test`, 200 in `make soak`).
@Suite("SIGKILL at random moments", .serialized)
@MainActor
struct KillTrialTests {
    let workspace: TrialWorkspace

    init() throws { workspace = try TrialWorkspace() }

    // MARK: Workloads

    @Test("Context saves: each changes every recipe, deletes one with its lines, nullifies a chef, inserts two objects")
    func saves() async throws {
        let base = try await workspace.makeBaseStore()
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
        try await workspace.runScriptTrials("save", steps: steps, base: base)
    }

    @Test("Batch deletes and updates: cascades, nullified chefs, recomputed counts, in one transaction each")
    func batchDeletes() async throws {
        let base = try await workspace.makeBaseStore()
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
        try await workspace.runScriptTrials("batch delete", steps: steps, base: base)
    }

    @Test("Foreground import in batches of 10, resumed after each kill")
    func foregroundImports() async throws {
        try await runImportTrials("foreground import", background: false)
    }

    @Test("Background import in batches of 10 while the shell reads, resumed after each kill")
    func backgroundImports() async throws {
        try await runImportTrials("background import", background: true)
    }

    // MARK: Trials of imports

    /// Recipes per batch.
    static let importBatch = 10

    /// Kills an import of a fresh store at random moments; checks the store holds exactly the
    /// recipes of the batches whose commits finished (and the resume marker says so), then
    /// runs the same import again and checks every recipe is there exactly once.
    func runImportTrials(_ name: String, background: Bool) async throws {
        let file = try await workspace.makeImportFile()
        var commands = ["-c", "import \(file) --batch \(Self.importBatch)\(background ? " --background" : "")"]
        if background {
            commands += ["-c", "count Recipe", "-c", "fetch Recipe where rating >= 4 sort name limit 3 keys name",
                         "-c", "search soup", "-c", "count RecipeIngredient"]
        }
        let fullStore = workspace.path("\(name)-calibration.sqlite")
        let calibration = try await TracedProcess.run([fullStore] + commands, home: workspace.url, killAfter: nil)
        let batches = TrialWorkspace.importCount / Self.importBatch
        // One commit per batch, then one that removes the resume marker.
        try #require(calibration.trace.commits == batches + 1, "\(name): \(calibration.trace.commits) commits; \(calibration.messages)")
        let full = try CatalogSnapshot.read(fullStore)
        #expect(full.problems.isEmpty && full.recipes.count == TrialWorkspace.importCount, "\(name): \(full.problems)")
        let order = try TrialWorkspace.sourceIDs(in: file)

        var tally = KillTally(name)
        var random = TrialRandom(seed: ReliabilitySettings.seed ^ name.hashValueStable)
        for trial in 0..<ReliabilitySettings.killTrials {
            let store = workspace.path("\(name)-trial-\(trial).sqlite")
            let moment = Int.random(in: 1...calibration.trace.statements, using: &random)
            let outcome = try await TracedProcess.run([store] + commands, home: workspace.url, killAfter: moment)
            let snapshot = CatalogSnapshot.check(store)
            let possible = outcome.trace.possibleCommitCounts(isSequential: !background)
            let states = possible.map { commits -> CatalogSnapshot in
                let saved = min(commits, batches) * Self.importBatch
                var state = full.restricted(to: Set(order.prefix(saved)))
                if commits > 0 && commits <= batches { state.importMarkers = [TrialWorkspace.importFileName: String(saved)] }
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
            try workspace.removeStore(store)
        }
        tally.report()
    }
}
