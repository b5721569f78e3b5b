/// Where fetch requests meet the predicate language and sort keys.
extension ContextCore {
    /// The SQL condition for a request's predicate, or nil when it has none.
    func condition(for request: FetchRequest, entity: EntityDescription) throws -> SQLFragment? {
        nil
    }

    /// A function that tells whether an object matches a request's predicate, in memory.
    func memoryMatcher(for request: FetchRequest, entity: EntityDescription) throws -> (ManagedObject) -> Bool {
        { _ in true }
    }

    /// The ORDER BY terms for sort keys, with `_pk` last so the order is total.
    func orderBy(_ keys: [SortKey], entity: EntityDescription) throws -> [SQLFragment] {
        var terms: [SQLFragment] = []
        for key in keys {
            guard let attribute = entity.attribute(named: key.keyPath), !attribute.isTransient else {
                throw ObjectGraphError.unknownKey(key.keyPath, entity: entity)
            }
            terms.append("\(column: attribute.name, of: FetchSQL.alias)\(raw: key.ascending ? "" : " DESC")")
        }
        if !terms.isEmpty { terms.append("\(raw: FetchSQL.alias).\"_pk\"") }
        return terms
    }

    /// Sorts objects as the store would: nil first, numbers by value, text by UTF-8 bytes.
    func sortInMemory(_ objects: [ManagedObject], by keys: [SortKey], entity: EntityDescription) throws -> [ManagedObject] {
        guard !keys.isEmpty else { return objects }
        let attributes = try keys.map { key -> AttributeDescription in
            guard let attribute = entity.attribute(named: key.keyPath) else {
                throw ObjectGraphError.unknownKey(key.keyPath, entity: entity)
            }
            return attribute
        }
        return objects.sorted { lhs, rhs in
            for (key, attribute) in zip(keys, attributes) {
                let order = StoredValue.compare(lhs.storedValue(of: attribute), rhs.storedValue(of: attribute))
                if order != 0 { return key.ascending ? order < 0 : order > 0 }
            }
            return lhs.objectID < rhs.objectID
        }
    }
}

extension StoredValue {
    /// SQLite's ordering of values: NULL, then numbers, then text (by bytes), then blobs.
    static func compare(_ lhs: StoredValue, _ rhs: StoredValue) -> Int {
        func rank(_ value: StoredValue) -> Int {
            switch value {
            case .null: 0
            case .integer, .real: 1
            case .text: 2
            case .blob: 3
            }
        }
        let (left, right) = (rank(lhs), rank(rhs))
        if left != right { return left < right ? -1 : 1 }
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.integer(let a), .real(let b)): return Double(a) == b ? 0 : (Double(a) < b ? -1 : 1)
        case (.real(let a), .integer(let b)): return a == Double(b) ? 0 : (a < Double(b) ? -1 : 1)
        case (.real(let a), .real(let b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.text(let a), .text(let b)):
            if a.utf8.elementsEqual(b.utf8) { return 0 }
            return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
        case (.blob(let a), .blob(let b)):
            if a == b { return 0 }
            return a.lexicographicallyPrecedes(b) ? -1 : 1
        default: return 0
        }
    }
}
