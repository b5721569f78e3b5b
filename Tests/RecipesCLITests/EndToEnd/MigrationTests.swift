import Foundation
import Testing

/// A version-1 catalogue through the real binary: named on the command line it is migrated
/// at once; `.open` refuses it until asked with `--migrate`.
@Suite("migrating a catalogue in the shell")
struct MigrationTests {
    static let root = TranscriptTests.root
    static let sample = root.appendingPathComponent("SampleData/catalog-v1.sqlite").path

    @Test("recipes OLD.sqlite migrates the catalogue in place and says so")
    func launchMigrates() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("old.sqlite").path
        try FileManager.default.copyItem(atPath: Self.sample, toPath: file)
        let run = try await RecipesBinary.run([file, "-c", "count Chef", "-c", "count Recipe where chef == nil"], in: Self.root)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("Migrated \(file) from version 1 of the catalogue model to version 2."))
        #expect(run.standardOutput == "12\n0\n")
        let again = try await RecipesBinary.run([file, "-c", "count Cuisine"], in: Self.root)
        #expect(again.standardError.isEmpty, "no second migration: \(again.standardError)")
        #expect(again.standardOutput == "6\n")
    }

    @Test(".open refuses a version-1 catalogue and leaves it as it was; --migrate --copy-to keeps the original")
    func openAsks() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("old.sqlite").path
        let copy = directory.url.appendingPathComponent("new.sqlite").path
        try FileManager.default.copyItem(atPath: Self.sample, toPath: file)
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let run = try await RecipesBinary.run(
            ["--memory", "-c", ".open \(file)", "-c", ".open --migrate \(file) --copy-to \(copy)", "-c", "count Chef"], in: Self.root)
        #expect(run.standardError.contains("was made with version 1 of the catalogue model"))
        #expect(run.standardOutput.contains("migrated \(copy) from version 1 of the catalogue model to version 2\nopened \(copy)\n12\n"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
    }
}
