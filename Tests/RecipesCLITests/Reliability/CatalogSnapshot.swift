import Foundation
import ObjectGraphSQLite
import RecipeCatalog

/// What a catalogue file holds, as a value two states can be compared by: every recipe with
/// its values, chef, cuisine, photo and lines; the chefs, cuisines and ingredients; the
/// metadata. Read through the framework, after its own integrity check and the catalogue's.
///
/// ```swift
/// let snapshot = try CatalogSnapshot.read(store)
/// #expect(snapshot.problems.isEmpty)
/// #expect(snapshot == expected[3])
/// ```
struct CatalogSnapshot: Equatable {
    /// One recipe: its values, the names of its chef and cuisine, its photo's size, its lines.
    struct RecipeState: Equatable, CustomStringConvertible {
        var values: [String]
        var chef: String?, cuisine: String?
        var photoBytes: Int?
        /// Each line as ingredient name, quantity and unit, in order.
        var lines: [[String]]

        var description: String {
            (values + [chef ?? "-", cuisine ?? "-", photoBytes.map { "photo \($0) B" } ?? "no photo",
                       "\(lines.count) lines"]).joined(separator: " | ")
        }
    }

    /// Each recipe by source ID.
    var recipes: [String: RecipeState] = [:]
    var chefs: Set<String> = [], cuisines: Set<String> = [], ingredients: Set<String> = []
    /// Rows of the line and photo tables.
    var lines = 0, photos = 0
    /// Metadata other than import resume markers (see ``importMarkers``).
    var metadata: [String: String] = [:]
    /// Import resume markers: the last line saved, by file.
    var importMarkers: [String: String] = [:]
    /// What the store's integrity check and the catalogue's own checks found (not compared).
    var problems: [String] = []

    static func == (lhs: CatalogSnapshot, rhs: CatalogSnapshot) -> Bool {
        lhs.recipes == rhs.recipes && lhs.chefs == rhs.chefs && lhs.cuisines == rhs.cuisines
            && lhs.ingredients == rhs.ingredients && lhs.lines == rhs.lines && lhs.photos == rhs.photos
            && lhs.metadata == rhs.metadata && lhs.importMarkers == rhs.importMarkers
    }

    /// Opens the catalogue at `path` (recovering its write-ahead log, as any program
    /// opening it after a crash would), checks it and reads it; an error opening or reading
    /// it is a problem of the snapshot, so a trial can report it and go on.
    @MainActor
    static func check(_ path: String) -> CatalogSnapshot {
        do {
            return try read(path)
        } catch {
            return CatalogSnapshot(problems: ["cannot read the store: \(error)"])
        }
    }

    /// Opens the catalogue at `path` (recovering its write-ahead log), checks it and reads it.
    @MainActor
    static func read(_ path: String) throws -> CatalogSnapshot {
        let catalog = try Catalog.open(at: path)
        var snapshot = CatalogSnapshot()
        snapshot.problems = try catalog.sqliteStore?.checkIntegrity() ?? []
        let context = MainContext(coordinator: catalog.coordinator)
        snapshot.problems += try inverseProblems(context)
        var request = FetchRequest(entityName: CatalogModel.recipe)
        request.returnsObjectsAsFaults = false
        request.relationshipKeyPathsForPrefetching = ["chef", "cuisine", "photo", "ingredients.ingredient"]
        for case let recipe as Recipe in try context.fetch(request) {
            let lines = recipe.ingredients.sorted { $0.displayOrder < $1.displayOrder }.map { line in
                [line.ingredient?.name ?? "-", line.quantity.map { "\($0)" } ?? "-", line.unit ?? "-"]
            }
            if recipe.ingredientCount != lines.count {
                snapshot.problems.append("\(recipe.sourceID): ingredientCount \(recipe.ingredientCount), \(lines.count) lines")
            }
            if recipe.hasPhoto != (recipe.photo != nil) {
                snapshot.problems.append("\(recipe.sourceID): hasPhoto \(recipe.hasPhoto) but photo \(recipe.photo == nil ? "nil" : "set")")
            }
            if snapshot.recipes[recipe.sourceID] != nil { snapshot.problems.append("\(recipe.sourceID): twice") }
            snapshot.recipes[recipe.sourceID] = RecipeState(
                values: [recipe.name, recipe.servings.map(String.init) ?? "-", recipe.rating.map { "\($0)" } ?? "-",
                         recipe.course ?? "-"],
                chef: recipe.chef?.name, cuisine: recipe.cuisine?.name, photoBytes: recipe.photo?.data.count,
                lines: lines)
        }
        snapshot.chefs = try names(CatalogModel.chef, context)
        snapshot.cuisines = try names(CatalogModel.cuisine, context)
        snapshot.ingredients = try names(CatalogModel.ingredient, context)
        snapshot.lines = try context.count(for: FetchRequest(entityName: CatalogModel.recipeIngredient))
        snapshot.photos = try context.count(for: FetchRequest(entityName: CatalogModel.recipePhoto))
        // A store's UUID is its own: stores compared are copies of one, or made apart.
        for (key, value) in catalog.store.metadata where key != "_storeUUID" {
            if key.hasPrefix("import:") {
                // The marker's line; the byte offset after it (`"200 61234"`) follows from the file.
                snapshot.importMarkers[URL(fileURLWithPath: String(key.dropFirst(7))).lastPathComponent] =
                    String(value.prefix { $0 != " " })
            } else {
                snapshot.metadata[key] = value
            }
        }
        return snapshot
    }

    /// Lines and photos whose recipe does not list them back (what SQLite's checks see in
    /// the tables, read through objects, for every store type).
    @MainActor
    private static func inverseProblems(_ context: MainContext) throws -> [String] {
        var problems: [String] = []
        var lines = FetchRequest(entityName: CatalogModel.recipeIngredient)
        lines.relationshipKeyPathsForPrefetching = ["recipe"]
        for case let line as RecipeIngredient in try context.fetch(lines) {
            guard let recipe = line.recipe else {
                problems.append("\(line.objectID): a line without a recipe")
                continue
            }
            if !recipe.ingredients.contains(where: { $0 === line }) {
                problems.append("\(line.objectID): its recipe \(recipe.sourceID) does not list it")
            }
        }
        for case let photo as RecipePhoto in try context.fetch(FetchRequest(entityName: CatalogModel.recipePhoto)) {
            if photo.recipe?.photo !== photo { problems.append("\(photo.objectID): its recipe does not name it back") }
        }
        return problems
    }

    /// The names of every object of `entity`, checked to be unique.
    @MainActor
    private static func names(_ entity: String, _ context: MainContext) throws -> Set<String> {
        var request = FetchRequest(entityName: entity)
        request.propertiesToFetch = ["name"]
        let names = try context.fetchDictionaries(request).compactMap { ($0["name"] ?? nil) as? String }
        return Set(names)
    }

    /// This state cut down to the recipes in `sourceIDs`, with the chefs, cuisines and
    /// ingredients they use: what an import shows after saving only those recipes.
    func restricted(to sourceIDs: Set<String>) -> CatalogSnapshot {
        var result = self
        result.recipes = recipes.filter { sourceIDs.contains($0.key) }
        let kept = result.recipes.values
        result.chefs = Set(kept.compactMap(\.chef))
        result.cuisines = Set(kept.compactMap(\.cuisine))
        result.ingredients = Set(kept.flatMap { $0.lines.map { $0[0] } })
        result.lines = kept.reduce(0) { $0 + $1.lines.count }
        result.photos = kept.filter { $0.photoBytes != nil }.count
        return result
    }

    /// The first difference from `other`, for a failure message.
    func difference(from other: CatalogSnapshot) -> String {
        for key in Set(recipes.keys).union(other.recipes.keys).sorted() where recipes[key] != other.recipes[key] {
            return "recipe \(key): \(recipes[key].map { "\($0)" } ?? "missing") ≠ \(other.recipes[key].map { "\($0)" } ?? "missing")"
        }
        if chefs != other.chefs { return "chefs differ: \(chefs.symmetricDifference(other.chefs).sorted().prefix(5))" }
        if cuisines != other.cuisines { return "cuisines differ" }
        if ingredients != other.ingredients {
            return "ingredients differ: \(ingredients.symmetricDifference(other.ingredients).sorted().prefix(5))"
        }
        if lines != other.lines || photos != other.photos {
            return "lines \(lines) ≠ \(other.lines) or photos \(photos) ≠ \(other.photos)"
        }
        if metadata != other.metadata {
            return "metadata differs at \(Set(metadata.keys).union(other.metadata.keys).filter { metadata[$0] != other.metadata[$0] }.sorted())"
        }
        if importMarkers != other.importMarkers { return "import markers \(importMarkers) ≠ \(other.importMarkers)" }
        return "none"
    }
}
