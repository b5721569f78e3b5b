import Foundation
import Testing

/// `hasPhoto` and `ingredientCount` are derived attributes: the shell's insert, delete and
/// batch delete keep them right, and setting them is refused with what to change instead.
@Suite("derived values through the shell")
struct DerivedValueTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test("insert, delete and delete --batch keep hasPhoto and ingredientCount right; setting them is an error")
    func derivedValuesFollowEdits() async throws {
        let probe = "fetch Recipe where name == 'Larb Gai' keys ingredientCount, hasPhoto"
        let commands = [
            "import SampleData/recipes.jsonl", ".mode json", probe,
            "insert RecipePhoto recipe=\"Larb Gai\" data=AAEC",
            "insert RecipeIngredient recipe=Recipe/p70 ingredient=mint quantity=2 unit=tbsp displayOrder=9",
            probe, "save", probe,
            "delete RecipeIngredient where recipe.name == 'Larb Gai' AND displayOrder < 2", "save", probe,
            ".mode table",
            "delete RecipePhoto where recipe.name == 'Larb Gai' --batch",
            "delete RecipeIngredient where recipe.name == 'Larb Gai' AND displayOrder > 5 --batch",
            ".mode json", probe,
            "update Recipe where name == 'Larb Gai' set hasPhoto=yes",
            "update Recipe where name == 'Larb Gai' set ingredientCount=1 --batch",
        ]
        let run = try await RecipesBinary.run(["--memory", "--deterministic"] + commands.flatMap { ["-c", $0] },
                                              in: Self.root, timeout: .seconds(60))
        #expect(run.standardOutput == """
            imported 169 recipes from recipes.jsonl
            {"ingredientCount": 9, "hasPhoto": false}
            inserted RecipePhoto (unsaved; save to keep it)
            inserted RecipeIngredient (unsaved; save to keep it)
            {"ingredientCount": 9, "hasPhoto": false}
            saved 4 changes
            {"ingredientCount": 10, "hasPhoto": true}
            {"deleted": 2}
            saved 5 changes
            {"ingredientCount": 8, "hasPhoto": true}
            deleted 1 RecipePhoto row; references cleared in 1 Recipe row; derived values recomputed in 1 Recipe row (batch: written to the store, no objects loaded)
            deleted 4 RecipeIngredient rows; derived values recomputed in 1 Recipe row (batch: written to the store, no objects loaded)
            {"ingredientCount": 4, "hasPhoto": false}

            """)
        #expect(run.standardError == """
            -c:17: error: 'Recipe.hasPhoto' is derived (photo != nil) and computed by the framework; change 'photo' instead
            -c:18: error: 'ingredientCount' is derived (ingredients.@count) and computed by the framework; change 'ingredients' instead

            """)
    }
}
