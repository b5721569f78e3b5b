import Foundation
import RecipeCatalog
import Testing

/// `recipes OLD.sqlite` killed with SIGKILL at random moments while it migrates a
/// version-1 catalogue (chef and cuisine as strings) to version 2 (unique Chef and Cuisine
/// objects): the migration works on a copy and swaps it in at the end. After each kill the
/// store is either the version-1 store or the whole migrated one, never a mix; running
/// `recipes` on it again ends with the migrated catalogue, every recipe there once.
/// Every other trial starts from a store whose last transaction is only in its write-ahead
/// log, as a killed process leaves it: the log's change must survive the migration.
@Suite("SIGKILL during migration", .serialized)
@MainActor
struct MigrationKillTrialTests {
    let workspace: TrialWorkspace

    init() throws { workspace = try TrialWorkspace() }

    /// A version-1 catalogue of the import file's first 120 recipes, closed; and a copy whose
    /// log holds one more transaction (every recipe's servings set to 77).
    func makeVersion1Stores() async throws -> (plain: String, withLog: String) {
        let file = try await workspace.makeImportFile()
        let plain = workspace.path("v1.sqlite")
        try await CatalogVersion1Sample.write(to: plain, from: URL(fileURLWithPath: file), count: 120)
        let live = try workspace.copy(plain, to: "v1-live.sqlite")
        let shell = try SQLiteShell(live)
        defer { shell.close() }
        try await shell.run(#"PRAGMA journal_mode = WAL; UPDATE "Recipe" SET "servings" = 77;"#)
        // Copied while the shell holds the file open: the update is only in the log.
        let withLog = try workspace.copy(live, to: "v1-log.sqlite")
        #expect(FileManager.default.fileExists(atPath: withLog + "-wal"))
        return (plain, withLog)
    }

    @Test("Migrating a version-1 catalogue: version 1 or the whole migrated store after every kill, and a rerun finishes it")
    func migrations() async throws {
        let (plain, withLog) = try await makeVersion1Stores()
        var migrated: [CatalogSnapshot] = []
        var durations: [Duration] = []
        for base in [plain, withLog] {
            let store = try workspace.copy(base, to: "calibration.sqlite")
            let run = try await TracedProcess.run([store, "-c", "count Recipe"], home: workspace.url, killAfter: nil)
            #expect(run.status == 0 && run.standardOutput == "120\n", "\(run.messages)")
            let snapshot = try CatalogSnapshot.read(store)
            #expect(snapshot.problems.isEmpty && snapshot.recipes.count == 120, "\(snapshot.problems)")
            migrated.append(snapshot)
            durations.append(run.duration)
        }
        #expect(migrated[1].recipes.values.allSatisfy { $0.values[1] == "77" }, "the log's update is migrated")

        var tally = KillTally("migration")
        var random = TrialRandom(seed: ReliabilitySettings.seed ^ "migration".hashValueStable)
        var before = 0, after = 0
        for trial in 0..<ReliabilitySettings.killTrials {
            let variant = trial % 2
            let store = try workspace.copy(variant == 0 ? plain : withLog, to: "trial-\(trial).sqlite")
            let original = try Data(contentsOf: URL(fileURLWithPath: store))
            // Most moments anywhere in the run; every fourth as soon as the shell says the
            // migration is done (the migrated file was just swapped in).
            let delay = durations[variant] * Double.random(in: 0...1, using: &random)
            let onMessage = trial % 4 == 3
            let outcome = try await TracedProcess.run([store, "-c", "count Recipe"], home: workspace.url, killAfter: nil,
                                                      killAfterDelay: onMessage ? nil : delay,
                                                      killOnMessage: onMessage ? "Migrated" : nil)
            tally.leftovers += try workspace.leftovers(of: store).count  // the rerun must clean them up
            let version = try CatalogMigration.version(ofStoreAt: store)
            var matched = false, sound = true
            if version == 1 {
                before += 1
                // Still version 1: untouched, but for its log's transactions moved into it.
                let bytes = try Data(contentsOf: URL(fileURLWithPath: store))
                matched = variant == 1 || bytes == original
            } else {
                after += 1
                let snapshot = CatalogSnapshot.check(store)
                sound = snapshot.problems.isEmpty
                matched = snapshot == migrated[variant]
                #expect(sound, "migration trial \(trial), killed after \(delay): \(snapshot.problems)")
                #expect(matched, "migration trial \(trial), killed after \(delay): \(snapshot.difference(from: migrated[variant]))")
            }
            #expect(version != nil, "migration trial \(trial): the store is neither version 1 nor 2")
            tally.record(outcome, matched: matched, sound: sound, tracesStatements: false)

            let rerun = try await RecipesBinary.run([store, "-c", "count Recipe"])
            #expect(rerun.status == 0 && rerun.standardOutput == "120\n", "migration trial \(trial), rerun: \(rerun.standardError)")
            let finished = CatalogSnapshot.check(store)
            #expect(finished.problems.isEmpty, "migration trial \(trial), rerun: \(finished.problems)")
            #expect(Bool(finished == migrated[variant]), "migration trial \(trial), rerun: \(finished.difference(from: migrated[variant]))")
            tally.resumed += finished == migrated[variant] && finished.problems.isEmpty ? 1 : 0
            let remaining = try workspace.leftovers(of: store)
            #expect(remaining.isEmpty, "migration trial \(trial): the rerun left \(remaining) beside the store")
            try workspace.removeStore(store)
        }
        tally.statesSeen = [1: before, 2: after]
        tally.report()
    }
}
