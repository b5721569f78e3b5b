public import ObjectGraph
public import RecipeCatalog

/// Exercises 2 and 3's task: import recipes with their ingredient lines.
public protocol RecipeImporting: Sendable {
    /// Inserts one `Recipe` per record with one `RecipeIngredient` per ingredient line
    /// (`displayOrder` = the line's position, `quantity`, `unit`), each line linked to the
    /// `Ingredient` of that name, and saves. There is exactly one `Ingredient` per name:
    /// use the one the store has, or create it once.
    func importRecipes(_ records: [RecipeRecord], in context: isolated PrivateContext) throws
}

/// Checks exercise 2: 500 recipes whose lines name 300 ingredients, half of them already
/// in the store; no duplicates, few lookups.
public enum FindOrCreateCheck: ExerciseCheck {
    public static let exercise = ExerciseInfo(number: 2, title: "Find-or-create with a uniquing cache",
                                              folder: "02-find-or-create", file: "FindOrCreate.swift")
    static let recipeCount = 500
    /// At most this many `SELECT` statements: a fetch of a batch's names, not one per line.
    static let selectBudget = 12

    public static func check(_ implementation: any RecipeImporting, subject: String) async throws -> CheckResult {
        var result = CheckResult(exercise, subject: subject)
        let workspace = try Workspace()
        let recipes = try GeneratedRecipes(count: recipeCount, in: workspace)
        let catalog = try workspace.makeCatalog("find-or-create")
        let used = recipes.usedIngredientNames
        let existing = stride(from: 0, to: used.count, by: 2).map { used[$0] }
        let context = PrivateContext(coordinator: catalog.coordinator)
        try await context.perform { try $0.insertIngredients(existing) }
        let records = recipes.records
        let figures: Figures
        do {
            (_, figures) = try await Probe.measure(on: context, store: catalog.store) { try implementation.importRecipes(records, in: $0) }
        } catch {
            result.problems.append("it threw an error: \(error)")
            return result
        }
        let snapshot = try await CatalogSnapshot.read(catalog.coordinator)
        result.problems = snapshot.problems(recipes: records, checkingLines: true) + snapshot.problems(seededIngredients: existing)
        let duplicated = snapshot.duplicatedIngredientNames
        if !duplicated.isEmpty {
            result.problems.append("\(duplicated.count) ingredient names are stored more than once, such as '\(duplicated[0])'")
        }
        if Set(snapshot.ingredientNames) != Set(used) {
            result.problems.append("\(Set(snapshot.ingredientNames).count) distinct ingredients stored, expected the \(used.count) the recipes name")
        }
        result.facts = ["\(snapshot.recipes.count.grouped) recipes, \(snapshot.lines.count.grouped) lines, "
                        + "\(used.count) ingredients (\(existing.count) found, \(used.count - existing.count) created), no duplicates"]
        let selects = figures.statements("SELECT")
        // Hundreds of SELECTs is a lookup per line; a few dozen, batches too small.
        let advice = selects > recipes.lineCount / 10
            ? "a fetch per ingredient line: fetch a batch's names at once (name IN %@) and keep them in a dictionary"
            : "batches too small (each fetch and each save adds a few): fetch the names of more recipes at once, "
                + "or of the whole import, and keep every ingredient found or made in one dictionary"
        result.measurements = [
            Measurement("SELECT statements", value: selects, budget: selectBudget, advice: advice),
        ]
        result.details = ["ingredient lines looked up: \(recipes.lineCount.grouped); rows read: \(figures.statistics.rows.grouped)"]
        result.seconds = figures.seconds
        return result
    }
}
