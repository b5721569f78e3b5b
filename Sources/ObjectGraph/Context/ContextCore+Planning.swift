/// Where fetch requests become plans: the predicate, sort keys and properties checked once.
extension ContextCore {
    /// Resolves `request` against `entity` into the plan a store runs.
    ///
    /// - Parameters:
    ///   - output: what the store hands back.
    ///   - windowInStore: whether the store applies the limit and offset (not when unsaved
    ///     changes have to be merged in memory first).
    /// - Throws: ``PredicateSyntaxError`` or ``ObjectGraphError`` `unknownKey` for keys or
    ///   types that do not fit the entity.
    func plan(
        _ request: FetchRequest, entity: EntityDescription, output: FetchPlan.Output, windowInStore: Bool = true
    ) throws -> FetchPlan {
        try coordinator.requireStores()
        for (name, value) in [("fetchLimit", request.fetchLimit), ("fetchOffset", request.fetchOffset)] where value < 0 {
            throw ObjectGraphError(.invalidValue, "\(name) is \(value); it must be 0 or more (a fetchLimit of 0 means no limit)")
        }
        let distinct: Bool
        if case .values = output { distinct = request.returnsDistinctResults } else { distinct = false }
        return FetchPlan(
            entity: entity, includesSubentities: request.includesSubentities,
            predicate: try checkedPredicate(of: request, entity: entity),
            sortTerms: try request.sortKeys.map { key in
                FetchPlan.SortTerm(expression: try .attributePath(key.keyPath, of: entity), ascending: key.ascending)
            },
            limit: windowInStore ? request.fetchLimit : 0, offset: windowInStore ? request.fetchOffset : 0,
            distinct: distinct, output: output)
    }

    /// The request's predicate as a store runs it: `[cd]` searches moved onto canonical
    /// shadows. Checked as written first, so errors point at what the user typed; checked
    /// again only when the move changed it.
    private func checkedPredicate(of request: FetchRequest, entity: EntityDescription) throws -> CheckedPredicate? {
        guard let predicate = request.predicate else { return nil }
        let checked = try predicate.checked(for: entity)
        guard request.usesCanonicalShadows else { return checked }
        let rewritten = predicate.rewritingCanonicalShadows(for: entity)
        return rewritten == predicate ? checked : try rewritten.checked(for: entity)
    }

    /// A function that tells whether an object matches a plan's predicate, in memory.
    func memoryMatcher(for plan: FetchPlan) -> (ManagedObject) -> Bool {
        guard let predicate = plan.predicate else { return { _ in true } }
        return { predicate.evaluate($0) }
    }

    /// Orders objects as the store would (nil first, numbers by value, text by UTF-8 bytes,
    /// ties by row), `keys` first to last.
    private static func storeOrder(by keys: [SortKey]) -> (ManagedObject, ManagedObject) -> Bool {
        let terms = keys.map { (path: $0.keyPath.split(separator: ".").map(String.init), ascending: $0.ascending) }
        return { lhs, rhs in
            let order = StoredOrdering.compare(terms, ascending: \.ascending) {
                (lhs.value(atKeyPath: $0.path), rhs.value(atKeyPath: $0.path))
            }
            if order != 0 { return order < 0 }
            // Ties go by row, as the stores order them (`ORDER BY …, _pk`): sub-entities
            // share their root's rows, so the entity is no part of it. Unsaved objects last.
            let (left, right) = (lhs.objectID, rhs.objectID)
            return (left.temporaryTag, left.key) < (right.temporaryTag, right.key)
        }
    }

    /// `objects` sorted by `keys`, where the objects for which `mayHaveMoved` is false are
    /// in that order already, as the store returned them.
    ///
    /// Each object that may have moved finds its place among the others by bisection, so
    /// only the objects it is compared with need their values: a keys-only fetch of 500,000
    /// faults with one unsaved insert fires about 19 of them, not all. When bisecting would
    /// compare more than sorting everything, everything is sorted.
    func sortedAsStored(
        _ objects: [ManagedObject], by keys: [SortKey], mayHaveMoved: (ManagedObject) -> Bool
    ) -> [ManagedObject] {
        guard !keys.isEmpty else { return objects }
        var settled: [ManagedObject] = [], moving: [ManagedObject] = []
        settled.reserveCapacity(objects.count)
        for object in objects {
            if mayHaveMoved(object) { moving.append(object) } else { settled.append(object) }
        }
        let precedes = Self.storeOrder(by: keys)
        let probes = Int.bitWidth - settled.count.leadingZeroBitCount + 1
        guard moving.count * probes < settled.count else {
            return objects.sorted(by: precedes)
        }
        var result: [ManagedObject] = []
        result.reserveCapacity(objects.count)
        var start = 0
        for object in moving.sorted(by: precedes) {
            var low = start, high = settled.count
            while low < high {
                let middle = low + (high - low) / 2
                if precedes(settled[middle], object) { low = middle + 1 } else { high = middle }
            }
            result += settled[start..<low]
            result.append(object)
            start = low
        }
        result += settled[start...]
        return result
    }
}
