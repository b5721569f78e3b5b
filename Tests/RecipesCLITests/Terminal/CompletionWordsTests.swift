import Testing
@testable import recipes

/// The Tab-completion snapshot shared with the input thread.
@Suite("CompletionWords")
struct CompletionWordsTests {
    @Test("Matches are the sorted words with the prefix, without duplicates")
    func matches() {
        let words = CompletionWords(["echo", ".read", ".quit", ".read", "", "Recipe"])
        #expect(words.matches(forPrefix: ".") == [".quit", ".read"])
        #expect(words.matches(forPrefix: "R") == ["Recipe"])
        #expect(words.matches(forPrefix: "x").isEmpty)
    }

    @Test("The common prefix is what Tab can insert without choosing")
    func commonPrefix() {
        #expect(CompletionWords.commonPrefix(of: ["import", "import-main", "import-sync"]) == "import")
        #expect(CompletionWords.commonPrefix(of: [".quit", ".read"]) == ".")
        #expect(CompletionWords.commonPrefix(of: []) == "")
    }

    @Test("update replaces the snapshot")
    func update() {
        let words = CompletionWords(["a"])
        words.update(["b"])
        #expect(words.matches(forPrefix: "") == ["b"])
    }
}
