import Foundation

/// How stored values order, exactly as SQLite orders them: nil, then numbers (integers and
/// doubles compared exactly), then text (UTF-8 bytes, SQLite's `BINARY` collation), then
/// blobs (bytes).
enum StoredOrdering {
    /// -1, 0 or 1.
    static func compare(_ lhs: StoredValue, _ rhs: StoredValue) -> Int {
        switch (lhs, rhs) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case (.integer(let a), .integer(let b)): return a < b ? -1 : a > b ? 1 : 0
        case (.real(let a), .real(let b)): return a < b ? -1 : a > b ? 1 : 0
        case (.integer(let a), .real(let b)): return integerVersusReal(a, b)
        case (.real(let a), .integer(let b)): return -integerVersusReal(b, a)
        case (.integer, _), (.real, _): return -1
        case (_, .integer), (_, .real): return 1
        case (.text(let a), .text(let b)): return bytes(Array(a.utf8), Array(b.utf8))
        case (.text, .blob): return -1
        case (.blob, .text): return 1
        case (.blob(let a), .blob(let b)): return bytes(Array(a), Array(b))
        }
    }

    /// -1, 0 or 1 for two rows under sort `terms`, first to last: the first term whose two
    /// values (`values(term)`, the left row's first) differ decides, in its direction; 0 when
    /// every term ties, for the caller to break.
    static func compare<Term>(
        _ terms: [Term], ascending: (Term) -> Bool, values: (Term) -> (StoredValue, StoredValue)
    ) -> Int {
        for term in terms {
            let (lhs, rhs) = values(term)
            let order = compare(lhs, rhs)
            if order != 0 { return ascending(term) ? order : -order }
        }
        return 0
    }

    /// SQLite's `sqlite3IntFloatCompare`: exact, with no rounding of the integer.
    static func integerVersusReal(_ i: Int64, _ r: Double) -> Int {
        if r < -9_223_372_036_854_775_808.0 { return 1 }
        if r >= 9_223_372_036_854_775_808.0 { return -1 }
        if r.isNaN { return 1 }
        let y = Int64(r.rounded(.towardZero))
        if i < y { return -1 }
        if i > y { return 1 }
        let s = Double(i)
        return s < r ? -1 : s > r ? 1 : 0
    }

    private static func bytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return a.count < b.count ? -1 : a.count > b.count ? 1 : 0
    }
}

/// Arithmetic and aggregates on stored values, with SQLite's results: integer overflow
/// falls back to doubles, division is always by doubles and by zero gives nil, a NaN
/// result is nil, and nil operands give nil.
enum StoredArithmetic {
    static func apply(_ op: ArithmeticOperator, _ lhs: StoredValue, _ rhs: StoredValue) -> StoredValue {
        if op != .divide, case .integer(let a) = lhs, case .integer(let b) = rhs {
            let result: (partialValue: Int64, overflow: Bool)
            switch op {
            case .add: result = a.addingReportingOverflow(b)
            case .subtract: result = a.subtractingReportingOverflow(b)
            default: result = a.multipliedReportingOverflow(by: b)
            }
            if !result.overflow { return .integer(result.partialValue) }
        }
        guard let a = double(lhs), let b = double(rhs) else { return .null }
        let result: Double
        switch op {
        case .add: result = a + b
        case .subtract: result = a - b
        case .multiply: result = a * b
        case .divide:
            if b == 0 { return .null }
            result = a / b
        }
        return result.isNaN ? .null : .real(result)
    }

    static func negate(_ value: StoredValue) -> StoredValue {
        switch value {
        case .integer(let v): return v == .min ? .real(-Double(v)) : .integer(-v)
        case .real(let v): return .real(-v)
        default: return .null
        }
    }

    static func double(_ value: StoredValue) -> Double? {
        switch value {
        case .integer(let v): return Double(v)
        case .real(let v): return v
        default: return nil
        }
    }

    /// `@sum`, `@avg`, `@min`, `@max` of non-nil values, as SQLite's `SUM` (with `IFNULL(…, 0)`),
    /// `AVG`, `MIN` and `MAX` compute them (in the same order).
    static func aggregate(_ function: AggregateFunction, _ values: [StoredValue]) -> StoredValue {
        switch function {
        case .count: return .integer(Int64(values.count))
        case .sum, .avg:
            var realSum = 0.0, integerSum: Int64 = 0, approximate = false, count = 0
            for value in values {
                switch value {
                case .integer(let v):
                    count += 1
                    realSum += Double(v)
                    if !approximate {
                        let (sum, overflow) = integerSum.addingReportingOverflow(v)
                        if overflow { approximate = true } else { integerSum = sum }
                    }
                case .real(let v):
                    count += 1
                    realSum += v
                    approximate = true
                default: continue
                }
            }
            if function == .avg { return count == 0 ? .null : .real(realSum / Double(count)) }
            return approximate ? .real(realSum) : .integer(integerSum)
        case .min, .max:
            var best: StoredValue?
            for value in values {
                guard let current = best else { best = value; continue }
                let order = StoredOrdering.compare(value, current)
                if function == .min ? order < 0 : order > 0 { best = value }
            }
            return best ?? .null
        }
    }
}
