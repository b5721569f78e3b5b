public import Foundation
public import RecipeCatalog
internal import ObjectGraph

/// A temporary folder for one check's stores and files, removed when released.
public final class Workspace: Sendable {
    /// The folder.
    public let directory: URL

    /// Creates an empty folder under the system's temporary directory.
    public init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("recipes-exercise-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A new, empty recipe catalogue stored in a file of this folder.
    public func makeCatalog(_ name: String) throws -> Catalog {
        try Catalog.open(at: directory.appendingPathComponent(name + ".sqlite").path)
    }

    /// A new catalogue holding `recipes`, imported the fast way (batches, uniquing cache,
    /// reset after each save), for exercises that start from a full catalogue.
    public func makeCatalog(_ name: String, importing recipes: GeneratedRecipes) async throws -> Catalog {
        let catalog = try makeCatalog(name)
        var options = RecipeImporter.Options()
        options.resumes = false
        let report = try await RecipeImporter(options: options)
            .importFile(recipes.file, into: PrivateContext(coordinator: catalog.coordinator))
        guard report.errors.isEmpty, report.imported == recipes.records.count else {
            throw ExerciseSetupError("importing the generated recipes gave \(report.imported) of \(recipes.records.count)")
        }
        return catalog
    }
}
