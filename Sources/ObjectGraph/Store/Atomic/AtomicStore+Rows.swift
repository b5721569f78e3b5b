/// Between the objects a file holds and the rows the store queries.
extension AtomicStore {
    /// The rows of the objects a reader found, after checking them against the model.
    /// - Throws: `notADatabase` naming the file, the object's place and the problem.
    func makeContents(_ objects: [StoredObject], metadata: [String: String]) throws -> MemoryStore.Contents {
        var contents = MemoryStore.Contents()
        contents.metadata = metadata
        var found: [Int: [Int64: StoredObject]] = [:]
        for object in objects {
            let root = object.entity.root.index
            if let earlier = found[root]?[object.objectID.key] {
                throw problem(object, "\(describe(object)) appears twice (also at \(earlier.location ?? "an earlier object"))")
            }
            found[root, default: [:]][object.objectID.key] = object
        }
        for object in objects {
            let entity = object.entity
            guard !entity.isAbstract else { throw problem(object, "\(entity.name) is abstract: its objects belong to one of its sub-entities") }
            let layout = engine.layout(for: entity)
            var row = [StoredValue](repeating: .null, count: layout.rowWidth)
            row[0] = .integer(object.objectID.key)
            row[1] = .integer(Int64(entity.index))
            row[layout.versionColumn] = .integer(0)
            let attributes = StoredObject.storedAttributes(of: entity)
            for (name, value) in object.values {
                guard let attribute = attributes.first(where: { $0.name == name }) else {
                    throw problem(object, "\(entity.name) has no stored attribute '\(name)'")
                }
                guard value.isNull || Self.fits(value, attribute.type) else {
                    throw problem(object, "'\(name)' of \(describe(object)) is \(value), not \(attribute.type.nameWithArticle)")
                }
                row[layout.columnIndex[name]!] = value
            }
            for attribute in entity.requiredAttributes where row[layout.columnIndex[attribute.name]!].isNull {
                throw problem(object, "\(describe(object)) has no value for its required attribute '\(attribute.name)'")
            }
            let relationships = StoredObject.storedRelationships(of: entity)
            for (name, destinations) in object.destinations {
                guard let relationship = relationships.first(where: { $0.name == name }) else {
                    throw problem(object, "\(entity.name) has no stored relationship '\(name)'")
                }
                // A reference may outlive its destination only where the other side's delete
                // rule is "no action" (as in Core Data); anywhere else it is damage.
                let mayDangle = relationship.inverse.deleteRule == .noAction
                for destination in destinations {
                    let target = model.entities.indices.contains(Int(destination.entityIndex)) ? model.entities[Int(destination.entityIndex)] : nil
                    guard let target, target.isKind(of: relationship.destination),
                          mayDangle || found[target.root.index]?[destination.key]?.entity === target else {
                        throw problem(object, "'\(name)' of \(describe(object)) points at \(model.describe(destination)), which the file does not have")
                    }
                }
                if !relationship.isToMany {
                    guard destinations.count <= 1 else { throw problem(object, "'\(name)' of \(describe(object)) is to-one but has \(destinations.count) destinations") }
                    guard let destination = destinations.first else { continue }
                    row[layout.columnIndex[name]!] = .integer(destination.key)
                    if let column = TableLayout.entityColumn(for: relationship).flatMap({ layout.columnIndex[$0] }) {
                        row[column] = .integer(Int64(destination.entityIndex))
                    }
                } else {
                    let join = MemoryStore.join(of: relationship).name
                    for destination in destinations {
                        contents.joins[join, default: []].insert(MemoryStore.Pair(source: object.objectID.key, destination: destination.key))
                    }
                }
            }
            contents.tables[entity.root.index, default: [:]][object.objectID.key] = row
        }
        try checkUniqueness(objects)
        return contents
    }

    /// Throws `notADatabase` when two objects of a file repeat the values of a uniqueness
    /// constraint (objects with a nil among them never conflict, as in a save), naming both
    /// objects, where the file has them, and the values.
    private func checkUniqueness(_ objects: [StoredObject]) throws {
        for entity in model.entities {
            for constraint in entity.uniquenessConstraints {
                var seen: [[StoredValue]: StoredObject] = [:]
                for object in objects where object.entity.isKind(of: entity) {
                    let values = constraint.map { object.values[$0] ?? .null }
                    guard !values.contains(where: \.isNull) else { continue }
                    guard let earlier = seen[values] else {
                        seen[values] = object
                        continue
                    }
                    let place = earlier.location.map { " (\($0))" } ?? ""
                    throw problem(object, """
                        \(describe(object)) has \(entity.describe(constraint, values)), as \(describe(earlier))\(place) has, and \(entity.name) objects \
                        are unique by \(constraint.joined(separator: " and "))
                        """)
                }
            }
        }
    }

    private func describe(_ object: StoredObject) -> String { model.describe(object.objectID) }

    private func problem(_ object: StoredObject, _ text: String) -> ObjectGraphError {
        invalidFile(StoreFileError(nil, (object.location.map { "\($0): " } ?? "") + text))
    }

    /// Whether `value` has the storage class of `type`.
    static func fits(_ value: StoredValue, _ type: AttributeType) -> Bool {
        switch (type, value) {
        case (.integer16, .integer), (.integer32, .integer), (.integer64, .integer), (.boolean, .integer): true
        case (.double, .real), (.date, .real): true
        case (.string, .text), (.uuid, .text), (.url, .text): true
        case (.binary, .blob): true
        default: false
        }
    }

    /// An object as a row and the joins hold it. `pairs` (from ``pairsBySource(_:)``) gives
    /// its many-to-many destinations; without it they are left out.
    func storedObject(
        entity: EntityDescription, key: Int64, row: MemoryStore.Row, contents: MemoryStore.Contents, pairs: [String: [Int64: [Int64]]]?
    ) -> StoredObject {
        let layout = engine.layout(for: entity)
        var object = StoredObject(entity: entity, key: key)
        for attribute in StoredObject.storedAttributes(of: entity) {
            let value = row[layout.columnIndex[attribute.name]!]
            if !value.isNull { object.values[attribute.name] = value }
        }
        for relationship in StoredObject.storedRelationships(of: entity) {
            if !relationship.isToMany {
                guard case .integer(let destination) = row[layout.columnIndex[relationship.name]!] else { continue }
                var target = relationship.destination.index
                if let column = TableLayout.entityColumn(for: relationship).flatMap({ layout.columnIndex[$0] }),
                   case .integer(let index) = row[column] { target = Int(index) }
                object.destinations[relationship.name] = [ObjectID(entityIndex: target, key: destination)]
            } else if let pairs {
                let table = contents.tables[relationship.destination.root.index] ?? [:]
                let ids = (pairs[MemoryStore.join(of: relationship).name]?[key] ?? []).sorted().compactMap { destination -> ObjectID? in
                    guard case .integer(let index) = table[destination]?[1] else { return nil }
                    return ObjectID(entityIndex: Int(index), key: destination)
                }
                if !ids.isEmpty { object.destinations[relationship.name] = ids }
            }
        }
        return object
    }

    /// The destinations of every many-to-many join, by join name and source key.
    func pairsBySource(_ contents: MemoryStore.Contents) -> [String: [Int64: [Int64]]] {
        contents.joins.mapValues { pairs in Dictionary(grouping: pairs, by: \.source).mapValues { $0.map(\.destination) } }
    }

    /// The objects a write inserted or changed (their rows or their many-to-many pairs),
    /// and those it deleted.
    func changes(from previous: MemoryStore.Contents, to next: MemoryStore.Contents) -> (changed: Set<ObjectID>, deleted: [ObjectID]) {
        func id(_ row: MemoryStore.Row) -> ObjectID? {
            guard case .integer(let key) = row[0], case .integer(let entity) = row[1] else { return nil }
            return ObjectID(entityIndex: Int(entity), key: key)
        }
        var changed = Set<ObjectID>()
        var deleted: [ObjectID] = []
        for root in Set(previous.tables.keys).union(next.tables.keys) {
            let before = previous.tables[root] ?? [:], after = next.tables[root] ?? [:]
            for (key, row) in after where before[key] != row { if let id = id(row) { changed.insert(id) } }
            for (key, row) in before where after[key] == nil { if let id = id(row) { deleted.append(id) } }
        }
        for name in Set(previous.joins.keys).union(next.joins.keys) {
            let before = previous.joins[name] ?? [], after = next.joins[name] ?? []
            guard before != after, let owner = joinOwners[name] else { continue }
            let table = next.tables[owner.entity.root.index] ?? [:]
            for pair in before.symmetricDifference(after) {
                if let row = table[pair.source], let source = id(row) { changed.insert(source) }
            }
        }
        return (changed, deleted)
    }
}
