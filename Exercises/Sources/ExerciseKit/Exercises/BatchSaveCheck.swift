public import ObjectGraph
public import RecipeCatalog

/// Exercise 1's task: save imported recipes.
public protocol RecipeSaving: Sendable {
    /// Inserts one `Recipe` per record (its `sourceID`, `name`, `course` and `rating`) into
    /// `context` and saves them all.
    func save(_ records: [RecipeRecord], in context: isolated PrivateContext) throws
}

/// Checks exercise 1: 2,000 recipes saved, in few transactions.
public enum BatchSaveCheck: ExerciseCheck {
    public static let exercise = ExerciseInfo(number: 1, title: "Batch saves", folder: "01-batch-save", file: "BatchSave.swift")
    /// The recipes to save.
    static let recipeCount = 2_000
    /// At most this many transactions: a save per 200 recipes or fewer.
    static let transactionBudget = 10

    public static func check(_ implementation: any RecipeSaving, subject: String) async throws -> CheckResult {
        var result = CheckResult(exercise, subject: subject)
        let workspace = try Workspace()
        let recipes = try GeneratedRecipes(count: recipeCount, in: workspace)
        let catalog = try workspace.makeCatalog("batch-save")
        let records = recipes.records
        let figures: Figures
        do {
            (_, figures) = try await Probe.measure(on: PrivateContext(coordinator: catalog.coordinator), store: catalog.store) {
                try implementation.save(records, in: $0)
            }
        } catch {
            result.problems.append("it threw an error: \(error)")
            return result
        }
        let snapshot = try await CatalogSnapshot.read(catalog.coordinator)
        result.problems = snapshot.problems(recipes: records, checkingLines: false, checkingCourseAndRating: true)
        result.facts = ["\(snapshot.recipes.count.grouped) recipes saved, each once, with their names, courses and ratings"]
        result.measurements = [
            Measurement("transactions", value: figures.statistics.transactions, budget: transactionBudget,
                        advice: "every save() commits a transaction: insert a few hundred recipes, then save"),
        ]
        result.details = ["\(figures.statistics.statements.grouped) statements in all"]
        result.seconds = figures.seconds
        return result
    }
}
