/// Grouped dictionary fetches: checking what a request groups, aggregates and sorts.
extension FetchPlan.Grouping {
    /// The grouping of a dictionary fetch of `properties` (key paths and aggregates such as
    /// `@count` or `@avg.rating`) grouped by `groupKeys` and sorted by `sortKeys`, with the
    /// type of each property's values.
    ///
    /// - Throws: ``ObjectGraphError`` `unknownKey` naming the entry that does not fit: an
    ///   unknown aggregate, one over a value it cannot aggregate, a property or sort key that
    ///   is not grouped by.
    static func checked(
        fetching properties: [String], groupedBy groupKeys: [String], sortedBy sortKeys: [SortKey], of entity: EntityDescription
    ) throws -> (grouping: Self, types: [AttributeType]) {
        let keys = try groupKeys.map { try CheckedExpression.attributePath($0, of: entity) }
        /// The index of `keyPath` among the group keys.
        func groupIndex(of keyPath: String, _ what: String) throws -> Int {
            guard let index = groupKeys.firstIndex(of: keyPath) else {
                let grouped = groupKeys.isEmpty ? "nothing is grouped" : "the groups are by \(groupKeys.joined(separator: ", "))"
                throw ObjectGraphError(.unknownKey, "\(what) '\(keyPath)' is not grouped by (\(grouped)): add it to the group keys, or fetch an aggregate of it such as @max.\(keyPath)")
            }
            return index
        }
        var columns: [Column] = [], types: [AttributeType] = []
        for property in properties {
            guard property.hasPrefix("@") else {
                let index = try groupIndex(of: property, "property")
                columns.append(.key(index))
                types.append(keys[index].attribute!.type)
                continue
            }
            let (column, type) = try aggregate(property, of: entity)
            columns.append(column)
            types.append(type)
        }
        let order = try sortKeys.map { sortKey in
            guard let index = groupKeys.firstIndex(of: sortKey.keyPath) else {
                throw ObjectGraphError(.unknownKey, "sort key '\(sortKey.keyPath)' is not grouped by: a grouped fetch sorts by its "
                                       + (groupKeys.isEmpty ? "groups, and without propertiesToGroupBy there is one" : "group keys (\(groupKeys.joined(separator: ", ")))"))
            }
            return (key: index, ascending: sortKey.ascending)
        }
        return (Self(keys: keys, columns: columns, order: order), types)
    }

    /// The column of an aggregate such as `@sum.servings`, and the type of its values.
    private static func aggregate(_ property: String, of entity: EntityDescription) throws -> (Column, AttributeType) {
        let name = property.prefix { $0 != "." }
        let keyPath = property.dropFirst(name.count + 1)
        guard let function = AggregateFunction(rawValue: String(name)) else {
            throw ObjectGraphError(.unknownKey, "'\(property)' is not an aggregate; use @count, @count.KEY, @sum.KEY, @avg.KEY, @min.KEY or @max.KEY")
        }
        guard !keyPath.isEmpty else {
            guard function == .count else { throw ObjectGraphError(.unknownKey, "'\(property)' needs a key: \(name).KEY, such as \(name).rating") }
            return (.aggregate(.count, nil), .integer64)
        }
        let expression = try CheckedExpression.attributePath(String(keyPath), of: entity)
        let type = expression.attribute!.type
        switch function {
        case .count:
            return (.aggregate(.count, expression), .integer64)
        case .sum, .avg:
            guard type.isNumeric else {
                throw ObjectGraphError(.unknownKey, "'\(property)' needs numbers; '\(keyPath)' is \(type.nameWithArticle)")
            }
            return (.aggregate(function, expression), function == .avg || !type.isStoredAsInteger ? .double : .integer64)
        case .min, .max:
            guard type.isNumeric || type == .string || type == .date else {
                throw ObjectGraphError(.unknownKey, "'\(property)' needs numbers, dates or text; '\(keyPath)' is \(type.nameWithArticle)")
            }
            return (.aggregate(function, expression), type)
        }
    }
}
