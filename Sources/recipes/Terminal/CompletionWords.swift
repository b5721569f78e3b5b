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
/// command; an argument of a command that takes a file (`import`, `.read`, `.open`) is a
/// file name, read from the folder it names, as psql completes `\i` (a name with a space
/// comes quoted, and `~/` is the home folder); any other word is an argument (an entity, a
/// clause keyword, a key of the entity the line names, or of every entity before it names
/// one), and after a relationship and a dot (`chef.`, `ingredients.ingredient.`) a key of
/// the relationship's destination. A word starts after a space or punctuation, so `(rat`
/// and `name==` complete too.
///
/// ```swift
/// let words = CompletionWords(.init(commands: ["fetch", ".read"], arguments: ["Chef", "Recipe", "where"],
///                                   keysOfEntity: ["Chef": ["name"], "Recipe": ["name", "rating"]]))
/// words.completion(of: ".").candidates                    // [".read"]
/// words.completion(of: "fetch R").candidates              // ["Recipe", "rating"]
/// words.completion(of: "fetch Chef where r").candidates   // []: rating is Recipe's
/// ```
final class CompletionWords: Sendable {
    /// What a handler offers to complete.
    struct Vocabulary: Sendable, Equatable {
        /// The first word of a line: commands and dot-commands.
        var commands: [String] = []
        /// Any later word: entity names, clause keywords.
        var arguments: [String] = []
        /// The keys of each entity: a later word of a line that names the entity (`fetch Chef
        /// where n`) completes to its keys; before the line names one, to any entity's.
        var keysOfEntity: [String: [String]] = [:]
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

        /// What Tab puts in place of `word`: the candidates' common prefix, and with a single
        /// candidate a space too, unless it is a folder (whose files come next).
        var completed: String {
            var completion = CompletionWords.commonPrefix(of: candidates)
            if candidates.count == 1, !completion.hasSuffix("/") { completion += " " }
            return completion
        }

        /// What Tab inserts after `word`, when the completion extends it.
        var insertion: String {
            let completed = completed
            return completed.hasPrefix(word) && completed.count > word.count ? String(completed.dropFirst(word.count)) : ""
        }

        /// What replaces `word` when the completion rewrites it rather than extends it (a file
        /// name with a space, typed without quotes, comes back quoted); nil otherwise.
        var replacement: String? {
            let completed = completed
            return candidates.isEmpty || completed.hasPrefix(word) ? nil : completed
        }
    }

    private let vocabulary = Locked(Vocabulary())
    /// The folder a file name's `~` stands for.
    private let home: String

    /// Creates a snapshot holding `initial`; `environment` tells the home folder (`HOME`).
    init(_ initial: Vocabulary = Vocabulary(), environment: [String: String] = ProcessInfo.processInfo.environment) {
        home = CommandWords.homeFolder(environment)
        update(initial)
    }

    /// Replaces the snapshot; empty and duplicate words are dropped, the rest sorted.
    func update(_ newVocabulary: Vocabulary) {
        var sorted = newVocabulary
        sorted.commands = Self.sortedWords(newVocabulary.commands)
        sorted.arguments = Self.sortedWords(newVocabulary.arguments)
        sorted.keysOfEntity = newVocabulary.keysOfEntity.mapValues(Self.sortedWords)
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
        if let command = earlierWords.first, vocabulary.fileCommands.contains(String(command)),
           let argument = FileArgument(typed.drop { $0 == " " }.dropFirst(command.count)), !argument.text.hasPrefix("-") {
            return Completion(word: argument.typed, candidates: argument.candidates(home: home))
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
        // The keys of the first entity the line names after its command, or of them all.
        let entity = earlierWords.dropFirst().lazy.compactMap { vocabulary.keysOfEntity[String($0)] }.first
        let keys = entity ?? Array(vocabulary.keysOfEntity.values.joined())
        let candidates = Set(vocabulary.arguments.filter { $0.hasPrefix(word) } + keys.filter { $0.hasPrefix(word) })
        return Completion(word: word, candidates: candidates.sorted())
    }

    /// The longest prefix shared by all `candidates` (empty for none).
    static func commonPrefix(of candidates: [String]) -> String {
        guard var prefix = candidates.first else { return "" }
        for candidate in candidates.dropFirst() {
            while !candidate.hasPrefix(prefix) { prefix.removeLast() }
        }
        return prefix
    }

    /// The file name being typed after a command that reads a file, as the shell's words
    /// read it: quotes group (a name may have spaces), `\` escapes inside them, and a
    /// leading `~/` is the home folder.
    struct FileArgument {
        /// The argument as typed, from its start to the cursor.
        var typed: String
        /// The name it stands for, its quotes removed and its escapes resolved.
        var text: String
        /// The quote left open at the cursor, if any.
        var openQuote: Character?

        /// The last argument of `arguments` (the line after its command); nil when the
        /// cursor is not in one (the line ends with the command itself).
        init?(_ arguments: Substring) {
            guard arguments.first == " " else { return nil }
            var typed = "", text = ""
            var quote: Character?
            var previous: Character?
            var index = arguments.startIndex
            while index < arguments.endIndex {
                let character = arguments[index]
                index = arguments.index(after: index)
                defer { previous = character }
                if let open = quote {
                    typed.append(character)
                    if character == "\\", index < arguments.endIndex {
                        typed.append(arguments[index])
                        text.append(arguments[index])
                        index = arguments.index(after: index)
                    } else if character == open {
                        quote = nil
                    } else {
                        text.append(character)
                    }
                } else if character == " " {
                    typed = ""
                    text = ""
                } else {
                    typed.append(character)
                    // As in the shell's words: an apostrophe after a letter or digit is a letter.
                    if character == "\"" || (character == "'" && !(previous?.isLetter ?? false) && !(previous?.isNumber ?? false)) {
                        quote = character
                    } else {
                        text.append(character)
                    }
                }
            }
            self.typed = typed
            self.text = text
            openQuote = quote
        }

        /// The files and folders (with a trailing `/`) whose names start as ``text`` does, in
        /// the folder it names (the current one without a `/`), written as the shell reads
        /// them: quoted when one has a space or a quote (or a quote was opened), `~/` kept in
        /// front (for `homeFolder`). Hidden ones only when the name typed starts with a dot.
        /// Runs on the input thread.
        func candidates(home homeFolder: String) -> [String] {
            let home = text == "~" || text.hasPrefix("~/") ? homeFolder : nil
            if text == "~" { return home.map { _ in ["~/"] } ?? [] }
            let folder = text.lastIndex(of: "/").map { String(text[...$0]) } ?? ""
            let start = text.dropFirst(folder.count)
            let folderOnDisk = home.map { $0 + folder.dropFirst() } ?? folder
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folderOnDisk.isEmpty ? "." : folderOnDisk)) ?? []
            let paths = names.filter { $0.hasPrefix(start) && (start.hasPrefix(".") || !$0.hasPrefix(".")) }.sorted().map { name in
                var isFolder: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: folderOnDisk + name, isDirectory: &isFolder)
                return (path: folder + name, isFolder: isFolder.boolValue)
            }
            let needsQuotes = openQuote != nil || paths.contains { $0.path.contains { $0 == " " || $0 == "\t" || $0 == "\"" || $0 == "'" } }
            guard needsQuotes else { return paths.map { $0.isFolder ? $0.path + "/" : $0.path } }
            let quote = openQuote ?? "\""
            return paths.map { path, isFolder in
                let kept = home != nil ? "~/" : ""
                var escaped = ""
                for character in path.dropFirst(kept.count) {
                    if character == "\\" || character == quote { escaped.append("\\") }
                    escaped.append(character)
                }
                return kept + String(quote) + escaped + (isFolder ? "/" : String(quote))
            }
        }
    }

    private static func sortedWords(_ words: [String]) -> [String] {
        Array(Set(words.filter { !$0.isEmpty })).sorted()
    }
}
