import CSQLiteBaseline
import Foundation
import RecipeCatalog

/// The catalogue import in raw sqlite3 calls: the same parsed records written into the
/// same schema (made by ObjectGraph before the clock starts), with Swift dictionaries for
/// finding chefs, cuisines and ingredients by name.
extension RawSQLite {
    /// The entity numbers (`_ent`) of the catalogue's tables.
    struct CatalogueEntities {
        /// `_ent` of each table's rows.
        let recipe, chef, cuisine, ingredient, line, photo: Int64
    }

    /// Imports the recipe file at `url` into the empty catalogue at `path`, committing every
    /// `batch` recipes with the batch's resume marker, as the importer does.
    static func importCatalogue(path: String, url: URL, batch: Int, entities: CatalogueEntities) throws {
        let db = open(path)
        defer { close(db) }
        let insertRecipe = prepare(db, """
            INSERT INTO "Recipe" ("_pk", "_ent", "_opt", "name", "nameCanonical", "sourceID", "instructions", "course",
              "prepMinutes", "cookMinutes", "servings", "rating", "published", "hasPhoto", "ingredientCount", "chef", "cuisine", "photo")
            VALUES (?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let insertLine = prepare(db, """
            INSERT INTO "RecipeIngredient" ("_pk", "_ent", "_opt", "quantity", "unit", "displayOrder", "recipe", "ingredient")
            VALUES (?, ?, 0, ?, ?, ?, ?, ?)
            """)
        let insertPhoto = prepare(db, #"INSERT INTO "RecipePhoto" ("_pk", "_ent", "_opt", "data", "recipe") VALUES (?, ?, 0, ?, ?)"#)
        let insertNamed = ["Chef", "Cuisine", "Ingredient"].map {
            prepare(db, "INSERT INTO \"\($0)\" (\"_pk\", \"_ent\", \"_opt\", \"name\") VALUES (?, ?, 0, ?)")
        }
        let marker = prepare(db, #"INSERT OR REPLACE INTO "_metadata" ("key", "value") VALUES (?, ?)"#)
        let statements = [insertRecipe, insertLine, insertPhoto, marker] + insertNamed
        defer { for statement in statements { sqlite3_finalize(statement) } }
        let namedEntities = [entities.chef, entities.cuisine, entities.ingredient]
        var keysByName: [[String: Int64]] = [[:], [:], [:]]
        var nextKey: [Int64] = [1, 1, 1]
        var recipeKey: Int64 = 0, lineKey: Int64 = 0, photoKey: Int64 = 0
        var seenSourceIDs = Set<String>()
        let markerKey = "import:" + url.standardizedFileURL.path

        /// The key of the chef (0), cuisine (1) or ingredient (2) called `name`, inserted when new.
        func key(_ kind: Int, _ name: String) -> Int64 {
            if let key = keysByName[kind][name] { return key }
            let key = nextKey[kind]
            nextKey[kind] += 1
            keysByName[kind][name] = key
            let statement = insertNamed[kind]
            sqlite3_bind_int64(statement, 1, key)
            sqlite3_bind_int64(statement, 2, namedEntities[kind])
            bind(statement, 3, name)
            run(statement)
            return key
        }

        let reader = try RecipeFileReader(url: url, batchSize: batch)
        while let records = try reader.nextBatch() {
            exec(db, "BEGIN")
            for record in records.records where seenSourceIDs.insert(record.sourceID).inserted {
                recipeKey += 1
                let chef = record.chef.map { key(0, $0) }, cuisine = record.cuisine.map { key(1, $0) }
                var photo: Int64?
                if let data = record.photo {
                    photoKey += 1
                    photo = photoKey
                    sqlite3_bind_int64(insertPhoto, 1, photoKey)
                    sqlite3_bind_int64(insertPhoto, 2, entities.photo)
                    _ = data.withUnsafeBytes { sqlite3_bind_blob(insertPhoto, 3, $0.baseAddress, Int32($0.count), transient) }
                    sqlite3_bind_int64(insertPhoto, 4, recipeKey)
                    run(insertPhoto)
                }
                let s = insertRecipe
                sqlite3_bind_int64(s, 1, recipeKey)
                sqlite3_bind_int64(s, 2, entities.recipe)
                bind(s, 3, record.name)
                bind(s, 4, canonical(record.name))
                bind(s, 5, record.sourceID)
                bindOptional(s, 6, record.instructions)
                bindOptional(s, 7, record.course)
                bindOptional(s, 8, record.prepMinutes.map(Int64.init))
                bindOptional(s, 9, record.cookMinutes.map(Int64.init))
                bindOptional(s, 10, record.servings.map(Int64.init))
                if let rating = record.rating { sqlite3_bind_double(s, 11, rating) } else { sqlite3_bind_null(s, 11) }
                if let published = record.published {
                    sqlite3_bind_double(s, 12, published.timeIntervalSince1970)
                } else {
                    sqlite3_bind_null(s, 12)
                }
                sqlite3_bind_int64(s, 13, photo == nil ? 0 : 1)
                sqlite3_bind_int64(s, 14, Int64(record.ingredients.count))
                bindOptional(s, 15, chef)
                bindOptional(s, 16, cuisine)
                bindOptional(s, 17, photo)
                run(s)
                for (position, line) in record.ingredients.enumerated() {
                    lineKey += 1
                    let ingredient = key(2, line.name)
                    sqlite3_bind_int64(insertLine, 1, lineKey)
                    sqlite3_bind_int64(insertLine, 2, entities.line)
                    if let quantity = line.quantity { sqlite3_bind_double(insertLine, 3, quantity) } else { sqlite3_bind_null(insertLine, 3) }
                    bindOptional(insertLine, 4, line.unit)
                    sqlite3_bind_int64(insertLine, 5, Int64(position))
                    sqlite3_bind_int64(insertLine, 6, recipeKey)
                    sqlite3_bind_int64(insertLine, 7, ingredient)
                    run(insertLine)
                }
            }
            bind(marker, 1, markerKey)
            bind(marker, 2, String(records.lastLineNumber))
            run(marker)
            exec(db, "COMMIT")
        }
        exec(db, #"DELETE FROM "_metadata" WHERE "key" = '\#(markerKey.replacingOccurrences(of: "'", with: "''"))'"#)
    }

    /// Steps an INSERT once and resets it; traps on an error.
    @inline(__always)
    private static func run(_ statement: OpaquePointer) {
        let code = sqlite3_step(statement)
        precondition(code == SQLITE_DONE, "insert failed: \(code)")
        sqlite3_reset(statement)
    }

    /// Binds text or NULL.
    @inline(__always)
    private static func bindOptional(_ statement: OpaquePointer, _ index: Int32, _ text: String?) {
        if let text { bind(statement, index, text) } else { sqlite3_bind_null(statement, index) }
    }

    /// Binds an integer or NULL.
    @inline(__always)
    private static func bindOptional(_ statement: OpaquePointer, _ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(statement, index, value) } else { sqlite3_bind_null(statement, index) }
    }

    /// The case- and diacritic-folded form the catalogue's `nameCanonical` shadow holds:
    /// lower-cased ASCII as it is, anything else NFKC-normalized and folded by Foundation.
    static func canonical(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return text.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) ? text.lowercased() : text
        }
        return text.precomposedStringWithCompatibilityMapping
            .folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .precomposedStringWithCompatibilityMapping
    }

    /// Figures a catalogue import must reproduce, read back from the file at `path`.
    struct CatalogueTotals: Equatable, CustomStringConvertible {
        /// Rows per table: recipes, lines, ingredients, chefs, cuisines, photos.
        var recipes = 0, lines = 0, ingredients = 0, chefs = 0, cuisines = 0, photos = 0
        /// Sums that catch a wrong link or value: the recipes' name lengths, their folded
        /// names' lengths, the lengths of the ingredient each line links to, and the
        /// recipes' stored line counts.
        var nameLength = 0, canonicalLength = 0, linkedIngredientLength = 0, storedLineCount = 0

        /// One line, for a failed check.
        var description: String {
            "\(recipes) recipes, \(lines) lines, \(ingredients) ingredients, \(chefs) chefs, \(cuisines) cuisines, "
                + "\(photos) photos; sums \(nameLength), \(canonicalLength), \(linkedIngredientLength), \(storedLineCount)"
        }
    }

    /// Reads ``CatalogueTotals`` from the catalogue at `path`.
    static func catalogueTotals(path: String) -> CatalogueTotals {
        let db = open(path)
        defer { close(db) }
        func value(_ sql: String) -> Int { Int(scalar(db, sql)) }
        return CatalogueTotals(
            recipes: value(#"SELECT count(*) FROM "Recipe""#), lines: value(#"SELECT count(*) FROM "RecipeIngredient""#),
            ingredients: value(#"SELECT count(*) FROM "Ingredient""#), chefs: value(#"SELECT count(*) FROM "Chef""#),
            cuisines: value(#"SELECT count(*) FROM "Cuisine""#), photos: value(#"SELECT count(*) FROM "RecipePhoto""#),
            nameLength: value(#"SELECT total(length("name")) FROM "Recipe""#),
            canonicalLength: value(#"SELECT total(length("nameCanonical")) FROM "Recipe""#),
            linkedIngredientLength: value(#"SELECT total(length(i."name")) FROM "RecipeIngredient" l JOIN "Ingredient" i ON i."_pk" = l."ingredient""#),
            storedLineCount: value(#"SELECT total("ingredientCount") FROM "Recipe""#))
    }
}
