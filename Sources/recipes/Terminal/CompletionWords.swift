import Foundation
import ObjectGraph

/// The words that Tab completes, shared between the session and the input thread.
///
/// The session replaces the snapshot after each command (``update(_:)``); libedit's
/// completion callback, which runs on the input thread while `el_gets` blocks, reads it
/// (``completion(of:)``). A lock guards the snapshot, so neither side ever enters
/// the other's isolation.
///
/// What a word completes to depends on where it stands: the first word of a line is a
/// command; the word after a command that takes a file (`import`, `.read`, `.open`) is a
/// file name, read from the folder it names, as psql completes `\i`; any other word is an
/// argument (an entity, a key, a clause keyword), and after a relationship and a dot
/// (`chef.`, `ingredients.ingredient.`) a key of the relationship's destination. A word
/// starts after a space or punctuation, so `(rat` and `name==` complete too.
///
/// ```swift
/// let words = CompletionWords(.init(commands: ["echo", ".read", ".quit"], arguments: ["Recipe"]))
/// words.completion(of: ".").candidates        // [".quit", ".read"]
/// words.completion(of: "echo R").candidates   // ["Recipe"]
/// ```
final class CompletionWords: Sendable {
    /// What a handler offers to complete.
    struct Vocabulary: Sendable, Equatable {
        /// The first word of a line: commands and dot-commands.
        var commands: [String] = []
        /// Any later word: entity names, keys, clause keywords.
        var arguments: [String] = []
        /// The keys after each relationship name and a dot: those of its destination entity
        /// (of all of them, when relationships of several entities share the name).
        var keysAfterRelationship: [String: [String]] = [:]
        /// The commands whose next word is a file name.
        var fileCommands: Set<String> = []
    }

    /// The word before the cursor and what it may become.
    struct Completion: Equatable {
        /// The part of the line being completed.
        var word: String
        /// The whole words that can replace it, sorted.
        var candidates: [String]

        /// What Tab inserts after `word`: the candidates' common prefix, and with a single
        /// candidate a space too, unless it is a folder (whose files come next).
        var insertion: String {
            var completion = CompletionWords.commonPrefix(of: candidates)
            if candidates.count == 1, !completion.hasSuffix("/") { completion += " " }
            return completion.count > word.count ? String(completion.dropFirst(word.count)) : ""
        }
    }

    private let vocabulary = Locked(Vocabulary())

    /// Creates a snapshot holding `initial`.
    init(_ initial: Vocabulary = Vocabulary()) { update(initial) }

    /// Replaces the snapshot; empty and duplicate words are dropped, the rest sorted.
    func update(_ newVocabulary: Vocabulary) {
        var sorted = newVocabulary
        sorted.commands = Self.sortedWords(newVocabulary.commands)
        sorted.arguments = Self.sortedWords(newVocabulary.arguments)
        sorted.keysAfterRelationship = newVocabulary.keysAfterRelationship.mapValues(Self.sortedWords)
        vocabulary.withLock { $0 = sorted }
    }

    /// The word that ends `typed` (the line up to the cursor) and its candidates.
    ///
    /// - Complexity: O(*n*) in the number of words; a file name reads one folder.
    func completion(of typed: String) -> Completion {
        let vocabulary = vocabulary.withLock { $0 }
        let lastWord = String(typed.split(separator: " ", omittingEmptySubsequences: false).last ?? "")
        let earlierWords = typed.dropLast(lastWord.count).split(separator: " ")
        if earlierWords.count == 1, vocabulary.fileCommands.contains(String(earlierWords[0])) {
            return Completion(word: lastWord, candidates: Self.fileNames(startingWith: lastWord))
        }
        let word = String(typed.reversed().prefix { $0.isLetter || $0.isNumber || "_.".contains($0) }.reversed())
        guard word.count != lastWord.count || !earlierWords.isEmpty else {
            return Completion(word: word, candidates: vocabulary.commands.filter { $0.hasPrefix(word) })
        }
        if let dot = word.lastIndex(of: "."), dot != word.startIndex {
            let path = word[..<dot], key = word[word.index(after: dot)...]
            let relationship = String(path.split(separator: ".").last ?? "")
            let keys = vocabulary.keysAfterRelationship[relationship] ?? []
            return Completion(word: word, candidates: keys.filter { $0.hasPrefix(key) }.map { "\(path).\($0)" })
        }
        return Completion(word: word, candidates: vocabulary.arguments.filter { $0.hasPrefix(word) })
    }

    /// The longest prefix shared by all `candidates` (empty for none).
    static func commonPrefix(of candidates: [String]) -> String {
        guard var prefix = candidates.first else { return "" }
        for candidate in candidates.dropFirst() {
            while !candidate.hasPrefix(prefix) { prefix.removeLast() }
        }
        return prefix
    }

    /// The paths of the files and folders (with a trailing `/`) that start with `prefix`,
    /// read from the folder it names (the current one without a `/`); hidden ones only
    /// when `prefix`'s last part starts with a dot. Runs on the input thread.
    private static func fileNames(startingWith prefix: String) -> [String] {
        let folder = prefix.lastIndex(of: "/").map { String(prefix[...$0]) } ?? ""
        let start = prefix.dropFirst(folder.count)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
        return names.filter { $0.hasPrefix(start) && (start.hasPrefix(".") || !$0.hasPrefix(".")) }.sorted().map { name in
            var isFolder: ObjCBool = false
            let path = folder + name
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
            return isFolder.boolValue ? path + "/" : path
        }
    }

    private static func sortedWords(_ words: [String]) -> [String] {
        Array(Set(words.filter { !$0.isEmpty })).sorted()
    }
}
