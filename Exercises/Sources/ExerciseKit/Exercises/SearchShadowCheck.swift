public import ObjectGraph
internal import ObjectGraphSQLite
internal import Foundation
internal import RecipeCatalog

/// Exercise 4's task: a model and a search request for recipe names.
public protocol NameSearching: Sendable {
    /// The model: an entity `Recipe` with a `String` attribute `name`, and whatever the
    /// search needs besides (the checker sets only `name`).
    func makeModel() throws -> ObjectModel
    /// The recipes whose name begins with `prefix`, ignoring case and accents.
    func searchRequest(prefix: String) throws -> FetchRequest
}

/// Checks exercise 4: prefix searches over 3,000 accented names find the right recipes,
/// follow renames, and let SQLite search an index instead of scanning the table.
public enum SearchShadowCheck: ExerciseCheck {
    public static let exercise = ExerciseInfo(number: 4, title: "A canonical shadow attribute for search",
                                              folder: "04-search-shadow", file: "SearchShadow.swift")
    static let recipeCount = 3_000
    /// Names every run adds to the generated ones, so the searches below have accents to fold.
    static let fixedNames = ["Crème Brûlée", "CRÈME FRAÎCHE Tart", "Creme Caramel", "crème anglaise",
                             "Jalapeño Poppers", "JALAPENO Cornbread", "Phở Bò", "Pho Ga", "Ćevapi",
                             "Shepherd's Pie", "Shepherds Bread", #""Drunken" Noodles"#]
    /// The prefixes searched, as a user would type them: accents, case, and the quotes that
    /// break a predicate built by pasting the text into its format.
    static let searches = ["creme", "CRÈME BRU", "jalapeno", "pho", "cevap", "Cur", "shepherd's", #""drunken""#]

    public static func check(_ implementation: any NameSearching, subject: String) async throws -> CheckResult {
        var result = CheckResult(exercise, subject: subject)
        let workspace = try Workspace()
        let names = try GeneratedRecipes(count: recipeCount, in: workspace).records.map(\.name) + fixedNames
        let model: ObjectModel
        do {
            model = try implementation.makeModel()
        } catch {
            result.problems.append("makeModel() threw an error: \(error)")
            return result
        }
        guard model.entity(named: "Recipe")?.attribute(named: "name")?.type == .string else {
            result.problems.append("the model needs an entity 'Recipe' with a String attribute 'name'")
            return result
        }
        let coordinator = PersistentStoreCoordinator(model: model)
        let store = try coordinator.addStore(at: workspace.directory.appendingPathComponent("search.sqlite").path)
        let context = PrivateContext(coordinator: coordinator)
        do {
            try await context.perform { context in
                for name in names { try context.insert("Recipe").setValue(name, forKey: "name") }
                try context.save()
                context.reset()
            }
        } catch {
            result.problems.append("saving \(names.count.grouped) recipes with only their name set failed: \(error)")
            return result
        }
        var plans: [String: [String]] = [:]
        var searchesWithScans = 0
        let found: [String: [String]]
        let figures: Figures
        do {
            (found, figures) = try await Probe.measure(on: context, store: store) { context in
                var found: [String: [String]] = [:]
                for text in searches {
                    do {
                        found[text] = try context.fetch(try implementation.searchRequest(prefix: text))
                            .map { $0["name"] as? String ?? "" }.sorted()
                    } catch {
                        throw SearchFailure(prefix: text, error: error)
                    }
                }
                return found
            }
        } catch let failure as SearchFailure {
            // The advice comes first: a syntax error's text ends with its caret line.
            let advice = failure.error is PredicateSyntaxError
                ? " (pass the typed text as an argument, %@, rather than pasting it into the format: a quote in it ends the string)" : ""
            result.problems.append("searching '\(failure.prefix)' threw an error\(advice): \(failure.error)")
            return result
        } catch {
            result.problems.append("searching threw an error: \(error)")
            return result
        }
        for text in searches {
            let expected = names.filter { fold($0).hasPrefix(fold(text)) }.sorted()
            if found[text] != expected {
                result.problems.append("searching '\(text)' found \(found[text]?.count ?? 0) recipes, expected \(expected.count): "
                                       + expected.prefix(3).joined(separator: ", "))
            }
            let request = try implementation.searchRequest(prefix: text)
            let plan = try await context.perform { try $0.explain(request).plan }
            plans[text] = plan
            if plan.contains(where: isFullScan) { searchesWithScans += 1 }
        }
        // A renamed recipe is found by its new name only: the search must follow every write.
        let renamed = try await context.perform { context -> [String] in
            let old = try context.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Crème Brûlée'")))
            for recipe in old { try recipe.setValue("Crema Catalana", forKey: "name") }
            try context.save()
            context.reset()
            return try context.fetch(try implementation.searchRequest(prefix: "crema cat")).map { $0["name"] as? String ?? "" }
                + context.fetch(try implementation.searchRequest(prefix: "creme brulee")).map { $0["name"] as? String ?? "" }
        }
        if renamed != ["Crema Catalana"] {
            result.problems.append("after renaming 'Crème Brûlée' to 'Crema Catalana', searching 'crema cat' and 'creme brulee' found \(renamed)")
        }
        result.facts = ["\(searches.count) prefix searches over \(names.count.grouped) names found the right recipes, and a renamed one by its new name"]
        // With a shadow in the model, a scan means the request does not use it as it is.
        let shadow = model.entity(named: "Recipe")?.attributes.first {
            if case .canonical("name")? = $0.derivation { true } else { false }
        }
        let advice = shadow.map {
            "the model has the shadow '\($0.name)', but the request still folds every row: compare 'name' with [cd] "
                + "(rewritten onto the shadow), or '\($0.name)' without [cd] and with a folded prefix"
        } ?? "SQLite folds every row's name: search an indexed, canonical (folded) copy of the name"
        result.measurements = [
            Measurement("searches that scan the table", value: searchesWithScans, budget: 0, advice: advice),
        ]
        result.details = plans[searches[0], default: []].map { "query plan for '\(searches[0])': \($0)" }
        result.seconds = figures.seconds
        return result
    }

    /// A search that threw, with the text it searched for.
    struct SearchFailure: Error {
        /// What the user typed.
        var prefix: String
        /// What the learner's request or the fetch threw.
        var error: any Error
    }

    /// A step of a query plan that reads a whole table or index.
    static func isFullScan(_ step: String) -> Bool {
        step.contains("SCAN") && !step.contains("CONSTANT ROW")
    }

    /// What `[cd]` compares: case and accents folded, compatibility forms normalized.
    static func fold(_ text: String) -> String {
        text.precomposedStringWithCompatibilityMapping
            .folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .precomposedStringWithCompatibilityMapping
    }
}
