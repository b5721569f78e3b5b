import Foundation
import Testing

/// `undo` and `redo` in the shell: each command is one step; save clears the history.
@Suite("undo and redo through the shell")
struct UndoCommandTests {
    static let root = TranscriptTests.root

    @Test("undo and redo step through commands: values, insertions, deletions with their cascade")
    func undoAndRedoCommands() async throws {
        let commands = [
            "import SampleData/recipes.jsonl",
            "insert Cuisine name=Georgian",
            "update Recipe where sourceID == 'r-000020' set rating=1 name=Pho",
            "delete Recipe where cuisine.name == 'Thai'",
            "count Recipe", "count RecipeIngredient",
            "undo",
            "count Recipe", "count RecipeIngredient",
            "undo",
            "count Recipe where name == 'Pho' AND rating == 1",
            "redo",
            "count Recipe where name == 'Pho' AND rating == 1",
            "undo", "undo", "undo",
            "count Cuisine where name == 'Georgian'",
            "redo", "save", "undo",
            "count Cuisine where name == 'Georgian'",
        ]
        let run = try await RecipesBinary.run(["--memory", "--deterministic"] + commands.flatMap { ["-c", $0] },
                                              in: Self.root, timeout: .seconds(60))
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput == """
            imported 169 recipes from recipes.jsonl
            inserted Cuisine (unsaved; save to keep it)
            updated 1 Recipe object (unsaved)
            deleted 7 Recipe objects (unsaved)
            162
            1232
            undid: delete Recipe where cuisine.name == 'Thai'
            169
            1293
            undid: update Recipe where sourceID == 'r-000020' set rating=1 name=Pho
            0
            redid: update Recipe where sourceID == 'r-000020' set rating=1 name=Pho
            1
            undid: update Recipe where sourceID == 'r-000020' set rating=1 name=Pho
            undid: insert Cuisine name=Georgian
            nothing to undo
            0
            redid: insert Cuisine name=Georgian
            saved 1 change
            nothing to undo
            1

            """)
    }

    @Test("A command that fails changes nothing, leaves no undo step, and the next save writes nothing")
    func aFailedCommandChangesNothing() async throws {
        let commands = [
            "import SampleData/recipes.jsonl",
            "update Recipe where sourceID == 'r-000020' set rating=2",
            "update Recipe where rating > 4 set rating=1 chef='Nobody Here'",
            "update Recipe where rating > 4 set rating=1 servings=abc",
            "update Recipe where rating > 4 set name=X hasPhoto=true",
            "update Recipe where rating > 4 set course=x ingredients='egg'",
            "insert Chef name=Bob nope=1",
            "count Recipe where rating == 1", "count Recipe where name == 'X'", "count Chef where name == 'Bob'",
            "undo", "undo", "save",
        ]
        let run = try await RecipesBinary.run(["--memory", "--deterministic"] + commands.flatMap { ["-c", $0] },
                                              in: Self.root, timeout: .seconds(60))
        #expect(run.standardError == """
            -c:3: error: no Chef named 'Nobody Here'
            -c:4: error: 'abc' is not a valid Int32 for 'servings'
            -c:5: error: 'Recipe.hasPhoto' is derived (photo != nil) and computed by the framework; change 'photo' instead
            -c:6: error: 'ingredients' is a to-many relationship; set the inverse 'recipe' on the RecipeIngredient objects instead
            -c:7: error: unknown key 'nope' on entity 'Chef'; did you mean 'name'?

            """)
        #expect(run.standardOutput == """
            imported 169 recipes from recipes.jsonl
            updated 1 Recipe object (unsaved)
            5
            0
            0
            undid: update Recipe where sourceID == 'r-000020' set rating=2
            nothing to undo
            saved 0 changes

            """)
    }

    @Test("refresh clears the history: the objects read the store again, and undo would put back what they held before")
    func refreshClearsTheHistory() async throws {
        let commands = [
            "import SampleData/recipes.jsonl",
            "update Recipe where sourceID == 'r-000020' set rating=1",
            "refresh",
            "undo",
            "count Recipe where sourceID == 'r-000020' AND rating == 1",
        ]
        let run = try await RecipesBinary.run(["--memory", "--deterministic"] + commands.flatMap { ["-c", $0] },
                                              in: Self.root, timeout: .seconds(60))
        #expect(run.status == 0, "\(run.standardError)")
        let lines = run.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 6 && lines[2].hasPrefix("registered objects "), "\(run.standardOutput)")
        #expect(Array(lines.prefix(2)) + Array(lines.suffix(3)) == [
            "imported 169 recipes from recipes.jsonl",
            "updated 1 Recipe object (unsaved)",
            "nothing to undo",
            "1",
            "",
        ])
    }

    @Test("update checks its keys and values before the fetch: the error is the same with or without matches")
    func updateChecksKeysBeforeFetching() async throws {
        let commands = [
            "import SampleData/recipes.jsonl",
            "update Recipe where name == 'zzz' set nope=1",
            "update Recipe where rating > 4 set nope=1",
            "update Recipe where name == 'zzz' set servings=abc",
            "update Recipe where name == 'zzz' set chef='Nobody Here'",
            "update Recipe where name == 'zzz' set rating=1",
        ]
        let run = try await RecipesBinary.run(["--memory", "--deterministic"] + commands.flatMap { ["-c", $0] },
                                              in: Self.root, timeout: .seconds(60))
        #expect(run.standardError == """
            -c:2: error: unknown key 'nope' on entity 'Recipe'; did you mean 'name'?
            -c:3: error: unknown key 'nope' on entity 'Recipe'; did you mean 'name'?
            -c:4: error: 'abc' is not a valid Int32 for 'servings'
            -c:5: error: no Chef named 'Nobody Here'

            """)
        #expect(run.standardOutput == "imported 169 recipes from recipes.jsonl\nupdated 0 Recipe objects (unsaved)\n")
    }

    @Test("A bad key or value in update --batch fails before the store changes, with or without matches")
    func aFailedBatchUpdateChangesNothing() async throws {
        let commands = [
            "import SampleData/recipes.jsonl",
            "update Recipe where rating > 4 set rating=1 nope=1 --batch",
            "update Recipe where rating > 4 set rating=1 servings=abc --batch",
            "update Recipe where name == 'zzz' set rating=1 nope=1 --batch",
            "count Recipe where rating == 1",
        ]
        let run = try await RecipesBinary.run(["--memory", "--deterministic"] + commands.flatMap { ["-c", $0] },
                                              in: Self.root, timeout: .seconds(60))
        #expect(run.standardError == """
            -c:2: error: unknown key 'nope' on entity 'Recipe'; did you mean 'name'?
            -c:3: error: 'abc' is not a valid Int32 for 'servings'
            -c:4: error: unknown key 'nope' on entity 'Recipe'; did you mean 'name'?

            """)
        #expect(run.standardOutput == "imported 169 recipes from recipes.jsonl\n5\n")
    }
}
