import Foundation
import Testing

/// No input reaches SQL text: values are bound, identifiers come only from the model.
/// Injection attempts (quotes, `; DROP TABLE`, comments, NUL bytes, invalid UTF-8, huge
/// numbers) go through predicates, entity and key names, sort keys, `insert` and `update`
/// values, and import fields. Every attempt is either an error naming the problem, or a
/// value stored exactly as typed; the schema and every other row stay as they were.
@Suite("Injection attempts", .serialized)
struct InjectionTests {
    let home: TemporaryDirectory
    let store: String

    init() throws {
        home = try TemporaryDirectory()
        store = home.url.appendingPathComponent("catalog.sqlite").path
    }

    /// A store with two recipes and a chef; returns its schema.
    func makeStore() async throws -> String {
        let setup = try await RecipesBinary.run([store, "-c", "insert Chef name=\"Ana\"", "-c",
            "insert Recipe name=\"Soup\" sourceID=s-1 chef=\"Ana\" servings=2", "-c",
            "insert Recipe name=\"Stew\" sourceID=s-2 servings=3", "-c", "save"])
        #expect(setup.status == 0, "\(setup.standardError)")
        return try await schema()
    }

    /// The store's schema, as the sqlite3 tool lists it.
    func schema() async throws -> String {
        let result = try await ChildProcess.run(["sqlite3", store, "SELECT type, name, sql FROM sqlite_master ORDER BY name"])
        #expect(result.status == 0)
        return result.output
    }

    /// Every recipe and chef, as the sqlite3 tool prints them, values in hex.
    func rows() async throws -> String {
        try await ChildProcess.run(["sqlite3", store, #"SELECT "sourceID", hex("name"), "servings", quote("rating") FROM "Recipe" ORDER BY 1; SELECT hex("name") FROM "Chef" ORDER BY 1"#]).output
    }

    @Test("Hostile predicates, entity names, keys and sort keys: no rows or a clear error; nothing changes")
    func readsChangeNothing() async throws {
        let schema = try await makeStore()
        let before = try await rows()
        let lines = [
            #"fetch Recipe where name == '\'; DROP TABLE Recipe; --'"#,
            #"fetch Recipe where name == "x\" OR 1=1 --""#,
            #"count Recipe where name CONTAINS "%' OR '1'='1""#,
            #"count Recipe where name LIKE "*'; DELETE FROM Chef; --""#,
            #"count Recipe where name MATCHES "(a|b)*'); DROP TABLE Recipe; --""#,
            "fetch Recipe; DROP TABLE Recipe",
            #"fetch Recipe keys name"; DROP TABLE Chef --"#,
            "fetch Recipe sort name; DROP TABLE Chef",
            #"fetch Recipe where "name\"; DROP TABLE Chef; --" == 1"#,
            "delete Recipe where 1 == 1; DROP TABLE Chef",
            "count Recipe where servings == 99999999999999999999999999",
            "count Recipe where servings == -9223372036854775809",
            "fetch Recipe where SUBQUERY(ingredients, $x, $x.ingredient.name == \"'); DROP TABLE Recipe; --\").@count > 0",
        ]
        let run = try await RecipesBinary.run([store] + lines.flatMap { ["-c", $0] })
        let errors = run.standardError.split(separator: "\n").filter { $0.contains(": error: ") }
        #expect(run.standardOutput.contains("(0 objects)") && run.standardOutput.contains("\n0\n"), "\(run.standardOutput)")
        for expected in ["-c:6: error: unknown entity 'Recipe; DROP TABLE Recipe'",
                         "-c:7: error: key paths in 'keys' are separated by commas, found 'name\"; DROP TABLE Chef --'",
                         "-c:8: error: bad sort key 'name; DROP TABLE Chef'",
                         "-c:10: error: unexpected character ';'"] {
            #expect(errors.contains { $0.hasPrefix(expected) }, "missing \(expected) in:\n\(run.standardError)")
        }
        #expect(try await self.schema() == schema)
        #expect(try await rows() == before)
    }

    @Test("Hostile values are stored exactly as typed, bound, never run; huge numbers are refused by name")
    func valuesAreBound() async throws {
        let schema = try await makeStore()
        let hostile = #"Robert'); DROP TABLE "Recipe"; -- "#
        let run = try await RecipesBinary.run([store,
            "-c", "insert Chef name=\"\(hostile.replacingOccurrences(of: "\"", with: "\\\""))\"",
            "-c", #"update Recipe where sourceID == 's-1' set name="x\"; DELETE FROM Recipe; --""#,
            "-c", "update Recipe where sourceID == 's-2' set servings=99999999999999999999999",
            "-c", "update Recipe where sourceID == 's-2' set servings=2147483648",
            "-c", "update Recipe where sourceID == 's-2' set rating=1e999",
            "-c", "update Recipe where sourceID == 's-2' set \"name; DROP TABLE Chef\"=1",
            "-c", "save"])
        #expect(run.standardError.contains("-c:3: error: '99999999999999999999999' is not a valid Int32 for 'servings'"), "\(run.standardError)")
        #expect(run.standardError.contains("-c:4: error: '2147483648' is not a valid Int32 for 'servings'"))
        #expect(run.standardError.contains("-c:5: error: '1e999' is not a valid Double for 'rating'"))
        #expect(run.standardError.contains("-c:6: error: unknown key 'name; DROP TABLE Chef' on entity 'Recipe'"))
        #expect(try await self.schema() == schema)
        let hex = { (text: String) in text.utf8.map { String(format: "%02X", $0) }.joined() }
        #expect(try await rows() == """
            s-1|\(hex(#"x"; DELETE FROM Recipe; --"#))|2|NULL
            s-2|\(hex("Stew"))|3|NULL
            \(hex("Ana"))
            \(hex(hostile))

            """)
    }

    @Test("A NUL byte is stored as one; a script that is not UTF-8 is refused before any line runs")
    func bytes() async throws {
        let schema = try await makeStore()
        let script = home.url.appendingPathComponent("bytes.recipes")
        try Data("insert Chef name=\"nul\u{0}byte\"\nsave\n".utf8).write(to: script)
        #expect(try await RecipesBinary.run([store, "-f", script.path]).status == 0)
        #expect(try await rows().contains("6E756C0062797465"), "the NUL byte is kept")

        let before = try await rows()
        try Data([UInt8]("insert Chef name=\"ok\"\ninsert Chef name=\"bad".utf8) + [0xFF, 0xFE] + [UInt8]("\"\nsave\n".utf8))
            .write(to: script)
        let refused = try await RecipesBinary.run([store, "-f", script.path])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("script '\(script.path)' is not UTF-8 text: line 2, byte 22; nothing of it was run"),
                "\(refused.standardError)")
        #expect(try await rows() == before)
        #expect(try await self.schema() == schema)
    }

    @Test("Hostile import fields are stored exactly; huge numbers are refused with their line")
    func importFields() async throws {
        let schema = try await makeStore()
        let file = try home.write(#"""
            {"id": "x'); DROP TABLE Recipe;--", "name": "Robert\"); DELETE FROM Chef; --", "chef": "'; DROP TABLE Chef; --", "cuisine": "\u0000nul", "servings": 4}
            {"id": "big-1", "name": "Big servings", "servings": 99999999999}
            {"id": "big-2", "name": "Big rating", "rating": 1e999}
            {"id": "big-3", "name": "Big count", "servings": 123456789012345678901234567890}

            """#, to: "hostile.jsonl")
        let run = try await RecipesBinary.run([store, "-c", "import \(file)", "-c", ".mode json",
                                               "-c", "fetch Recipe where sourceID BEGINSWITH 'x' keys sourceID, name, chef.name, cuisine.name"])
        #expect(run.standardError.contains("hostile.jsonl:2: not imported: Recipe 'Big servings': 'servings' is 99999999999, outside the range of Int32"),
                "\(run.standardError)")
        #expect(run.standardError.contains("hostile.jsonl:3: \"rating\" is 1e999, outside the range of Double"))
        #expect(run.standardError.contains("hostile.jsonl:4: \"servings\" is 123456789012345678901234567890, outside the range of Int64"))
        let lines = run.standardOutput.split(separator: "\n")
        #expect(lines.first == "imported 1 recipe from hostile.jsonl" || lines.first?.hasPrefix("imported 1 recipe from hostile.jsonl (") == true)
        let fetched = try #require(try JSONSerialization.jsonObject(with: Data((lines.last ?? "").utf8)) as? [String: Any])
        #expect(fetched["sourceID"] as? String == "x'); DROP TABLE Recipe;--")
        #expect(fetched["name"] as? String == #"Robert"); DELETE FROM Chef; --"#)
        #expect(fetched["chef.name"] as? String == "'; DROP TABLE Chef; --")
        #expect(fetched["cuisine.name"] as? String == "\u{0}nul")
        #expect(try await self.schema() == schema)
    }
}
