import Foundation

/// Parses a predicate format string into a ``PredicateNode`` (recursive descent).
///
/// Precedence, loosest first: `OR`/`||`, `AND`/`&&`, `NOT`/`!`, comparisons, `+ -`,
/// `* /`, unary `-`, key paths (`a.b.@count`). A parenthesis may hold a predicate or an
/// arithmetic expression; the parser decides after reading it, without backtracking.
/// Nesting deeper than ``maximumDepth`` is an error, so no input can overflow the stack.
struct PredicateParser {
    /// The deepest nesting of parentheses, braces, `NOT` and unary minus accepted, each
    /// operator of an arithmetic chain counting as a level.
    static let maximumDepth = 100

    /// What a parenthesized or top-level piece turned out to be.
    enum Term {
        case predicate(PredicateNode)
        case expression(PredicateExpression)
    }

    let source: String
    private var tokens: [PredicateToken] = []
    private var index = 0
    private var depth = 0
    private let arguments: [Any?]
    private var argumentIndex = 0

    init(source: String, arguments: [Any?]) {
        self.source = source
        self.arguments = arguments
    }

    /// Parses the whole source as one predicate.
    /// - Throws: ``PredicateSyntaxError``.
    mutating func parse() throws(PredicateSyntaxError) -> PredicateNode {
        var lexer = PredicateLexer(source)
        tokens = try lexer.tokenize()
        if case .end = current.kind {
            throw error("expected a predicate, found the end of the text", at: current.span,
                        note: "write TRUEPREDICATE to match every object")
        }
        let term = try parseOr()
        guard case .end = current.kind else {
            let note = word(current).flatMap { $0.uppercased().nearest(in: ["AND", "OR"]) }.map { "did you mean '\($0)'?" }
            throw error("expected AND, OR or the end of the predicate, found \(describe(current))", at: current.span, note: note)
        }
        if argumentIndex < arguments.count {
            throw PredicateSyntaxError(.argument,
                "the format uses \(argumentIndex) argument\(argumentIndex == 1 ? "" : "s") but \(arguments.count) were given",
                source: source, span: .unknown)
        }
        return try requirePredicate(term)
    }

    // MARK: Tokens

    private var current: PredicateToken { tokens[index] }

    private mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    private func isPunctuation(_ text: String) -> Bool { current.kind == .punctuation(text) }
    private func isKeyword(_ text: String) -> Bool { current.kind == .keyword(text) }

    func error(_ message: String, at span: SourceSpan, note: String? = nil) -> PredicateSyntaxError {
        PredicateSyntaxError(.syntax, message, note: note, source: source, span: span)
    }

    private func word(_ token: PredicateToken) -> String? {
        switch token.kind {
        case .identifier(let w), .keyword(let w): w
        default: nil
        }
    }

    private func describe(_ token: PredicateToken) -> String {
        switch token.kind {
        case .identifier(let name): "'\(name)'"
        case .keyword(let word): "'\(word)'"
        case .integer, .integerOverflow, .double: "a number"
        case .string: "a string"
        case .variable(let name): "'$\(name)'"
        case .collectionOperator(let name): "'\(name)'"
        case .format(let c): "'%\(c)'"
        case .punctuation(let p): "'\(p)'"
        case .end: "the end of the text"
        }
    }

    private mutating func expect(_ punctuation: String, context: String) throws(PredicateSyntaxError) {
        guard isPunctuation(punctuation) else {
            throw error("expected '\(punctuation)' \(context), found \(describe(current))", at: current.span)
        }
        advance()
    }

    /// One level deeper; `chained` for an operator of an arithmetic chain, which deepens
    /// the tree that the checker, the evaluator and the stores walk as a parenthesis does.
    private mutating func enter(chained: Bool = false) throws(PredicateSyntaxError) {
        depth += 1
        if depth > Self.maximumDepth {
            throw error(chained ? "the arithmetic expression is too long (more than \(Self.maximumDepth) operators and levels of nesting)"
                                : "the predicate is nested too deeply (more than \(Self.maximumDepth) levels)",
                        at: current.span, note: "split it into smaller predicates and combine them")
        }
    }

    private mutating func leave() { depth -= 1 }

    private func requirePredicate(_ term: Term) throws(PredicateSyntaxError) -> PredicateNode {
        switch term {
        case .predicate(let node): return node
        case .expression(let expression):
            throw error("expected a comparison, found an expression alone", at: expression.span,
                        note: "compare it with an operator, such as == or CONTAINS")
        }
    }

    // MARK: Predicates

    private mutating func parseOr() throws(PredicateSyntaxError) -> Term {
        let first = try parseAnd()
        guard isKeyword("OR") || isPunctuation("||") else { return first }
        var operands = [try requirePredicate(first)]
        while isKeyword("OR") || isPunctuation("||") {
            advance()
            operands.append(try requirePredicate(try parseAnd()))
        }
        return .predicate(.or(operands))
    }

    private mutating func parseAnd() throws(PredicateSyntaxError) -> Term {
        let first = try parseNot()
        guard isKeyword("AND") || isPunctuation("&&") else { return first }
        var operands = [try requirePredicate(first)]
        while isKeyword("AND") || isPunctuation("&&") {
            advance()
            operands.append(try requirePredicate(try parseNot()))
        }
        return .predicate(.and(operands))
    }

    private mutating func parseNot() throws(PredicateSyntaxError) -> Term {
        guard isKeyword("NOT") || isPunctuation("!") else { return try parseComparison() }
        let span = current.span
        try enter()
        advance()
        let operand = try requirePredicate(try parseNot())
        leave()
        return .predicate(.not(operand, span))
    }

    private mutating func parseComparison() throws(PredicateSyntaxError) -> Term {
        let start = current.span
        if isKeyword("TRUEPREDICATE") || isKeyword("FALSEPREDICATE") {
            let value = isKeyword("TRUEPREDICATE")
            advance()
            return .predicate(.constant(value))
        }
        var modifier = ComparisonModifier.direct
        switch current.kind {
        case .keyword("ANY"), .keyword("SOME"): modifier = .any
        case .keyword("ALL"): modifier = .all
        case .keyword("NONE"): modifier = .none
        default: break
        }
        if modifier != .direct { advance() }
        let lhs: PredicateExpression
        if modifier == .direct && isPunctuation("(") {
            try enter()
            advance()
            let inner = try parseOr()
            try expect(")", context: "to close the parenthesis")
            leave()
            switch inner {
            case .predicate(let node): return .predicate(node)
            case .expression(let expression): lhs = try continueExpression(after: expression)
            }
        } else {
            lhs = try parseExpression()
        }
        guard let op = try parseOperator() else {
            if modifier == .direct { return .expression(lhs) }
            throw error("expected a comparison operator after \(modifier.rawValue) …, found \(describe(current))",
                        at: current.span)
        }
        let options = try parseOptions()
        let rhs = try parseExpression()
        return .predicate(.comparison(PredicateComparison(
            modifier: modifier, op: op, options: options, lhs: lhs, rhs: rhs, span: start.through(rhs.span))))
    }

    private mutating func parseOperator() throws(PredicateSyntaxError) -> ComparisonOperator? {
        let op: ComparisonOperator?
        switch current.kind {
        case .punctuation("="), .punctuation("=="): op = .equal
        case .punctuation("!="), .punctuation("<>"): op = .notEqual
        case .punctuation("<"): op = .less
        case .punctuation("<="), .punctuation("=<"): op = .lessOrEqual
        case .punctuation(">"): op = .greater
        case .punctuation(">="), .punctuation("=>"): op = .greaterOrEqual
        case .keyword(let word): op = ComparisonOperator(rawValue: word)
        case .identifier(let word):
            let operators = ComparisonOperator.allCases.map(\.rawValue).filter { $0.first!.isLetter }
            if let guess = word.uppercased().nearest(in: operators) {
                throw error("expected a comparison operator, found '\(word)'", at: current.span,
                            note: "did you mean '\(guess)'?")
            }
            op = nil
        default: op = nil
        }
        if op != nil { advance() }
        return op
    }

    private mutating func parseOptions() throws(PredicateSyntaxError) -> ComparisonOptions {
        guard isPunctuation("[") else { return [] }
        let start = current.span
        advance()
        var options: ComparisonOptions = []
        guard case .identifier(let letters) = current.kind else {
            throw error("expected options such as [c], [d], [cd] or [n]", at: start.through(current.span))
        }
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            default:
                throw error("unknown comparison option '\(letter)'", at: current.span,
                            note: "options are c (case), d (diacritics) and n (normalized)")
            }
        }
        advance()
        try expect("]", context: "to close the options")
        return options
    }

    // MARK: Expressions

    private mutating func parseExpression() throws(PredicateSyntaxError) -> PredicateExpression {
        try continueAdditive(after: try parseMultiplicative())
    }

    /// Continues an arithmetic expression whose first operand was read in parentheses.
    private mutating func continueExpression(after first: PredicateExpression) throws(PredicateSyntaxError) -> PredicateExpression {
        try continueAdditive(after: try continueMultiplicative(after: first))
    }

    private mutating func continueAdditive(after first: PredicateExpression) throws(PredicateSyntaxError) -> PredicateExpression {
        var lhs = first, operators = 0
        defer { depth -= operators }
        while isPunctuation("+") || isPunctuation("-") {
            try enter(chained: true)
            operators += 1
            let op: ArithmeticOperator = isPunctuation("+") ? .add : .subtract
            advance()
            let rhs = try parseMultiplicative()
            lhs = .arithmetic(op, lhs, rhs, lhs.span.through(rhs.span))
        }
        return lhs
    }

    private mutating func parseMultiplicative() throws(PredicateSyntaxError) -> PredicateExpression {
        try continueMultiplicative(after: try parseUnary())
    }

    private mutating func continueMultiplicative(after first: PredicateExpression) throws(PredicateSyntaxError) -> PredicateExpression {
        var lhs = first, operators = 0
        defer { depth -= operators }
        while isPunctuation("*") || isPunctuation("/") {
            try enter(chained: true)
            operators += 1
            let op: ArithmeticOperator = isPunctuation("*") ? .multiply : .divide
            advance()
            let rhs = try parseUnary()
            lhs = .arithmetic(op, lhs, rhs, lhs.span.through(rhs.span))
        }
        return lhs
    }

    private mutating func parseUnary() throws(PredicateSyntaxError) -> PredicateExpression {
        guard isPunctuation("-") else { return try parsePostfix() }
        let start = current.span
        try enter()
        advance()
        if case .integerOverflow(let digits) = current.kind, Int64("-" + digits) == .min {
            let span = start.through(current.span)
            advance()
            leave()
            return .value(.integer(.min), span)
        }
        let operand = try parseUnary()
        leave()
        let span = start.through(operand.span)
        switch operand {
        case .value(.integer(let v), _) where v != .min: return .value(.integer(-v), span)
        case .value(.double(let v), _): return .value(.double(-v), span)
        default: return .negate(operand, span)
        }
    }

    private mutating func parsePostfix() throws(PredicateSyntaxError) -> PredicateExpression {
        var expression = try parsePrimary()
        while isPunctuation(".") || isPunctuation("[") {
            if isPunctuation("[") {
                expression = try parseIndex(after: expression)
                continue
            }
            advance()
            let component: [String]
            switch current.kind {
            case .identifier(let name): component = [name]
            case .collectionOperator(let name): component = [name]
            case .format("K"): component = try keyPathArgument().components
            default:
                throw error("expected a key after '.', found \(describe(current))", at: current.span)
            }
            let span = expression.span.through(current.span)
            advance()
            switch expression {
            case .keyPath(let base, let components, _): expression = .keyPath(base: base, components + component, span)
            case .evaluatedObject: expression = .keyPath(base: nil, component, span)
            default: expression = .keyPath(base: expression, component, span)
            }
        }
        return expression
    }

    /// `[FIRST]`, `[LAST]`, `[SIZE]` or `[expression]` after `base`.
    private mutating func parseIndex(after base: PredicateExpression) throws(PredicateSyntaxError) -> PredicateExpression {
        try enter()
        advance()
        let selector: IndexSelector
        switch current.kind {
        case .keyword("FIRST"): selector = .first; advance()
        case .keyword("LAST"): selector = .last; advance()
        case .keyword("SIZE"): selector = .size; advance()
        default:
            if isPunctuation("]") {
                throw error("expected FIRST, LAST, SIZE or an index between '[' and ']'", at: current.span,
                            note: "such as items[FIRST] or items[0]")
            }
            selector = .position(try parseExpression())
        }
        let end = current.span
        try expect("]", context: "to close the index")
        leave()
        return .index(base, selector, base.span.through(end))
    }

    /// `FUNCTION(receiver, 'name', arguments…)`.
    private mutating func parseFunction() throws(PredicateSyntaxError) -> PredicateExpression {
        let start = current.span
        try enter()
        advance()
        try expect("(", context: "after FUNCTION")
        let receiver = try parseExpression()
        try expect(",", context: "after the FUNCTION's receiver")
        let nameExpression = try parseExpression()
        guard case .value(.string(let name), _) = nameExpression else {
            throw error("expected the function's name as a string", at: nameExpression.span,
                        note: "such as FUNCTION(name, 'uppercase')")
        }
        var arguments: [PredicateExpression] = []
        while isPunctuation(",") {
            advance()
            arguments.append(try parseExpression())
        }
        let end = current.span
        try expect(")", context: "to close the FUNCTION")
        leave()
        return .function(receiver: receiver, name: name, arguments: arguments, start.through(end))
    }

    private mutating func parsePrimary() throws(PredicateSyntaxError) -> PredicateExpression {
        let token = current
        switch token.kind {
        case .identifier(let name):
            advance()
            return .keyPath(base: nil, [name], token.span)
        case .integer(let v): advance(); return .value(.integer(v), token.span)
        case .integerOverflow(let digits):
            guard let value = Double(digits) else { throw error("invalid number", at: token.span) }
            advance()
            return .value(.double(value), token.span)
        case .double(let v): advance(); return .value(.double(v), token.span)
        case .string(let v): advance(); return .value(.string(v), token.span)
        case .variable(let name): advance(); return .variable(name, token.span)
        case .keyword("TRUE"), .keyword("YES"): advance(); return .value(.bool(true), token.span)
        case .keyword("FALSE"), .keyword("NO"): advance(); return .value(.bool(false), token.span)
        case .keyword("NULL"), .keyword("NIL"): advance(); return .value(.null, token.span)
        case .keyword("SELF"): advance(); return .evaluatedObject(token.span)
        case .keyword("SUBQUERY"): return try parseSubquery()
        case .keyword("CAST"): return try parseCast()
        case .keyword("FUNCTION"): return try parseFunction()
        case .format(let specifier): return try parseFormatArgument(specifier)
        case .punctuation("{"):
            try enter()
            advance()
            var elements: [PredicateExpression] = []
            if !isPunctuation("}") {
                elements.append(try parseExpression())
                while isPunctuation(",") {
                    advance()
                    elements.append(try parseExpression())
                }
            }
            let end = current.span
            try expect("}", context: "to close the list")
            leave()
            return .aggregate(elements, token.span.through(end))
        case .punctuation("("):
            try enter()
            advance()
            let inner = try parseExpression()
            try expect(")", context: "to close the parenthesis")
            leave()
            return inner
        case .collectionOperator(let name):
            throw error("'\(name)' needs a collection key path before it", at: token.span,
                        note: "write it after a to-many key, such as items.\(name)")
        case .keyword(let word) where PredicateLexer.keywords.contains(word):
            throw error("expected an expression, found the keyword '\(word)'", at: token.span,
                        note: "write #\(word.lowercased()) to use it as a key")
        default:
            throw error("expected an expression, found \(describe(token))", at: token.span)
        }
    }

    private mutating func parseSubquery() throws(PredicateSyntaxError) -> PredicateExpression {
        let start = current.span
        try enter()
        advance()
        try expect("(", context: "after SUBQUERY")
        let collection = try parseExpression()
        try expect(",", context: "after the SUBQUERY collection")
        guard case .variable(let variable) = current.kind else {
            throw error("expected a $variable for the SUBQUERY's objects, found \(describe(current))", at: current.span)
        }
        advance()
        try expect(",", context: "after the SUBQUERY variable")
        let predicate = try requirePredicate(try parseOr())
        let end = current.span
        try expect(")", context: "to close the SUBQUERY")
        leave()
        return .subquery(collection: collection, variable: variable, predicate: predicate, start.through(end))
    }

    private mutating func parseCast() throws(PredicateSyntaxError) -> PredicateExpression {
        let start = current.span
        advance()
        try expect("(", context: "after CAST")
        let negative = isPunctuation("-")
        if negative { advance() }
        var valueToken = current
        switch (negative, valueToken.kind) {
        case (true, .integer(let v)): valueToken.kind = .double(-Double(v))
        case (true, .double(let v)): valueToken.kind = .double(-v)
        case (true, _): throw error("expected a number after '-' in CAST", at: current.span)
        default: break
        }
        advance()
        try expect(",", context: "in CAST")
        guard case .string(let typeName) = current.kind else {
            throw error("expected a type name string in CAST, such as \"NSDate\"", at: current.span)
        }
        advance()
        let end = current.span
        try expect(")", context: "to close the CAST")
        let span = start.through(end)
        let value: PredicateValue?
        // What the string of a supported CAST must be, for the error when it is not.
        var expected: (what: String, note: String)?
        switch (valueToken.kind, typeName) {
        case (.integer(let v), "NSDate"): value = .date(Date(timeIntervalSinceReferenceDate: Double(v)))
        case (.double(let v), "NSDate"): value = .date(Date(timeIntervalSinceReferenceDate: v))
        case (.string(let s), "NSDate"), (.string(let s), "Date"):
            value = ISO8601Date.parse(s).map { .date($0) }
            expected = ("an ISO 8601 date", "such as \"2024-05-01\" or \"2024-05-01T18:30:00Z\" (UTC unless a zone is given)")
        case (.string(let s), "UUID"), (.string(let s), "NSUUID"):
            value = UUID(uuidString: s).map { .uuid($0) }
            expected = ("a UUID", "such as \"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\"")
        case (.string(let s), "NSURL"), (.string(let s), "URL"):
            value = URL(string: s).map { .url($0) }
            expected = ("a URL", "such as \"https://example.com/a\"")
        case (.string(let s), "NSData"), (.string(let s), "Data"):
            value = Data(base64Encoded: s).map { .data($0) }
            expected = ("base64 data", "such as \"AQID\" for the bytes 1, 2, 3")
        case (.string(let s), "ObjectID"):
            value = Self.objectID(from: s).map { .objectID($0) }
            expected = ("an ObjectID", "write it as an ObjectID prints itself: \"#2/p42\" is key 42 of the model's entity at index 2, \"#2/t3.7\" a temporary ID; an ID spelled with its entity's name needs no CAST: compare with the string itself, such as SELF == \"Book/p42\"")
        default: value = nil
        }
        guard let value else {
            if let expected, case .string(let text) = valueToken.kind {
                throw error("'\(text)' is not \(expected.what)", at: span, note: expected.note)
            }
            throw error("unsupported CAST to \"\(typeName)\"", at: span,
                        note: "CAST takes a number and \"NSDate\", or a string and \"NSDate\", \"UUID\", \"NSURL\", \"NSData\" or \"ObjectID\"")
        }
        return .value(value, span)
    }

    /// Reads `#2/p42` or `#2/t3.7` (``ObjectID/description``).
    static func objectID(from text: String) -> ObjectID? {
        guard text.hasPrefix("#") else { return nil }
        let parts = text.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let entity = UInt32(parts[0]), let kind = parts[1].first else { return nil }
        let rest = parts[1].dropFirst()
        if kind == "p", let key = Int64(rest) { return ObjectID(entityIndex: Int(entity), key: key) }
        let numbers = rest.split(separator: ".", omittingEmptySubsequences: false)
        if kind == "t", numbers.count == 2, let tag = UInt32(numbers[0]), tag != 0, let key = Int64(numbers[1]) {
            return ObjectID(entityIndex: Int(entity), key: key, temporaryTag: tag)
        }
        return nil
    }

    // MARK: Format arguments

    private mutating func nextArgument(_ token: PredicateToken) throws(PredicateSyntaxError) -> Any? {
        guard argumentIndex < arguments.count else {
            throw PredicateSyntaxError(.argument, "missing argument for '%\(formatCharacter(token))'",
                                       note: "pass one argument per format specifier", source: source, span: token.span)
        }
        defer { argumentIndex += 1 }
        return arguments[argumentIndex]
    }

    private func formatCharacter(_ token: PredicateToken) -> String {
        if case .format(let c) = token.kind { return String(c) }
        return "?"
    }

    private mutating func keyPathArgument() throws(PredicateSyntaxError) -> (components: [String], span: SourceSpan) {
        let token = current
        let argument = PredicateArgument.unwrap(try nextArgument(token))
        guard let key = argument as? String ?? (argument as? Substring).map(String.init),
              !key.isEmpty, !key.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) else {
            throw PredicateSyntaxError(.argument, "%K needs a non-empty key path string, such as \"owner.name\"",
                                       source: source, span: token.span)
        }
        let components = key.split(separator: ".").map(String.init)
        for component in components where !Self.isKey(component) {
            throw PredicateSyntaxError(.argument, "%K needs key names, and '\(component)' is not one",
                                       note: "keys are letters, digits and _, not starting with a digit, or an aggregate such as @count",
                                       source: source, span: token.span)
        }
        return (components, token.span)
    }

    /// Whether `name` can be written as a key: an identifier, or `@` and an identifier.
    static func isKey(_ name: String) -> Bool {
        var scalars = Substring(name).unicodeScalars[...]
        if scalars.first == "@" { scalars = scalars.dropFirst() }
        guard let first = scalars.first, first.properties.isAlphabetic || first == "_" else { return false }
        return scalars.allSatisfy { scalar in
            if scalar.properties.isAlphabetic || scalar == "_" || scalar.properties.numericType == .decimal { return true }
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: return true
            default: return false
            }
        }
    }

    private mutating func parseFormatArgument(_ specifier: Character) throws(PredicateSyntaxError) -> PredicateExpression {
        let token = current
        if specifier == "K" {
            let (components, span) = try keyPathArgument()
            advance()
            return .keyPath(base: nil, components, span)
        }
        let argument = PredicateArgument.unwrap(try nextArgument(token))
        advance()
        switch specifier {
        case "@":
            guard let expression = PredicateArgument.expression(for: argument, span: token.span) else {
                throw PredicateSyntaxError(.argument,
                    "unsupported argument of type \(argument.map { "\(type(of: $0))" } ?? "nil") for %@",
                    note: "pass a String, number, Bool, Date, Data, UUID, URL, ObjectID, nil, or an array of those",
                    source: source, span: token.span)
            }
            return expression
        case "d", "i", "u":
            guard let argument, case .integer(let v)? = PredicateArgument.scalar(argument) else {
                throw PredicateSyntaxError(.argument, "%\(specifier) needs an integer argument",
                                           source: source, span: token.span)
            }
            return .value(.integer(v), token.span)
        default:
            switch argument.flatMap(PredicateArgument.scalar) {
            case .double(let v)?: return .value(.double(v), token.span)
            case .integer(let v)?: return .value(.double(Double(v)), token.span)
            case .null? where argument is Double || argument is Float: return .value(.null, token.span)  // NaN
            default:
                throw PredicateSyntaxError(.argument, "%\(specifier) needs a floating-point argument",
                                           source: source, span: token.span)
            }
        }
    }
}
