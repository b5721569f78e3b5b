import Foundation
import Testing

/// Every fetch option through the built binary: `ids`, `keys`, `distinct`, `faults`, `nosub`,
/// and the `--batch` forms of update and delete, with their exact output and errors.
@Suite("fetch options and batch requests")
struct FetchOptionsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Runs `commands` on a fresh in-memory catalogue with the sample recipes imported,
    /// and returns what came after the import line.
    func run(_ commands: [String]) async throws -> RecipesBinary.Run {
        var run = try await RecipesBinary.run(["--memory", "--deterministic", "-c", "import SampleData/recipes.jsonl"]
                                              + commands.flatMap { ["-c", $0] }, in: Self.root, timeout: .seconds(60))
        let imported = "imported 169 recipes from recipes.jsonl\n"
        #expect(run.standardOutput.hasPrefix(imported))
        run.standardOutput = String(run.standardOutput.dropFirst(imported.count))
        return run
    }

    @Test("ids prints one {\"objectID\": …} per line in JSON, and an objectID column in a table")
    func ids() async throws {
        let run = try await run([".mode json", "fetch Recipe where cuisine.name == 'Thai' sort name limit 3 ids",
                                 ".mode table", "fetch Recipe ids where cuisine.name == 'Thai' sort name limit 2"])
        #expect(run.standardError == "")
        #expect(run.standardOutput == """
            {"objectID": "Recipe/p67"}
            {"objectID": "Recipe/p69"}
            {"objectID": "Recipe/p70"}
            objectID
            ----------
            Recipe/p67
            Recipe/p69
            (2 object IDs)

            """)
    }

    @Test("group prints a row per group with its aggregates, in JSON and a table; without group, one row over every match")
    func group() async throws {
        let run = try await run([".mode json",
                                 "fetch Recipe keys cuisine.name, @count, @avg.rating, @max.published group cuisine.name where cuisine.name BEGINSWITH 'I' sort cuisine.name desc",
                                 ".mode table", "fetch Recipe keys @count, @sum.servings, @min.name where course == 'soup'",
                                 "fetch Recipe group course", "fetch Recipe keys course, name, @count group course"])
        #expect(run.standardOutput == """
            {"cuisine.name": "Italian", "@count": 9, "@avg.rating": 3.7777777777777777, "@max.published": "2024-08-11"}
            {"cuisine.name": "Indian", "@count": 8, "@avg.rating": 3.4375, "@max.published": "2024-10-19"}
            @count  @sum.servings  @min.name
            ------  -------------  ----------
            18      96             Avgolemono
            (1 row)

            """)
        #expect(run.standardError == """
            -c:6: error: 'group' works only with 'keys' (one row per group, with aggregates such as @count), such as: fetch Recipe keys cuisine.name, @count group cuisine.name
            -c:7: error: property 'name' is not grouped by (the groups are by course): add it to the group keys, or fetch an aggregate of it such as @max.name

            """)
    }

    @Test("keys prints the values of the key paths as written, to-one paths included; no objectID")
    func keys() async throws {
        let run = try await run([".mode json", "fetch Recipe where cuisine.name == 'Thai' sort name limit 4 keys name, cuisine.name, rating, published, hasPhoto",
                                 ".mode csv", "fetch Recipe keys name, chef.name where cuisine.name == 'Thai' sort name limit 2",
                                 ".mode table", "fetch Recipe where cuisine.name == 'Thai' sort name limit 2 keys name, chef.name",
                                 ".mode line", "fetch Recipe where cuisine.name == 'Thai' sort name limit 1 keys name, chef.name"])
        #expect(run.standardError == "")
        #expect(run.standardOutput == """
            {"name": "Gaeng Keow Wan Gai", "cuisine.name": "Thai", "rating": 1.5, "published": "2022-10-24", "hasPhoto": false}
            {"name": "Khao Niao Mamuang", "cuisine.name": "Thai", "rating": 2.0, "published": "2021-01-14", "hasPhoto": false}
            {"name": "Larb Gai", "cuisine.name": "Thai", "rating": 4.0, "published": "2021-06-04", "hasPhoto": false}
            {"name": "Pad Thai", "cuisine.name": "Thai", "rating": null, "published": "2022-10-25", "hasPhoto": false}
            name,chef.name
            Gaeng Keow Wan Gai,Somchai Wongsakul
            Khao Niao Mamuang,Somchai Wongsakul
            name                chef.name
            ------------------  -----------------
            Gaeng Keow Wan Gai  Somchai Wongsakul
            Khao Niao Mamuang   Somchai Wongsakul
            (2 rows)
                 name = Gaeng Keow Wan Gai
            chef.name = Somchai Wongsakul
            (1 row)

            """)
    }

    @Test("keys reads saved values only, as Core Data's dictionary results do, and says so while changes are unsaved; ids includes them")
    func keysWithUnsavedChanges() async throws {
        let run = try await run(["update Recipe where name == 'Pad Thai' set rating=5",
                                 "fetch Recipe where name == 'Pad Thai' keys name, rating",
                                 "fetch Recipe where rating == 5 AND name == 'Pad Thai' ids",
                                 ".mode json", "fetch Recipe where name == 'Pad Thai' keys rating",
                                 ".mode table", "save", "fetch Recipe where name == 'Pad Thai' keys rating"])
        #expect(run.standardError == "")
        #expect(run.standardOutput == """
            updated 1 Recipe object (unsaved)
            name      rating
            --------  ------
            Pad Thai
            (1 row)
            (saved values only: 'keys' reads the store, without this context's unsaved changes; save to include them)
            objectID
            ----------
            Recipe/p66
            (1 object ID)
            {"rating": null}
            saved 1 change
            rating
            ------
            5.0
            (1 row)

            """)
    }

    @Test("distinct returns each different row once")
    func distinct() async throws {
        let run = try await run([".mode json", "fetch Recipe where rating >= 4.5 keys course distinct sort course desc limit 4",
                                 "fetch Recipe where rating >= 4.5 keys course sort course desc limit 4"])
        #expect(run.standardError == "")
        #expect(run.standardOutput == """
            {"course": "starter"}
            {"course": "soup"}
            {"course": "snack"}
            {"course": "side"}
            {"course": "starter"}
            {"course": "soup"}
            {"course": "soup"}
            {"course": "soup"}

            """)
    }

    @Test("faults prints the same objects; .stats counts one fault fired per object printed")
    func faults() async throws {
        let fetch = "fetch Recipe where sourceID == 'r-000048'"
        let plain = try await run([".mode json", fetch, ".stats"])
        let faulted = try await run([".mode json", fetch + " faults", ".stats"])
        let object = """
            {"objectID": "Recipe/p48", "name": "Miso Soup", "nameCanonical": "miso soup", "sourceID": "r-000048", \
            "instructions": "Steep the kombu in water and heat it gently to make a light stock. Remove the kombu and add \
            cubed tofu and wakame. Dissolve the miso in a ladle of stock and stir it in without boiling. Top with scallion.", \
            "course": "soup", "prepMinutes": 5, "cookMinutes": 10, "servings": 4, "rating": 3.0, "published": "2024-07-26", \
            "hasPhoto": false, "ingredientCount": 5, "chef": "Zoë Ångström", "cuisine": "Japanese", "photo": null}
            """
        #expect(plain.standardOutput.hasPrefix(object + "\n"))
        #expect(faulted.standardOutput.hasPrefix(object + "\n"))
        // The recipe itself is the one extra fault; its chef and cuisine are faults either way.
        #expect(plain.standardOutput.contains("\nfaults fired               2\n"))
        #expect(faulted.standardOutput.contains("\nfaults fired               3\n"))
        // Each object printed was realized, whether a fetch or a fault loaded its values.
        for run in [plain, faulted] { #expect(run.standardOutput.contains("\nobjects realized           3\n")) }
    }

    @Test("nosub is accepted by fetch and count; the catalogue has no sub-entities, so nothing changes")
    func nosub() async throws {
        let run = try await run([".mode json", "fetch Chef where name BEGINSWITH 'Zo' nosub", "count Chef nosub",
                                 ".explain fetch Chef nosub ids"])
        #expect(run.standardError == "")
        #expect(run.standardOutput == """
            {"objectID": "Chef/p6", "name": "Zoë Ångström"}
            {"count": 30}
            SQL: SELECT t0."_pk" FROM "Chef" AS t0
            plan:
              SCAN t0 USING COVERING INDEX sqlite_autoindex_Chef_1

            """)
    }

    @Test(".explain shows the statement ids, keys and distinct run")
    func explain() async throws {
        let run = try await run([".explain fetch Recipe where rating >= 4.5 ids",
                                 ".explain fetch Recipe keys cuisine.name distinct"])
        #expect(run.standardError == "")
        #expect(run.standardOutput == """
            SQL: SELECT t0."_pk" FROM "Recipe" AS t0 WHERE ((t0."rating" >= ?))
            values: 4.5
            plan:
              SEARCH t0 USING COVERING INDEX _index_Recipe_rating (rating>?)
            SQL: SELECT DISTINCT (SELECT h1."name" FROM "Cuisine" AS h1 WHERE h1._pk = t0."cuisine") FROM "Recipe" AS t0
            plan:
              SCAN t0 USING COVERING INDEX _index_Recipe_cuisine
              CORRELATED SCALAR SUBQUERY 1
                SEARCH h1 USING INTEGER PRIMARY KEY (rowid=?)
              USE TEMP B-TREE FOR DISTINCT

            """)
    }

    @Test("update --batch changes the rows in the store at once; nothing is left to save")
    func batchUpdate() async throws {
        let run = try await run(["update Recipe where cuisine.name == 'Thai' set rating=4.5 servings=6 --batch",
                                 ".mode json", "update Recipe where name == 'Som Tam' set course=dessert --batch",
                                 "update Recipe where name == 'Larb Gai' set rating=nil --batch",
                                 "fetch Recipe where cuisine.name == 'Thai' sort name limit 3 keys name, rating, servings",
                                 "fetch Recipe where name == 'Som Tam' keys course", "save"])
        #expect(run.standardError == "")
        #expect(run.standardOutput == """
            updated 7 Recipe rows (batch: written to the store, no objects loaded)
            {"updated": 1}
            {"updated": 1}
            {"name": "Gaeng Keow Wan Gai", "rating": 4.5, "servings": 6}
            {"name": "Khao Niao Mamuang", "rating": 4.5, "servings": 6}
            {"name": "Larb Gai", "rating": null, "servings": 6}
            {"course": "dessert"}
            saved 0 changes

            """)
    }

    @Test("update --batch is merged into the context: unsaved edits stay, new values show")
    func batchUpdateMerges() async throws {
        let run = try await run([".mode json", "update Recipe where name == 'Miso Soup' set servings=9",
                                 "update Recipe where name == 'Miso Soup' set rating=1 --batch",
                                 "fetch Recipe where name == 'Miso Soup'"])
        #expect(run.standardOutput.contains("\"servings\": 9, \"rating\": 1.0,"))
        #expect(run.standardError == "Rolled back 1 unsaved change.\n")
    }

    @Test("delete --batch deletes the rows and applies the delete rules in SQL")
    func batchDelete() async throws {
        let run = try await run(["delete Recipe where cuisine.name == 'Thai' --batch", "count Recipe where cuisine.name == 'Thai'",
                                 "delete Chef where name == 'Zoë Ångström' --batch", "count Recipe where chef == nil",
                                 ".mode json", "delete Recipe where cuisine.name == 'Japanese' --batch", "count RecipeIngredient"])
        #expect(run.standardError == "")
        #expect(run.standardOutput == """
            deleted 7 Recipe rows; by cascade 61 RecipeIngredient rows, 1 RecipePhoto row (batch: written to the store, no objects loaded)
            0
            deleted 1 Chef row; references cleared in 8 Recipe rows (batch: written to the store, no objects loaded)
            15
            {"deleted": 7, "cascaded": 46, "nullified": 0}
            {"count": 1186}

            """)
    }

    @Test("Clauses that do not fit are errors that name them")
    func errors() async throws {
        let run = try await run(["fetch Recipe keys ratng", "fetch Recipe distinct", "fetch Recipe ids keys name",
                                 "fetch Recipe keys name faults", "fetch Recipe ids prefetch chef", "count Recipe ids",
                                 "fetch Recipe ids 3", "fetch Recipe keys", "fetch Recipe keys name chef.name",
                                 "fetch Recipe keys chef", "fetch Recipe keys ingredients.quantity",
                                 "update Recipe set chef=Ana --batch", "update Recipe set name=nil --batch",
                                 "update Recipe set nameCanonical=x --batch", "update Recipe where rating < 1 sort name set rating=1 --batch",
                                 "delete Recipe --batch", "delete Recipe where rating < 1 limit 3 --batch",
                                 "delete Recipe where rating < 1 nosub --batch"])
        #expect(run.standardOutput == "")
        #expect(run.standardError == """
            -c:2: error: unknown key 'ratng' on entity 'Recipe'; did you mean 'rating'?
            -c:3: error: 'distinct' works only with 'keys' (distinct rows of chosen properties), such as: fetch Recipe keys cuisine.name distinct
            -c:4: error: 'ids' and 'keys' cannot go together: 'ids' fetches object IDs, 'keys' property values
            -c:5: error: 'faults' applies to fetched objects, and 'keys' fetches none
            -c:6: error: 'prefetch' applies to fetched objects, and 'ids' fetches none
            -c:7: error: 'ids' works only with fetch, not count
            -c:8: error: 'ids' takes nothing after it, found '3'
            -c:9: error: 'keys' needs key paths, such as: keys name, chef.name
            -c:10: error: key paths in 'keys' are separated by commas, found 'name chef.name'
            -c:11: error: 'chef' is a relationship of 'Recipe', not an attribute; name one of its attributes, such as chef.name
            -c:12: error: 'ingredients.quantity' goes through 'ingredients', a to-many relationship of 'Recipe': sort keys, section key paths and fetched values name one value an object, through to-one relationships only
            -c:13: error: 'chef' is a relationship; update --batch sets attributes only (leave out --batch to set it)
            -c:14: error: 'Recipe.name' is required: a batch update cannot set it to nil; nothing was updated
            -c:15: error: 'nameCanonical' is derived (canonical:(name)) and computed by the framework; change 'name' instead
            -c:16: error: 'sort' does not apply to update --batch, which takes only 'where'
            -c:17: error: delete needs 'where': delete Recipe where … --batch (use 'where TRUEPREDICATE' to delete all)
            -c:18: error: 'limit' does not apply to delete --batch, which takes only 'where'
            -c:19: error: 'nosub' does not apply to delete --batch, which takes only 'where'

            """)
    }

    @Test("Without --batch, update and delete work on objects as before; a quoted --batch is text")
    // 28 changes: 6 Thai recipes updated; Som Tam deleted with its 9 lines and its photo;
    // its chef, cuisine and 9 ingredients updated (their inverse relationships changed).
    func nonBatchUnchanged() async throws {
        let run = try await run(["update Recipe where name == '--batch' set rating=1",
                                 "update Recipe where cuisine.name == 'Thai' set rating=5", "delete Recipe where name == 'Som Tam'",
                                 "count Recipe where cuisine.name == 'Thai' AND rating == 5", "rollback"])
        #expect(run.standardOutput == """
            updated 0 Recipe objects (unsaved)
            updated 7 Recipe objects (unsaved)
            deleted 1 Recipe object (unsaved)
            6
            Rolled back 28 unsaved changes.

            """)
    }
}
