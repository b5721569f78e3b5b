internal import ObjectGraph
internal import RecipeCatalog

/// What a catalogue holds, read back with a fresh context after the learner's work; the
/// correctness checks compare it with what the generated records say it should hold.
struct CatalogSnapshot {
    /// What a stored recipe holds that a check compares with its record.
    struct RecipeRow: Equatable {
        /// The recipe's name.
        var name: String
        /// Its course.
        var course: String?
        /// Its rating.
        var rating: Double?
        /// Its chef's name.
        var chef: String?
        /// Its cuisine's name.
        var cuisine: String?
    }

    /// Recipes by `sourceID`; a duplicated `sourceID` is counted in ``duplicateRecipes``.
    var recipes: [String: RecipeRow] = [:]
    /// Recipes whose `sourceID` appeared before.
    var duplicateRecipes = 0
    /// Ingredient lines as `sourceID#displayOrder#ingredient name#quantity#unit`.
    var lines: [String] = []
    /// Lines without a recipe or an ingredient.
    var danglingLines = 0
    /// Every ingredient's name, duplicates included.
    var ingredientNames: [String] = []
    /// Each ingredient's `usdaNumber`, by name: what tells a stored ingredient the check
    /// seeded (``PrivateContext/insertIngredients(_:)``) from one made again with its name.
    var usdaNumbers: [String: String] = [:]
    /// The number of chefs.
    var chefCount = 0
    /// The number of cuisines.
    var cuisineCount = 0

    /// Reads the catalogue through a new context of `coordinator`.
    static func read(_ coordinator: PersistentStoreCoordinator) async throws -> CatalogSnapshot {
        try await PrivateContext(coordinator: coordinator).perform { context in
            var snapshot = CatalogSnapshot()
            var recipes = FetchRequest(entityName: CatalogModel.recipe)
            recipes.propertiesToFetch = ["sourceID", "name", "course", "rating", "chef.name", "cuisine.name"]
            for row in try context.fetchDictionaries(recipes) {
                let sourceID = row["sourceID"] as? String ?? ""
                if snapshot.recipes[sourceID] != nil { snapshot.duplicateRecipes += 1 }
                snapshot.recipes[sourceID] = RecipeRow(name: row["name"] as? String ?? "", course: row["course"] as? String,
                                                       rating: row["rating"] as? Double, chef: row["chef.name"] as? String,
                                                       cuisine: row["cuisine.name"] as? String)
            }
            var lines = FetchRequest(entityName: CatalogModel.recipeIngredient)
            lines.propertiesToFetch = ["recipe.sourceID", "displayOrder", "ingredient.name", "quantity", "unit"]
            for row in try context.fetchDictionaries(lines) {
                guard let sourceID = row["recipe.sourceID"] as? String, let name = row["ingredient.name"] as? String else {
                    snapshot.danglingLines += 1
                    continue
                }
                snapshot.lines.append(line(sourceID, row["displayOrder"] as? Int ?? -1, name, row["quantity"] as? Double, row["unit"] as? String))
            }
            var ingredients = FetchRequest(entityName: CatalogModel.ingredient)
            ingredients.propertiesToFetch = ["name", "usdaNumber"]
            for row in try context.fetchDictionaries(ingredients) {
                let name = row["name"] as? String ?? ""
                snapshot.ingredientNames.append(name)
                snapshot.usdaNumbers[name] = row["usdaNumber"] as? String
            }
            snapshot.chefCount = try context.count(for: FetchRequest(entityName: CatalogModel.chef))
            snapshot.cuisineCount = try context.count(for: FetchRequest(entityName: CatalogModel.cuisine))
            return snapshot
        }
    }

    /// One line in the form of ``lines``.
    static func line(_ sourceID: String, _ position: Int, _ ingredient: String, _ quantity: Double?, _ unit: String?) -> String {
        "\(sourceID)#\(position)#\(ingredient)#\(quantity.map { "\($0)" } ?? "no quantity")#\(unit ?? "no unit")"
    }

    /// The lines `records` describe, in the form of ``lines``.
    static func expectedLines(of records: [RecipeRecord]) -> [String] {
        records.flatMap { record in
            record.ingredients.enumerated().map { line(record.sourceID, $0.offset, $0.element.name, $0.element.quantity, $0.element.unit) }
        }
    }

    /// What is wrong with the recipes and lines, compared with `records`; empty when right.
    ///
    /// Each recipe must have its record's name (with `checkingCourseAndRating`, its course and
    /// rating too; with `checkingChefsAndCuisines`, its chef and cuisine); with `checkingLines`,
    /// each line its position, ingredient, quantity and unit.
    func problems(recipes records: [RecipeRecord], checkingLines: Bool, checkingCourseAndRating: Bool = false,
                  checkingChefsAndCuisines: Bool = false) -> [String] {
        var problems: [String] = []
        if recipes.count != records.count || duplicateRecipes > 0 {
            problems.append("\(recipes.count.grouped) recipes in the store (\(duplicateRecipes) duplicated), expected \(records.count.grouped)")
        } else {
            for record in records {
                guard let stored = recipes[record.sourceID] else {
                    problems.append("recipe \(record.sourceID) is missing, expected '\(record.name)'")
                    break
                }
                var fields: [(String, String?, String?)] = [("name", stored.name, record.name)]
                if checkingCourseAndRating {
                    fields += [("course", stored.course, record.course),
                               ("rating", stored.rating.map { "\($0)" }, record.rating.map { "\($0)" })]
                }
                if checkingChefsAndCuisines {
                    fields += [("chef", stored.chef, record.chef), ("cuisine", stored.cuisine, record.cuisine)]
                }
                if case let (field, found, wanted)? = fields.first(where: { $0.1 != $0.2 }) {
                    let show = { (value: String?) in value.map { "'\($0)'" } ?? "not set" }
                    problems.append("recipe \(record.sourceID)'s \(field) is \(show(found)), expected \(show(wanted))")
                    break
                }
            }
        }
        guard checkingLines else { return problems }
        if danglingLines > 0 { problems.append("\(danglingLines.grouped) ingredient lines have no recipe or no ingredient") }
        let expected = Self.expectedLines(of: records)
        if lines.count != expected.count {
            problems.append("\(lines.count.grouped) ingredient lines in the store, expected \(expected.count.grouped)")
        } else if let wrong = Set(expected).subtracting(lines).sorted().first {
            problems.append("the line \(wrong) (recipe#position#ingredient#quantity#unit) is missing or wrong")
        }
        return problems
    }

    /// The `usdaNumber` the check gives the stored ingredient called `name`.
    static func seededUSDANumber(of name: String) -> String { "seeded \(name)" }

    /// What is wrong with the ingredients `seeded` into the store before the learner's work:
    /// each must still be there with what it held, found rather than replaced; empty when right.
    func problems(seededIngredients seeded: [String]) -> [String] {
        let replaced = seeded.filter { usdaNumbers[$0] != Self.seededUSDANumber(of: $0) }
        guard let first = replaced.first else { return [] }
        return ["\(replaced.count) of the \(seeded.count) ingredients already in the store were replaced by new ones "
                + "('\(first)' lost its usdaNumber): find them in the store and link to them"]
    }

    /// Ingredient names that occur more than once.
    var duplicatedIngredientNames: [String] {
        var seen: Set<String> = [], duplicated: Set<String> = []
        for name in ingredientNames where !seen.insert(name).inserted { duplicated.insert(name) }
        return duplicated.sorted()
    }
}

extension PrivateContext {
    /// Inserts one `Ingredient` per name, with a `usdaNumber` the learner's code never sets,
    /// and saves: the ingredients a check starts with.
    func insertIngredients(_ names: [String]) throws {
        for name in names {
            let ingredient = try insert(CatalogModel.ingredient)
            ingredient["name"] = name
            ingredient["usdaNumber"] = CatalogSnapshot.seededUSDANumber(of: name)
        }
        try save()
        reset()
    }
}
