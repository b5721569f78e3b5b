import ObjectGraph
/// The SQL functions predicates compile to, implemented in Swift so that SQL and the
/// in-memory evaluator share one implementation of Unicode folding and string matching.
///
/// | Function | Result |
/// | --- | --- |
/// | `og_fold(text, flags)` | `text` folded: flags 1 = case, 2 = diacritics, 3 = both (NULL stays NULL) |
/// | `og_canonical(text)` | ``Swift/String/canonicalFolded()`` of `text`, for derived search columns |
/// | `og_match(op, flags, lhs, rhs)` | 1 when `lhs op rhs` (1 BEGINSWITH, 2 ENDSWITH, 3 CONTAINS, 4 LIKE, 5 MATCHES), else 0 (also for NULL); a `MATCHES` cut short by its task's cancellation interrupts the statement |
/// | `og_function(code, receiver, arguments…)` | ``PredicateFunction`` `code` applied to the operands (NULL for an unknown code) |
///
/// ```swift
/// try SQLFunctions.register(on: connection)   // on every connection the store opens
/// ```
enum SQLFunctions {
    /// Registers the functions on `connection`.
    /// - Throws: ``SQLiteError`` when SQLite refuses a registration.
    static func register(on connection: SQLiteConnection) throws {
        try connection.createFunction("og_fold", argumentCount: 2) { arguments in
            guard case .text(let text) = arguments[0], case .integer(let flags) = arguments[1] else { return arguments[0] }
            return .text(text.folded(caseInsensitive: flags & 1 != 0, diacriticInsensitive: flags & 2 != 0))
        }
        try connection.createFunction("og_canonical", argumentCount: 1) { arguments in
            guard case .text(let text) = arguments[0] else { return arguments[0] }
            return .text(text.canonicalFolded())
        }
        try connection.createFunction("og_match", argumentCount: 4) { arguments in
            guard case .integer(let code) = arguments[0], case .integer(let flags) = arguments[1],
                  let op = StringMatching.op(code: code),
                  case .text(let lhs) = arguments[2], case .text(let rhs) = arguments[3] else { return .integer(0) }
            var options: ComparisonOptions = []
            if flags & 1 != 0 { options.insert(.caseInsensitive) }
            if flags & 2 != 0 { options.insert(.diacriticInsensitive) }
            // A cancelled task stops a long regular expression match, and its statement.
            guard let result = StringMatching.matches(op, options, lhs, rhs, stoppingWhen: { Task.isCancelled }) else { return nil }
            return .integer(result ? 1 : 0)
        }
        try connection.createFunction("og_function", argumentCount: -1) { arguments in
            guard case .integer(let code)? = arguments.first, let function = PredicateFunction(rawValue: code) else { return .null }
            return function.apply(Array(arguments.dropFirst()))
        }
    }
}
