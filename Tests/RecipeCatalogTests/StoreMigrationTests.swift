import Foundation
import Testing
import ObjectGraphSQLite
@testable import RecipeCatalog

/// Moving the catalogue between store types keeps the whole graph. The long, blocking work
/// (migrating, reading every object) runs on a private context's queue or a Dispatch queue,
/// never on the main actor or the cooperative pool, which other tests watch for starvation.
struct StoreMigrationTests {
    /// Runs blocking `body` on a Dispatch queue and waits for it without blocking a thread.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Every object of the catalogue with every attribute value (data in full, as Base64) and
    /// every relationship's destinations, by object ID: migrations keep IDs, so two
    /// catalogues hold the same graph exactly when these are equal.
    static func snapshot(_ catalog: Catalog) async throws -> [String] {
        let model = catalog.coordinator.model
        return try await PrivateContext(coordinator: catalog.coordinator).perform { context in
            var lines: [String] = []
            for entity in model.entities where !entity.isAbstract {
                var request = FetchRequest(entityName: entity.name)
                request.includesSubentities = false
                request.returnsObjectsAsFaults = false
                request.relationshipKeyPathsForPrefetching = entity.relationships.filter(\.isToMany).map(\.name)
                for object in try context.fetch(request).sorted(by: { $0.objectID < $1.objectID }) {
                    var line = model.describe(object.objectID)
                    for attribute in entity.attributes where !attribute.isTransient {
                        switch attribute.type.storedValue(from: object[attribute.name]) {
                        case .blob(let data)?: line += " \(attribute.name)=<\(data.base64EncodedString())>"
                        case let value?: line += " \(attribute.name)=\(value)"
                        case nil: line += " \(attribute.name)=?"
                        }
                    }
                    for relationship in entity.relationships {
                        let ids = relationship.isToMany
                            ? try object.objects(forKey: relationship.name).map(\.objectID)
                            : [(object[relationship.name] as? ManagedObject)?.objectID].compactMap { $0 }
                        line += " \(relationship.name)=[" + ids.sorted().map { model.describe($0) }.joined(separator: ",") + "]"
                    }
                    lines.append(line)
                }
            }
            return lines
        }
    }

    @Test("The sample catalogue goes SQLite → XML → binary → HTML → SQLite and keeps every object, value and relationship")
    func roundTrip() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("RecipeCatalogTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var catalog = try Catalog.open(at: folder.appendingPathComponent("catalog.sqlite").path)
        _ = try await catalog.loadSampleData(from: TestFiles.sampleData("recipes.jsonl").deletingLastPathComponent())
        let original = try await Self.snapshot(catalog)
        #expect(original.count > 8_900)
        #expect(original.contains { $0.hasPrefix("RecipePhoto/") && $0.contains("data=<") })

        // Odd extensions on purpose: each store is recognized by its content.
        for (type, name) in [(PersistentStoreType.xml, "step1.data"), (.binary, "step2.xml"), (.html, "step3"), (.sqlite, "step4.html")] {
            let path = folder.appendingPathComponent(name).path
            let current = catalog
            catalog = try await Self.offPool { try current.migrate(to: path, type: type) }
            #expect(try await Self.snapshot(catalog) == original, "after migrating to \(type)")
            let reopened = try await Self.offPool { try Catalog.open(at: path) }
            #expect(reopened.storeType == type)
            #expect(try await Self.snapshot(reopened) == original, "\(type) read back from \(name)")
        }
    }

    @Test("Migrating refuses a path that exists and keeps the old store")
    func existingPath() throws {
        let catalog = try Catalog.open(at: ":memory:")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("RecipeCatalogTests-\(UUID().uuidString).xml").path
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = try #require(throws: ObjectGraphError.self) { try catalog.migrate(to: path, type: .xml) }
        #expect(error.message == "cannot migrate to '\(path)': the file exists; remove it or choose another path")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")
        #expect(catalog.coordinator.stores[0] === catalog.store)
    }
}
