import Foundation
import Testing
@testable import RecipeCatalog

@Suite("CatalogGenerator")
struct CatalogGeneratorTests {
    let names = ["butter", "egg yolk", "jalapeño pepper", #"Beef, flank, trimmed to 0" fat, raw"#,
                 "heavy cream", "salt", "sugar", "Crème, test\\ing", "onion", "garlic", "rice", "milk", "lime"]

    /// Generates `count` lines into a temporary file and returns its bytes.
    func generate(seed: UInt64, count: Int) throws -> Data {
        let url = try TestFiles.write("", name: "generated.jsonl")
        defer { TestFiles.remove(url) }
        try CatalogGenerator(seed: seed, ingredientNames: names).write(count: count, to: url)
        return try Data(contentsOf: url)
    }

    @Test("The same seed gives the same bytes")
    func sameSeed() throws {
        #expect(try generate(seed: 7, count: 2_000) == generate(seed: 7, count: 2_000))
    }

    @Test("Different seeds give different catalogues")
    func differentSeed() throws {
        #expect(try generate(seed: 7, count: 200) != generate(seed: 8, count: 200))
    }

    @Test("A finished run replaces the file and leaves nothing beside it")
    func replacesWhole() throws {
        let url = try TestFiles.write("an older catalogue\n", name: "generated.jsonl")
        defer { TestFiles.remove(url) }
        try CatalogGenerator(seed: 5, ingredientNames: names).write(count: 10, to: url)
        #expect(try String(contentsOf: url, encoding: .utf8).split(separator: "\n").count == 10)
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path) == ["generated.jsonl"])
    }

    @Test("A cancelled run leaves the file that was there as it was, and no partial file")
    func cancelledKeepsPrevious() async throws {
        let url = try TestFiles.write("an older catalogue\n", name: "generated.jsonl")
        defer { TestFiles.remove(url) }
        let generator = CatalogGenerator(seed: 5, ingredientNames: names)
        var sawPartial = false
        #expect(throws: CancellationError.self) {
            try generator.write(count: 3_000, to: url) { done in
                // The lines so far are in the hidden file, not under the output's name.
                let files = (try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)) ?? []
                sawPartial = files.contains { $0.hasPrefix(".generated.jsonl.") && $0.hasSuffix(".tmp") }
                withUnsafeCurrentTask { $0?.cancel() }
            }
        }
        #expect(sawPartial)
        #expect(try String(contentsOf: url, encoding: .utf8) == "an older catalogue\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path) == ["generated.jsonl"])
    }

    @Test("A hidden file left by a run that was killed is removed by the next run; one of a live run stays")
    func removesAbandoned() throws {
        let url = try TestFiles.write("", name: "generated.jsonl")
        defer { TestFiles.remove(url) }
        let folder = url.deletingLastPathComponent().path
        // No process has the largest pid; ours is running.
        let abandoned = ".generated.jsonl.\(Int32.max).1.tmp", live = ".generated.jsonl.\(getpid()).1.tmp"
        for name in [abandoned, live] {
            #expect(FileManager.default.createFile(atPath: folder + "/" + name, contents: Data("half".utf8)))
        }
        try CatalogGenerator(seed: 5, ingredientNames: names).write(count: 10, to: url)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == [live, "generated.jsonl"])
    }

    @Test("A folder that does not exist gives an error naming the file and the reason")
    func missingFolder() throws {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("no-such-folder-\(UUID().uuidString)/generated.jsonl")
        let error = try #require(throws: ImportFileError.self) {
            try CatalogGenerator(seed: 5, ingredientNames: names).write(count: 10, to: url)
        }
        #expect(error == ImportFileError(path: url.path, message: "cannot create a temporary file for it: No such file or directory"))
    }

    @Test("A folder as the output is refused before any line is generated, and nothing is left beside it")
    func folderAsOutput() throws {
        let file = try TestFiles.write("", name: "generated.jsonl")
        defer { TestFiles.remove(file) }
        let folder = file.deletingLastPathComponent().appendingPathComponent("catalogue")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        var progressCalls = 0
        let error = try #require(throws: ImportFileError.self) {
            try CatalogGenerator(seed: 5, ingredientNames: names).write(count: 3_000, to: folder) { _ in progressCalls += 1 }
        }
        #expect(error == ImportFileError(path: folder.path, message: "cannot replace it: Is a directory"))
        #expect(progressCalls == 0, "no line was generated")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.deletingLastPathComponent().path).sorted()
                == ["catalogue", "generated.jsonl"])
    }

    @Test("Generated lines parse back with no errors")
    func parsesBack() throws {
        let url = try TestFiles.write("", name: "generated.jsonl")
        defer { TestFiles.remove(url) }
        var reported: [Int] = []
        let generator = CatalogGenerator(seed: 99, ingredientNames: names, chefCount: 50, photoInterval: 100)
        try generator.write(count: 3_500, to: url) { reported.append($0) }
        #expect(reported == [1_000, 2_000, 3_000, 3_500])
        let batch = try RecipeFileReader.readAll(url: url)
        #expect(batch.errors == [])
        #expect(batch.records.count == 3_500)
        #expect(batch.records.first?.sourceID == "g-0000001")
        #expect(batch.records.last?.sourceID == "g-0003500")
        #expect(batch.records.allSatisfy { (3...12).contains($0.ingredients.count) })
        #expect(batch.records.allSatisfy { $0.ingredients.allSatisfy { names.contains($0.name) } })
        #expect(batch.records.filter { $0.photo != nil }.count == 35)
        #expect(Set(batch.records.compactMap(\.chef)).count <= 50)
        #expect(batch.records.allSatisfy { $0.rating.map { (1...5).contains($0) && ($0 * 2).rounded() == $0 * 2 } ?? true })
    }

    @Test("makeLines matches the file, line for line")
    func makeLinesMatchesFile() throws {
        let data = try generate(seed: 3, count: 50)
        let lines = CatalogGenerator(seed: 3, ingredientNames: names).makeLines(count: 50)
        #expect(String(decoding: data, as: UTF8.self) == lines.map { $0 + "\n" }.joined())
    }

    @Test("SplitMix64 matches the reference sequence")
    func splitMix() {
        var random = SplitMix64(seed: 1_234_567)
        #expect([random.next(), random.next(), random.next()] ==
                [6_457_827_717_110_365_317, 3_203_168_211_198_807_973, 9_817_491_932_198_370_423])
    }
}
