import Foundation
import Testing
@testable import recipes

/// The Tab-completion snapshot shared with the input thread.
@Suite("CompletionWords")
struct CompletionWordsTests {
    static let vocabulary = CompletionWords.Vocabulary(
        commands: ["fetch", "echo", ".read", ".quit", ".read", "", "import"],
        arguments: ["Recipe", "rating", "recipes", "where", "sort", "fetch", ""],
        keysAfterRelationship: ["chef": ["name", "recipes"], "ingredients": ["ingredient", "quantity"],
                                "ingredient": ["name"]],
        fileCommands: ["import", ".read"])

    @Test("The first word is a command: sorted, without duplicates, and no argument among them")
    func commands() {
        let words = CompletionWords(Self.vocabulary)
        #expect(words.completion(of: ".").candidates == [".quit", ".read"])
        #expect(words.completion(of: "  fe").candidates == ["fetch"])
        #expect(words.completion(of: "").candidates == [".quit", ".read", "echo", "fetch", "import"])
        #expect(words.completion(of: "R").candidates.isEmpty, "an entity is no command")
    }

    @Test("A later word is an argument, starting after a space or punctuation")
    func arguments() {
        let words = CompletionWords(Self.vocabulary)
        #expect(words.completion(of: "fetch R") == .init(word: "R", candidates: ["Recipe"]))
        #expect(words.completion(of: "fetch Recipe where (ra") == .init(word: "ra", candidates: ["rating"]))
        #expect(words.completion(of: "fetch Recipe where rating>3 AND !re").candidates == ["recipes"])
        #expect(words.completion(of: "fetch Recipe x").candidates.isEmpty)
    }

    @Test("After a relationship and a dot, the keys of its destination, at any depth")
    func keyPaths() {
        let words = CompletionWords(Self.vocabulary)
        #expect(words.completion(of: "fetch Recipe keys chef.") == .init(word: "chef.", candidates: ["chef.name", "chef.recipes"]))
        #expect(words.completion(of: "fetch Recipe where chef.na").insertion == "me ")
        #expect(words.completion(of: "count Recipe where ANY ingredients.ingredient.n").candidates
                == ["ingredients.ingredient.name"])
        #expect(words.completion(of: "fetch Recipe where rating > 3.").candidates.isEmpty)
    }

    @Test("After a command that reads a file, the names in the folder typed; a folder ends in a slash")
    func fileNames() throws {
        let folder = try TemporaryDirectory()
        let sampleData = folder.url.appendingPathComponent("SampleData")
        try FileManager.default.createDirectory(at: sampleData, withIntermediateDirectories: true)
        for name in ["recipes.jsonl", "recipes.tsv", ".hidden"] {
            _ = FileManager.default.createFile(atPath: sampleData.appendingPathComponent(name).path, contents: nil)
        }
        let words = CompletionWords(Self.vocabulary)
        let base: String = folder.url.path + "/"
        let data: String = base + "SampleData/"
        #expect(words.completion(of: "import \(base)Sam").candidates == [data])
        #expect(words.completion(of: "import \(base)Sam").insertion == "pleData/", "no space after a folder")
        #expect(words.completion(of: ".read \(data)rec").insertion == "ipes.")
        let listed: [String] = ["\(data)recipes.jsonl", "\(data)recipes.tsv"]
        #expect(words.completion(of: ".read \(data)").candidates == listed, "hidden files stay hidden")
        #expect(words.completion(of: "import \(data)recipes.j").insertion == "sonl ")
        #expect(words.completion(of: "fetch \(base)Sam").candidates.isEmpty, "fetch takes no file")
    }

    @Test("The common prefix is what Tab can insert without choosing")
    func commonPrefix() {
        #expect(CompletionWords.commonPrefix(of: ["import", "import-main", "import-sync"]) == "import")
        #expect(CompletionWords.commonPrefix(of: [".quit", ".read"]) == ".")
        #expect(CompletionWords.commonPrefix(of: []) == "")
    }

    @Test("update replaces the snapshot")
    func update() {
        let words = CompletionWords(.init(commands: ["a"]))
        words.update(.init(commands: ["b"]))
        #expect(words.completion(of: "").candidates == ["b"])
    }
}
