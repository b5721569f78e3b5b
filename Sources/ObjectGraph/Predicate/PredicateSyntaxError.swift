/// An error in a predicate: malformed text, or a predicate that does not fit the model.
///
/// It renders like a compiler diagnostic: a summary, the location, the source line,
/// carets under the offending text and, when one is likely, a suggested fix.
/// ```text
/// error: unknown key 'nmae' on entity 'Recipe'
///  --> predicate:1:1
///   | nmae == "Soup"
///   | ^^^^ did you mean 'name'?
/// ```
/// Callers match on ``kind``; people read ``description``.
public struct PredicateSyntaxError: Error, Sendable, CustomStringConvertible {
    /// What kind of problem the predicate has.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The text is not a well-formed predicate.
        public static let syntax = Kind("syntax")
        /// A format argument is missing, extra, or of an unsupported type.
        public static let argument = Kind("argument")
        /// A key path names no attribute or relationship of the entity.
        public static let unknownKey = Kind("unknownKey")
        /// Operand types do not fit the operator (a string compared to a date, a to-many key
        /// without `ANY`, …).
        public static let type = Kind("type")
        /// A `$variable` has no value.
        public static let unknownVariable = Kind("unknownVariable")
        /// `FUNCTION(…)` names a function the language does not have.
        public static let unknownFunction = Kind("unknownFunction")

        /// The kind's name.
        public var description: String { name }
    }

    /// The kind of problem.
    public let kind: Kind
    /// One line saying what is wrong: `unknown key 'nmae' on entity 'Recipe'`.
    public let message: String
    /// A suggestion shown under the carets: `did you mean 'name'?`.
    public let note: String?
    /// The predicate text the error refers to.
    public let source: String
    /// The offset of the offending text in ``source``, in Unicode scalars, when known.
    public let offset: Int?
    /// How many Unicode scalars the offending text spans (at least 1 when ``offset`` is known).
    public let length: Int
    /// What ``source`` is, as the diagnostic's location names it: a predicate, or a key path
    /// (a sort key or a section key path checked on its own).
    var origin = "predicate"

    init(_ kind: Kind, _ message: String, note: String? = nil, source: String, span: SourceSpan) {
        self.kind = kind
        self.message = message
        self.note = note
        self.source = source
        let scalarCount = source.unicodeScalars.count
        if span.isKnown, span.start <= scalarCount {
            self.offset = span.start
            self.length = max(1, min(span.length, scalarCount - span.start))
        } else {
            self.offset = nil
            self.length = 0
        }
    }

    /// The 1-based line and column (in characters) of the offending text.
    public var location: (line: Int, column: Int)? {
        guard let offset else { return nil }
        let (line, start) = Self.line(containing: offset, in: Array(source.unicodeScalars))
        let scalars = Array(source.unicodeScalars)
        return (line, String(String.UnicodeScalarView(scalars[start..<offset])).count + 1)
    }

    /// The 1-based number of the line holding scalar `offset`, and the offset where it starts.
    private static func line(containing offset: Int, in scalars: [Unicode.Scalar]) -> (Int, Int) {
        var line = 1, start = 0
        for index in 0..<min(offset, scalars.count) where scalars[index] == "\n" {
            line += 1
            start = index + 1
        }
        return (line, start)
    }

    /// The rendered diagnostic.
    public var description: String {
        var text = "error: \(message)"
        guard let offset, let (line, column) = location else {
            if !source.isEmpty { text += "\n  | \(Self.excerpt(source, column: 1, carets: 1).text)" }
            if let note { text += "\n  = note: \(note)" }
            return text
        }
        let scalars = Array(source.unicodeScalars)
        let (_, lineStart) = Self.line(containing: offset, in: scalars)
        var lineEnd = lineStart
        while lineEnd < scalars.count, scalars[lineEnd] != "\n" { lineEnd += 1 }
        if lineEnd > lineStart, scalars[lineEnd - 1] == "\r" { lineEnd -= 1 }
        let sourceLine = String(String.UnicodeScalarView(scalars[lineStart..<lineEnd]))
        let printable = String(sourceLine.map { $0 == "\t" ? " " : $0 })
        let spanEnd = min(max(offset, min(offset + length, lineEnd)), scalars.count)
        let spanCharacters = String(String.UnicodeScalarView(scalars[offset..<spanEnd])).count
        let caretCount = max(1, min(spanCharacters, printable.count - (column - 1)))
        let shown = Self.excerpt(printable, column: column, carets: caretCount)
        text += "\n --> \(origin):\(line):\(column)"
        text += "\n  | \(shown.text)"
        text += "\n  | " + String(repeating: " ", count: shown.column - 1) + String(repeating: "^", count: shown.carets)
        if let note { text += " \(note)" }
        return text
    }

    /// The most characters of a source line a diagnostic shows.
    static let excerptLimit = 100

    /// `line` as a diagnostic shows it: whole when short, else ``excerptLimit`` characters
    /// from a little before the span at `column` (1-based) of `carets` characters, with `…`
    /// where text is left out; and where the span's carets go in that excerpt.
    static func excerpt(_ line: String, column: Int, carets: Int) -> (text: String, column: Int, carets: Int) {
        let characters = Array(line)
        guard characters.count > excerptLimit else { return (line, column, carets) }
        let spanStart = column - 1, before = 20
        let start = max(0, min(spanStart - before, characters.count - excerptLimit))
        let end = min(characters.count, start + excerptLimit)
        let text = (start > 0 ? "…" : "") + String(characters[start..<end]) + (end < characters.count ? "…" : "")
        return (text, spanStart - start + 1 + (start > 0 ? 1 : 0), max(1, min(carets, end - spanStart)))
    }

    /// A suggestion for `name` among `candidates`, as a note.
    ///
    /// Uses ``Swift/String/nearest(in:)``, and also counts two swapped neighbouring letters
    /// as one typo (`nmae` → `name`).
    static func suggestion(for name: String, in candidates: [String]) -> String? {
        let guess = name.nearest(in: candidates) ?? candidates.sorted().first { isTransposition(name, $0) }
        return guess.map { "did you mean '\($0)'?" }
    }

    /// Whether `a` becomes `b` by swapping one pair of adjacent characters (ignoring case).
    static func isTransposition(_ a: String, _ b: String) -> Bool {
        let x = Array(a.lowercased()), y = Array(b.lowercased())
        guard x.count == y.count, x != y else { return false }
        let differences = x.indices.filter { x[$0] != y[$0] }
        guard differences.count == 2, differences[1] == differences[0] + 1 else { return false }
        return x[differences[0]] == y[differences[1]] && x[differences[1]] == y[differences[0]]
    }
}
