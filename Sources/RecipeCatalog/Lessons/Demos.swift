import Foundation
import ObjectGraph

/// The lessons of the design card, as demos that build their own data and measure both
/// ways of doing one thing: `demo NAME` in the shell.
///
/// Every demo generates a deterministic catalogue into a temporary store of its own, so it
/// runs the same from any catalogue; `size` scales it down (tests use small sizes). Counts
/// (statements, faults, objects) are exact; times are wall-clock and left out when
/// `deterministic` is set.
public enum Demos {
    /// The demos, with a one-line summary each.
    public static let catalogue: [(name: String, summary: String, defaultSize: Int)] = [
        ("prefetch", "touch the chef of every recipe, without and with relationship prefetching", 1_000),
        ("search", "case- and accent-insensitive searches with and without the canonical shadow column", 300_000),
        ("delete", "delete recipes with their lines: object by object, in one call, prefetched, and as a batch request", 10_000),
        ("lazy", "read 1% of the recipes: fetch every object, or fetch lazily and make only those read", 20_000),
        ("refresh", "relationships keep realized objects alive in cycles; refreshing breaks them", 10_000),
        ("uniquing", "import twice: one fetch per chef/cuisine/ingredient lookup, or the uniquing cache", 20_000),
        ("import", "import in batches with and without resetting the context after each save", 20_000),
    ]

    /// The fewest recipes a demo builds: below that its variants have too little to compare.
    public static let minimumSize = 10

    /// The most recipes a demo builds: a million is about a gigabyte of generated file,
    /// with stores of that order beside it (the delete demo builds four).
    public static let maximumSize = 1_000_000

    /// Stops a demo whose variants disagreed: one of them answered wrongly, so its times
    /// would teach nothing. The shell reports it as an error and keeps going.
    static func checkAgreement(_ agrees: Bool, _ disagreement: @autoclosure () -> String) throws {
        guard agrees else { throw DemoDisagreement(description: "the demo's variants disagree: \(disagreement())") }
    }

    /// Runs the demo called `name`.
    /// - Throws: an error naming the known demos for an unknown name, or the limit for a
    ///   `size` below ``minimumSize`` or above ``maximumSize``.
    public static func run(_ name: String, size: Int? = nil, deterministic: Bool = false) async throws -> DemoReport {
        guard let entry = catalogue.first(where: { $0.name == name }) else {
            throw ObjectGraphError(.invalidValue,
                "unknown demo '\(name)'; the demos are: \(catalogue.map(\.name).joined(separator: ", "))")
        }
        if let size, size < minimumSize {
            throw ObjectGraphError(.invalidValue, "a size of \(size) is too small: the demo '\(name)' needs at least \(minimumSize) recipes")
        }
        if let size, size > maximumSize {
            throw ObjectGraphError(.invalidValue, "a size of \(size) is too large: a demo builds at most \(maximumSize) recipes")
        }
        let count = size ?? entry.defaultSize
        return try await stoppingOnCancellation {
            let workspace = try DemoWorkspace(count: count)
            defer { workspace.remove() }
            switch name {
            case "prefetch": return try await prefetch(workspace, deterministic)
            case "search": return try await search(workspace, deterministic)
            case "delete": return try await delete(workspace, deterministic)
            case "lazy": return try await lazy(workspace, deterministic)
            case "refresh": return try await refresh(workspace)
            case "uniquing": return try await uniquing(workspace, deterministic)
            default: return try await importing(workspace, deterministic)
            }
        }
    }

    /// Runs `body`, turning any error it throws once the task is cancelled into
    /// `CancellationError`: a fault that Ctrl-C stopped while a delete loaded it is reported
    /// by the save as a store failure ("could not load …: the read was cancelled"), where
    /// the demo was merely interrupted.
    static func stoppingOnCancellation<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch where Task.isCancelled {
            throw CancellationError()
        }
    }

    /// A duration with three significant figures or so: microseconds below a millisecond,
    /// where "0.0 ms" would stand beside a ratio computed from the true time.
    static func formatSeconds(_ seconds: Double) -> String {
        switch seconds {
        case ..<0.001: String(format: "%.0f µs", seconds * 1_000_000)
        case ..<1: String(format: "%.1f ms", seconds * 1000)
        default: String(format: "%.2f s", seconds)
        }
    }

    static let measuredColumns = ["variant", "time", "÷ first", "statements", "faults fired"]

    static func measure<T>(_ body: () async throws -> T) async rethrows -> (T, Double) {
        let start = ContinuousClock.now
        let value = try await body()
        let elapsed = ContinuousClock.now - start
        return (value, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
}

/// A temporary folder with a generated recipe file, where demos build their stores.
struct DemoWorkspace: Sendable {
    let directory: URL
    let file: URL
    let count: Int

    init(count: Int) throws {
        self.count = count
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("recipes-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        file = directory.appendingPathComponent("generated.jsonl")
        var names: [String] = []
        if let sample = Catalog.sampleDataDirectory {
            names = (try? IngredientCatalogFile.load(from: sample.appendingPathComponent("ingredients.tsv")).map(\.name)) ?? []
        }
        do {
            try CatalogGenerator(seed: 7, ingredientNames: names).write(count: count, to: file)
        } catch {
            remove()  // cancelled or failed: leave nothing behind
            throw error
        }
    }

    /// A fresh catalogue filled with the generated recipes.
    func makeCatalog(_ name: String) async throws -> Catalog {
        let catalog = try Catalog.open(at: directory.appendingPathComponent(name + ".sqlite").path)
        var options = RecipeImporter.Options()
        options.resumes = false
        _ = try await importFile(into: catalog, options: options)
        return catalog
    }

    /// Imports the generated file into `catalog`: an import that Ctrl-C stopped throws, where
    /// the importer itself returns a report of the batches it saved.
    /// - Throws: `CancellationError` when the task was cancelled; the importer's errors.
    func importFile(into catalog: Catalog, options: RecipeImporter.Options,
                    progress: @escaping @Sendable (RecipeImporter.Progress) -> Void = { _ in }) async throws -> RecipeImporter.Report {
        let report = try await RecipeImporter(options: options).importFile(
            file, into: PrivateContext(coordinator: catalog.coordinator), progress: progress)
        if report.wasCancelled { throw CancellationError() }
        return report
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// A demo whose variants gave different answers (a defect in the framework or the demo),
/// reported in place of its table.
public struct DemoDisagreement: Error, CustomStringConvertible {
    /// What differed, in words.
    public let description: String
}
