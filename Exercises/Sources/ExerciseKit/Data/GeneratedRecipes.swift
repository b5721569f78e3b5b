public import Foundation
public import RecipeCatalog

/// A seeded, generated catalogue for a checker: the import file and its parsed records.
///
/// The same seed and sizes give the same recipes on every machine (``CatalogGenerator``),
/// so every run of a checker measures the same work. Ingredient names are the first
/// `ingredientCount` of the bundled USDA catalogue, so recipes share ingredients often.
public struct GeneratedRecipes: Sendable {
    /// The import file (JSON Lines), inside a ``Workspace``.
    public var file: URL
    /// The recipes of ``file``, parsed.
    public var records: [RecipeRecord]
    /// The ingredient names the recipes draw from.
    public var ingredientNames: [String]

    /// Generates `count` recipes into `workspace`.
    /// - Throws: ``ExerciseSetupError`` when the sample data cannot be found or read.
    public init(count: Int, ingredientCount: Int = 300, seed: UInt64 = 14, in workspace: Workspace) throws {
        guard let sample = Catalog.sampleDataDirectory else {
            throw ExerciseSetupError("cannot find SampleData/ingredients.tsv (set RECIPES_SAMPLE_DATA to the SampleData folder)")
        }
        let all = try IngredientCatalogFile.load(from: sample.appendingPathComponent("ingredients.tsv")).map(\.name)
        ingredientNames = Array(all.prefix(ingredientCount))
        file = workspace.directory.appendingPathComponent("recipes-\(count)-\(seed).jsonl")
        try CatalogGenerator(seed: seed, ingredientNames: ingredientNames, chefCount: 100).write(count: count, to: file)
        let batch = try RecipeFileReader.readAll(url: file)
        guard batch.errors.isEmpty else {
            throw ExerciseSetupError("the generated file has unreadable lines: \(batch.errors[0])")
        }
        records = batch.records
    }

    /// The distinct ingredient names the recipes use, sorted.
    public var usedIngredientNames: [String] {
        Set(records.flatMap { $0.ingredients.map(\.name) }).sorted()
    }

    /// The number of ingredient lines of all recipes.
    public var lineCount: Int { records.reduce(0) { $0 + $1.ingredients.count } }
}

/// A checker could not prepare its data; nothing about the learner's code is known yet.
public struct ExerciseSetupError: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String

    /// Creates the error.
    public init(_ description: String) { self.description = description }
}
