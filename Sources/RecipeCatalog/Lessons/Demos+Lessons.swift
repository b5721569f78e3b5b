import Foundation
import ObjectGraph

extension Demos {
    static func prefetch(_ workspace: DemoWorkspace, _ deterministic: Bool) async throws -> DemoReport {
        let catalog = try await workspace.makeCatalog("prefetch")
        var rows: [[String]] = []
        var first: Double?
        var chefNames: [[String]] = []
        for prefetches in [false, true] {
            let context = PrivateContext(coordinator: catalog.coordinator)
            let ((statistics, names), seconds) = try await measure {
                try await context.perform { context in
                    let before = context.statistics
                    var request = FetchRequest(entityName: CatalogModel.recipe)
                    request.relationshipKeyPathsForPrefetching = prefetches ? ["chef"] : []
                    let names = try context.fetch(request).map { ($0 as! Recipe).chef?.name }
                    return (context.statistics - before, names)
                }
            }
            chefNames.append(names.map { $0 ?? "" }.sorted())
            let label = prefetches ? "relationshipKeyPathsForPrefetching = [\"chef\"]" : "no prefetching"
            rows.append(DemoMeasurement(label: label, seconds: seconds, statistics: statistics).cells(deterministic, baseline: first))
            first = first ?? seconds
        }
        try checkAgreement(chefNames[0] == chefNames[1] && chefNames[0].count == workspace.count,
                     "prefetching changed the chefs read")
        return DemoReport(title: "prefetch: the chef of \(workspace.count) recipes", columns: measuredColumns, rows: rows,
            explanation: "Without prefetching every chef is a fault fired with its own query (N+1); prefetching fetches them all in one. "
                + "Either way the \(workspace.count) recipes are faults that fire from the rows their fetch read, with no query of their own.")
    }

    static func search(_ workspace: DemoWorkspace, _ deterministic: Bool) async throws -> DemoReport {
        let catalog = try await workspace.makeCatalog("search")
        let searches = ["name CONTAINS[cd] 'creme'", "name CONTAINS[cd] 'jalapeno'", "name CONTAINS[cd] 'soup'",
                        "name BEGINSWITH[cd] 'cur'", "name ==[cd] 'curry de lamb'"]
        var rows: [[String]] = []
        for text in searches {
            var matches: [Int] = []
            var times: [Double] = []
            for usesShadow in [true, false] {
                let context = PrivateContext(coordinator: catalog.coordinator)
                let (count, seconds) = try await measure {
                    try await context.perform { context in
                        var request = FetchRequest(entityName: CatalogModel.recipe, predicate: try FetchPredicate(text))
                        request.usesCanonicalShadows = usesShadow
                        return try context.fetchObjectIDs(request).count
                    }
                }
                matches.append(count)
                times.append(seconds)
            }
            try checkAgreement(matches[0] == matches[1], "the shadow column changed the result of \(text)")
            rows.append([text, String(matches[0]),
                         deterministic ? "-" : formatSeconds(times[0]), deterministic ? "-" : formatSeconds(times[1]),
                         deterministic ? "-" : String(format: "%.1f×", times[1] / max(times[0], 1e-9))])
        }
        return DemoReport(title: "search: \(workspace.count) recipes",
            columns: ["predicate", "matches", "with shadow", "folding every row", "ratio"], rows: rows,
            explanation: "The shadow column holds the folded name, so [cd] searches compare plain text; prefix and equality searches also use its index.")
    }

    static func delete(_ workspace: DemoWorkspace, _ deterministic: Bool) async throws -> DemoReport {
        var rows: [[String]] = []
        var first: Double?
        for variant in ["object by object", "in one delete call", "prefetched, then object by object", "BatchDeleteRequest"] {
            let catalog = try await workspace.makeCatalog("delete-\(rows.count)")
            let context = PrivateContext(coordinator: catalog.coordinator)
            let (statistics, seconds) = try await measure {
                try await context.perform { context in
                    let before = context.statistics
                    switch variant {
                    case "BatchDeleteRequest":
                        try context.execute(BatchDeleteRequest(entityName: CatalogModel.recipe))
                    default:
                        var request = FetchRequest(entityName: CatalogModel.recipe)
                        if variant.hasPrefix("prefetched") {
                            request.relationshipKeyPathsForPrefetching = ["ingredients.ingredient", "photo", "chef", "cuisine"]
                        }
                        let recipes = try context.fetch(request)
                        if variant == "in one delete call" {
                            context.delete(recipes)
                        } else {
                            for recipe in recipes { context.delete(recipe) }
                        }
                        try context.save()
                    }
                    return context.statistics - before
                }
            }
            let remaining = try await context.perform { context in
                try context.count(for: FetchRequest(entityName: CatalogModel.recipe))
                    + context.count(for: FetchRequest(entityName: CatalogModel.recipeIngredient))
            }
            try checkAgreement(remaining == 0, "\(variant) left \(remaining) rows")
            rows.append(DemoMeasurement(label: variant, seconds: seconds, statistics: statistics).cells(deterministic, baseline: first))
            first = first ?? seconds
        }
        return DemoReport(title: "delete: \(workspace.count) recipes and their ingredient lines", columns: measuredColumns, rows: rows,
            explanation: "Deleting objects one by one fires the faults on the other side of every relationship to keep inverses; deleting them in one call, or prefetching first, loads those in a few queries; a batch delete applies the rules in SQL.")
    }

    /// Reads the names of 1% of the recipes four ways, each on a coordinator of its own (so
    /// no variant finds objects or rows another left behind).
    static func lazy(_ workspace: DemoWorkspace, _ deterministic: Bool) async throws -> DemoReport {
        _ = try await workspace.makeCatalog("lazy")
        let path = workspace.directory.appendingPathComponent("lazy.sqlite").path
        let step = 100, pageSize = (workspace.count + step - 1) / step
        var rows: [[String]] = []
        var first: Double?
        var everyHundredth: [String] = []
        for variant in ["fetch (faults, rows cached)", "fetch, includesPropertyValues = false", "fetchLazily",
                        "fetchLazily, fetchBatchSize = 100, the first 1%"] {
            let context = PrivateContext(coordinator: try Catalog.open(at: path).coordinator)
            let ((statistics, names), seconds) = try await measure {
                try await context.perform { context in
                    let before = context.statistics
                    var request = FetchRequest(entityName: CatalogModel.recipe)
                    var names: [String] = []
                    switch variant {
                    case "fetchLazily":
                        let recipes = try context.fetchLazily(request)
                        for index in stride(from: 0, to: recipes.count, by: step) { names.append((recipes[index] as! Recipe).name) }
                    case "fetchLazily, fetchBatchSize = 100, the first 1%":
                        request.fetchBatchSize = 100
                        for recipe in try context.fetchLazily(request).prefix(pageSize) { names.append((recipe as! Recipe).name) }
                    default:
                        request.includesPropertyValues = variant.hasPrefix("fetch (")
                        let recipes = try context.fetch(request)
                        for index in stride(from: 0, to: recipes.count, by: step) { names.append((recipes[index] as! Recipe).name) }
                    }
                    return (context.statistics - before, names)
                }
            }
            try checkAgreement(names.count == pageSize, "\(variant) read \(names.count) names, not \(pageSize)")
            // The first three read every hundredth recipe, so they must read the same names.
            if rows.isEmpty { everyHundredth = names } else if rows.count < 3 {
                try checkAgreement(names == everyHundredth, "\(variant) read other recipes than the plain fetch")
            }
            rows.append(DemoMeasurement(label: variant, seconds: seconds, statistics: statistics).cells(deterministic, baseline: first)
                        + [String(statistics.objectsCreated)])
            first = first ?? seconds
        }
        return DemoReport(title: "lazy: the names of \(pageSize) of \(workspace.count) recipes", columns: measuredColumns + ["objects made"],
            rows: rows,
            explanation: "fetch makes an object for every recipe, even as a fault; fetchLazily reads only the keys and makes an object for each element read, and with a batch size loads each batch of neighbours in one query.")
    }

    /// Walks every recipe's lines, drops the results, then refreshes, counting at each step
    /// the demo's objects still alive: through weak references, so objects other work in the
    /// process makes or frees meanwhile (a background import in the shell) are not counted.
    static func refresh(_ workspace: DemoWorkspace) async throws -> DemoReport {
        let catalog = try await workspace.makeCatalog("refresh")
        let context = PrivateContext(coordinator: catalog.coordinator)
        let counts = try await context.perform { context -> [(live: Int, registered: Int)] in
            var made = WeakObjects()
            let count = { (live: made.alive, registered: context.statistics.registeredObjects) }
            var counts = [count()]
            do {
                let recipes = try context.fetch(FetchRequest(entityName: CatalogModel.recipe))
                for recipe in recipes { for line in (recipe as! Recipe).ingredients { _ = line.quantity } }
                made.add(context.registeredObjects)
                counts.append(count())
            }
            counts.append(count())
            context.refreshAllObjects()
            counts.append(count())
            return counts
        }
        let steps = ["before the fetch", "recipes fetched, lines walked", "result array dropped", "after refreshAllObjects()"]
        return DemoReport(title: "refresh: \(workspace.count) recipes and their lines",
            columns: ["step", "live objects", "registered"],
            rows: zip(steps, counts).map { [$0, String($1.live), String($1.registered)] },
            explanation: refreshExplanation(walked: counts[1].live, dropped: counts[2].live, refreshed: counts[3].live))
    }

    /// What the refresh demo's live objects show, from the counts themselves.
    static func refreshExplanation(walked: Int, dropped: Int, refreshed: Int) -> String {
        var text = "A recipe holds its lines and each line its recipe, "
        text += dropped < walked ? "yet dropping the results freed \(walked - dropped) of \(walked) objects; "
                                 : "so dropping the results frees nothing; "
        text += refreshed == 0 ? "refreshing turns them back into faults and the cycles go."
                               : "after refreshing, \(refreshed) of them are still alive."
        return text
    }

    static func uniquing(_ workspace: DemoWorkspace, _ deterministic: Bool) async throws -> DemoReport {
        var rows: [[String]] = []
        var first: Double?
        var counts: [[Int]] = []
        for usesCache in [false, true] {
            let catalog = try Catalog.open(at: workspace.directory.appendingPathComponent("uniquing-\(usesCache).sqlite").path)
            var options = RecipeImporter.Options()
            options.usesUniquingCache = usesCache
            options.resumes = false
            let (report, seconds) = try await measure { try await workspace.importFile(into: catalog, options: options) }
            let context = PrivateContext(coordinator: catalog.coordinator)
            counts.append(try await context.perform { context in
                try [CatalogModel.recipe, CatalogModel.chef, CatalogModel.cuisine, CatalogModel.ingredient].map {
                    try context.count(for: FetchRequest(entityName: $0))
                }
            })
            let label = usesCache ? "uniquing cache (one IN fetch per batch)" : "one fetch per lookup"
            rows.append(DemoMeasurement(label: label, seconds: seconds, statistics: report.statistics).cells(deterministic, baseline: first))
            first = first ?? seconds
        }
        try checkAgreement(counts[0] == counts[1], "the two imports made different catalogues: \(counts)")
        return DemoReport(title: "uniquing: import \(workspace.count) recipes (\(counts[1][1]) chefs, \(counts[1][3]) ingredients)",
            columns: measuredColumns, rows: rows,
            explanation: "Both make the same catalogue with no duplicates; the cache asks the store once per batch for the names it has not seen.")
    }

    /// Imports the file twice, resetting after each save or never. The batches are the
    /// importer's 1,000 recipes, or half the file when it is smaller: with one batch there is
    /// no earlier batch for the missing reset to keep alive, and both peaks would be equal.
    static func importing(_ workspace: DemoWorkspace, _ deterministic: Bool) async throws -> DemoReport {
        var rows: [[String]] = []
        let batchSize = min(RecipeImporter.Options().batchSize, max(1, workspace.count / 2))
        let every = batchSize.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))
        var counts: [[Int]] = []
        for resets in [true, false] {
            let catalog = try Catalog.open(at: workspace.directory.appendingPathComponent("import-\(resets).sqlite").path)
            var options = RecipeImporter.Options()
            options.resumes = false
            options.batchSize = batchSize
            options.resetsAfterSave = resets
            let peak = Locked(0)
            let (_, seconds) = try await measure {
                try await workspace.importFile(into: catalog, options: options,
                                               progress: { step in peak.withLock { $0 = max($0, step.registeredObjects) } })
            }
            counts.append(try await PrivateContext(coordinator: catalog.coordinator).perform { context in
                try [CatalogModel.recipe, CatalogModel.recipeIngredient, CatalogModel.chef, CatalogModel.ingredient].map {
                    try context.count(for: FetchRequest(entityName: $0))
                }
            })
            rows.append([resets ? "save + reset every \(every)" : "save every \(every), never reset",
                         deterministic ? "-" : formatSeconds(seconds), String(peak.withLock { $0 })])
        }
        try checkAgreement(counts[0] == counts[1] && counts[0][0] == workspace.count, "the two imports made different catalogues: \(counts)")
        return DemoReport(title: "import: \(workspace.count) recipes", columns: ["variant", "time", "peak objects alive in the context"], rows: rows,
            explanation: "A saved object is no longer held by the context, but its relationships hold it in cycles; resetting after each save keeps memory flat.")
    }
}
