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

    @Test(".open --migrate of a missing file or an XML catalogue says what is there, not that it is no catalogue")
    func migrateWhatCannotBe() async throws {
        let directory = try TemporaryDirectory()
        let run = try await RecipesBinary.run(
            ["--memory", "-c", ".open --migrate missing.sqlite", "-c", ".migrate xml cat.xml", "-c", ".open --migrate cat.xml"],
            in: directory.url)
        #expect(run.standardError == """
            -c:1: error: there is no catalogue at missing.sqlite to migrate; .open missing.sqlite creates a new one
            -c:3: error: cat.xml is an XML store; --migrate migrates SQLite catalogues only: open it with .open cat.xml \
            (it says so if it was made with another version of the catalogue model)

            """)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["cat.xml"])
    }

    @Test("--copy-to the store being migrated, by any spelling, is refused and the store kept byte for byte")
    func copyToItself() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("old.sqlite").path
        try FileManager.default.copyItem(atPath: Self.sample, toPath: file)
        try FileManager.default.createSymbolicLink(atPath: directory.url.appendingPathComponent("link.sqlite").path,
                                                   withDestinationPath: "old.sqlite")
        try FileManager.default.linkItem(atPath: file, toPath: directory.url.appendingPathComponent("hard.sqlite").path)
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let spellings = ["old.sqlite", "./old.sqlite", file, "link.sqlite", "hard.sqlite"]
        let run = try await RecipesBinary.run(["--memory"] + spellings.flatMap { ["-c", ".open --migrate old.sqlite --copy-to \($0)"] },
                                              in: directory.url)
        #expect(run.standardError == spellings.enumerated().map { index, spelling in
            "-c:\(index + 1): error: cannot copy to '\(spelling)': it is the store being copied ('old.sqlite'); choose a new path for the copy\n"
        }.joined())
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
                == ["hard.sqlite", "link.sqlite", "old.sqlite"])
    }

    @Test("--copy-to refuses an existing file or folder, a leftover journal and a missing folder, touching nothing")
    func copyToExisting() async throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.copyItem(atPath: Self.sample, toPath: directory.url.appendingPathComponent("old.sqlite").path)
        try directory.write("notes", to: "notes.txt")
        try FileManager.default.createDirectory(at: directory.url.appendingPathComponent("shelf"), withIntermediateDirectories: false)
        try directory.write("keep", to: "shelf/keep.txt")
        try directory.write("journal", to: "stale.sqlite-wal")
        try directory.write("index", to: "other.sqlite-shm")
        func contents() throws -> [String: Data] {
            var result: [String: Data] = [:]
            for name in try FileManager.default.subpathsOfDirectory(atPath: directory.url.path) {
                result[name] = FileManager.default.contents(atPath: directory.url.appendingPathComponent(name).path)
            }
            return result
        }
        let before = try contents()
        let run = try await RecipesBinary.run(["--memory"] + ["notes.txt", "shelf", "stale.sqlite", "other.sqlite", "nowhere/new.sqlite"]
            .flatMap { ["-c", ".open --migrate old.sqlite --copy-to \($0)"] }, in: directory.url)
        #expect(run.standardError == """
            -c:1: error: cannot copy to 'notes.txt': the file exists; choose a new path or remove it first
            -c:2: error: cannot copy to 'shelf': it is a directory; choose a new path for the copy, such as shelf/old.sqlite
            -c:3: error: cannot copy to 'stale.sqlite': 'stale.sqlite-wal' exists, left from another store, and would corrupt the copy; \
            choose a new path or remove it first
            -c:4: error: cannot copy to 'other.sqlite': 'other.sqlite-shm' exists, left from another store, and would corrupt the copy; \
            choose a new path or remove it first
            -c:5: error: cannot copy to 'nowhere/new.sqlite': the folder 'nowhere' does not exist; create it or choose another path

            """)
        #expect(try contents() == before)
    }

    @Test("--copy-to refuses an existing catalogue instead of replacing it")
    func copyOverCatalogue() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("old.sqlite").path
        let existing = directory.url.appendingPathComponent("current.sqlite").path
        try FileManager.default.copyItem(atPath: Self.sample, toPath: file)
        let setup = try await RecipesBinary.run([existing, "-c", "insert Recipe name=Soup sourceID=s-1", "-c", "save"])
        #expect(setup.status == 0, "\(setup.standardError)")
        let run = try await RecipesBinary.run(["--memory", "-c", ".open --migrate \(file) --copy-to \(existing)", "-c", "count Recipe"])
        #expect(run.standardError == "-c:1: error: cannot copy to '\(existing)': the file exists; choose a new path or remove it first\n")
        let after = try await RecipesBinary.run([existing, "-c", "fetch Recipe keys name"])
        #expect(after.standardOutput == "name\n----\nSoup\n(1 row)\n")
    }

    @Test("--copy-to of the catalogue open now takes its latest saves, still in the write-ahead log")
    func copyKeepsLog() async throws {
        let directory = try TemporaryDirectory()
        let run = try await RecipesBinary.run(["now.sqlite", "--deterministic", "-c", "insert Recipe name=Soup sourceID=s-1", "-c", "save",
                                               "-c", ".open --migrate now.sqlite --copy-to copy.sqlite", "-c", "count Recipe"],
                                              in: directory.url)
        #expect(run.standardError == "")
        #expect(run.standardOutput.hasSuffix("copy.sqlite is already at version 2 of the catalogue model\nopened copy.sqlite\n1\n"),
                "\(run.standardOutput)")
    }
}
