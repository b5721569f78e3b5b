/// A parsed predicate: the typed syntax tree that ``FetchPredicate`` wraps.
///
/// The tree is SQL-free and model-free; the type checker resolves it against an entity
/// (``CheckedPredicate``) before it is evaluated in memory or lowered to SQL. `AND` and
/// `OR` chains written at one level are n-ary nodes; parentheses make nested nodes, so the
/// printer can reproduce the exact tree (`parse(print(p)) == p`).
indirect enum PredicateNode: Sendable, Equatable {
    /// `TRUEPREDICATE` or `FALSEPREDICATE`.
    case constant(Bool)
    /// `NOT p`.
    case not(PredicateNode, SourceSpan)
    /// `p AND q AND …` (two or more operands).
    case and([PredicateNode])
    /// `p OR q OR …` (two or more operands).
    case or([PredicateNode])
    /// `[ANY|ALL|NONE] lhs op[options] rhs`.
    case comparison(PredicateComparison)
}

/// One comparison: `ANY ingredients.name BEGINSWITH[cd] "sal"`.
struct PredicateComparison: Sendable, Equatable {
    var modifier: ComparisonModifier
    var op: ComparisonOperator
    var options: ComparisonOptions
    var lhs: PredicateExpression
    var rhs: PredicateExpression
    /// Where the comparison was written (ignored by `==`).
    var span: SourceSpan
}

/// An expression: a key path, a value, a variable, arithmetic, an aggregate, a subquery.
indirect enum PredicateExpression: Sendable, Equatable {
    /// A key path from `base` (nil: the evaluated object), e.g. `chef.name`, `$x.name`,
    /// `SUBQUERY(…).@count`, `ingredients.@sum.quantity`.
    case keyPath(base: PredicateExpression?, [String], SourceSpan)
    /// A constant (a literal or a format argument).
    case value(PredicateValue, SourceSpan)
    /// `$name`, replaced by ``FetchPredicate/substituting(_:)`` or bound by a `SUBQUERY`.
    case variable(String, SourceSpan)
    /// `SELF`: the evaluated object.
    case evaluatedObject(SourceSpan)
    /// `{a, b, …}`.
    case aggregate([PredicateExpression], SourceSpan)
    /// `a + b`, `a - b`, `a * b`, `a / b`.
    case arithmetic(ArithmeticOperator, PredicateExpression, PredicateExpression, SourceSpan)
    /// `-a` (a negative number literal is folded into a value instead).
    case negate(PredicateExpression, SourceSpan)
    /// `SUBQUERY(collection, $variable, predicate)`.
    case subquery(collection: PredicateExpression, variable: String, predicate: PredicateNode, SourceSpan)
    /// `collection[FIRST]`, `collection[LAST]`, `collection[SIZE]`, `collection[index]`: an
    /// object of an ordered to-many relationship, or the relationship's size.
    case index(PredicateExpression, IndexSelector, SourceSpan)
    /// `FUNCTION(receiver, 'name', arguments…)`: one of ``PredicateFunction``'s functions.
    case function(receiver: PredicateExpression, name: String, arguments: [PredicateExpression], SourceSpan)

    /// Where the expression was written.
    var span: SourceSpan {
        switch self {
        case .keyPath(_, _, let s), .value(_, let s), .variable(_, let s), .evaluatedObject(let s),
             .aggregate(_, let s), .arithmetic(_, _, _, let s), .negate(_, let s), .subquery(_, _, _, let s),
             .index(_, _, let s), .function(_, _, _, let s):
            return s
        }
    }
}

/// What `[…]` after a to-many key path selects.
enum IndexSelector: Sendable, Equatable {
    /// `[FIRST]`: the first object in the relationship's order.
    case first
    /// `[LAST]`: the last object.
    case last
    /// `[SIZE]`: the number of objects (as `@count`).
    case size
    /// `[n]`: the object at a 0-based position (the checker accepts a whole number ≥ 0).
    case position(PredicateExpression)
}

/// `ANY`/`SOME`, `ALL`, `NONE`, or nothing.
package enum ComparisonModifier: String, Sendable, Equatable {
    case direct = "", any = "ANY", all = "ALL", none = "NONE"
}

/// The comparison operators of the format-string language.
package enum ComparisonOperator: String, Sendable, Equatable, CaseIterable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case between = "BETWEEN"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    case like = "LIKE"
    case matches = "MATCHES"
    case `in` = "IN"

    /// Whether the operator orders its operands (`<`, `<=`, `>`, `>=`).
    var isOrdering: Bool { [.less, .lessOrEqual, .greater, .greaterOrEqual].contains(self) }

    /// Whether the operator works on strings only.
    var isStringOperator: Bool { [.beginsWith, .endsWith, .contains, .like, .matches].contains(self) }

    /// The operator with its operands swapped (`a < b` is `b > a`).
    package var swapped: ComparisonOperator {
        switch self {
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        default: self
        }
    }
}

/// The string options `[c]`, `[d]`, `[n]` (any combination) after an operator.
package struct ComparisonOptions: OptionSet, Sendable, Hashable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }
    /// `[c]`: case-insensitive (Unicode case folding).
    package static let caseInsensitive = ComparisonOptions(rawValue: 1)
    /// `[d]`: diacritic-insensitive.
    package static let diacriticInsensitive = ComparisonOptions(rawValue: 2)
    /// `[n]`: the strings are already normalized; compare the stored bytes.
    static let normalized = ComparisonOptions(rawValue: 4)

    /// Whether the operands are folded before comparing (`[c]` or `[d]`).
    package var folds: Bool { contains(.caseInsensitive) || contains(.diacriticInsensitive) }

    /// `[cd]`, `[n]`, or empty.
    var formatted: String {
        if isEmpty { return "" }
        var letters = ""
        if contains(.caseInsensitive) { letters += "c" }
        if contains(.diacriticInsensitive) { letters += "d" }
        if contains(.normalized) { letters += "n" }
        return "[\(letters)]"
    }
}

/// `+`, `-`, `*`, `/`.
package enum ArithmeticOperator: String, Sendable, Equatable {
    case add = "+", subtract = "-", multiply = "*", divide = "/"
}

/// A range of the source text, in characters from the start (0-based).
///
/// Spans locate errors; they never distinguish two trees, so `==` ignores them and a
/// printed-then-reparsed tree equals the original.
struct SourceSpan: Sendable, Equatable, CustomStringConvertible {
    var start: Int
    var length: Int

    /// A span for nodes built in code (composition, substitution); renders without a caret.
    static let unknown = SourceSpan(start: -1, length: 0)

    var isKnown: Bool { start >= 0 }

    /// The span from `self`'s start to `other`'s end.
    func through(_ other: SourceSpan) -> SourceSpan {
        guard isKnown, other.isKnown else { return isKnown ? self : other }
        return SourceSpan(start: start, length: max(length, other.start + other.length - start))
    }

    static func == (lhs: SourceSpan, rhs: SourceSpan) -> Bool { true }

    var description: String { "\(start)+\(length)" }
}
