import Foundation

/// Temporary files for the tests, removed by the caller.
enum TestFiles {
    /// Writes `contents` to a new file named `name` in a fresh temporary directory.
    static func write(_ contents: String, name: String = "recipes.jsonl") throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("RecipeCatalogTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(contents.utf8).write(to: url)
        return url
    }

    /// Removes the directory that `write` created.
    static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
    }

    /// The package's `SampleData` folder, found from this file's path.
    static func sampleData(_ name: String, filePath: String = #filePath) -> URL {
        URL(fileURLWithPath: filePath)
            .deletingLastPathComponent()  // RecipeCatalogTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // package root
            .appendingPathComponent("SampleData").appendingPathComponent(name)
    }
}
