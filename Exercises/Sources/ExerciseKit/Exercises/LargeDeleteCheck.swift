public import ObjectGraph
internal import RecipeCatalog

/// Exercise 5's task: delete many recipes.
public protocol RecipeDeleting: Sendable {
    /// Deletes every recipe that matches `predicate`, with its ingredient lines (the
    /// model's cascade rule), keeping chefs, cuisines and ingredients; the deletion is saved
    /// when the function returns.
    func deleteRecipes(matching predicate: FetchPredicate, in context: isolated PrivateContext) throws
}

/// Checks exercise 5: about a third of 1,500 recipes deleted with their lines, without
/// faulting in what they are related to.
public enum LargeDeleteCheck: ExerciseCheck {
    public static let exercise = ExerciseInfo(number: 5, title: "A large delete without faulting",
                                              folder: "05-large-delete", file: "LargeDelete.swift")
    static let recipeCount = 1_500
    /// The recipes to delete.
    static let predicateFormat = "rating < 2.5"
    /// The recipes a second, unmeasured call deletes from what the first kept: the function
    /// must delete what its predicate matches, not the recipes the task names.
    static let secondPredicateFormat = "rating >= 4.5"
    /// At most this many faults fired (objects and to-many relationships).
    static let faultBudget = 10
    /// At most this many `SELECT` statements.
    static let selectBudget = 10

    public static func check(_ implementation: any RecipeDeleting, subject: String) async throws -> CheckResult {
        var result = CheckResult(exercise, subject: subject)
        let workspace = try Workspace()
        let recipes = try GeneratedRecipes(count: recipeCount, in: workspace)
        let catalog = try await workspace.makeCatalog("large-delete", importing: recipes)
        let before = try await CatalogSnapshot.read(catalog.coordinator)
        let kept = recipes.records.filter { ($0.rating ?? 5) >= 2.5 }
        let predicate = try FetchPredicate(predicateFormat)
        let figures: Figures
        do {
            (_, figures) = try await Probe.measure(on: PrivateContext(coordinator: catalog.coordinator), store: catalog.store) {
                try implementation.deleteRecipes(matching: predicate, in: $0)
            }
        } catch {
            result.problems.append("it threw an error: \(error)")
            return result
        }
        let after = try await CatalogSnapshot.read(catalog.coordinator)
        result.problems = after.problems(recipes: kept, checkingLines: true, checkingCourseAndRating: true,
                                         checkingChefsAndCuisines: true)
        if after.ingredientNames.count != before.ingredientNames.count || after.chefCount != before.chefCount
            || after.cuisineCount != before.cuisineCount {
            result.problems.append("ingredients, chefs or cuisines were deleted too: \(after.ingredientNames.count) of \(before.ingredientNames.count) ingredients, "
                                   + "\(after.chefCount) of \(before.chefCount) chefs, \(after.cuisineCount) of \(before.cuisineCount) cuisines left")
        }
        if result.problems.isEmpty {
            // Called again with another predicate: a delete that ignores its argument (a
            // hard-coded `rating < 2.5`) finds nothing left to delete.
            let second = try FetchPredicate(secondPredicateFormat)
            let keptAgain = kept.filter { $0.rating.map { $0 < 4.5 } ?? true }
            do {
                try await PrivateContext(coordinator: catalog.coordinator).perform { context in
                    try implementation.deleteRecipes(matching: second, in: context)
                }
                let again = try await CatalogSnapshot.read(catalog.coordinator)
                result.problems += again.problems(recipes: keptAgain, checkingLines: true).map {
                    "called again with the predicate '\(secondPredicateFormat)' (delete what the predicate matches): \($0)"
                }
            } catch {
                result.problems.append("called again with the predicate '\(secondPredicateFormat)', it threw an error: \(error)")
            }
        }
        let deletedLines = before.lines.count - after.lines.count
        result.facts = ["\((recipes.records.count - kept.count).grouped) recipes and \(deletedLines.grouped) lines deleted, "
                        + "\(kept.count.grouped) recipes kept whole, no dangling lines, ingredients, chefs and cuisines kept"]
        result.measurements = [
            Measurement("faults fired", value: figures.allFaultsFired, budget: faultBudget,
                        advice: "deleting objects in the context realizes them and all they point to: delete in the store (BatchDeleteRequest)"),
            Measurement("SELECT statements", value: figures.statements("SELECT"), budget: selectBudget,
                        advice: "each fault that reaches the store is a SELECT of its own"),
        ]
        result.details = ["statements in all: \(figures.statistics.statements.grouped) (\(figures.statements("DELETE").grouped) DELETE)"]
        result.seconds = figures.seconds
        return result
    }
}
