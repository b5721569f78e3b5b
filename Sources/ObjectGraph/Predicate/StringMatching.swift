import Foundation

/// The string operators, shared by the in-memory evaluator and the SQL functions so both
/// back ends give the same answer.
///
/// Operands are folded first when `[c]` or `[d]` is given (``Swift/String/folded(caseInsensitive:diacriticInsensitive:)``);
/// then `BEGINSWITH`, `ENDSWITH` and `CONTAINS` compare UTF-8 bytes (as SQLite's `instr`
/// and `BINARY` collation do), `LIKE` matches whole strings with `*` (any run) and `?`
/// (one Unicode scalar), `\` escaping the next character, and `MATCHES` matches a whole
/// string against an ICU regular expression (`[c]` makes it case-insensitive).
package enum StringMatching {
    /// The code SQL uses for each operator (`og_match(code, options, lhs, rhs)`).
    package static func code(of op: ComparisonOperator) -> Int64 {
        switch op {
        case .beginsWith: 1
        case .endsWith: 2
        case .contains: 3
        case .like: 4
        case .matches: 5
        default: preconditionFailure("\(op) is not a string operator")
        }
    }

    /// The operator for a code from ``code(of:)``.
    package static func op(code: Int64) -> ComparisonOperator? {
        [1: .beginsWith, 2: .endsWith, 3: .contains, 4: .like, 5: .matches][code]
    }

    /// Whether `lhs op rhs` holds.
    package static func matches(_ op: ComparisonOperator, _ options: ComparisonOptions, _ lhs: String, _ rhs: String) -> Bool {
        matches(op, options, lhs, rhs, stoppingWhen: nil) ?? false
    }

    /// Whether `lhs op rhs` holds; nil when `shouldStop` returned true while a regular
    /// expression was still matching. A backtracking expression can spend seconds on one
    /// string, so the SQL function checks for its task's cancellation here, inside the
    /// match, where SQLite's own check between steps never runs.
    package static func matches(
        _ op: ComparisonOperator, _ options: ComparisonOptions, _ lhs: String, _ rhs: String,
        stoppingWhen shouldStop: (() -> Bool)?
    ) -> Bool? {
        if op == .matches {
            let subject = options.contains(.diacriticInsensitive) ? lhs.folded(caseInsensitive: false, diacriticInsensitive: true) : lhs
            guard let regex = regex(rhs, options) else { return false }
            let range = NSRange(subject.startIndex..., in: subject)
            guard let shouldStop else { return regex.firstMatch(in: subject, options: [], range: range) != nil }
            // With `.reportProgress` the block also runs now and then during a long match.
            var found = false, stopped = false
            regex.enumerateMatches(in: subject, options: [.reportProgress], range: range) { match, _, stop in
                if match != nil {
                    found = true
                    stop.pointee = true
                } else if shouldStop() {
                    stopped = true
                    stop.pointee = true
                }
            }
            return stopped && !found ? nil : found
        }
        let c = options.contains(.caseInsensitive), d = options.contains(.diacriticInsensitive)
        let l = lhs.folded(caseInsensitive: c, diacriticInsensitive: d)
        let r = rhs.folded(caseInsensitive: c, diacriticInsensitive: d)
        switch op {
        case .beginsWith: return l.utf8.starts(with: r.utf8)
        case .endsWith: return l.utf8.reversed().starts(with: r.utf8.reversed())
        case .contains: return r.isEmpty || contains(r, in: l)
        case .like: return like(Array(l.unicodeScalars), Array(r.unicodeScalars))
        default: preconditionFailure("\(op) is not a string operator")
        }
    }

    /// Whether the UTF-8 of `text` holds that of `part`, searched in the strings' own bytes,
    /// where the collection algorithm over `utf8` stepped through them one index at a time
    /// (a `CONTAINS[cd]` over 100,000 folded names spent most of its time there).
    static func contains(_ part: String, in text: String) -> Bool {
        var text = text, part = part
        return text.withUTF8 { text in
            part.withUTF8 { part in
                guard let first = part.first, text.count >= part.count else { return part.isEmpty }
                for start in 0...(text.count - part.count) where text[start] == first {
                    if memcmp(text.baseAddress! + start, part.baseAddress!, part.count) == 0 { return true }
                }
                return false
            }
        }
    }

    /// Whole-string wildcard matching; linear space, O(n·m) time at worst.
    static func like(_ text: [Unicode.Scalar], _ pattern: [Unicode.Scalar]) -> Bool {
        // Pattern elements: nil = `*`, .some(nil) = `?`, .some(c) = literal c.
        var elements: [Unicode.Scalar??] = []
        var index = 0
        while index < pattern.count {
            let scalar = pattern[index]
            if scalar == "\\", index + 1 < pattern.count {
                elements.append(.some(pattern[index + 1]))
                index += 2
                continue
            }
            elements.append(scalar == "*" ? nil : scalar == "?" ? .some(nil) : .some(scalar))
            index += 1
        }
        var t = 0, p = 0
        var star: Int?, resume = 0
        while t < text.count {
            if p < elements.count, let element = elements[p], element == nil || element == text[t] {
                t += 1; p += 1
            } else if p < elements.count, elements[p] == nil {
                star = p; resume = t; p += 1
            } else if let s = star {
                p = s + 1; resume += 1; t = resume
            } else {
                return false
            }
        }
        while p < elements.count, elements[p] == nil { p += 1 }
        return p == elements.count
    }

    private static let cache = Locked<[String: NSRegularExpression?]>([:])

    /// The compiled whole-string expression for `pattern`, or nil when it is invalid.
    static func regex(_ pattern: String, _ options: ComparisonOptions) -> NSRegularExpression? {
        let key = "\(options.rawValue):\(pattern)"
        if let cached = cache.withLock({ $0[key] }) { return cached }
        var flags: NSRegularExpression.Options = []
        if options.contains(.caseInsensitive) { flags.insert(.caseInsensitive) }
        let source = options.contains(.diacriticInsensitive)
            ? pattern.folded(caseInsensitive: false, diacriticInsensitive: true) : pattern
        let regex = try? NSRegularExpression(pattern: "\\A(?:" + source + ")\\z", options: flags)
        cache.withLock { cache in
            if cache.count > 256 { cache.removeAll() }
            cache[key] = regex
        }
        return regex
    }
}
