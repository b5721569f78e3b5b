import Foundation
import ObjectGraph
import Testing
import ObjectGraphSQLite
@testable import RecipeCatalog

/// Version 1 of the catalogue (chef and cuisine as strings) migrates to the current model
/// with `Chef` and `Cuisine` objects, unique by name, and nothing else changes.
@MainActor
@Suite("Catalogue migration from version 1")
struct CatalogMigrationTests {
    /// Everything a recipe holds, with its chef and cuisine by name, whichever version.
    struct RecipeSnapshot: Equatable {
        var values: [String: String]
        var chef: String?
        var cuisine: String?
        var lines: [String]
        var photo: Data?
    }

    static let keys = ["name", "nameCanonical", "course", "prepMinutes", "cookMinutes", "servings", "rating",
                       "published", "instructions", "hasPhoto", "ingredientCount"]

    static func snapshot(of path: String, version: Int) throws -> [String: RecipeSnapshot] {
        let model = version == 1 ? try CatalogModel.makeVersion1() : try CatalogModel.make()
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(at: path)
        let context = MainContext(coordinator: coordinator)
        var result: [String: RecipeSnapshot] = [:]
        for recipe in try context.fetch(FetchRequest(entityName: "Recipe")) {
            let name = { (key: String) -> String? in
                version == 1 ? recipe[key] as? String : (recipe[key] as? ManagedObject)?["name"] as? String
            }
            let lines = (recipe["ingredients"] as! [ManagedObject]).map { line in
                "\(line["displayOrder"]!) \((line["ingredient"] as! ManagedObject)["name"]!) \(String(describing: line["quantity"])) \(String(describing: line["unit"]))"
            }
            result[recipe["sourceID"] as! String] = RecipeSnapshot(
                values: Dictionary(uniqueKeysWithValues: keys.map { ($0, String(describing: recipe[$0])) }),
                chef: name("chef"), cuisine: name("cuisine"), lines: lines,
                photo: (recipe["photo"] as? ManagedObject)?["data"] as? Data)
        }
        return result
    }

    /// A copy of the shipped version-1 sample in a temporary folder.
    static func copyOfSample() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-v1-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("catalog.sqlite").path
        try FileManager.default.copyItem(atPath: TestFiles.sampleData("catalog-v1.sqlite").path, toPath: path)
        return path
    }

    @Test("The shipped version-1 sample is the first 40 sample recipes, as the generator writes them")
    func shippedSampleIsGenerated() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-v1-gen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let generated = directory.appendingPathComponent("catalog-v1.sqlite").path
        try await CatalogVersion1Sample.write(to: generated, from: TestFiles.sampleData("recipes.jsonl"))
        let shipped = TestFiles.sampleData("catalog-v1.sqlite").path
        if ProcessInfo.processInfo.environment["RECIPES_BLESS"] == "1" {
            try? FileManager.default.removeItem(atPath: shipped)
            try FileManager.default.copyItem(atPath: generated, toPath: shipped)
        }
        #expect(try CatalogMigration.version(ofStoreAt: shipped) == 1)
        let expected = try Self.snapshot(of: generated, version: 1)
        #expect(expected.count == CatalogVersion1Sample.recipeCount)
        #expect(try Self.snapshot(of: shipped, version: 1) == expected, "regenerate it with RECIPES_BLESS=1")
        let size = try FileManager.default.attributesOfItem(atPath: shipped)[.size] as! Int
        #expect(size < 400_000, "the sample stays small")
    }

    @Test("Chef and cuisine strings become unique objects; every recipe keeps everything else")
    func migratesSample() throws {
        let path = try Self.copyOfSample()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let before = try Self.snapshot(of: path, version: 1)
        let log = ProgressBox()
        let catalog = try Catalog.open(at: path, migrating: true) { log.record($0) }
        #expect(try CatalogMigration.version(ofStoreAt: path) == 2)
        let context = MainContext(coordinator: catalog.coordinator)
        let chefs = try context.fetch(FetchRequest(entityName: "Chef")).map { $0["name"] as! String }
        let cuisines = try context.fetch(FetchRequest(entityName: "Cuisine")).map { $0["name"] as! String }
        #expect(chefs.count == Set(chefs).count, "no duplicate chefs")
        #expect(cuisines.count == Set(cuisines).count, "no duplicate cuisines")
        #expect(Set(chefs) == Set(before.values.compactMap(\.chef)))
        #expect(Set(cuisines) == Set(before.values.compactMap(\.cuisine)))
        for chef in try context.fetch(FetchRequest(entityName: "Chef")) {
            let names = Set((chef["recipes"] as! [ManagedObject]).map { $0["sourceID"] as! String })
            #expect(names == Set(before.filter { $0.value.chef == chef["name"] as? String }.keys))
        }
        #expect(try Self.snapshot(of: path, version: 2) == before, "the whole graph is the same, chefs and cuisines by name")
        #expect(log.values == log.values.sorted() && log.values.last == 1)
    }

    @Test("Without migrating, a version-1 catalogue does not open, and says what differs")
    func refusesWithoutMigrating() throws {
        let path = try Self.copyOfSample()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let error = try #require(throws: ObjectGraphError.self) { _ = try Catalog.open(at: path) }
        #expect(error.code == .modelMismatch)
        #expect(error.message.contains("Recipe changed (attribute 'chef' removed; attribute 'cuisine' removed; relationship 'chef' added; relationship 'cuisine' added)"))
        #expect(error.message.contains("Chef is new in the model; Cuisine is new in the model"))
    }
}

/// Progress reports from any thread.
final class ProgressBox: Sendable {
    private let storage = Locked<[Double]>([])
    var values: [Double] { storage.withLock { $0 } }
    func record(_ value: Double) { storage.withLock { $0.append(value) } }
}
