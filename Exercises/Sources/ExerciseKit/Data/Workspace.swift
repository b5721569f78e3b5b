public import Foundation
public import RecipeCatalog
internal import ObjectGraph
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A temporary folder for one check's stores and files, removed when released.
///
/// A check that the learner's code stops (a failed precondition, as exercise 03's first hint
/// invites) never releases its workspace; the folder's name carries the process ID, so the
/// next workspace removes the folders of processes that are gone.
public final class Workspace: Sendable {
    /// The folder.
    public let directory: URL

    /// The start of every workspace folder's name; the process ID and a random suffix follow.
    static let namePrefix = "recipes-exercise-"

    /// Creates an empty folder under the system's temporary directory, after removing the
    /// folders that checks stopped before their end left there.
    public init() throws {
        let temporary = FileManager.default.temporaryDirectory
        Self.removeAbandoned(in: temporary)
        directory = temporary.appendingPathComponent(
            "\(Self.namePrefix)\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Removes the workspace folders in `temporary` whose process no longer runs.
    static func removeAbandoned(in temporary: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: temporary.path) else { return }
        for name in names where name.hasPrefix(namePrefix) {
            let rest = name.dropFirst(namePrefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]), pid > 0 else { continue }
            if kill(pid, 0) == -1 && errno == ESRCH {
                try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
            }
        }
    }

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
