public import ObjectGraph
internal import RecipeCatalog

/// Exercise 6's task: walk the object graph.
public protocol IngredientCounting: Sendable {
    /// How many ingredient lines use each ingredient, by ingredient name, found by walking
    /// every recipe's `ingredients` and each line's `ingredient`.
    func linesPerIngredient(in context: isolated PrivateContext) throws -> [String: Int]
}

/// Checks exercise 6: a walk over 1,500 recipes and their lines that leaves no objects
/// behind and never holds the whole graph at once.
public enum RefreshCyclesCheck: ExerciseCheck {
    public static let exercise = ExerciseInfo(number: 6, title: "Refresh to break retain cycles",
                                              folder: "06-refresh-cycles", file: "RefreshCycles.swift")
    static let recipeCount = 1_500
    /// At most this many objects alive at once: the recipes and a part of their lines, not
    /// all 1,500 recipes with their 11,000 lines.
    static let peakBudget = 4_000
    /// At most this many more objects alive after the walk than before it.
    static let leftoverBudget = 50

    public static func check(_ implementation: any IngredientCounting, subject: String) async throws -> CheckResult {
        var result = CheckResult(exercise, subject: subject)
        let workspace = try Workspace()
        let recipes = try GeneratedRecipes(count: recipeCount, in: workspace)
        let catalog = try await workspace.makeCatalog("refresh-cycles", importing: recipes)
        var expected: [String: Int] = [:]
        for record in recipes.records { for line in record.ingredients { expected[line.name, default: 0] += 1 } }
        let counts: [String: Int]
        let figures: Figures
        do {
            (counts, figures) = try await Probe.measure(on: PrivateContext(coordinator: catalog.coordinator), store: catalog.store) {
                try implementation.linesPerIngredient(in: $0)
            }
        } catch {
            result.problems.append("it threw an error: \(error)")
            return result
        }
        if counts != expected {
            let wrong = expected.keys.sorted().first { counts[$0] != expected[$0] } ?? counts.keys.sorted().first { expected[$0] == nil } ?? "?"
            result.problems.append("\(counts.count) ingredients counted, expected \(expected.count); '\(wrong)' has \(counts[wrong] ?? 0) lines, expected \(expected[wrong] ?? 0)")
        }
        if figures.statistics.objectsRealized < recipes.lineCount {
            // Walking every recipe's lines loads each line at least once (a fault fired, or a
            // prefetch); a dictionary or count fetch loads none, and neither do faults made
            // with `object(with:)` and never read.
            result.problems.append("the counts are right, but only \(figures.statistics.objectsRealized.grouped) objects were loaded for "
                                   + "\(recipes.lineCount.grouped) lines: they came from the store without the walk (a dictionary or count fetch?). "
                                   + "That is a fine way to count in an app, but this exercise is the walk: go through every recipe's "
                                   + "`ingredients` and each line's `ingredient`, and refresh what you have walked")
        }
        result.facts = ["lines counted for \(expected.count) ingredients over \(recipes.records.count.grouped) recipes and \(recipes.lineCount.grouped) lines"]
        result.measurements = [
            Measurement("peak live objects", value: figures.peakLiveObjects, budget: peakBudget,
                        advice: "every recipe walked stays alive until the end: refresh recipes (and so their lines) as you finish them"),
            Measurement("objects alive after the walk", value: max(0, figures.liveObjectsAfter - figures.liveObjectsBefore),
                        budget: leftoverBudget,
                        advice: "recipes and lines hold each other in cycles: refresh them (refresh(_:mergeChanges: false) or refreshAllObjects())"),
        ]
        result.details = ["faults fired: \(figures.allFaultsFired.grouped); objects loaded: \(figures.statistics.objectsRealized.grouped); "
                          + "statements: \(figures.statistics.statements.grouped)"]
        result.seconds = figures.seconds
        return result
    }
}
