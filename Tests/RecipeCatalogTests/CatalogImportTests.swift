import Foundation
import ObjectGraph
import ObjectGraphSQLite
import Testing
@testable import RecipeCatalog

@MainActor
struct CatalogImportTests {
    static let sample = Catalog.sampleDataDirectory!

    /// Writes `lines` to a new file under the temporary directory; the caller removes it.
    func temporaryFile(_ lines: [String]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString).jsonl")
        try lines.joined(separator: "\n").appending("\n").write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test func sampleDataLoadsIntoANormalizedCatalogue() async throws {
        let catalog = try Catalog.inMemory()
        let report = try await catalog.loadSampleData(from: Self.sample)
        #expect(report.errors.isEmpty)
        #expect(report.imported >= 160)
        let context = MainContext(coordinator: catalog.coordinator)
        #expect(try context.count(for: FetchRequest(entityName: "Recipe")) == report.imported)
        let chefs = try context.count(for: FetchRequest(entityName: "Chef"))
        #expect(chefs >= 25 && chefs <= 40)
        #expect(try context.count(for: FetchRequest(entityName: "Ingredient")) > 7_000)
        // Every line's ingredient is one shared object, not a copy per recipe.
        let butter = try context.fetch(FetchRequest(entityName: "Ingredient",
                                                    predicate: try FetchPredicate("name == 'butter'")))
        #expect(butter.count == 1)
        let brulee = try context.fetch(Catalog.searchRequest("creme brulee"))
        #expect(brulee.contains { ($0 as! Recipe).name == "Crème Brûlée" })
        let recipe = brulee[0] as! Recipe
        #expect(recipe.ingredients.map(\.displayOrder) == Array(0..<recipe.ingredientCount))
    }

    @Test("loadSampleDataOnce fills the catalogue the first time, records it in the metadata, and then leaves it alone")
    func sampleDataLoadsOnce() async throws {
        let catalog = try Catalog.inMemory()
        let first = try await catalog.loadSampleDataOnce(from: Self.sample)
        #expect(try #require(first).imported >= 160)
        #expect(catalog.store.metadata[Catalog.sampleDataKey] != nil)
        #expect(try await catalog.loadSampleDataOnce(from: Self.sample) == nil)
        let context = MainContext(coordinator: catalog.coordinator)
        #expect(try context.count(for: FetchRequest(entityName: "Recipe")) == first?.imported)
    }

    @Test("The ingredient catalogue imports whole or not at all: a bad line names itself and nothing is inserted")
    func badIngredientLineImportsNothing() async throws {
        let header = IngredientCatalogFile.columns.joined(separator: "\t")
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ingredients-\(UUID().uuidString).tsv")
        defer { try? FileManager.default.removeItem(at: url) }
        try [header, "butter\t01001\tButter, salted\tDairy\t717\t\t\t\t\t\t", "salt\t02047\tSalt\tSpices\tlots\t\t\t\t\t\t"]
            .joined(separator: "\n").appending("\n").write(to: url, atomically: true, encoding: .utf8)
        let catalog = try Catalog.inMemory()
        await #expect {
            _ = try await catalog.importIngredients(from: url)
        } throws: { error in
            (error as? ImportLineError)?.description == "\(url.lastPathComponent):3: \"kcal\" must be a number, found \"lots\""
        }
        let context = MainContext(coordinator: catalog.coordinator)
        #expect(try context.count(for: FetchRequest(entityName: "Ingredient")) == 0)
    }

    @Test("An ingredient name that differs from one in the catalogue only by Unicode normalization is a new ingredient, as a recipe's is")
    func ingredientNamesCompareByBytes() async throws {
        let header = IngredientCatalogFile.columns.joined(separator: "\t")
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ingredients-\(UUID().uuidString).tsv")
        defer { try? FileManager.default.removeItem(at: url) }
        let catalog = try Catalog.inMemory()
        for name in ["cr\u{E8}me", "cre\u{300}me"] {  // NFC, then NFD
            try [header, "\(name)\t01001\tCream\tDairy\t\t\t\t\t\t\t"].joined(separator: "\n").appending("\n")
                .write(to: url, atomically: true, encoding: .utf8)
            #expect(try await catalog.importIngredients(from: url) == 1)
        }
        let context = MainContext(coordinator: catalog.coordinator)
        let names = try context.fetch(FetchRequest(entityName: "Ingredient")).map { Array(($0[attribute: "name"] as String).utf8) }
        #expect(Set(names) == [Array("cr\u{E8}me".utf8), Array("cre\u{300}me".utf8)])
    }

    @Test func importingTwiceAddsNothing() async throws {
        let catalog = try Catalog.inMemory()
        let url = Self.sample.appendingPathComponent("recipes.jsonl")
        let first = try await RecipeImporter().importFile(url, into: PrivateContext(coordinator: catalog.coordinator))
        let second = try await RecipeImporter().importFile(url, into: PrivateContext(coordinator: catalog.coordinator))
        #expect(second.imported == 0)
        #expect(second.skippedExisting == first.imported)
    }

    @Test func badLinesAreReportedAndTheRestImported() async throws {
        let url = try temporaryFile([
            #"{"id": "r-1", "name": "Good one", "chef": "Ana", "ingredients": [{"name": "salt"}]}"#,
            #"{"id": "r-2", "name": "Bad rating", "rating": "high"}"#,
            #"{"name": "No id"}"#,
            #"{"id": "r-1", "name": "Repeat"}"#,
            #"{"id": "r-3", "name": "Also good", "chef": "Ana", "cuisine": "Thai", "prepMinutes": 5}"#,
            #"{"id": "r-4", "name": "Cut off", "chef": "#,
        ])
        defer { try? FileManager.default.removeItem(at: url) }
        let catalog = try Catalog.inMemory()
        let report = try await RecipeImporter().importFile(url, into: PrivateContext(coordinator: catalog.coordinator))
        #expect(report.imported == 2)
        #expect(report.errors.map(\.line) == [2, 3, 4, 6])
        let name = url.lastPathComponent
        #expect(report.errors[0].description.hasPrefix("\(name):2: \"rating\""))
        let context = MainContext(coordinator: catalog.coordinator)
        let chefs = try context.fetch(FetchRequest(entityName: "Chef"))
        #expect(chefs.count == 1 && (chefs[0] as! Chef).recipes.count == 2)
        let recipe = try context.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("sourceID == 'r-3'")))[0] as! Recipe
        #expect(recipe.prepMinutes == 5 && recipe.cookMinutes == nil && recipe.cuisine?.name == "Thai")
    }

    @Test func aCancelledImportKeepsItsBatchesAndResumes() async throws {
        let lines = (1...50).map { #"{"id": "c-\#($0)", "name": "Recipe \#($0)", "chef": "Chef \#($0 % 7)"}"# }
        let url = try temporaryFile(lines)
        defer { try? FileManager.default.removeItem(at: url) }
        let catalog = try await catalogWithAStoppedImport(of: url)
        var options = RecipeImporter.Options()
        options.batchSize = 10
        #expect(RecipeImporter.parseMarker(catalog.store.metadata[RecipeImporter.resumeKey(for: url)]).line == 20)
        let resumed = try await RecipeImporter(options: options).importFile(
            url, into: PrivateContext(coordinator: catalog.coordinator))
        #expect(resumed.resumedAfterLine == 20 && resumed.imported == 30 && !resumed.wasCancelled)
        #expect(catalog.store.metadata[RecipeImporter.resumeKey(for: url)] == nil)
        #expect(try MainContext(coordinator: catalog.coordinator).count(for: FetchRequest(entityName: "Chef")) == 7)
    }

    @Test("A pause after each batch ends as soon as the import is cancelled, keeping the batches saved")
    func aPauseEndsWhenCancelled() async throws {
        let lines = (1...30).map { #"{"id": "p-\#($0)", "name": "Recipe \#($0)"}"# }
        let url = try temporaryFile(lines)
        defer { try? FileManager.default.removeItem(at: url) }
        let catalog = try Catalog.inMemory()
        var options = RecipeImporter.Options()
        options.batchSize = 10
        options.pauseAfterBatch = .seconds(3_600)  // a wait that only the cancel can end
        let batches = Counter()
        let report = try await RecipeImporter(options: options).importFile(
            url, into: PrivateContext(coordinator: catalog.coordinator),
            isCancelled: { batches.value >= 1 }, progress: { _ in batches.increment() })
        #expect(report.wasCancelled && report.imported == 10 && report.savedThroughLine == 10)
    }

    @Test("A file whose lines end in a lone CR keeps a marker after line 20's CR, and resumes after it")
    func aFileWithCarriageReturnLineEndsResumes() async throws {
        let lines = (1...50).map { #"{"id": "m-\#($0)", "name": "Recipe \#($0)"}"# }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString).jsonl")
        try lines.joined(separator: "\r").appending("\r").write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        let catalog = try await catalogWithAStoppedImport(of: url)
        let marker = RecipeImporter.parseMarker(catalog.store.metadata[RecipeImporter.resumeKey(for: url)])
        #expect(marker.line == 20 && marker.offset == lines.prefix(20).reduce(0) { $0 + $1.utf8.count + 1 })
        var options = RecipeImporter.Options()
        options.batchSize = 10
        let report = try await RecipeImporter(options: options).importFile(url, into: PrivateContext(coordinator: catalog.coordinator))
        #expect(report.changedSinceLine == 0 && report.resumedAfterLine == 20 && report.imported == 30)
        #expect(report.errors.isEmpty, "\(report.errors)")
    }

    /// Imports `url` in batches of 10 until two batches are saved, then cancels; returns the catalogue.
    func catalogWithAStoppedImport(of url: URL) async throws -> Catalog {
        let catalog = try Catalog.inMemory()
        var options = RecipeImporter.Options()
        options.batchSize = 10
        let batches = Counter()
        let stopped = try await RecipeImporter(options: options).importFile(
            url, into: PrivateContext(coordinator: catalog.coordinator),
            isCancelled: { batches.value >= 2 }, progress: { _ in batches.increment() })
        #expect(stopped.wasCancelled && stopped.imported == 20)
        return catalog
    }

    @Test("A stopped import of a file that then changed before its marker reads it again from the start; one that grew resumes")
    func aChangedFileIsNotResumedBlindly() async throws {
        let lines = (1...50).map { #"{"id": "f-\#($0)", "name": "Recipe \#($0)"}"# }
        let url = try temporaryFile(lines)
        defer { try? FileManager.default.removeItem(at: url) }
        var options = RecipeImporter.Options()
        options.batchSize = 10

        // Lines put before the marker's line: resuming after line 20 would skip them.
        var catalog = try await catalogWithAStoppedImport(of: url)
        let added = (1...5).map { #"{"id": "new-\#($0)", "name": "New \#($0)"}"# }
        try (added + lines).joined(separator: "\n").appending("\n").write(to: url, atomically: true, encoding: .utf8)
        var report = try await RecipeImporter(options: options).importFile(url, into: PrivateContext(coordinator: catalog.coordinator))
        #expect(report.changedSinceLine == 20 && report.resumedAfterLine == 0)
        #expect(report.imported == 35 && report.skippedExisting == 20 && report.errors.isEmpty, "\(report.errors)")
        #expect(try MainContext(coordinator: catalog.coordinator).count(for: FetchRequest(entityName: "Recipe")) == 55)

        // A file now shorter than the marker's line.
        try lines.joined(separator: "\n").appending("\n").write(to: url, atomically: true, encoding: .utf8)
        catalog = try await catalogWithAStoppedImport(of: url)
        try lines.prefix(3).joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
        report = try await RecipeImporter(options: options).importFile(url, into: PrivateContext(coordinator: catalog.coordinator))
        #expect(report.changedSinceLine == 20 && report.imported == 0 && report.skippedExisting == 3)
        #expect(catalog.store.metadata[RecipeImporter.resumeKey(for: url)] == nil)

        // Lines added after the marker's line: the import resumes.
        try lines.joined(separator: "\n").appending("\n").write(to: url, atomically: true, encoding: .utf8)
        catalog = try await catalogWithAStoppedImport(of: url)
        try (lines + added).joined(separator: "\n").appending("\n").write(to: url, atomically: true, encoding: .utf8)
        report = try await RecipeImporter(options: options).importFile(url, into: PrivateContext(coordinator: catalog.coordinator))
        #expect(report.changedSinceLine == 0 && report.resumedAfterLine == 20 && report.imported == 35)

        // A marker written by an older version (the line alone) is still followed.
        try lines.joined(separator: "\n").appending("\n").write(to: url, atomically: true, encoding: .utf8)
        catalog = try await catalogWithAStoppedImport(of: url)
        try catalog.store.setMetadata("20", forKey: RecipeImporter.resumeKey(for: url))
        report = try await RecipeImporter(options: options).importFile(url, into: PrivateContext(coordinator: catalog.coordinator))
        #expect(report.changedSinceLine == 0 && report.resumedAfterLine == 20 && report.imported == 30)
    }

    @Test("An id that repeats an earlier line is reported the same whatever the batches; one the catalogue had is skipped",
          arguments: [1, 10])
    func aRepeatedIDIsALineErrorInAnyBatch(batchSize: Int) async throws {
        let catalog = try Catalog.inMemory()
        var options = RecipeImporter.Options()
        options.batchSize = batchSize
        let before = try temporaryFile([#"{"id": "old", "name": "Old"}"#])
        defer { try? FileManager.default.removeItem(at: before) }
        _ = try await RecipeImporter(options: options).importFile(before, into: PrivateContext(coordinator: catalog.coordinator))
        let url = try temporaryFile([#"{"id": "d-1", "name": "First"}"#, #"{"id": "old", "name": "Again"}"#,
                                     #"{"id": "d-2", "name": "Other"}"#, #"{"id": "d-1", "name": "Second"}"#])
        defer { try? FileManager.default.removeItem(at: url) }
        let report = try await RecipeImporter(options: options).importFile(url, into: PrivateContext(coordinator: catalog.coordinator))
        #expect(report.imported == 2 && report.skippedExisting == 1)
        #expect(report.errors.map(\.line) == [4], "\(report.errors)")
        #expect(report.errors.first?.message.hasPrefix(#"id "d-1" repeats"#) == true, "\(report.errors)")
        let context = MainContext(coordinator: catalog.coordinator)
        let first = try context.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("sourceID == 'd-1'")))
        #expect(first.map { ($0 as! Recipe).name } == ["First"])
    }

    @Test("A batch that fails to save is retried in halves: only the bad line is lost, and named")
    func aFailedBatchLosesOnlyItsBadLine() async throws {
        var lines = (1...100).map { #"{"id": "h-\#($0)", "name": "Recipe \#($0)", "chef": "Chef \#($0 % 3)", "servings": 2}"# }
        lines[36] = #"{"id": "h-37", "name": "Too many servings", "servings": 3000000000}"#  // fits Int, not Int32
        let url = try temporaryFile(lines)
        defer { try? FileManager.default.removeItem(at: url) }
        let catalog = try Catalog.inMemory()
        var options = RecipeImporter.Options()
        options.batchSize = 50
        let report = try await RecipeImporter(options: options).importFile(
            url, into: PrivateContext(coordinator: catalog.coordinator))
        #expect(report.imported == 99)
        #expect(report.errors.map(\.line) == [37])
        #expect(report.errors.first?.message.contains("servings") == true, "\(report.errors)")
        let context = MainContext(coordinator: catalog.coordinator)
        #expect(try context.count(for: FetchRequest(entityName: "Recipe")) == 99)
        #expect(try context.count(for: FetchRequest(entityName: "Chef")) == 3)
        #expect(catalog.store.metadata[RecipeImporter.resumeKey(for: url)] == nil)
    }

    @Test("The format's ranges are the model's: a rating above 5, negative minutes, no servings or a negative quantity lose only their line, named")
    func outOfRangeFieldsAreLineErrors() async throws {
        let url = try temporaryFile([
            #"{"id": "r-1", "name": "Fine", "rating": 5.0, "prepMinutes": 0, "servings": 1, "ingredients": [{"name": "salt", "quantity": 0}]}"#,
            #"{"id": "r-2", "name": "Too good", "rating": 9}"#,
            #"{"id": "r-3", "name": "Backwards", "cookMinutes": -5}"#,
            #"{"id": "r-4", "name": "For nobody", "servings": 0}"#,
            #"{"id": "r-5", "name": "Less salt", "ingredients": [{"name": "salt", "quantity": -1}]}"#,
        ])
        defer { try? FileManager.default.removeItem(at: url) }
        let catalog = try Catalog.inMemory()
        let report = try await RecipeImporter().importFile(url, into: PrivateContext(coordinator: catalog.coordinator))
        #expect(report.imported == 1)
        #expect(report.errors.map(\.description) == [
            "\(url.lastPathComponent):2: not imported: Recipe 'Too good': 'rating' is 9.0, above the maximum 5.0",
            "\(url.lastPathComponent):3: not imported: Recipe 'Backwards': 'cookMinutes' is -5, below the minimum 0",
            "\(url.lastPathComponent):4: not imported: Recipe 'For nobody': 'servings' is 0, below the minimum 1",
            "\(url.lastPathComponent):5: not imported: new RecipeIngredient: 'quantity' is -1.0, below the minimum 0.0",
        ])
    }

    @Test("The resume marker is saved in the same transaction as its batch")
    func theMarkerMovesWithItsBatch() async throws {
        let lines = (1...30).map { #"{"id": "m-\#($0)", "name": "Recipe \#($0)"}"# }
        let url = try temporaryFile(lines)
        defer { try? FileManager.default.removeItem(at: url) }
        let catalog = try Catalog.inMemory()
        var options = RecipeImporter.Options()
        options.batchSize = 10
        let key = RecipeImporter.resumeKey(for: url)
        let markers = MarkerLog()
        // After each batch the marker must name the last line whose recipe is saved.
        _ = try await RecipeImporter(options: options).importFile(
            url, into: PrivateContext(coordinator: catalog.coordinator),
            isCancelled: { false },
            progress: { _ in markers.record(catalog.store.metadata[key]) })
        #expect(markers.values.map { RecipeImporter.parseMarker($0).line } == [10, 20, 30])
        let transactions = try await RecipeImporter(options: options).importFile(
            url, into: PrivateContext(coordinator: try Catalog.inMemory().coordinator)).statistics.transactions
        #expect(transactions == 3 + 1, "one per batch, marker included, and one to clear the marker")
    }

    @Test("A chef another context deletes during an import is created again for the next batch, not linked by its stale ID")
    func aChefDeletedDuringTheImportIsCreatedAgain() async throws {
        let lines = (1...20).map { #"{"id": "d-\#($0)", "name": "Recipe \#($0)", "chef": "Ana", "cuisine": "Thai", "ingredients": [{"name": "salt"}]}"# }
        let url = try temporaryFile(lines)
        defer { try? FileManager.default.removeItem(at: url) }
        let catalog = try Catalog.inMemory()
        var options = RecipeImporter.Options()
        options.batchSize = 10
        let coordinator = catalog.coordinator
        let batches = Counter()
        let report = try await RecipeImporter(options: options).importFile(
            url, into: PrivateContext(coordinator: coordinator),
            progress: { _ in
                guard batches.value == 0 else { return }
                batches.increment()
                // The user deletes the chef, the cuisine and the ingredient in the foreground meanwhile.
                try! PrivateContext(coordinator: coordinator).performAndWait { context in
                    for entity in ["Chef", "Cuisine"] {
                        for object in try context.fetch(FetchRequest(entityName: entity)) { context.delete(object) }
                    }
                    try context.save()
                }
            })
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(report.imported == 20)
        let context = MainContext(coordinator: coordinator)
        let later = try context.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("sourceID IN %@", (11...20).map { "d-\($0)" })))
        #expect(later.count == 10)
        #expect(later.allSatisfy { ($0 as! Recipe).chef?.name == "Ana" && ($0 as! Recipe).cuisine?.name == "Thai" })
        #expect(try context.count(for: FetchRequest(entityName: "Chef")) == 1)
    }

    @Test func uniquingCacheRunsOneFetchPerEntityPerBatch() async throws {
        let lines = (1...200).map {
            #"{"id": "u-\#($0)", "name": "R\#($0)", "chef": "Chef \#($0 % 5)", "cuisine": "C\#($0 % 3)", "ingredients": [{"name": "salt"}, {"name": "egg \#($0 % 4)"}]}"#
        }
        let url = try temporaryFile(lines)
        defer { try? FileManager.default.removeItem(at: url) }
        var options = RecipeImporter.Options()
        options.batchSize = 100
        let cached = try await RecipeImporter(options: options).importFile(
            url, into: PrivateContext(coordinator: try Catalog.inMemory().coordinator))
        options.usesUniquingCache = false
        let naive = try await RecipeImporter(options: options).importFile(
            url, into: PrivateContext(coordinator: try Catalog.inMemory().coordinator))
        #expect(cached.imported == 200 && naive.imported == 200, "\(naive.errors.prefix(2))")
        // The cache runs one IN fetch per entity for the first batch (3) and none for the
        // second, whose names it knows. The naive way fetches once per name it creates in
        // the first batch (5 chefs + 3 cuisines + 5 ingredients = 13) and, in the second,
        // once per lookup of a name the store has (100 recipes × 4 lookups = 400).
        // Both insert the same rows.
        #expect(naive.statistics.statements - cached.statistics.statements == 13 + 400 - 3)
    }

    @Test("Names and ids that differ only by Unicode normalization are two, as the store compares them, whatever the batches",
          arguments: [1, 10])
    func normalizationVariantsAreDistinct(batchSize: Int) async throws {
        let nfc = "Caf\u{E9}", nfd = "Cafe\u{301}"  // equal as Swift Strings, different bytes
        let lines = [nfc, nfd].map { name in
            #"{"id": "\#(name)-1", "name": "R", "chef": "\#(name)", "cuisine": "\#(name)", "ingredients": [{"name": "\#(name)"}]}"#
        }
        let url = try temporaryFile(lines)
        defer { try? FileManager.default.removeItem(at: url) }
        let catalog = try Catalog.inMemory()
        var options = RecipeImporter.Options()
        options.batchSize = batchSize
        let report = try await RecipeImporter(options: options).importFile(
            url, into: PrivateContext(coordinator: catalog.coordinator))
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(report.imported == 2)
        let context = MainContext(coordinator: catalog.coordinator)
        for entity in ["Recipe", "Chef", "Cuisine", "Ingredient"] {
            #expect(try context.count(for: FetchRequest(entityName: entity)) == 2, "\(entity)")
        }
        let recipes = try context.fetch(FetchRequest(entityName: "Recipe")).map { $0 as! Recipe }
        #expect(recipes.allSatisfy { Array($0.chef!.name.utf8) == Array($0.sourceID.dropLast(2).utf8) })
    }
}

/// Marker values seen after each batch.
final class MarkerLog: Sendable {
    private let log = Locked<[String?]>([])
    var values: [String?] { log.withLock { $0 } }
    func record(_ value: String?) { log.withLock { $0.append(value) } }
}

/// A counter shared with @Sendable closures.
final class Counter: Sendable {
    private let count = Locked(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}


@Test func lineCountCountsALastLineWithoutNewline() throws {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("lines-\(UUID().uuidString).jsonl")
    defer { try? FileManager.default.removeItem(at: url) }
    try "a\nb\n\nc".write(to: url, atomically: true, encoding: .utf8)
    #expect(RecipeFileReader.lineCount(of: url) == 4)
    try "a\nb\n".write(to: url, atomically: true, encoding: .utf8)
    #expect(RecipeFileReader.lineCount(of: url) == 2)

    try "a\rb\r\n\rc".write(to: url, atomically: true, encoding: .utf8)
    #expect(RecipeFileReader.lineCount(of: url) == 4)
    // A CRLF split between two of the 1 MiB chunks the count reads is one line end.
    try (String(repeating: "x", count: (1 << 20) - 1) + "\r\ny\r").write(to: url, atomically: true, encoding: .utf8)
    #expect(RecipeFileReader.lineCount(of: url) == 2)
}
