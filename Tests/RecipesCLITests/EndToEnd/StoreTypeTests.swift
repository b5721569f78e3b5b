import Foundation
import Testing

/// `.migrate TYPE PATH` and opening a store of any type, through the real binary.
@Suite("store types through the shell")
struct StoreTypeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test("A misspelled PostgreSQL URL is named as such, not taken for a missing folder, and its password is not repeated")
    func misspelledURLs() async throws {
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("real:"), withIntermediateDirectories: false)
        let url = "postgress://og:secret@127.0.0.1:5432/kitchen"
        let run = try await RecipesBinary.run([url], in: folder.url)
        #expect(run.standardError == "error: 'postgress:' is not a kind of store: name a store file, or a PostgreSQL catalogue "
                + "as postgres://USER@HOST:PORT/DB\n")
        let inside = try await RecipesBinary.run(["--memory", "-c", ".open postgres:/og@127.0.0.1/kitchen",
                                                  "-c", ".open real:/new.sqlite"], in: folder.url)
        #expect(inside.standardError == "-c:1: error: 'postgres:' is not a kind of store: name a store file, or a PostgreSQL "
                + "catalogue as postgres://USER@HOST:PORT/DB\n")
        #expect(inside.standardOutput == "opened real:/new.sqlite\n")  // a folder really called so is a path
        // A scheme ignores case: this is a PostgreSQL URL (with no server there, or no PostgreSQL in this build).
        let upper = try await RecipesBinary.run(["--memory", "-c", ".open POSTGRES://og@127.0.0.1:1/kitchen"], in: folder.url)
        #expect(upper.standardError.contains("127.0.0.1:1") || upper.standardError.contains("built without PostgreSQL"),
                "\(upper.standardError)")
    }

    @Test(".open refuses a URL holding a password before any error quotes it: with --migrate, --copy-to or a second word")
    func openNeverRepeatsAPassword() async throws {
        let folder = try TemporaryDirectory()
        let url = "postgres://og:secret@127.0.0.1:1/kitchen"
        let run = try await RecipesBinary.run(["--memory", "-c", ".open --migrate \(url)", "-c", ".open \(url) extra",
                                               "-c", ".open --migrate old.sqlite --copy-to \(url)"], in: folder.url)
        let refusal = "error: the URL holds a password: leave it out and set PGPASSWORD in the environment instead\n"
        #expect(run.standardError == "-c:1: " + refusal + "-c:2: " + refusal + "-c:3: " + refusal, "\(run.standardError)")
    }

    @Test(".migrate counts one object in the singular, and refuses a path with another store's journal beside it")
    func migrateOneObjectAndLeftovers() async throws {
        let folder = try TemporaryDirectory()
        try folder.write("journal", to: "left.sqlite-journal")
        let run = try await RecipesBinary.run(["--memory", "--deterministic", "-c", "insert Chef name=Ana", "-c", "save",
                                               "-c", ".migrate sqlite left.sqlite", "-c", ".migrate sqlite one.sqlite"],
                                              in: folder.url)
        #expect(run.standardError == "-c:3: error: cannot open the store at 'left.sqlite': its rollback journal "
                + "'left.sqlite-journal' is there but the database is missing; restore the database next to it, or move the "
                + "rollback journal away to start a new store (opening now would lose what the rollback journal holds)\n")
        #expect(run.standardOutput.hasSuffix("migrated 1 object to a SQLite store at one.sqlite\n"), "\(run.standardOutput)")
        #expect(try String(contentsOf: folder.url.appendingPathComponent("left.sqlite-journal"), encoding: .utf8) == "journal")
    }

    @Test(".migrate writes exactly the path given; `recipes STORE` recognizes each type by content")
    func migrateAndReopen() async throws {
        let folder = try TemporaryDirectory()
        func path(_ name: String) -> String { folder.url.appendingPathComponent(name).path }
        let recipes = Self.root.appendingPathComponent("SampleData/recipes.jsonl").path
        let run = try await RecipesBinary.run([path("start.sqlite"), "--deterministic",
            "-c", "import \(recipes)", "-c", "update Recipe where name == 'Pad Thai' set rating=4.75", "-c", "save",
            "-c", ".migrate xml \(path("one.data"))", "-c", ".migrate binary \(path("two.xml"))",
            "-c", ".migrate html \(path("three"))", "-c", "count RecipeIngredient"], timeout: .seconds(120))
        #expect(run.standardError == "")
        #expect(run.standardOutput == """
            imported 169 recipes from recipes.jsonl
            updated 1 Recipe object (unsaved)
            saved 1 change
            migrated 1798 objects to an XML store at \(path("one.data"))
            migrated 1798 objects to a binary store at \(path("two.xml"))
            migrated 1798 objects to an HTML store at \(path("three"))
            1293

            """)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { !$0.hasPrefix("start.sqlite") }
        #expect(names.sorted() == ["one.data", "three", "two.xml"], "exactly the paths given, nothing beside them")

        for (name, kind) in [("one.data", "an XML store"), ("two.xml", "a binary store"), ("three", "an HTML store")] {
            let reopened = try await RecipesBinary.run([path(name), "--deterministic",
                "-c", "fetch Recipe where name == 'Pad Thai' keys rating", "-c", ".sqldebug 1"], timeout: .seconds(60))
            #expect(reopened.standardOutput == "rating\n------\n4.75\n(1 row)\n", "\(name)")
            #expect(reopened.standardError == "-c:2: error: .sqldebug works on SQLite stores; this catalogue is \(kind)\n")
        }
    }

    @Test(".migrate names what is wrong: the type, a missing or extra path, unsaved changes, an existing file")
    func migrateErrors() async throws {
        let folder = try TemporaryDirectory()
        let existing = try folder.write("taken", to: "taken.xml")
        let run = try await RecipesBinary.run(["--memory", "--deterministic",
            "-c", ".migrate csv x.csv", "-c", ".migrate xml", "-c", "insert Chef name=Ana",
            "-c", ".migrate xml \(folder.url.path)/new.xml", "-c", "rollback", "-c", ".migrate xml \(existing)",
            "-c", ".migrate", "-c", ".migrate memory x.sqlite", "-c", ".migrate xml my catalog.xml"], timeout: .seconds(60))
        #expect(run.standardError == """
            -c:1: error: unknown store type 'csv' for .migrate; the types are sqlite, xml, binary, html, memory: .migrate xml catalog.xml
            -c:2: error: .migrate xml needs one path for the new store: .migrate xml PATH
            -c:4: error: there are unsaved changes: save or rollback before .migrate
            -c:6: error: cannot migrate to '\(existing)': the file exists; remove it or choose another path
            -c:7: error: .migrate needs a store type (sqlite, xml, binary, html, memory) and a path: .migrate xml catalog.xml
            -c:8: error: .migrate memory takes no path (the new store is in memory), found 'x.sqlite': .migrate memory
            -c:9: error: .migrate xml takes one path for the new store, found 2: 'my' 'catalog.xml'; \
            quote a path that has spaces: .migrate xml "my catalog"

            """)
        #expect(!run.standardOutput.contains("migrated"), "nothing was migrated: \(run.standardOutput)")
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "taken")
    }

    @Test("A damaged store file is refused naming the file, the line and the problem")
    func damagedFile() async throws {
        let folder = try TemporaryDirectory()
        let path = try folder.write("<?xml version=\"1.0\"?>\n<objectgraph format=\"1\">\n  <Cake id=\"1\"/>\n</objectgraph>\n", to: "catalog")
        let run = try await RecipesBinary.run([path, "-c", "count Recipe"], timeout: .seconds(60))
        #expect(run.status != 0)
        #expect(run.standardError.contains("'\(path)' is not a valid XMLStore file: line 3: unknown entity 'Cake'"))
    }
}
