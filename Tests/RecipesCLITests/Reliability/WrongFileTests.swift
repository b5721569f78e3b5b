import Foundation
import Glibc
import Testing

/// `recipes` given the wrong file: a truncated store, random bytes, a store of a newer
/// model, a read-only file and a read-only folder, a missing folder, a write-ahead log
/// without its database. Each is a specific error naming the file and an exit status of
/// 1, never a crash, and the user's files are left byte for byte as they were, with nothing
/// created beside them.
///
/// Permissions mean nothing to root, so when the tests run as root the shell runs as
/// `nobody` (`setpriv --reuid=65534 --regid=65534 --clear-groups`).
@Suite("Wrong files", .serialized)
struct WrongFileTests {
    let home: TemporaryDirectory

    init() throws {
        home = try TemporaryDirectory()
        chmod(home.url.path, 0o777)  // the shell, as nobody, writes its history here
    }

    /// Runs `recipes arguments` as a user that permissions apply to.
    func run(_ arguments: [String]) async throws -> RecipesBinary.Run {
        guard getuid() == 0 else { return try await RecipesBinary.run(arguments, in: home.url) }
        return try await RecipesBinary.run(["--reuid=65534", "--regid=65534", "--clear-groups", RecipesBinary.path] + arguments,
                                           in: home.url, environment: ["HOME": home.url.path], executable: "/usr/bin/setpriv")
    }

    /// A closed catalogue with a few recipes, at `name` in a folder of its own (mode 0777).
    func makeStore(_ name: String) async throws -> String {
        let folder = home.url.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        chmod(folder.path, 0o777)
        let store = folder.appendingPathComponent(name).path
        let setup = try await RecipesBinary.run([store, "-c", "insert Recipe name=\"Soup\" sourceID=s-1", "-c", "save"])
        #expect(setup.status == 0, "\(setup.standardError)")
        chmod(store, 0o666)
        return store
    }

    /// The names and bytes of every file in `folder`.
    func contents(of folder: String) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            result[name] = FileManager.default.contents(atPath: folder + "/" + name)
        }
        return result
    }

    /// Runs `count Recipe` on `store` and checks it fails with `message`, changing nothing in its folder.
    func expectRefusal(_ store: String, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let folder = URL(fileURLWithPath: store).deletingLastPathComponent().path
        let before = try? contents(of: folder)
        let run = try await run([store, "-c", "count Recipe"])
        #expect(run.status == 1, "status \(run.status): \(run.standardError)", sourceLocation: sourceLocation)
        #expect(run.standardError.contains(message), "\(run.standardError)", sourceLocation: sourceLocation)
        #expect(run.standardOutput.isEmpty, sourceLocation: sourceLocation)
        #expect((try? contents(of: folder)) == before, "the folder's files changed", sourceLocation: sourceLocation)
    }

    @Test("A truncated store: corrupt, left as it is")
    func truncated() async throws {
        let store = try await makeStore("cut.sqlite")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: store))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: store))
        try await expectRefusal(store, "error: the store at '\(store)' is corrupt (database disk image is malformed)")
    }

    @Test("Random bytes: not a database, left as they are")
    func randomBytes() async throws {
        let store = try await makeStore("noise.sqlite")
        var random = TrialRandom(seed: 3)
        try Data((0..<9_000).map { _ in UInt8.random(in: 0...255, using: &random) }).write(to: URL(fileURLWithPath: store))
        try await expectRefusal(store, "error: '\(store)' is not a SQLite database")
    }

    @Test("A store of a newer model: named as another model, with what differs, left as it is")
    func newerModel() async throws {
        let store = try await makeStore("newer.sqlite")
        let shell = try SQLiteShell(store)
        try await shell.run("""
            UPDATE "_metadata" SET "value" = replace("value", '"Recipe":"Recipe||false|', '"Recipe":"Recipe||false|a:calories:integer32:true:false|') WHERE "key" = '_entityDescriptions';
            UPDATE "_metadata" SET "value" = replace("value", 'Recipe=', 'Recipe=3') WHERE "key" = '_versionHashes';
            """)
        shell.close()
        try await expectRefusal(store, "error: the store at '\(store)' was made with a different model: Recipe changed (attribute 'calories' removed)")
    }

    @Test("A read-only file: refused at once, before anything is written beside it")
    func readOnlyFile() async throws {
        let store = try await makeStore("locked.sqlite")
        chmod(store, 0o444)
        try await expectRefusal(store, "error: the store at '\(store)' is read-only for this user (file permissions); it was not changed")
    }

    @Test("A read-only folder: the store cannot make its journal files there, and says so")
    func readOnlyFolder() async throws {
        let store = try await makeStore("shelf.sqlite")
        let folder = URL(fileURLWithPath: store).deletingLastPathComponent().path
        chmod(folder, 0o555)
        defer { chmod(folder, 0o777) }
        try await expectRefusal(store, "error: cannot open the store at '\(store)': the folder '\(folder)' is not writable by this user")
        try await expectRefusal(folder + "/new.sqlite", "error: cannot create the store at '\(folder)/new.sqlite': the folder '\(folder)' is not writable by this user")
    }

    @Test("A missing folder: named, and not created")
    func missingFolder() async throws {
        let folder = home.url.appendingPathComponent("nowhere").path
        let run = try await run([folder + "/store.sqlite", "-c", "count Recipe"])
        #expect(run.status == 1)
        #expect(run.standardError.contains("error: cannot open the store at '\(folder)/store.sqlite': the folder '\(folder)' does not exist"),
                "\(run.standardError)")
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    @Test("A write-ahead log without its database: refused, the log kept, no database made")
    func logWithoutDatabase() async throws {
        let store = try await makeStore("moved.sqlite")
        // The log of a session that was killed: copied while another connection holds it.
        let shell = try SQLiteShell(store)
        try await shell.run(#"PRAGMA journal_mode = WAL; UPDATE "Recipe" SET "servings" = 4;"#)
        let log = try #require(FileManager.default.contents(atPath: store + "-wal"))
        shell.close()
        let orphan = URL(fileURLWithPath: store).deletingLastPathComponent().appendingPathComponent("orphan.sqlite").path
        try log.write(to: URL(fileURLWithPath: orphan + "-wal"))
        chmod(orphan + "-wal", 0o666)
        try await expectRefusal(orphan, "error: cannot open the store at '\(orphan)': its write-ahead log '\(orphan)-wal' is there but the database is missing")
    }

    @Test("A directory: named as one wherever a store or a file to import is expected")
    func directory() async throws {
        let folder = home.url.appendingPathComponent("shelf").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try await expectRefusal(folder, "error: cannot open the store at '\(folder)': it is a directory\n")
        let run = try await run(["--memory", "-c", ".open \(folder)", "-c", "import \(folder)", "-c", "import \(folder) --background"])
        #expect(run.standardError == """
            -c:1: error: cannot open the store at '\(folder)': it is a directory
            -c:2: error: cannot import '\(folder)': it is a directory; name a .jsonl or .tsv file in it
            -c:3: error: cannot import '\(folder)': it is a directory; name a .jsonl or .tsv file in it

            """)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test("A HOME where the default catalogue's folder cannot be made: the folder and the reason, not a Foundation dump")
    func unusableHome() async throws {
        let file = home.url.appendingPathComponent("not-a-folder").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let run = try await RecipesBinary.run(["-c", "count Recipe"], environment: ["HOME": file])
        #expect(run.status == 1)
        #expect(run.standardError == """
            error: cannot create the default catalogue folder \(file)/.local/share/recipes: Not a directory (creating \(file)/.local); \
            set HOME or XDG_DATA_HOME to a writable folder, or name a store: recipes STORE

            """)
    }
}
