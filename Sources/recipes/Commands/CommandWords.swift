import Foundation
import ObjectGraph

/// Splits command text into words and clauses, honouring quotes.
///
/// `insert Recipe name="Crème brûlée" servings=4` gives the words `insert`, `Recipe`,
/// `name=Crème brûlée`, `servings=4`; `fetch Recipe where rating > 4 sort name limit 5`
/// gives the clauses `where` → `rating > 4`, `sort` → `name`, `limit` → `5`.
enum CommandWords {
    /// One word of a command, and whether any of it was written in quotes.
    struct Word: Equatable {
        /// The word, its quotes removed and its escapes resolved.
        var text: String
        /// Whether a part of the word was quoted: `name="nil"` is the text `nil`, not no value.
        var isQuoted: Bool
    }

    /// Whitespace-separated words; quotes group (and are removed), `\` escapes inside quotes.
    /// An apostrophe inside a word is a letter: `search soupe a l'oignon`, `name=O'Brien`.
    static func split(_ text: String) throws -> [String] {
        try words(text).map(\.text)
    }

    /// A file name as typed, with a leading `~/` (or a lone `~`) made the home folder, as
    /// Tab completion writes it: `import ~/Downloads/recipes.jsonl`.
    static func filePath(_ word: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        guard word == "~" || word.hasPrefix("~/") else { return word }
        return homeFolder(environment) + word.dropFirst()
    }

    /// The home folder that `~` stands for: `$HOME`, else the user's from the system.
    static func homeFolder(_ environment: [String: String]) -> String {
        environment["HOME"] ?? NSHomeDirectory()
    }

    /// ``split(_:)``'s words, each saying whether it was quoted.
    ///
    /// Inside quotes a backslash escapes as in a predicate's strings (``StringEscapes``), so
    /// that a value means the same after `set` as after `where`.
    static func words(_ text: String) throws -> [Word] {
        var words: [Word] = []
        var current = ""
        var quoted = ""  // the quoted part being read, its escapes as written
        var quote: Character?
        var inWord = false
        var isQuoted = false
        var previous: Character?
        let characters = Array(text)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            index += 1
            defer { previous = character }
            if let open = quote {
                if character == "\\", index < characters.count {
                    quoted.append(character)
                    quoted.append(characters[index])
                    index += 1
                } else if character == open {
                    do {
                        current += try StringEscapes.resolving(quoted)
                    } catch {
                        throw CommandError("\(error.message) in: \(text)")
                    }
                    quoted = ""
                    quote = nil
                } else {
                    quoted.append(character)
                }
            } else if opensQuote(character, after: previous) {
                quote = character
                inWord = true
                isQuoted = true
            } else if character.isWhitespace {
                if inWord { words.append(Word(text: current, isQuoted: isQuoted)) }
                current = ""
                inWord = false
                isQuoted = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if quote != nil { throw CommandError("unterminated quote in: \(text)") }
        if inWord { words.append(Word(text: current, isQuoted: isQuoted)) }
        return words
    }

    /// Whether `character` opens a quoted part: a double quote, or a single quote that does
    /// not follow a letter or digit (there it is an apostrophe, as in `l'oignon`).
    private static func opensQuote(_ character: Character, after previous: Character?) -> Bool {
        switch character {
        case "\"": true
        case "'": !(previous?.isLetter ?? false) && !(previous?.isNumber ?? false)
        default: false
        }
    }

    /// Splits `text` at the top-level keywords (outside quotes and parentheses), case-insensitively.
    ///
    /// - Returns: the text before the first keyword, and each keyword's text in order.
    static func clauses(_ text: String, keywords: Set<String>) -> (head: String, clauses: [(keyword: String, text: String)]) {
        var cuts: [(keyword: String, start: String.Index, end: String.Index)] = []
        var quote: Character?
        var depth = 0
        var index = text.startIndex
        var previousIsSpace = true
        while index < text.endIndex {
            let character = text[index]
            if let open = quote {
                if character == "\\" { index = text.index(after: index) } else if character == open { quote = nil }
            } else if opensQuote(character, after: index > text.startIndex ? text[text.index(before: index)] : nil) {
                quote = character
            } else if character == "(" || character == "{" {
                depth += 1
            } else if character == ")" || character == "}" {
                depth -= 1
            } else if depth == 0, previousIsSpace, character.isLetter {
                var end = index
                while end < text.endIndex, text[end].isLetter { end = text.index(after: end) }
                let word = text[index..<end].lowercased()
                if keywords.contains(word), end == text.endIndex || text[end].isWhitespace {
                    cuts.append((word, index, end))
                    index = end
                    previousIsSpace = false
                    continue
                }
            }
            if index < text.endIndex {
                previousIsSpace = text[index].isWhitespace
                index = text.index(after: index)
            }
        }
        guard let first = cuts.first else { return (text.trimmed, []) }
        var result: [(String, String)] = []
        for (position, cut) in cuts.enumerated() {
            let end = position + 1 < cuts.count ? cuts[position + 1].start : text.endIndex
            result.append((cut.keyword, String(text[cut.end..<end]).trimmed))
        }
        return (String(text[..<first.start]).trimmed, result)
    }

    /// `text` without the word `flag` (such as `--batch`) wherever it stands alone outside
    /// quotes, and whether it was there.
    ///
    /// `delete Recipe where rating < 2 --batch` gives `delete Recipe where rating < 2` and
    /// `true`; `where name == '--batch'` keeps its quoted text.
    static func removingFlag(_ flag: String, from text: String) -> (text: String, found: Bool) {
        var result = ""
        var found = false
        var quote: Character?
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            let startsWord = index == text.startIndex || text[text.index(before: index)].isWhitespace
            if quote == nil, startsWord, text[index...].hasPrefix(flag) {
                let end = text.index(index, offsetBy: flag.count)
                if end == text.endIndex || text[end].isWhitespace {
                    found = true
                    index = end
                    continue
                }
            }
            if let open = quote {
                if character == "\\", text.index(after: index) < text.endIndex {
                    result.append(character)
                    index = text.index(after: index)
                    result.append(text[index])
                    index = text.index(after: index)
                    continue
                }
                if character == open { quote = nil }
            } else if opensQuote(character, after: index > text.startIndex ? text[text.index(before: index)] : nil) {
                quote = character
            }
            result.append(character)
            index = text.index(after: index)
        }
        return (found ? result.trimmed : text, found)
    }

    /// `key=value` into its parts; a quoted value is text as written (`name="nil"` is not nil).
    static func assignment(_ word: Word) throws -> Assignment {
        let text = word.text
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw CommandError("expected key=value, found '\(text)'")
        }
        return Assignment(key: String(text[..<equals]), value: String(text[text.index(after: equals)...]),
                          isQuoted: word.isQuoted)
    }

    /// One `key=value` of `insert` or `update … set`, as typed.
    struct Assignment {
        /// The key before `=`.
        var key: String
        /// The text after `=`.
        var value: String
        /// Whether the value was quoted: then `nil` and `null` are that text, not no value.
        var isQuoted: Bool

        /// Whether the value clears the key: `nil` or `null`, unquoted.
        var isNil: Bool { !isQuoted && ["nil", "null"].contains(value.lowercased()) }
    }
}

extension String {
    /// The text without leading and trailing whitespace.
    var trimmed: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}
