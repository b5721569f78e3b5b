/// A predicate in Core Data's format-string language, parsed once and usable against
/// objects in memory and rows in the SQLite store.
///
/// Use it to filter a fetch, or to test objects that are not saved yet. Values come in as
/// format arguments or `$variables`, never by splicing text into the format string.
/// ```swift
/// let quick = try FetchPredicate("prepMinutes + cookMinutes <= %d AND name CONTAINS[cd] %@", 30, "soup")
/// let byChef = try FetchPredicate("chef.name == $name").substituting(["name": "Ana"])
/// let either = quick || byChef
/// print(either)   // ((… AND …) OR chef.name == "Ana")
/// ```
/// The language is described in the *Predicate Language Reference* article.
///
/// ## Topics
/// - ``init(_:_:)``
/// - ``init(format:argumentArray:)``
/// - ``truePredicate``
/// - ``falsePredicate``
/// - ``substituting(_:)``
/// - ``&&(_:_:)``
/// - ``||(_:_:)``
/// - ``!(_:)``
public struct FetchPredicate: Sendable, Equatable, CustomStringConvertible {
    /// The syntax tree.
    var node: PredicateNode
    /// The text the tree was parsed from, for error messages; nil once composed or substituted.
    let source: String?

    init(node: PredicateNode, source: String?) {
        self.node = node
        self.source = source
    }

    /// Parses a format string with `%@`, `%K`, `%d`, `%i`, `%f` arguments.
    ///
    /// `%@` takes a `String`, an integer, `Double`, `Bool`, `Date`, `Data`, `UUID`, `URL`,
    /// ``ObjectID``, an array or set of those, or `nil` (as `Optional<…>.none`); `%K` takes a
    /// key path string such as `"chef.name"`.
    /// - Throws: ``PredicateSyntaxError`` for malformed text or unusable arguments.
    /// - Complexity: O(n) in the length of the format string.
    public init(_ format: String, _ arguments: any Sendable...) throws {
        try self.init(format: format, argumentArray: arguments)
    }

    /// Parses a format string with its arguments given as an array.
    /// - Throws: ``PredicateSyntaxError``.
    public init(format: String, argumentArray: [any Sendable]) throws {
        var parser = PredicateParser(source: format, arguments: argumentArray.map { $0 as Any? })
        self.init(node: try parser.parse(), source: format)
    }

    /// The predicate every object matches.
    public static let truePredicate = FetchPredicate(node: .constant(true), source: "TRUEPREDICATE")
    /// The predicate no object matches.
    public static let falsePredicate = FetchPredicate(node: .constant(false), source: "FALSEPREDICATE")

    /// The canonical format string; parsing it gives an equal predicate.
    public var description: String { PredicatePrinter.print(node) }

    /// Two predicates are equal when their syntax trees are (where they were written does not matter).
    public static func == (lhs: FetchPredicate, rhs: FetchPredicate) -> Bool { lhs.node == rhs.node }

    /// Both predicates: `(lhs AND rhs)`.
    public static func && (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate {
        FetchPredicate(node: .and([lhs.node, rhs.node]), source: nil)
    }

    /// Either predicate: `(lhs OR rhs)`.
    public static func || (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate {
        FetchPredicate(node: .or([lhs.node, rhs.node]), source: nil)
    }

    /// The negation: `NOT (predicate)`.
    public static prefix func ! (predicate: FetchPredicate) -> FetchPredicate {
        FetchPredicate(node: .not(predicate.node, .unknown), source: nil)
    }

    /// All of the predicates (``truePredicate`` for none).
    public static func and(_ predicates: [FetchPredicate]) -> FetchPredicate {
        predicates.count <= 1 ? predicates.first ?? .truePredicate
            : FetchPredicate(node: .and(predicates.map(\.node)), source: nil)
    }

    /// Any of the predicates (``falsePredicate`` for none).
    public static func or(_ predicates: [FetchPredicate]) -> FetchPredicate {
        predicates.count <= 1 ? predicates.first ?? .falsePredicate
            : FetchPredicate(node: .or(predicates.map(\.node)), source: nil)
    }

    /// Replaces `$variables` with values (`SUBQUERY` variables are left alone).
    ///
    /// A variable without a value stays a variable; checking the predicate then reports it.
    /// ```swift
    /// let template = try FetchPredicate("rating >= $minimum AND chef.name IN $chefs")
    /// let filled = try template.substituting(["minimum": 4, "chefs": ["Ana", "Bo"]])
    /// ```
    /// - Throws: ``PredicateSyntaxError`` when a value has a type the language cannot hold.
    public func substituting(_ variables: [String: any Sendable]) throws -> FetchPredicate {
        var substitution = PredicateSubstitution(variables: variables, source: source ?? description)
        return FetchPredicate(node: try substitution.apply(node, bound: []), source: nil)
    }

    /// The names of the `$variables` that ``substituting(_:)`` would replace.
    public var variableNames: Set<String> {
        var names: Set<String> = []
        PredicateSubstitution.collectVariables(node, bound: [], into: &names)
        return names
    }
}
