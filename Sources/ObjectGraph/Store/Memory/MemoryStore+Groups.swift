/// Grouped dictionary fetches, evaluated in memory as the SQL stores' `GROUP BY` answers them.
extension MemoryStore {
    /// One row per group of `plan`'s matching rows (one in all without keys, also when no
    /// row matches), its columns in order, the groups sorted (ties by their keys) and then
    /// windowed.
    func groups(_ plan: FetchPlan, _ grouping: FetchPlan.Grouping, in snapshot: Contents) throws -> [[StoredValue]] {
        var matching = plan
        (matching.output, matching.limit, matching.offset) = (.count, 0, 0)  // every match, unsorted
        var groups: [(key: [StoredValue], rows: [Row])] = grouping.keys.isEmpty ? [([], [])] : []
        var groupOfKey: [[StoredValue]: Int] = grouping.keys.isEmpty ? [[]: 0] : [:]
        for row in select(matching, in: snapshot) {
            let key = grouping.keys.map { value($0, of: row, snapshot) }
            if let index = groupOfKey[key] {
                groups[index].rows.append(row)
            } else {
                groupOfKey[key] = groups.count
                groups.append((key, [row]))
            }
        }
        let order = grouping.totalOrder
        groups.sort { lhs, rhs in
            StoredOrdering.compare(order, ascending: \.ascending) { (lhs.key[$0.key], rhs.key[$0.key]) } < 0
        }
        let window = groups.dropFirst(plan.offset).prefix(plan.limit > 0 ? plan.limit : .max)
        return try window.map { group in
            try grouping.columns.map { column in
                switch column {
                case .key(let index):
                    return group.key[index]
                case .aggregate(let function, let expression):
                    guard let expression else { return .integer(Int64(group.rows.count)) }
                    return try Self.aggregate(function, of: group.rows.map { value(expression, of: $0, snapshot) },
                                              name: expression.attribute?.name ?? "a value")
                }
            }
        }
    }

    /// `function` over the values that are not nil, as SQL computes it: a count, nil for a
    /// sum, average, minimum or maximum of none, an integer sum of integers (an error when
    /// it overflows 64 bits, as in SQLite), a double otherwise.
    private static func aggregate(_ function: AggregateFunction, of values: [StoredValue], name: String) throws -> StoredValue {
        let present = values.filter { $0 != .null }
        func number(_ value: StoredValue) -> Double {
            switch value {
            case .integer(let integer): Double(integer)
            case .real(let real): real
            default: 0
            }
        }
        switch function {
        case .count:
            return .integer(Int64(present.count))
        case .sum:
            guard !present.isEmpty else { return .null }
            var total: Int64 = 0
            for value in present {
                guard case .integer(let integer) = value else { return .real(present.reduce(0) { $0 + number($1) }) }
                let (sum, overflows) = total.addingReportingOverflow(integer)
                guard !overflows else { throw ObjectGraphError(.invalidValue, "the sum of \(name) does not fit in 64 bits") }
                total = sum
            }
            return .integer(total)
        case .avg:
            guard !present.isEmpty else { return .null }
            return .real(present.reduce(0) { $0 + number($1) } / Double(present.count))
        case .min:
            return present.min { StoredOrdering.compare($0, $1) < 0 } ?? .null
        case .max:
            return present.max { StoredOrdering.compare($0, $1) < 0 } ?? .null
        }
    }
}
