/// Where fetch requests meet the predicate language and sort keys.
extension ContextCore {
    /// The SQL condition for a request's predicate, or nil when it has none.
    /// - Throws: ``PredicateSyntaxError`` for keys or types that do not fit the entity.
    func condition(for request: FetchRequest, entity: EntityDescription) throws -> SQLFragment? {
        guard let predicate = request.predicate else { return nil }
        return PredicateSQLCompiler.compile(try planned(predicate, request, entity).checked(for: entity),
                                            alias: FetchSQL.alias)
    }

    /// A function that tells whether an object matches a request's predicate, in memory.
    func memoryMatcher(for request: FetchRequest, entity: EntityDescription) throws -> (ManagedObject) -> Bool {
        guard let predicate = request.predicate else { return { _ in true } }
        let checked = try planned(predicate, request, entity).checked(for: entity)
        return { checked.evaluate($0) }
    }

    /// The predicate as the store runs it: `[cd]` searches moved onto canonical shadows.
    private func planned(_ predicate: FetchPredicate, _ request: FetchRequest, _ entity: EntityDescription) throws -> FetchPredicate {
        // Check the predicate as written first, so errors point at what the user typed.
        _ = try predicate.checked(for: entity)
        return request.usesCanonicalShadows ? predicate.rewritingCanonicalShadows(for: entity) : predicate
    }

    /// The ORDER BY terms for sort keys, with `_pk` last so the order is total.
    func orderBy(_ keys: [SortKey], entity: EntityDescription, totalOrder: Bool = true) throws -> [SQLFragment] {
        var terms: [SQLFragment] = []
        for key in keys {
            let path = key.keyPath.split(separator: ".").map(String.init)
            let expression: SQLFragment
            if path.count == 1, let attribute = entity.attribute(named: path[0]), !attribute.isTransient {
                expression = "\(column: attribute.name, of: FetchSQL.alias)"
            } else if path.count > 1 {
                expression = try PredicateSQLCompiler.compileKeyPath(path, entity: entity, alias: FetchSQL.alias)
            } else {
                throw ObjectGraphError.unknownKey(key.keyPath, entity: entity)
            }
            terms.append(expression + SQLFragment(sql: key.ascending ? "" : " DESC"))
        }
        if totalOrder && !terms.isEmpty { terms.append("\(raw: FetchSQL.alias).\"_pk\"") }
        return terms
    }

    /// Sorts objects as the store would: nil first, numbers by value, text by UTF-8 bytes.
    func sortInMemory(_ objects: [ManagedObject], by keys: [SortKey], entity: EntityDescription) throws -> [ManagedObject] {
        guard !keys.isEmpty else { return objects }
        let paths = keys.map { $0.keyPath.split(separator: ".").map(String.init) }
        return objects.sorted { lhs, rhs in
            for (key, path) in zip(keys, paths) {
                let order = StoredOrdering.compare(lhs.value(atKeyPath: path), rhs.value(atKeyPath: path))
                if order != 0 { return key.ascending ? order < 0 : order > 0 }
            }
            return lhs.objectID < rhs.objectID
        }
    }
}
