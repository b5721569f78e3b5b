import Testing
import ExerciseKit
import ObjectGraph
import RecipeCatalog
import BatchSaveSolution
import FindOrCreateSolution
import SaveAndResetSolution
import SearchShadowSolution
import LargeDeleteSolution

/// Solutions that fit every budget but give a wrong answer: each checker must call them
/// incorrect. Each wraps the reference solution and leaves out or breaks one thing the
/// exercise's task asks for.
///
/// In ``CheckerTests`` (an extension), so they run one at a time with the other checks:
/// peak and live objects are process-wide gauges.
extension CheckerTests {
    @Test("Exercise 1 refuses recipes saved without their course and rating")
    func batchSaveWithoutDetails() async throws {
        let result = try await BatchSaveCheck.check(NamesOnlySaver(), subject: "a cheat")
        #expect(result.problems.contains { $0.contains("course") }, "\(result.rendered())")
        #expect(!result.isPassing)
    }

    @Test("Exercises 2 and 3 refuse lines saved without their quantity and unit")
    func importsWithoutQuantities() async throws {
        for result in [try await FindOrCreateCheck.check(BareLinesImporter(solution: FindOrCreateSolution.IngredientImporter()), subject: "a cheat"),
                       try await SaveAndResetCheck.check(BareLinesImporter(solution: SaveAndResetSolution.BatchImporter()), subject: "a cheat")] {
            #expect(result.problems.contains { $0.contains("is missing or wrong") }, "\(result.rendered())")
            #expect(!result.isPassing)
        }
    }

    @Test("Exercise 2 refuses an import that replaces the ingredients already in the store instead of finding them")
    func findOrCreateByReplacing() async throws {
        let result = try await FindOrCreateCheck.check(ReplacingImporter(), subject: "a cheat")
        #expect(result.problems.contains { $0.contains("already in the store were replaced") }, "\(result.rendered())")
        #expect(!result.isPassing)
    }

    @Test("Exercise 4 refuses a search that pastes the typed text into the predicate's format")
    func searchByInterpolation() async throws {
        for quote in ["'", "\""] {
            let result = try await SearchShadowCheck.check(PastingSearch(quote: quote), subject: "a cheat")
            #expect(result.problems.contains { $0.contains("threw an error") && $0.contains("%@") }, "\(result.rendered())")
            #expect(!result.isPassing)
        }
    }

    @Test("Exercise 4's advice for a shadow searched with [cd] says the request, not the model, is what scans")
    func searchShadowWithFoldingRequest() async throws {
        let result = try await SearchShadowCheck.check(FoldingShadowSearch(), subject: "a near miss")
        #expect(result.problems.isEmpty, "\(result.rendered())")
        #expect(result.rendered().contains("the model has the shadow 'nameCanonical', but the request still folds every row"),
                "\(result.rendered())")
        #expect(!result.isPassing)
    }

    @Test("Exercise 5 refuses a delete that ignores its predicate and deletes what the task names")
    func largeDeleteWithHardCodedPredicate() async throws {
        let result = try await LargeDeleteCheck.check(HardCodedDeleter(), subject: "a cheat")
        // Said as what the store holds: in a delete exercise, "1,042 recipes saved" misleads.
        #expect(result.problems.contains { $0.contains("called again with the predicate 'rating >= 4.5'")
                    && $0.contains("1,042 recipes in the store (0 duplicated), expected 735") }, "\(result.rendered())")
        #expect(!result.isPassing)
    }

    @Test("Exercise 6 refuses counts read with a dictionary fetch instead of walking the graph")
    func refreshCyclesWithoutWalking() async throws {
        let result = try await RefreshCyclesCheck.check(DictionaryCounter(), subject: "a cheat")
        #expect(result.problems.contains { $0.contains("without the walk") }, "\(result.rendered())")
        #expect(!result.isPassing)
    }

    @Test("Exercise 6 refuses counts read with a dictionary fetch after making a throwaway fault of every line")
    func refreshCyclesWithThrowawayFaults() async throws {
        let result = try await RefreshCyclesCheck.check(ThrowawayFaultsCounter(), subject: "a cheat")
        #expect(result.problems.contains { $0.contains("without the walk") }, "\(result.rendered())")
        #expect(!result.isPassing)
    }

    @Test("Exercise 5 refuses a delete that takes the cuisines with the recipes")
    func largeDeleteOfCuisines() async throws {
        let result = try await LargeDeleteCheck.check(CuisineDeleter(), subject: "a cheat")
        #expect(result.problems.contains { $0.contains("cuisines") }, "\(result.rendered())")
        #expect(!result.isPassing)
    }
}

/// Exercise 1's reference solution, given the records without their course and rating.
private struct NamesOnlySaver: RecipeSaving {
    func save(_ records: [RecipeRecord], in context: isolated PrivateContext) throws {
        let stripped = records.map { record -> RecipeRecord in
            var record = record
            record.course = nil
            record.rating = nil
            return record
        }
        try BatchSaveSolution.BatchSaver().save(stripped, in: context)
    }
}

/// A reference solution of exercise 2 or 3, given ingredient lines without quantity or unit.
private struct BareLinesImporter: RecipeImporting {
    var solution: any RecipeImporting

    func importRecipes(_ records: [RecipeRecord], in context: isolated PrivateContext) throws {
        let stripped = records.map { record -> RecipeRecord in
            var record = record
            record.ingredients = record.ingredients.map { IngredientLine(name: $0.name) }
            return record
        }
        try solution.importRecipes(stripped, in: context)
    }
}

/// Exercise 2 without a single lookup: it deletes every stored ingredient (none has lines yet)
/// and creates each name afresh, losing what the stored ones held.
private struct ReplacingImporter: RecipeImporting {
    func importRecipes(_ records: [RecipeRecord], in context: isolated PrivateContext) throws {
        try context.execute(BatchDeleteRequest(entityName: CatalogModel.ingredient))
        var made: [String: Ingredient] = [:]
        for record in records {
            let recipe = try context.insert(CatalogModel.recipe) as! Recipe
            recipe.sourceID = record.sourceID
            recipe.name = record.name
            for (position, item) in record.ingredients.enumerated() {
                let line = try context.insert(CatalogModel.recipeIngredient) as! RecipeIngredient
                line.displayOrder = position
                line.quantity = item.quantity
                line.unit = item.unit
                line.recipe = recipe
                if made[item.name] == nil {
                    let ingredient = try context.insert(CatalogModel.ingredient) as! Ingredient
                    ingredient.name = item.name
                    made[item.name] = ingredient
                }
                line.ingredient = made[item.name]
            }
        }
        try context.save()
    }
}

/// Exercise 5's reference solution, followed by a batch delete of every cuisine.
private struct CuisineDeleter: RecipeDeleting {
    func deleteRecipes(matching predicate: FetchPredicate, in context: isolated PrivateContext) throws {
        try LargeDeleteSolution.RecipeCleanup().deleteRecipes(matching: predicate, in: context)
        try context.execute(BatchDeleteRequest(entityName: CatalogModel.cuisine))
    }
}

/// Exercise 4's reference model, searched with the typed text pasted between `quote`s into
/// the format: right until someone types that quote.
private struct PastingSearch: NameSearching {
    var quote: String

    func makeModel() throws -> ObjectModel { try SearchShadowSolution.RecipeSearch().makeModel() }

    func searchRequest(prefix: String) throws -> FetchRequest {
        FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name BEGINSWITH[cd] \(quote)\(prefix)\(quote)"))
    }
}

/// Exercise 4's reference model, searched on the shadow but still with `[cd]`, which folds
/// every row again: right answers, a scan per search.
private struct FoldingShadowSearch: NameSearching {
    func makeModel() throws -> ObjectModel { try SearchShadowSolution.RecipeSearch().makeModel() }

    func searchRequest(prefix: String) throws -> FetchRequest {
        FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("nameCanonical BEGINSWITH[cd] %@", prefix))
    }
}

/// Exercise 5's reference solution with the task's predicate written in, whatever it is given.
private struct HardCodedDeleter: RecipeDeleting {
    func deleteRecipes(matching predicate: FetchPredicate, in context: isolated PrivateContext) throws {
        try context.execute(BatchDeleteRequest(entityName: CatalogModel.recipe, predicate: try FetchPredicate("rating < 2.5")))
    }
}

/// Exercise 6 answered by the store: one dictionary fetch of every line's ingredient name,
/// no recipe or line ever made, so no cycle to break.
private struct DictionaryCounter: IngredientCounting {
    func linesPerIngredient(in context: isolated PrivateContext) throws -> [String: Int] {
        var request = FetchRequest(entityName: CatalogModel.recipeIngredient)
        request.propertiesToFetch = ["ingredient.name"]
        var counts: [String: Int] = [:]
        for row in try context.fetchDictionaries(request) {
            if let name = row["ingredient.name"] as? String { counts[name, default: 0] += 1 }
        }
        return counts
    }
}

/// Exercise 6 answered by the store, after making a fault of every line with `object(with:)`
/// and dropping it at once: as many objects made as there are lines, none ever read.
private struct ThrowawayFaultsCounter: IngredientCounting {
    func linesPerIngredient(in context: isolated PrivateContext) throws -> [String: Int] {
        for id in try context.fetchObjectIDs(FetchRequest(entityName: CatalogModel.recipeIngredient)) {
            _ = context.object(with: id)
        }
        return try DictionaryCounter().linesPerIngredient(in: context)
    }
}
