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
}
