import Foundation
import Testing

/// Commands typed slightly wrong, or with text that looks like syntax: each gets an error that
/// names the mistake, or does what the text plainly means.
struct CommandMistakeTests {
    func run(_ commands: [String]) async throws -> RecipesBinary.Run {
        try await RecipesBinary.run(["--memory", "--deterministic"] + commands.flatMap { ["-c", $0] },
                                    in: ShellCommandTests.root)
    }

    @Test("Words after the entity that start no clause are named, not read as part of its name")
    func wordsAfterTheEntity() async throws {
        let run = try await run(["fetch Recipe bogus", "count Recipe bogus", "fetch Recipe wher rating > 4",
                                 "delete Recipe bogus where rating < 1", "show Chef/p1 extra", "show Chef bogus"])
        let errors = run.standardError.split(separator: "\n").map(String.init)
        let clauses = "where, sort, limit, offset, prefetch, batch, nosub"
        #expect(errors == [
            "-c:1: error: unexpected 'bogus' after 'Recipe': fetch takes the clauses where, sort, limit, offset, prefetch, batch, faults, nosub, ids, keys, distinct, group",
            "-c:2: error: unexpected 'bogus' after 'Recipe': count takes the clauses \(clauses)",
            "-c:3: error: unexpected 'wher rating > 4' after 'Recipe': fetch takes the clauses where, sort, limit, offset, prefetch, batch, faults, nosub, ids, keys, distinct, group; did you mean 'where'?",
            "-c:4: error: unexpected 'bogus' after 'Recipe': delete takes the clauses \(clauses)",
            "-c:5: error: unexpected 'extra' after 'Chef/p1': show takes one object ID, such as: show Chef/p1",
            "-c:6: error: unexpected 'bogus' after 'Chef': show takes the clauses \(clauses)",
        ], "\(run.standardError)")
    }

    @Test("A command without its entity says so and names the entities, as insert does")
    func missingEntity() async throws {
        let run = try await run(["fetch", "count where rating > 4", "show", "delete where rating < 1", "update set rating=5"])
        let entities = "Recipe, Chef, Cuisine, Ingredient, RecipeIngredient, RecipePhoto"
        #expect(run.standardError.split(separator: "\n").map(String.init) == [
            "-c:1: error: fetch needs an entity first, one of: \(entities) (.help fetch shows the rest)",
            "-c:2: error: count needs an entity first, one of: \(entities) (.help count shows the rest)",
            "-c:3: error: show needs an entity first, one of: \(entities) (.help show shows the rest)",
            "-c:4: error: delete needs an entity first, one of: \(entities) (.help delete shows the rest)",
            "-c:5: error: update needs an entity first, one of: \(entities) (.help update shows the rest)",
        ], "\(run.standardError)")
    }

    @Test("An apostrophe inside a word is a letter: names like O'Brien and l'Oignon need no quotes")
    func apostrophes() async throws {
        let run = try await run([
            "insert Chef name=O'Brien", #"insert Recipe "name=Soupe à l'Oignon" sourceID=s-1 chef=O'Brien"#, "save",
            #"count Chef where name == "O'Brien""#, "search soupe a l'oignon", "search 'unclosed",
        ])
        #expect(run.standardError == "-c:6: error: unterminated quote in: 'unclosed\n", "\(run.standardError)")
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("1"), "\(run.standardOutput)")
        #expect(lines.contains { $0.contains("Recipe/p1") && $0.contains("Soupe à l'Oignon") && $0.contains("O'Brien") },
                "\(run.standardOutput)")
    }

    @Test("A quoted nil or null is that text; only an unquoted one clears a value or a relationship")
    func quotedNilIsText() async throws {
        let run = try await run([
            #"insert Chef name="nil""#, #"insert Cuisine "name=Null""#, "insert Cuisine name=Thai",
            #"insert Recipe name=r1 sourceID=s-1 cuisine="Null""#, "insert Recipe name=r2 sourceID=s-2 cuisine=nil",
            "save", #"update Recipe where name == 'r2' set instructions='null' cuisine=Thai"#,
            #"update Recipe where name == 'r1' set course="nil" --batch"#, "save", ".mode json",
            "fetch Chef", "fetch Recipe keys name, course, instructions, cuisine.name sort name",
        ])
        #expect(run.standardError.isEmpty && run.status == 0, "\(run.standardError)")
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.suffix(3) == [
            #"{"objectID": "Chef/p1", "name": "nil"}"#,
            #"{"name": "r1", "course": "nil", "instructions": null, "cuisine.name": "Null"}"#,
            #"{"name": "r2", "course": null, "instructions": "null", "cuisine.name": "Thai"}"#,
        ], "\(run.standardOutput)")
    }

    @Test("Quoted values of insert and update take the escapes a predicate's strings take")
    func escapesInValues() async throws {
        let value = #"Step 1.\nStep 2.\t\u{1F35C} \u00E9 \\d \"q\" \d"#
        let run = try await run([
            #"insert Recipe name="Tab\there" sourceID=s-1 instructions=""# + value + #"""#, "save",
            #"count Recipe where name == "Tab\there""#, #"count Recipe where instructions == ""# + value + #"""#,
            #"update Recipe where name == "Tab\there" set name="Line\nbreak""#, "save",
            #"count Recipe where name == "Line\nbreak""#, ".mode json", "fetch Recipe keys name, instructions",
            #"insert Chef name="\u{110000}""#, #"insert Chef name="\u{41""#,
        ])
        #expect(run.standardOutput.split(separator: "\n").map(String.init) == [
            "inserted Recipe (unsaved; save to keep it)", "saved 1 change", "1", "1",
            "updated 1 Recipe object (unsaved)", "saved 1 change", "1",
            #"{"name": "Line\nbreak", "instructions": "Step 1.\nStep 2.\t🍜 é \\d \"q\" \\d"}"#,
        ], "\(run.standardOutput)")
        #expect(run.standardError.split(separator: "\n").map(String.init) == [
            #"-c:10: error: invalid Unicode escape '\u{110000}' in: Chef name="\u{110000}""#,
            #"-c:11: error: expected '}' in a \u{…} escape in: Chef name="\u{41""#,
        ], "\(run.standardError)")
    }

    @Test("A sort by a relationship, and a prefetch of an attribute, say what the key is")
    func keysOfTheWrongKind() async throws {
        let run = try await run(["fetch Recipe sort chef", "fetch Recipe sort ingredients", "fetch Recipe prefetch name",
                                 "fetch Recipe sort nmae"])
        let errors = run.standardError.split(separator: "\n").map(String.init)
        #expect(errors.count == 4, "\(run.standardError)")
        #expect(errors[0] == "-c:1: error: 'chef' is a relationship of 'Recipe', not an attribute; name one of its attributes, such as chef.name")
        #expect(errors[1].hasPrefix("-c:2: error: 'ingredients' is a to-many relationship of 'Recipe', not an attribute"))
        #expect(errors[2].hasPrefix("-c:3: error: 'name' is an attribute of 'Recipe'; only relationships are prefetched (chef, cuisine"))
        #expect(errors[3] == "-c:4: error: unknown key 'nmae' on entity 'Recipe'; did you mean 'name'?")
    }

    @Test(".explain show ENTITY/pN explains the one-row read that show runs; .schema takes several entities")
    func explainShowAndSchema() async throws {
        let run = try await run(["insert Chef name=Ana", "save", ".explain show Chef/p1", ".schema Chef Cuisine",
                                 ".explain show Chef/p1 extra"])
        #expect(run.standardOutput.contains(#"SQL: SELECT t0."_pk", t0."name", t0."_opt" FROM "Chef" AS t0 WHERE t0."_pk" = ?"#
                                            + "\nvalues: 1\nplan:\n  SEARCH t0 USING INTEGER PRIMARY KEY (rowid=?)\n"),
                "\(run.standardOutput)")
        #expect(run.standardOutput.contains("\nChef\n") && run.standardOutput.contains("\nCuisine\n"), "\(run.standardOutput)")
        #expect(run.standardError == "-c:5: error: unexpected 'extra' after 'Chef/p1': show takes one object ID, such as: show Chef/p1\n")
    }

    @Test(".explain show ENTITY/pN shows the one-row read that show runs")
    func explainShowIDMatchesTheRun() async throws {
        let directory = try TemporaryDirectory()
        let store = directory.url.appendingPathComponent("c.sqlite").path
        _ = try await RecipesBinary.run([store, "-c", "insert Chef name=Ana", "-c", "save"])
        let run = try await RecipesBinary.run([store, "--deterministic", "-c", ".sqldebug 2", "-c", "show Chef/p1",
                                               "-c", ".sqldebug 0", "-c", ".explain show Chef/p1"])
        let (ran, explained) = Self.ranAndExplained(run.standardOutput)
        #expect(ran.count == 2 && ran == explained, "\(run.standardOutput)")
    }

    /// The first statement `.sqldebug 2` logged with its values, and what `.explain` showed,
    /// in the same form.
    static func ranAndExplained(_ output: String) -> (ran: [String], explained: [String]) {
        let lines = output.split(separator: "\n").map(String.init)
        let ran = lines.filter { $0.hasPrefix("sql: ") || $0.hasPrefix("  values: ") }.prefix(2)
            .map { $0.replacingOccurrences(of: "sql: ", with: "").trimmingCharacters(in: .whitespaces) }
        let explained = lines.filter { $0.hasPrefix("SQL: ") || $0.hasPrefix("values: ") }
            .map { $0.replacingOccurrences(of: "SQL: ", with: "") }
        return (Array(ran), explained)
    }

    @Test(".explain update … --batch and delete … --batch show the statement that selects their rows, and change nothing")
    func explainBatchRequests() async throws {
        let update = "update Chef where name BEGINSWITH 'An' set name=Zed --batch"
        let delete = "delete Chef where name BEGINSWITH 'A' --batch"
        let run = try await run(["insert Chef name=Ana", "insert Chef name=Abe", "save", ".explain " + update,
                                 ".explain " + delete, "count Chef where name BEGINSWITH 'A'",
                                 ".explain update Chef set name=Zed", ".explain delete Chef --batch",
                                 ".explain update Chef set nmae=Zed --batch", ".explain insert Chef name=Eve",
                                 ".sqldebug 2", update])
        let (ran, explained) = Self.ranAndExplained(run.standardOutput.replacingOccurrences(of: "sql: BEGIN IMMEDIATE\n", with: ""))
        #expect(explained.count == 4 && explained[0] == explained[2], "the same SELECT: \(run.standardOutput)")
        #expect(ran == Array(explained.prefix(2)), "the statement the update ran first: \(run.standardOutput)")
        #expect(run.standardOutput.contains("then: the rows it selects get the new values, in one statement (nothing was changed)\n"))
        #expect(run.standardOutput.contains("then: the rows it selects are deleted, and the delete rules applied, in the store (nothing was changed)\n"))
        #expect(run.standardOutput.contains("\n2\n"), "both chefs are still there: \(run.standardOutput)")
        #expect(run.standardError.split(separator: "\n").map(String.init) == [
            "-c:7: error: .explain update needs --batch: a batch request runs in the store, while a plain update fetches the objects first (.explain fetch … shows that fetch)",
            "-c:8: error: delete needs 'where': delete Chef where … --batch (use 'where TRUEPREDICATE' to delete all)",
            "-c:9: error: unknown key 'nmae' on entity 'Chef'; did you mean 'name'?",
            "-c:10: error: .explain works on fetch, count, show and search commands, and on update … --batch and delete … --batch",
        ], "\(run.standardError)")
    }

    @Test(".explain show ENTITY where P shows the statement show runs, its LIMIT included")
    func explainShowWhereMatchesTheRun() async throws {
        let show = "show Chef where name BEGINSWITH 'A'"
        let run = try await run(["insert Chef name=Ana", "insert Chef name=Abe", "save", ".sqldebug 2", show,
                                 ".sqldebug 0", ".explain " + show])
        // The fetch, then the read of the chef's recipes that show lists.
        let (ran, explained) = Self.ranAndExplained(run.standardOutput)
        #expect(ran.count == 2 && ran == explained, "\(run.standardOutput)")
        #expect(explained.last == "values: 'A', 'B', 2, 0", "\(run.standardOutput)")
    }

    @Test("Control characters in stored text print visibly in table and line modes, escaped in JSON, exact in CSV")
    func controlCharacters() async throws {
        let name = "\u{1B}[2J\u{1B}[31mRed\u{8}X"
        let run = try await run(["insert Chef \"name=\(name)\"", "save", "fetch Chef", ".mode line", "fetch Chef",
                                 ".mode json", "fetch Chef", ".mode csv", "fetch Chef"])
        let shown = #"\u{1B}[2J\u{1B}[31mRed\u{8}X"#
        let lines = run.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.contains { $0.hasPrefix("Chef/p1") && $0.hasSuffix(shown) }, "\(lines)")
        #expect(lines.contains { $0.hasSuffix("name = " + shown) }, "\(lines)")
        #expect(lines.contains { $0.contains(#""name": "\u001b[2J\u001b[31mRed\u0008X""#) }, "\(lines)")
        #expect(run.standardOutput.contains("Chef/p1,\(name)"), "\(lines)")
        #expect(run.standardOutput.filter { $0 == "\u{1B}" }.count == 2, "only CSV keeps the escape characters")
    }

    @Test("A key set twice is an error that changes nothing; show says when it picked the first of several")
    func twiceAndSeveral() async throws {
        let run = try await run(["insert Chef name=Bo name=Cy", "insert Chef name=Ana", "insert Chef name=Ben", "save",
                                 "update Chef where name == 'Ana' set name=A name=B", "show Chef where name BEGINSWITH 'A'",
                                 "show Chef where name BEGINSWITH 'B'", "count Chef where name == 'A' OR name == 'B'"])
        #expect(run.standardError.split(separator: "\n").map(String.init) == [
            "-c:1: error: 'name' is set twice; give each key once",
            "-c:5: error: 'name' is set twice; give each key once",
        ], "\(run.standardError)")
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        let note = "(the first of several matches; 'fetch' lists them all, 'show Chef/pN' shows one)"
        #expect(lines.filter { $0 == note }.isEmpty, "one match each: \(lines)")
        #expect(lines.last == "0" && lines.contains("saved 2 changes"), "\(lines)")
        let several = try await self.run(["insert Chef name=Ana", "insert Chef name=Abe", "save",
                                          "show Chef where name BEGINSWITH 'A'"])
        #expect(several.standardOutput.hasSuffix(note + "\n"), "\(several.standardOutput)")
    }

    @Test("import and .open name an unknown option or a second path")
    func importAndOpenArguments() async throws {
        let run = try await run(["import x.jsonl --bogus", "import a.jsonl b.jsonl", "import", ".open o.sqlite extra",
                                 ".open --force o.sqlite", "import x.jsonl --pause", "import x.jsonl --pause -5",
                                 "import x.jsonl --pause 1 --pause 2"])
        #expect(run.standardError.split(separator: "\n").map(String.init) == [
            "-c:1: error: unknown option '--bogus' for import: import FILE [--batch N] [--background] [--pause MS]",
            "-c:2: error: import needs one file, found 2: import FILE [--batch N] [--background] [--pause MS]",
            "-c:3: error: import needs one file: import FILE [--batch N] [--background] [--pause MS]",
            "-c:4: error: .open takes one store path, found 2: 'o.sqlite' 'extra'; quote a path that has spaces",
            "-c:5: error: unknown option '--force' for .open: .open [--migrate] STORE [--copy-to NEW]",
            "-c:6: error: --pause needs a number of milliseconds",
            "-c:7: error: --pause needs a number of milliseconds, not '-5'",
            "-c:8: error: --pause is given twice; give it once",
        ], "\(run.standardError)")
    }

    @Test(".help with a topic that names no command fails with a suggestion; a dot-command is found without its dot")
    func helpTopics() async throws {
        let run = try await run([".help fech", ".help nothing", ".help mode", ".help .echo", ".help .help"])
        #expect(run.status == 1, "\(run.standardError)")
        #expect(run.standardError.split(separator: "\n").map(String.init) == [
            "-c:1: error: no help for 'fech'; did you mean 'fetch'? (.help lists the commands)",
            "-c:2: error: no help for 'nothing' (.help lists the commands)",
        ], "\(run.standardError)")
        #expect(run.standardOutput.hasPrefix(".mode table|json|csv|line\n"), "\(run.standardOutput)")
        #expect(run.standardOutput.contains(".echo on|off\n") && run.standardOutput.contains(".help [COMMAND]\n"),
                "\(run.standardOutput)")
    }

    @Test("An unknown command is quoted as typed, and a command's case does not matter")
    func unknownCommandAsTyped() async throws {
        let run = try await run(["countX Recipe", ".Modes json", "COUNT Chef"])
        #expect(run.standardError.split(separator: "\n").map(String.init) == [
            "-c:1: error: unknown command 'countX'; did you mean 'count'? (.help lists the commands)",
            "-c:2: error: unknown command '.Modes'; did you mean '.mode'? (.help lists the commands)",
        ], "\(run.standardError)")
        #expect(run.standardOutput == "0\n", "\(run.standardOutput)")
    }

    @Test("An empty store path is refused by .open and .migrate, not opened as SQLite's vanishing temporary database")
    func emptyStorePaths() async throws {
        let run = try await run(["insert Chef name=Ana", "save", #".open """#, ".open ''", #".migrate xml """#,
                                 #".open --migrate x.sqlite --copy-to """#, "count Chef"])
        let open = ".open needs a store path, not an empty one (:memory: for a scratch catalogue): .open [--migrate] STORE [--copy-to NEW]"
        #expect(run.standardError.split(separator: "\n").map(String.init) == [
            "-c:3: error: \(open)", "-c:4: error: \(open)",
            "-c:5: error: .migrate xml needs one path for the new store: .migrate xml PATH", "-c:6: error: \(open)",
        ], "\(run.standardError)")
        #expect(run.standardOutput.hasSuffix("saved 1 change\n1\n"), "\(run.standardOutput)")
    }

    @Test("import's --batch names what is wrong with it: missing, not a positive number, or given twice")
    func importBatchOption() async throws {
        let run = try await run(["import x.jsonl --batch", "import x.jsonl --batch 0", "import x.jsonl --batch 2 --batch 3"])
        #expect(run.standardError.split(separator: "\n").map(String.init) == [
            "-c:1: error: --batch needs a positive number",
            "-c:2: error: --batch needs a positive number, not '0'",
            "-c:3: error: --batch is given twice; give it once",
        ], "\(run.standardError)")
    }

    @Test(".help demo explains demos; a size below the minimum is refused, not raised in silence")
    func demoHelpAndSize() async throws {
        let run = try await run([".help demo", "demo prefetch --size 5"])
        #expect(run.standardOutput.contains("--size N sets how many recipes it builds (10 to 1000000)"), "\(run.standardOutput)")
        #expect(run.standardError == "-c:2: error: a size of 5 is too small: the demo 'prefetch' needs at least 10 recipes\n",
                "\(run.standardError)")
    }

    @Test("A demo's wrong arguments are named: a misspelt demo or option, --size twice, out of range or not a number")
    func demoArguments() async throws {
        let run = try await run([
            "demo prefech", "demo prefetch --sise 10", "demo prefetch --size 10 --size 20", "demo prefetch lazy",
            "demo --size 10", "demo prefetch --size", "demo prefetch --size abc", "demo prefetch --size 0",
            "demo prefetch --size -1", "demo prefetch --size 99999999999999999999", "demo prefetch --size=2000000",
            "demo prefetch -s 10", "demo prefetch -x",
        ])
        let usage = "usage: demo NAME [--size N]"
        #expect(run.standardError.split(separator: "\n").map(String.init) == [
            "-c:1: error: unknown demo 'prefech'; did you mean 'prefetch'? (the demos are: prefetch, search, delete, lazy, refresh, uniquing, import)",
            "-c:2: error: unknown option '--sise' for demo; did you mean '--size'? (\(usage))",
            "-c:3: error: --size is given twice; give it once",
            "-c:4: error: demo runs one demo, found 2: 'prefetch' 'lazy'; \(usage)",
            "-c:5: error: --size needs a demo to size: demo NAME [--size N]",
            "-c:6: error: --size needs a number of recipes: demo NAME --size N",
            "-c:7: error: --size needs a whole number of recipes, not 'abc'",
            "-c:8: error: a size of 0 is too small: the demo 'prefetch' needs at least 10 recipes",
            "-c:9: error: a size of -1 is too small: the demo 'prefetch' needs at least 10 recipes",
            "-c:10: error: --size 99999999999999999999 is too large: a demo builds at most 1000000 recipes",
            "-c:11: error: a size of 2000000 is too large: a demo builds at most 1000000 recipes",
            "-c:12: error: unknown option '-s' for demo; did you mean '--size'? (\(usage))",
            "-c:13: error: unknown option '-x' for demo (\(usage))",
        ], "\(run.standardError)")
    }
}
