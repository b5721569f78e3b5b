/// What a dictionary fetch reads: its keys and the type of each key's values.
extension FetchRequest {
    /// The keys of the dictionaries ``MainContext/fetchDictionaries(_:)`` returns for this
    /// request, in order, each with the type of its values: an attribute's type, `integer64`
    /// for `@count` and sums of integers, `double` for averages and other sums, and the
    /// attribute's own type for `@min` and `@max`. Nothing is read from a store.
    ///
    /// - Throws: ``ObjectGraphError`` as the fetch would: an unknown entity or key, a
    ///   relationship where an attribute belongs, an aggregate that does not fit.
    public func dictionaryValueTypes(in model: ObjectModel) throws -> [(key: String, type: AttributeType)] {
        let columns = try dictionaryColumns(of: model.requireEntity(named: entityName))
        return Array(zip(columns.keys, columns.types))
    }

    /// The keys a dictionary fetch of `entity` reads (every stored attribute when none are
    /// named), their types, and the output of its plan: plain values, or groups.
    func dictionaryColumns(of entity: EntityDescription) throws -> (keys: [String], types: [AttributeType], output: FetchPlan.Output) {
        let keys = propertiesToFetch.isEmpty ? entity.attributes.filter { !$0.isTransient }.map(\.name) : propertiesToFetch
        guard propertiesToGroupBy.isEmpty && !keys.contains(where: { $0.hasPrefix("@") }) else {
            let (grouping, types) = try FetchPlan.Grouping.checked(
                fetching: keys, groupedBy: propertiesToGroupBy, sortedBy: sortKeys, of: entity)
            return (keys, types, .groups(grouping))
        }
        let expressions = try keys.map { try CheckedExpression.attributePath($0, of: entity) }
        return (keys, expressions.map { $0.attribute!.type }, .values(expressions))
    }
}
