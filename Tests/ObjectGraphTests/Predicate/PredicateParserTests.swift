@testable import ObjectGraph
@testable import ObjectGraphSQLite
import Foundation
import Testing

@Suite("Predicate parser and printer")
struct PredicateParserTests {
    @Test("The printer writes canonical text with explicit parentheses", arguments: [
        ("a == 1 AND b == 2 OR NOT c == 3", "((a == 1 AND b == 2) OR NOT (c == 3))"),
        ("a = 1 && (b <> 2 || c =< 3)", "(a == 1 AND (b != 2 OR c <= 3))"),
        ("any x.y beginswith[CD] 'q'", #"ANY x.y BEGINSWITH[cd] "q""#),
        ("SOME x.y == 1", "ANY x.y == 1"),
        ("a + b * c - -d > 60", "((a + (b * c)) - -d) > 60"),
        ("a == -5", "a == -5"),
        ("a BETWEEN {1, 2.5}", "a BETWEEN {1, 2.5}"),
        ("x == yes AND y == nil AND z == TRUE", "(x == YES AND y == nil AND z == YES)"),
        ("#in == 1 AND SELF.#name == 2", "(#in == 1 AND name == 2)"),
        (#"s == 'it''s'"#, #"s == "it""#),
        ("SUBQUERY(items, $i, $i.n > 1).@count > 0", "SUBQUERY(items, $i, $i.n > 1).@count > 0"),
        ("items.@sum.price > 1e3", "items.@sum.price > 1000.0"),
        ("n == 0x1F OR n == 0b11 OR n == 0o17", "(n == 31 OR n == 3 OR n == 15)"),
        (#"s == "50%% \"off\"\n""#, #"s == "50%% \"off\"\n""#),
        ("TRUEPREDICATE", "TRUEPREDICATE"),
        ("(((a == 1)))", "a == 1"),
        ("items[first].name == 1 AND items[Last] == nil", "(items[FIRST].name == 1 AND items[LAST] == nil)"),
        ("a.items[size] > 2 AND items[0x2].b.c == 1", "(a.items[SIZE] > 2 AND items[2].b.c == 1)"),
        ("$x.items[LAST].name == 1", "$x.items[LAST].name == 1"),
        ("SELF.items[FIRST] == nil", "items[FIRST] == nil"),
        ("a.b[FIRST].c[LAST].d == 1", "a.b[FIRST].c[LAST].d == 1"),
        ("function(name, 'uppercase') == 'X'", #"FUNCTION(name, "uppercase") == "X""#),
        ("FUNCTION(a + 1, 'modulus:by:', -b) == 0", #"FUNCTION((a + 1), "modulus:by:", -b) == 0"#),
        ("ANY FUNCTION(FUNCTION(x.y, 'lowercase'), 'length') > 2", #"ANY FUNCTION(FUNCTION(x.y, "lowercase"), "length") > 2"#),
    ])
    func canonical(source: String, expected: String) throws {
        if source == #"s == 'it''s'"# {
            // Two adjacent strings are a syntax error, not a concatenation.
            #expect(throws: PredicateSyntaxError.self) { try FetchPredicate(source) }
            return
        }
        let predicate = try FetchPredicate(source)
        #expect(predicate.description == expected)
        #expect(try FetchPredicate(predicate.description) == predicate)
    }

    @Test("Values without literals print as CAST and read back")
    func castRoundTrip() throws {
        let id = ObjectID(entityIndex: 2, key: 42)
        let temporary = ObjectID(entityIndex: 1, key: 7, temporaryTag: 3)
        let arguments: [any Sendable] = [
            Date(timeIntervalSince1970: 1_700_000_000.25), Date(timeIntervalSince1970: 0), UUID(), URL(string: "https://a.b/c?d=%20")!,
            Data([0, 255, 7]), id, temporary, Double.infinity, -0.5, Int64.max, "tab\there \u{1}",
        ]
        let format = (0..<arguments.count).map { "k\($0) == %@" }.joined(separator: " AND ")
        let predicate = try FetchPredicate(format: format, argumentArray: arguments)
        let printed = predicate.description
        #expect(printed.contains(##"CAST("#2/p42", "ObjectID")"##))
        #expect(printed.contains(##"CAST("#1/t3.7", "ObjectID")"##))
        #expect(printed.contains(#"CAST(-978307200.0, "NSDate")"#))
        #expect(try FetchPredicate(printed) == predicate)
    }

    @Test("A CAST names what its value should have been, or the casts there are", arguments: [
        (#"SELF == CAST("Recipe/p1", "ObjectID")"#, "'Recipe/p1' is not an ObjectID", #"needs no CAST: compare with the string itself, such as SELF == "Book/p42""#),
        (##"SELF == CAST("#x/p1", "ObjectID")"##, "'#x/p1' is not an ObjectID", "#2/t3.7"),
        (#"u == CAST("not-a-uuid", "UUID")"#, "'not-a-uuid' is not a UUID", "E621E1F8"),
        (#"d == CAST("***", "NSData")"#, "'***' is not base64 data", "AQID"),
        (#"d == CAST("AQID", "NSNumber")"#, #"unsupported CAST to "NSNumber""#, #"a string and "NSDate", "UUID""#),
        (#"d == CAST("2024-02-30", "NSDate")"#, "'2024-02-30' is not an ISO 8601 date", "2024-05-01T18:30:00Z"),
        (#"d == CAST(3, "UUID")"#, #"unsupported CAST to "UUID""#, #"a number and "NSDate", or a string and "NSDate""#),
    ])
    func castErrors(source: String, message: String, note: String) {
        do {
            _ = try FetchPredicate(source)
            Issue.record("expected an error for \(source)")
        } catch let error as PredicateSyntaxError {
            #expect(error.message == message)
            #expect(error.note?.contains(note) == true, "\(error.note ?? "no note")")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("Format arguments: %@, %K, %d, %f, nil, arrays and sets")
    func formatArguments() throws {
        let none: String? = nil
        #expect(try FetchPredicate("%K == %@", "chef.name", "O'Brien").description == #"chef.name == "O'Brien""#)
        #expect(try FetchPredicate("a == %d AND b == %f AND c == %i", 3, 2.5, 7).description == "(a == 3 AND b == 2.5 AND c == 7)")
        #expect(try FetchPredicate("a == %@", none).description == "a == nil")
        #expect(try FetchPredicate("a IN %@", [1, 2]).description == "a IN {1, 2}")
        #expect(try FetchPredicate("a IN %@", Set(["x"])).description == #"a IN {"x"}"#)
        #expect(try FetchPredicate("a == %@", true).description == "a == YES")
        #expect(try FetchPredicate("a == '%@'").description == #"a == "%%@""#)
        #expect(try FetchPredicate(format: "a == %@", argumentArray: [Int16(4)]).description == "a == 4")
    }

    @Test("Argument mistakes are errors", arguments: [
        ("a == %@", 0, "missing argument for '%@'"),
        ("a == 1", 1, "the format uses 0 arguments but 1 were given"),
        ("%K == 1", 2, "%K needs a non-empty key path string"),
        ("a == %d", 3, "%d needs an integer argument"),
        ("a == %@", 4, "unsupported argument of type"),
    ])
    func argumentErrors(format: String, variant: Int, message: String) {
        let arguments: [[any Sendable]] = [[], [1], [3], ["x"], [Unsupported()]]
        do {
            _ = try FetchPredicate(format: format, argumentArray: arguments[variant])
            Issue.record("expected an error for \(format)")
        } catch let error as PredicateSyntaxError {
            #expect(error.kind == .argument)
            #expect(error.message.contains(message), "\(error.message)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("A NaN argument is nil, so the predicate prints to text that parses back")
    func nanArgument() throws {
        for predicate in [try FetchPredicate("a == %@", Double.nan), try FetchPredicate("a == %f", Float.nan)] {
            #expect(predicate.description == "a == nil")
            #expect(try FetchPredicate(predicate.description) == predicate)
        }
    }

    @Test("Index and FUNCTION arguments come from the format's arguments and variables")
    func indexArguments() throws {
        let predicate = try FetchPredicate("items[%d].name == %@ AND FUNCTION(%K, %@) == 3", 2, "x", "a.b", "length")
        #expect(predicate.description == #"(items[2].name == "x" AND FUNCTION(a.b, "length") == 3)"#)
        let template = try FetchPredicate("items[$n].name == nil")
        #expect(try template.substituting(["n": 1]).description == "items[1].name == nil")
    }

    @Test("Syntax errors render as diagnostics with carets")
    func diagnostics() {
        func rendered(_ text: String) -> String {
            do { _ = try FetchPredicate(text); return "no error" } catch { return "\(error)" }
        }
        #expect(rendered(#"name CONTAIN "soup""#) == """
            error: expected a comparison operator, found 'CONTAIN'
             --> predicate:1:6
              | name CONTAIN "soup"
              |      ^^^^^^^ did you mean 'CONTAINS'?
            """)
        #expect(rendered(#"name == "soup"#) == """
            error: unterminated string
             --> predicate:1:9
              | name == "soup
              |         ^^^^^ add a closing "
            """)
        #expect(rendered("a == 1 ANDD b == 2") == """
            error: expected AND, OR or the end of the predicate, found 'ANDD'
             --> predicate:1:8
              | a == 1 ANDD b == 2
              |        ^^^^ did you mean 'AND'?
            """)
        #expect(rendered("name") == """
            error: expected a comparison, found an expression alone
             --> predicate:1:1
              | name
              | ^^^^ compare it with an operator, such as == or CONTAINS
            """)
        #expect(rendered("(a == 1") == """
            error: expected ')' to close the parenthesis, found the end of the text
             --> predicate:1:8
              | (a == 1
              |        ^
            """)
        #expect(rendered("a ==[x] 'b'").hasPrefix("error: unknown comparison option 'x'"))
        #expect(rendered("a == 1 AND in == 2").contains("write #in to use it as a key"))
        #expect(rendered("").hasPrefix("error: expected a predicate, found the end of the text"))
        #expect(rendered("a == 0x").hasPrefix("error: invalid base-16 number"))
        #expect(rendered("a == 12abc").hasPrefix("error: a number cannot run into a name"))
        #expect(rendered("a == @count").contains("needs a collection key path before it"))
        #expect(rendered("a ~ b").hasPrefix("error: unexpected character '~'"))
        #expect(rendered("items[] == nil").hasPrefix("error: expected FIRST, LAST, SIZE or an index between '[' and ']'"))
        #expect(rendered("items[FIRST == nil").hasPrefix("error: expected ']' to close the index"))
        #expect(rendered("FUNCTION(name) == 1").hasPrefix("error: expected ',' after the FUNCTION's receiver"))
        #expect(rendered("FUNCTION(name, upper) == 1").hasPrefix("error: expected the function's name as a string"))
        #expect(rendered("FUNCTION(name, 'x'").hasPrefix("error: expected ')' to close the FUNCTION"))
        #expect(rendered("a == 1\n  AND b === 2").contains("--> predicate:2:11\n  |   AND b === 2\n  |           ^"))
    }

    @Test("Deep nesting is an error, not a stack overflow")
    func depthGuard() {
        for opener in ["(", "NOT ", "-", "{"] {
            let text = String(repeating: opener, count: 5_000) + "a == 1"
            #expect(throws: PredicateSyntaxError.self) { try FetchPredicate(text) }
        }
        let fine = String(repeating: "(", count: 50) + "a == 1" + String(repeating: ")", count: 50)
        #expect(throws: Never.self) { try FetchPredicate(fine) }
    }

    @Test("A long predicate's error shows the part around the problem, its carets in place")
    func longSourceExcerpt() throws {
        let deep = String(repeating: "(", count: 20_000) + "a == 1"
        do {
            _ = try FetchPredicate(deep)
            Issue.record("expected an error")
        } catch let error as PredicateSyntaxError {
            let lines = error.description.split(separator: "\n").map(String.init)
            #expect(error.description.count < 400, "\(error.description.count) characters")
            #expect(lines.count == 4 && lines[2].hasPrefix("  | …(((") && lines[2].hasSuffix("(((…"), "\(lines)")
            // The caret stands under the character at the reported column.
            let column = try #require(error.location?.column)
            let caret = try #require(lines[3].firstIndex(of: "^"))
            let shown = Array(lines[2].dropFirst(4)), offset = lines[3].distance(from: lines[3].startIndex, to: caret) - 4
            #expect(shown[offset] == "(" && offset > 0 && offset < shown.count - 1, "column \(column), offset \(offset)")
        }
        let tail = (0..<50).map { "servings == \($0)" }.joined(separator: " AND ") + " AND nmae == 1"
        let recipe = try #require(try TestModel.make().entity(named: "Recipe"))
        do {
            _ = try FetchPredicate(tail).checked(for: recipe)
            Issue.record("expected an error")
        } catch let error as PredicateSyntaxError {
            let lines = error.description.split(separator: "\n").map(String.init)
            #expect(lines.count == 4 && lines[2].hasPrefix("  | …") && lines[2].hasSuffix("servings == 49 AND nmae == 1"),
                    "\(error.description)")
            let name = try #require(lines[2].range(of: "nmae")), caret = try #require(lines[3].range(of: "^^^^ "))
            #expect(lines[2].distance(from: lines[2].startIndex, to: name.lowerBound)
                    == lines[3].distance(from: lines[3].startIndex, to: caret.lowerBound), "\(error.description)")
        }
    }

    @Test("Long AND chains are flat, not deep")
    func longChains() throws {
        let text = (0..<5_000).map { "a == \($0)" }.joined(separator: " AND ")
        let predicate = try FetchPredicate(text)
        guard case .and(let operands) = predicate.node else { Issue.record("not an AND"); return }
        #expect(operands.count == 5_000)
    }

    @Test("Substitution replaces free variables only")
    func substitution() throws {
        let template = try FetchPredicate("rating >= $min AND chef.name IN $chefs AND SUBQUERY(ingredients, $min, $min.quantity > 1).@count > 0")
        #expect(template.variableNames == ["min", "chefs"])
        let filled = try template.substituting(["min": 4, "chefs": ["Ana", "Bo"]])
        #expect(filled.description == #"(rating >= 4 AND chef.name IN {"Ana", "Bo"} AND SUBQUERY(ingredients, $min, $min.quantity > 1).@count > 0)"#)
        #expect(filled.variableNames.isEmpty)
        #expect(throws: PredicateSyntaxError.self) { try template.substituting(["min": Unsupported()]) }
    }

    @Test("Composition builds the same trees as the text")
    func composition() throws {
        let a = try FetchPredicate("a == 1"), b = try FetchPredicate("b == 2")
        #expect((a && b) == (try FetchPredicate("a == 1 AND b == 2")))
        #expect((a || b).description == "(a == 1 OR b == 2)")
        #expect((!a).description == "NOT (a == 1)")
        #expect(FetchPredicate.and([]) == .truePredicate)
        #expect(FetchPredicate.or([a]) == a)
        #expect(FetchPredicate.truePredicate.description == "TRUEPREDICATE")
    }
}

/// A value of a type the predicate language has no literal for.
struct Unsupported: Sendable {}

@Suite("Predicate documentation examples")
struct PredicateDocumentationTests {
    @Test("The article's first example prints as shown")
    func articleExample() throws {
        let quick = try FetchPredicate("prepMinutes + cookMinutes <= %d AND name CONTAINS[cd] %@", 30, "soupe")
        let byChef = try FetchPredicate("chef.name == $name").substituting(["name": "Ana"])
        #expect((quick || byChef).description
                == #"(((prepMinutes + cookMinutes) <= 30 AND name CONTAINS[cd] "soupe") OR chef.name == "Ana")"#)
    }

    @Test("A string literal's escapes resolve as StringEscapes resolves them", arguments: [
        (#"a\tb\nc\r\0"#, "a\tb\nc\r\0"),
        (#"\"q\" \'s\' \\"#, #""q" 's' \"#),
        (#"\u00e9\u{1F35C}\u{41}"#, "é🍜A"),
        (#"\d+ and \*"#, #"\d+ and \*"#),
    ])
    func escapes(body: String, expected: String) throws {
        #expect(try StringEscapes.resolving(body) == expected)
        let predicate = try FetchPredicate("name == \"\(body)\"")
        guard case .comparison(let comparison) = predicate.node, case .value(.string(let text), _) = comparison.rhs else {
            Issue.record("not a string comparison"); return
        }
        #expect(text == expected)
    }

    @Test("A malformed \\u escape names itself and where it starts, in both readers")
    func malformedEscapes() {
        #expect(throws: StringEscapes.Failure(message: #"invalid Unicode escape '\u{110000}'"#, offset: 2, length: 10)) {
            try StringEscapes.resolving(#"ab\u{110000}c"#)
        }
        #expect(throws: StringEscapes.Failure(message: #"expected '}' in a \u{…} escape"#, offset: 0, length: 5)) {
            try StringEscapes.resolving(#"\u{41"#)
        }
        #expect(throws: StringEscapes.Failure(message: #"invalid Unicode escape '\u'"#, offset: 1, length: 2)) {
            try StringEscapes.resolving(#"x\uzz"#)
        }
        do {
            _ = try FetchPredicate(#"name == "ab\u{110000}""#)
            Issue.record("parsed")
        } catch let error as PredicateSyntaxError {
            #expect(error.message == #"invalid Unicode escape '\u{110000}'"#)
            #expect(error.offset == 11 && error.length == 10)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}

@Suite("Predicate fuzz regressions")
struct PredicateFuzzRegressionTests {
    @Test("Combining marks after quotes, backslashes and escapes round-trip", arguments: [
        "\\\u{301}w+", "pho\u{1b}\u{309}{309}", "\u{301}start", "end\"\u{301}", "tab\t\u{301}", "%\u{301}",
    ])
    func combiningMarks(value: String) throws {
        let predicate = try FetchPredicate("name == %@", value)
        let reparsed = try FetchPredicate(predicate.description)
        #expect(reparsed == predicate, "\(predicate.description.debugDescription)")
        guard case .comparison(let comparison) = reparsed.node, case .value(.string(let text), _) = comparison.rhs else {
            Issue.record("not a string comparison"); return
        }
        #expect(Array(text.unicodeScalars) == Array(value.unicodeScalars))
    }

    @Test("Key paths that start with an aggregate print with SELF, and %K rejects non-keys")
    func aggregateFirst() throws {
        let predicate = try FetchPredicate("SELF.@count == 1 AND %K == 2", "@max.x")
        #expect(predicate.description == "(SELF.@count == 1 AND SELF.@max.x == 2)")
        #expect(try FetchPredicate(predicate.description) == predicate)
        #expect(throws: PredicateSyntaxError.self) { try FetchPredicate("%K == 1", "my key") }
        #expect(throws: PredicateSyntaxError.self) { try FetchPredicate("%K == 1", "1st") }
    }

    @Test("Int64.min and integers beyond Int64 round-trip")
    func extremeIntegers() throws {
        let minimum = try FetchPredicate("a == %@", Int64.min)
        #expect(minimum.description == "a == -9223372036854775808")
        #expect(try FetchPredicate(minimum.description) == minimum)
        #expect(try FetchPredicate("a == 9223372036854775808").description == "a == 9.223372036854776e+18")
        #expect(try FetchPredicate("a == -9223372036854775809").description == "a == -9.223372036854776e+18")
    }

    @Test("Columns count characters even when the text has combining marks")
    func columns() {
        do {
            _ = try FetchPredicate("name == \"e\u{301}\" ANDD x == 1")
            Issue.record("expected an error")
        } catch let error as PredicateSyntaxError {
            #expect(error.location?.column == 13)
            #expect(error.description.hasSuffix("\n  |             ^^^^ did you mean 'AND'?"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
