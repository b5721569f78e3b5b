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
        fileCommands: ["import", ".read", ".open"])

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

    @Test("After the line's entity, that entity's keys only; before it names one, every entity's")
    func keysOfTheLinesEntity() {
        let words = CompletionWords(.init(commands: ["fetch", "update"], arguments: ["Chef", "Recipe", "where", "set"],
                                          keysOfEntity: ["Chef": ["name", "recipes"], "Recipe": ["chef", "name", "rating"]]))
        #expect(words.completion(of: "fetch Chef where r").candidates == ["recipes"])
        #expect(words.completion(of: "fetch Recipe where r").candidates == ["rating"])
        #expect(words.completion(of: "update Chef where (na").candidates == ["name"])
        #expect(words.completion(of: "update Chef where name == 'x' set r").candidates == ["recipes"])
        #expect(words.completion(of: "fetch r").candidates == ["rating", "recipes"], "no entity yet: every entity's keys")
    }

    @Test("The shell's vocabulary: after 'fetch Chef where ', Chef's keys, not Recipe's")
    @MainActor func shellKeysOfTheLinesEntity() async throws {
        var invocation = Invocation()
        invocation.isInMemory = true
        let shell = try await RecipeShell.open(invocation, output: CapturedOutput())
        let words = CompletionWords(shell.completionVocabulary)
        let chef = words.completion(of: "fetch Chef where ").candidates
        #expect(chef.contains("name") && chef.contains("recipes"))
        #expect(!chef.contains("rating") && !chef.contains("servings"), "Recipe's keys: \(chef)")
        #expect(words.completion(of: "fetch Recipe where rat").candidates == ["rating"])
    }

    @Test("A file name with a space comes quoted; an open quote is kept and closed after a file")
    func fileNamesWithSpaces() throws {
        let folder = try TemporaryDirectory()
        let base: String = folder.url.path + "/"
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("My Recipes"), withIntermediateDirectories: true)
        for name in ["My Recipes/week one.jsonl", "My Recipes/week two.jsonl", "plain.jsonl"] {
            _ = FileManager.default.createFile(atPath: base + name, contents: nil)
        }
        let words = CompletionWords(Self.vocabulary)
        let unquoted = words.completion(of: "import \(base)My")
        #expect(unquoted.candidates == ["\"\(base)My Recipes/"])
        #expect(unquoted.replacement == "\"\(base)My Recipes/" && unquoted.insertion.isEmpty, "the word is rewritten, quoted")
        let inside = words.completion(of: "import \"\(base)My Recipes/week o")
        #expect(inside.word == "\"\(base)My Recipes/week o")
        #expect(inside.insertion == "ne.jsonl\" ", "the quote closes after a file")
        #expect(words.completion(of: "import '\(base)My Recipes/w").insertion == "eek ", "a single quote stays single")
        #expect(words.completion(of: ".read \(base)pl").insertion == "ain.jsonl ", "no quotes without a space")
        #expect(words.completion(of: ".open --migrate \(base)pl").insertion == "ain.jsonl ", "after an option too")
        // What completion writes, the shell reads back as the one file.
        let typed = "\(base)" + "My Recipes/week one.jsonl"
        #expect(try CommandWords.split("import \"\(typed)\"") == ["import", typed])
    }

    @Test("~/ completes in the home folder and stays ~/ on the line; the commands read it as the home folder")
    func homeFolder() throws {
        // A home folder of the test's own (HOME in the environment given): nothing is
        // written to the real one.
        let home = try TemporaryDirectory()
        let environment = ["HOME": home.url.path]
        let folder = home.url.appendingPathComponent("recipes-completion-test")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("catalogue.jsonl").path, contents: nil)
        let words = CompletionWords(Self.vocabulary, environment: environment)
        let name = folder.lastPathComponent
        #expect(words.completion(of: "import ~").candidates == ["~/"])
        #expect(words.completion(of: "import ~/\(name.dropLast(2))").candidates == ["~/\(name)/"])
        #expect(words.completion(of: "import ~/\(name)/cat").insertion == "alogue.jsonl ")
        #expect(CommandWords.filePath("~/\(name)/catalogue.jsonl", environment: environment) == folder.path + "/catalogue.jsonl")
        #expect(CommandWords.filePath("a~/b", environment: environment) == "a~/b")
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
