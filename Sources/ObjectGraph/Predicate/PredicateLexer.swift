/// One token of a predicate format string.
struct PredicateToken: Sendable, Equatable {
    /// What the token is.
    enum Kind: Sendable, Equatable {
        case identifier(String)          // name, or #name (escaped keyword)
        case keyword(String)             // uppercased reserved word
        case integer(Int64)
        case integerOverflow(String)     // decimal digits beyond Int64 (read as a double, or as Int64.min after '-')
        case double(Double)
        case string(String)
        case variable(String)            // $name
        case collectionOperator(String)  // @count, @sum, …
        case format(Character)           // %@, %K, %d, %i, %f
        case punctuation(String)         // ( ) { } [ ] , . + - * / and operators
        case end
    }

    var kind: Kind
    var span: SourceSpan
}

/// Splits a predicate format string into tokens.
///
/// It reads Unicode scalars, not characters, so a combining mark after a quote or a
/// backslash cannot hide it; spans count scalars.
///
/// Keywords are case-insensitive; a `#` before a word makes it an identifier even when it
/// is a keyword (`#IN`). Strings take single or double quotes with `\` escapes; inside a
/// string `%%` is a single `%` and no other format specifier is expanded. Numbers may be
/// decimal, with fraction and exponent, or `0x`, `0o`, `0b` integers.
struct PredicateLexer {
    /// The reserved words (uppercased).
    static let keywords: Set<String> = [
        "AND", "OR", "NOT", "ANY", "SOME", "ALL", "NONE", "IN", "LIKE", "MATCHES", "BEGINSWITH",
        "ENDSWITH", "CONTAINS", "BETWEEN", "TRUE", "YES", "FALSE", "NO", "NULL", "NIL", "SELF",
        "TRUEPREDICATE", "FALSEPREDICATE", "SUBQUERY", "CAST", "FIRST", "LAST", "SIZE", "FUNCTION",
    ]

    private let scalars: [Unicode.Scalar]
    private let source: String
    private var position = 0

    init(_ source: String) {
        self.source = source
        self.scalars = Array(source.unicodeScalars)
    }

    /// All tokens, ending with `.end`.
    /// - Throws: ``PredicateSyntaxError`` for an unterminated string, a bad number or escape,
    ///   or a character the language does not use.
    mutating func tokenize() throws(PredicateSyntaxError) -> [PredicateToken] {
        var tokens: [PredicateToken] = []
        while true {
            let token = try next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func error(_ message: String, at start: Int, length: Int = 1, note: String? = nil) -> PredicateSyntaxError {
        PredicateSyntaxError(.syntax, message, note: note, source: source, span: SourceSpan(start: start, length: length))
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        position + offset < scalars.count ? scalars[position + offset] : nil
    }

    private func text(_ range: Range<Int>) -> String { String(String.UnicodeScalarView(scalars[range])) }

    private static func isDigit(_ c: Unicode.Scalar) -> Bool { c.value >= 0x30 && c.value <= 0x39 }
    private static func isIdentifierStart(_ c: Unicode.Scalar) -> Bool { c.properties.isAlphabetic || c == "_" }
    private static func isIdentifierPart(_ c: Unicode.Scalar) -> Bool {
        if isIdentifierStart(c) || c.properties.numericType == .decimal { return true }
        switch c.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    private mutating func next() throws(PredicateSyntaxError) -> PredicateToken {
        while let c = peek(), c.properties.isWhitespace { position += 1 }
        let start = position
        guard let c = peek() else { return PredicateToken(kind: .end, span: SourceSpan(start: start, length: 1)) }
        func token(_ kind: PredicateToken.Kind) -> PredicateToken {
            PredicateToken(kind: kind, span: SourceSpan(start: start, length: position - start))
        }
        if Self.isIdentifierStart(c) {
            let word = readWord()
            let upper = word.uppercased()
            return token(Self.keywords.contains(upper) ? .keyword(upper) : .identifier(word))
        }
        if c == "#" {
            position += 1
            guard let first = peek(), Self.isIdentifierStart(first) else {
                throw error("expected a name after '#'", at: start)
            }
            return token(.identifier(readWord()))
        }
        if c == "$" || c == "@" {
            position += 1
            guard let first = peek(), Self.isIdentifierStart(first) else {
                throw error("expected a name after '\(c)'", at: start)
            }
            let word = readWord()
            return token(c == "$" ? .variable(word) : .collectionOperator("@" + word.lowercased()))
        }
        if Self.isDigit(c) || (c == "." && (peek(1).map(Self.isDigit) ?? false)) {
            return token(try readNumber())
        }
        if c == "\"" || c == "'" { return token(.string(try readString(quote: c))) }
        if c == "%" {
            position += 1
            while peek() == "l" || peek() == "h" || peek() == "q" { position += 1 }
            guard let specifier = peek() else { throw error("expected a format specifier after '%'", at: start) }
            position += 1
            switch specifier {
            case "@", "K", "d", "i", "f", "u", "g", "e": return token(.format(Character(specifier)))
            case "%": throw error("'%%' stands for a literal '%', which is only meaningful inside a string",
                                  at: start, length: 2, note: "write the text in quotes, such as \"50%%\"")
            default:
                throw error("unknown format specifier '%\(specifier)'", at: start, length: position - start,
                            note: "use %@ for values, %K for key paths, %d for integers or %f for doubles")
            }
        }
        let two = peek(1).map { String(Character(c)) + String(Character($0)) }
        if let two, ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||"].contains(two) {
            position += 2
            return token(.punctuation(two))
        }
        if "(){}[],.+-*/!=<>".unicodeScalars.contains(c) {
            position += 1
            return token(.punctuation(String(Character(c))))
        }
        throw error("unexpected character '\(c)'", at: start)
    }

    private mutating func readWord() -> String {
        let start = position
        while let c = peek(), Self.isIdentifierPart(c) { position += 1 }
        return text(start..<position)
    }

    private mutating func readNumber() throws(PredicateSyntaxError) -> PredicateToken.Kind {
        let start = position
        if peek() == "0", let marker = peek(1), "xXoObB".unicodeScalars.contains(marker) {
            position += 2
            let radix = "xX".unicodeScalars.contains(marker) ? 16 : "oO".unicodeScalars.contains(marker) ? 8 : 2
            let digitsStart = position
            while let c = peek(), c.properties.isASCIIHexDigit || c == "_" { position += 1 }
            let digits = text(digitsStart..<position).filter { $0 != "_" }
            guard !digits.isEmpty, let value = Int64(digits, radix: radix) else {
                throw error("invalid base-\(radix) number", at: start, length: position - start)
            }
            return .integer(value)
        }
        while let c = peek(), Self.isDigit(c) { position += 1 }
        var isDouble = false
        if peek() == ".", let after = peek(1), Self.isDigit(after) {
            isDouble = true
            position += 1
            while let c = peek(), Self.isDigit(c) { position += 1 }
        }
        if let e = peek(), e == "e" || e == "E" {
            var look = 1
            if peek(1) == "+" || peek(1) == "-" { look = 2 }
            if let d = peek(look), Self.isDigit(d) {
                isDouble = true
                position += look
                while let c = peek(), Self.isDigit(c) { position += 1 }
            }
        }
        if let c = peek(), Self.isIdentifierStart(c) {
            throw error("a number cannot run into a name", at: start, length: position - start + 1)
        }
        let literal = text(start..<position)
        if !isDouble { return Int64(literal).map { .integer($0) } ?? .integerOverflow(literal) }
        guard let value = Double(literal) else { throw error("invalid number '\(literal)'", at: start, length: position - start) }
        return .double(value)
    }

    private mutating func readString(quote: Unicode.Scalar) throws(PredicateSyntaxError) -> String {
        let start = position
        position += 1
        var text = ""
        while true {
            guard let c = peek() else {
                throw error("unterminated string", at: start, length: position - start,
                            note: "add a closing \(quote)")
            }
            position += 1
            if c == quote { return text }
            if c == "%" && peek() == "%" { position += 1; text.append("%"); continue }
            guard c == "\\" else { text.unicodeScalars.append(c); continue }
            guard peek() != nil else { throw error("unterminated string", at: start, length: position - start) }
            do {
                try StringEscapes.resolve(scalars, at: &position, into: &text.unicodeScalars)
            } catch {
                throw self.error(error.message, at: error.offset, length: error.length)
            }
        }
    }
}
