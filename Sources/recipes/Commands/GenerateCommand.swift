import Foundation
import Glibc
import RecipeCatalog

/// `recipes generate --count N --seed S --output FILE`: a deterministic large catalogue file.
enum GenerateCommand {
    static func run(count: Int, seed: UInt64, output: String) async throws {
        guard let sample = Catalog.sampleDataDirectory else {
            throw CommandError("the sample data was not found; set RECIPES_SAMPLE_DATA to the SampleData folder")
        }
        let names = try IngredientCatalogFile.load(from: sample.appendingPathComponent("ingredients.tsv")).map(\.name)
        let progress = ProgressBar(label: "generate", total: count,
                                   isEnabled: StandardStreams.isTerminal(STDERR_FILENO))
        defer { progress.finish() }  // also when Ctrl-C stops it: the error starts a clean line
        try CatalogGenerator(seed: seed, ingredientNames: names)
            .write(count: count, to: URL(fileURLWithPath: output)) { progress.update(done: $0) }
        FileHandle.standardError.write(Data("wrote \(count) recipes to \(output)\n".utf8))
    }
}
