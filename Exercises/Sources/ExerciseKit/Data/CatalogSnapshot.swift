internal import ObjectGraph
internal import RecipeCatalog

/// What a catalogue holds, read back with a fresh context after the learner's work; the
/// correctness checks compare it with what the generated records say it should hold.
struct CatalogSnapshot {
    /// Recipe names by `sourceID`; a duplicated `sourceID` is counted in ``duplicateRecipes``.
    var recipes: [String: String] = [:]
    /// Recipes whose `sourceID` appeared before.
    var duplicateRecipes = 0
    /// Ingredient lines as `sourceID#displayOrder#ingredient name`.
    var lines: [String] = []
    /// Lines without a recipe or an ingredient.
    var danglingLines = 0
    /// Every ingredient's name, duplicates included.
    var ingredientNames: [String] = []
    /// The number of chefs.
    var chefCount = 0

    /// Reads the catalogue through a new context of `coordinator`.
    static func read(_ coordinator: PersistentStoreCoordinator) async throws -> CatalogSnapshot {
        try await PrivateContext(coordinator: coordinator).perform { context in
            var snapshot = CatalogSnapshot()
            var recipes = FetchRequest(entityName: CatalogModel.recipe)
            recipes.propertiesToFetch = ["sourceID", "name"]
            for row in try context.fetchDictionaries(recipes) {
                let sourceID = row["sourceID"] as? String ?? ""
                if snapshot.recipes[sourceID] != nil { snapshot.duplicateRecipes += 1 }
                snapshot.recipes[sourceID] = row["name"] as? String ?? ""
            }
            var lines = FetchRequest(entityName: CatalogModel.recipeIngredient)
            lines.propertiesToFetch = ["recipe.sourceID", "displayOrder", "ingredient.name"]
            for row in try context.fetchDictionaries(lines) {
                guard let sourceID = row["recipe.sourceID"] as? String, let name = row["ingredient.name"] as? String else {
                    snapshot.danglingLines += 1
                    continue
                }
                snapshot.lines.append("\(sourceID)#\(row["displayOrder"] as? Int ?? -1)#\(name)")
            }
            var ingredients = FetchRequest(entityName: CatalogModel.ingredient)
            ingredients.propertiesToFetch = ["name"]
            snapshot.ingredientNames = try context.fetchDictionaries(ingredients).map { $0["name"] as? String ?? "" }
            snapshot.chefCount = try context.count(for: FetchRequest(entityName: CatalogModel.chef))
            return snapshot
        }
    }

    /// The lines `records` describe, in the form of ``lines``.
    static func expectedLines(of records: [RecipeRecord]) -> [String] {
        records.flatMap { record in
            record.ingredients.enumerated().map { "\(record.sourceID)#\($0.offset)#\($0.element.name)" }
        }
    }

    /// What is wrong with the recipes and lines, compared with `records`; empty when right.
    func problems(recipes records: [RecipeRecord], checkingLines: Bool) -> [String] {
        var problems: [String] = []
        if recipes.count != records.count || duplicateRecipes > 0 {
            problems.append("\(recipes.count.grouped) recipes saved (\(duplicateRecipes) duplicated), expected \(records.count.grouped)")
        } else if let wrong = records.first(where: { recipes[$0.sourceID] != $0.name }) {
            problems.append("recipe \(wrong.sourceID) is \(recipes[wrong.sourceID].map { "named '\($0)'" } ?? "missing"), expected '\(wrong.name)'")
        }
        guard checkingLines else { return problems }
        if danglingLines > 0 { problems.append("\(danglingLines.grouped) ingredient lines have no recipe or no ingredient") }
        let expected = Self.expectedLines(of: records)
        if lines.count != expected.count {
            problems.append("\(lines.count.grouped) ingredient lines saved, expected \(expected.count.grouped)")
        } else if let wrong = Set(expected).subtracting(lines).sorted().first {
            problems.append("the line \(wrong) (recipe#position#ingredient) is missing or wrong")
        }
        return problems
    }

    /// Ingredient names that occur more than once.
    var duplicatedIngredientNames: [String] {
        var seen: Set<String> = [], duplicated: Set<String> = []
        for name in ingredientNames where !seen.insert(name).inserted { duplicated.insert(name) }
        return duplicated.sorted()
    }
}

extension PrivateContext {
    /// Inserts one `Ingredient` per name and saves: the ingredients a check starts with.
    func insertIngredients(_ names: [String]) throws {
        for name in names {
            let ingredient = try insert(CatalogModel.ingredient)
            ingredient["name"] = name
        }
        try save()
        reset()
    }
}
