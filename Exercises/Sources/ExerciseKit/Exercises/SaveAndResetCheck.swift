internal import ObjectGraph
internal import RecipeCatalog

/// Checks exercise 3: 2,000 recipes with their lines imported into one context, every
/// ingredient already in the store; objects alive at once stay near one batch.
public enum SaveAndResetCheck: ExerciseCheck {
    public static let exercise = ExerciseInfo(number: 3, title: "Save and reset during an import",
                                              folder: "03-save-and-reset", file: "SaveAndReset.swift")
    static let recipeCount = 2_000
    /// At most this many managed objects alive at once: about one batch of 500 recipes with
    /// their lines (4,250) and the ingredients, not the whole import (17,000 and more).
    static let peakBudget = 6_000
    /// At most this many transactions: a save per 200 recipes or fewer.
    static let transactionBudget = 10

    public static func check(_ implementation: any RecipeImporting, subject: String) async throws -> CheckResult {
        var result = CheckResult(exercise, subject: subject)
        let workspace = try Workspace()
        let recipes = try GeneratedRecipes(count: recipeCount, in: workspace)
        let catalog = try workspace.makeCatalog("save-and-reset")
        let context = PrivateContext(coordinator: catalog.coordinator)
        let used = recipes.usedIngredientNames
        try await context.perform { try $0.insertIngredients(used) }
        let records = recipes.records
        let figures: Figures
        do {
            (_, figures) = try await Probe.measure(on: context, store: catalog.store) { try implementation.importRecipes(records, in: $0) }
        } catch {
            result.problems.append("it threw an error: \(error)")
            return result
        }
        let snapshot = try await CatalogSnapshot.read(catalog.coordinator)
        result.problems = snapshot.problems(recipes: records, checkingLines: true) + snapshot.problems(seededIngredients: used)
        if snapshot.ingredientNames.count != used.count {
            result.problems.append("\(snapshot.ingredientNames.count) ingredients stored, expected the \(used.count) that were there")
        }
        result.facts = ["\(snapshot.recipes.count.grouped) recipes and \(snapshot.lines.count.grouped) lines, linked to the \(used.count) existing ingredients"]
        result.measurements = [
            Measurement("peak live objects", value: figures.peakLiveObjects, budget: peakBudget,
                        advice: "saved objects stay alive (recipes and lines hold each other): reset the context after each save"),
            Measurement("transactions", value: figures.statistics.transactions, budget: transactionBudget,
                        advice: "save a batch of a few hundred recipes at a time, not each recipe"),
        ]
        result.details = ["objects still alive after the import: \(max(0, figures.liveObjectsAfter - figures.liveObjectsBefore).grouped)"]
        result.seconds = figures.seconds
        return result
    }
}
