@testable import ObjectGraph
@testable import ObjectGraphSQLite
import ObjectGraphSQL
import Foundation

/// The objects of a ``TestGraph`` put through the path applications take: a model with a
/// canonical shadow attribute on every `name` (``RecipeModel/make(canonicalShadows:)``), a
/// store the coordinator creates, objects inserted and saved through a context, and
/// predicates answered by the context's `fetch`, `count(for:)` and `fetchObjectIDs`.
///
/// Two variants hold the same final data:
/// - ``Variant/saved``: everything is saved; every answer comes from SQL (with `[cd]`
///   comparisons moved onto the shadow attributes).
/// - ``Variant/pending``: part of the data is an unsaved change on top of a different saved
///   state, so the context must merge its in-memory evaluation of changed objects with SQL:
///   some objects were saved with decoy attribute values, relationships and many-to-many
///   links and are put right without saving; some are inserted and not saved; and one decoy
///   object per entity, linked to real objects, is saved and then deleted without saving.
///
/// Each answer is asked for several ways (``Mode``), each on objects that start as faults.
@MainActor
final class ContextPath {
    enum Variant: String, CaseIterable, Sendable, CustomStringConvertible {
        case saved, pending
        /// The same, on a ``MemoryStore``: no SQL, the in-memory evaluator behind the store protocol.
        case savedInMemoryStore = "saved, memory store", pendingInMemoryStore = "pending, memory store"
        /// The saved variant on each atomic store: the saved state is written to a file and
        /// read back by a new coordinator before any question is asked. (Their queries run
        /// on the memory store's rows, and merging unsaved changes is the context's work, so
        /// the pending variant adds nothing of theirs; it is left out to keep the table fast.)
        case savedXML = "saved, xml store", savedBinary = "saved, binary store", savedHTML = "saved, html store"
        /// Both variants on PostgreSQL (when a server is reachable: ``PostgresTestServer``).
        case savedPostgres = "saved, postgres store", pendingPostgres = "pending, postgres store"
        var description: String { rawValue }

        /// The variants these tests run: PostgreSQL's when a server is reachable.
        static var allCases: [Variant] {
            [.saved, .pending, .savedInMemoryStore, .pendingInMemoryStore, .savedXML, .savedBinary, .savedHTML]
                + (PostgresTestServer.isAvailable ? [.savedPostgres, .pendingPostgres] : [])
        }
        /// Whether some changes stay unsaved.
        var isPending: Bool { rawValue.hasPrefix("pending") }
        /// The store the variant uses.
        var store: StoreKind {
            switch self {
            case .saved, .pending: .sqlite
            case .savedInMemoryStore, .pendingInMemoryStore: .memory
            case .savedXML: .xml
            case .savedBinary: .binary
            case .savedHTML: .html
            case .savedPostgres, .pendingPostgres: .postgres
            }
        }
    }

    /// One way of asking a context for the matching objects.
    enum Mode: String, CaseIterable, Sendable {
        /// `fetch` with the defaults: objects come back as faults, values wait in the row cache.
        case faults
        /// `fetch` with `returnsObjectsAsFaults = false`.
        case populated
        /// `fetch` with `includesPropertyValues = false`: only keys are read.
        case keysOnly
        /// `fetch` with `fetchBatchSize = 3`.
        case batched
        /// `count(for:)`.
        case count
        /// `fetchObjectIDs`.
        case objectIDs
    }

    /// What an object is in the pending variant.
    enum Role { case clean, update, insert }

    let graph: TestGraph
    let variant: Variant
    let model: ObjectModel
    private(set) var coordinator: PersistentStoreCoordinator
    /// The atomic store's file, removed with the path.
    private let file: String?
    /// The context that holds the pending variant's unsaved changes.
    private(set) var pendingContext: MainContext?
    /// The fixture key of every object, by its ID in the context (temporary for pending inserts).
    private var keys: [ObjectID: Int64] = [:]
    /// The fixture keys of the objects the pending variant inserts without saving. Where
    /// objects tie on an order key, these come after saved ones (as they will once saved),
    /// so an evaluator run on the fixture must mark them (``TestObject/isUnsaved``).
    private(set) var unsavedKeys: Set<Int64> = []

    init(_ graph: TestGraph, variant: Variant) throws {
        self.graph = graph
        self.variant = variant
        model = RecipeModel.make(canonicalShadows: true)
        coordinator = PersistentStoreCoordinator(model: model)
        file = (try variant.store.addStore(to: coordinator) as? any AtomicStorePath)?.path
        try load()
    }

    deinit { if let file { StoreKind.removeFolder(of: file) } }

    // MARK: Loading

    /// The role of the object at `ordinal` among its entity's objects: every fourth is
    /// inserted unsaved, and of the others every third is updated unsaved.
    func role(_ ordinal: Int) -> Role {
        guard variant.isPending else { return .clean }
        if ordinal % 4 == 3 { return .insert }
        return ordinal % 3 == 1 ? .update : .clean
    }

    /// The real model's counterpart of a fixture property.
    private func attribute(_ attribute: AttributeDescription) -> AttributeDescription {
        model.entity(named: attribute.entity.name)!.attribute(named: attribute.name)!
    }

    private func relationship(_ relationship: RelationshipDescription) -> RelationshipDescription {
        model.entity(named: relationship.entity.name)!.relationship(named: relationship.name)!
    }

    /// A stored value unlike `real`, of the attribute's type.
    static func decoy(for real: StoredValue, _ attribute: AttributeDescription, index: Int) -> StoredValue {
        if attribute.isOptional, !real.isNull, index % 2 == 0 { return .null }
        switch attribute.type {
        case .string: return .text(real == .text("Decoy Décor") ? "decoy" : "Decoy Décor")
        case .integer16, .integer32, .integer64: return .integer(real == .integer(999) ? 998 : 999)
        case .double: return .real(real == .real(99.5) ? 98.5 : 99.5)
        case .boolean: return .integer(real == .integer(1) ? 0 : 1)
        case .date: return .real(real == .real(86_400) ? 0 : 86_400)
        case .uuid: return .text("00000000-0000-0000-0000-000000000001")
        case .url: return .text("https://example.org/decoy")
        case .binary: return .blob(Data([9, 9]))
        }
    }

    /// The many-to-many relationships whose pairs are set from this side (one side each).
    private static func isOwningSide(_ relationship: RelationshipDescription) -> Bool {
        relationship.isManyToMany && SchemaNaming.joinTable(for: relationship).sourceColumn == "_source"
    }

    private func load() throws {
        let objects = graph.objects
        var ordinals: [String: Int] = [:]
        let roles = Dictionary(uniqueKeysWithValues: objects.map { object in
            defer { ordinals[object.entity.name, default: 0] += 1 }
            return (object.key, role(ordinals[object.entity.name, default: 0]))
        })
        let indexes = Dictionary(uniqueKeysWithValues: objects.enumerated().map { ($1.key, $0) })
        let first = MainContext(coordinator: coordinator)
        var saved: [Int64: ManagedObject] = [:]
        /// The first saved object of an entity other than `excluded`.
        func other(_ entity: EntityDescription, than excluded: TestObject?) -> TestObject? {
            objects.first { $0.entity === entity && roles[$0.key] != .insert && $0 !== excluded }
        }

        // The saved state: real objects (decoy values for those to update), then decoys to delete.
        for object in objects where roles[object.key] != .insert {
            let managed = try first.insert(object.entity.name)
            for attribute in object.entity.storedAttributes {
                let real = object.values[attribute.name] ?? .null
                let value = roles[object.key] == .update ? Self.decoy(for: real, attribute, index: indexes[object.key]!) : real
                managed.setStoredValue(value, of: self.attribute(attribute))
            }
            saved[object.key] = managed
        }
        var savedToOne: [String: Int64] = [:], savedToMany: [String: Set<Int64>] = [:]
        for object in objects where roles[object.key] != .insert {
            let isUpdated = roles[object.key] == .update
            for relationship in object.entity.relationships where !relationship.isToMany {
                var destination = object.toOne[relationship.name]
                if isUpdated { destination = indexes[object.key]! % 2 == 0 ? nil : other(relationship.destination, than: destination) }
                if let target = destination, roles[target.key] == .insert { destination = nil }
                guard let destination else { continue }
                saved[object.key]!.setObject(saved[destination.key]!, of: self.relationship(relationship))
                savedToOne["\(object.key).\(relationship.name)"] = destination.key
            }
            for relationship in object.entity.relationships where Self.isOwningSide(relationship) {
                var destinations = (object.toMany[relationship.name] ?? []).filter { roles[$0.key] != .insert }
                if isUpdated {
                    destinations = Array(destinations.dropFirst())
                    if let extra = objects.first(where: { candidate in
                        candidate.entity === relationship.destination && roles[candidate.key] != .insert
                            && !(object.toMany[relationship.name] ?? []).contains { $0 === candidate }
                    }) { destinations.append(extra) }
                }
                for destination in destinations {
                    try saved[object.key]!.add(saved[destination.key]!, toKey: relationship.name)
                }
                savedToMany["\(object.key).\(relationship.name)"] = Set(destinations.map(\.key))
            }
        }
        var decoys: [ManagedObject] = []
        if variant.isPending {
            for entity in graph.model.entities {
                let decoy = try first.insert(entity.name)
                for attribute in entity.storedAttributes {
                    decoy.setStoredValue(Self.decoy(for: .null, attribute, index: 1), of: self.attribute(attribute))
                }
                for relationship in entity.relationships where !relationship.isToMany {
                    if let target = other(relationship.destination, than: nil) {
                        decoy.setObject(saved[target.key]!, of: self.relationship(relationship))
                    }
                }
                for relationship in entity.relationships where relationship.isManyToMany {
                    if let target = other(relationship.destination, than: nil) {
                        try decoy.add(saved[target.key]!, toKey: relationship.name)
                    }
                }
                decoys.append(decoy)
            }
        }
        try first.save()
        for (key, object) in saved { keys[object.objectID] = key }
        if let store = coordinator.stores.first as? any AtomicStorePath {
            // Questions go to what the file holds: a new coordinator reads it back.
            coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addStore(type: variant.store.type, at: store.path)
        }
        guard variant.isPending else { return }

        // The unsaved changes, in a new context whose objects start as faults.
        let context = MainContext(coordinator: coordinator)
        var current: [Int64: ManagedObject] = saved.mapValues { context.object(with: $0.objectID) }
        for object in objects where roles[object.key] == .insert {
            let managed = try context.insert(object.entity.name)
            for attribute in object.entity.storedAttributes {
                managed.setStoredValue(object.values[attribute.name] ?? .null, of: self.attribute(attribute))
            }
            current[object.key] = managed
            keys[managed.objectID] = object.key
            unsavedKeys.insert(object.key)
        }
        for object in objects {
            let managed = current[object.key]!
            if roles[object.key] == .update {
                for attribute in object.entity.storedAttributes {
                    managed.setStoredValue(object.values[attribute.name] ?? .null, of: self.attribute(attribute))
                }
            }
            for relationship in object.entity.relationships where !relationship.isToMany {
                let destination = object.toOne[relationship.name]
                guard savedToOne["\(object.key).\(relationship.name)"] != destination?.key else { continue }
                managed.setObject(destination.map { current[$0.key]! }, of: self.relationship(relationship))
            }
            for relationship in object.entity.relationships where Self.isOwningSide(relationship) {
                let destinations = object.toMany[relationship.name] ?? []
                guard savedToMany["\(object.key).\(relationship.name)"] != Set(destinations.map(\.key)) else { continue }
                try managed.setValue(destinations.map { current[$0.key]! }, forKey: relationship.name)
            }
        }
        for decoy in decoys { context.delete(context.object(with: decoy.objectID)) }
        pendingContext = context
    }

    // MARK: Asking

    /// The fixture keys of `objects` (-1 for an object the fixture does not have).
    private func fixtureKeys(_ ids: [ObjectID]) -> [Int64] { ids.map { keys[$0] ?? -1 } }

    /// The keys each mode selects for `predicate`, or the error it threw.
    func answers(_ predicate: FetchPredicate, on entityName: String, modes: [Mode] = Mode.allCases) -> [(Mode, Result<[Int64], any Error>)] {
        modes.map { mode in
            let context: MainContext
            if let pendingContext {
                pendingContext.refreshAllObjects()
                context = pendingContext
            } else {
                context = MainContext(coordinator: coordinator)
            }
            var request = FetchRequest(entityName: entityName, predicate: predicate)
            let result = Result<[Int64], any Error> {
                switch mode {
                case .faults: return fixtureKeys(try context.fetch(request).map(\.objectID))
                case .populated:
                    request.returnsObjectsAsFaults = false
                    return fixtureKeys(try context.fetch(request).map(\.objectID))
                case .keysOnly:
                    request.includesPropertyValues = false
                    return fixtureKeys(try context.fetch(request).map(\.objectID))
                case .batched:
                    request.fetchBatchSize = 3
                    return fixtureKeys(try context.fetch(request).map(\.objectID))
                case .objectIDs: return fixtureKeys(try context.fetchObjectIDs(request))
                case .count:
                    // Compared by size only: the count must equal the number of expected objects.
                    return Array(repeating: 0, count: try context.count(for: request))
                }
            }
            return (mode, result)
        }
    }

    /// A description of every mode whose answer differs from the expected one (empty when
    /// all agree): `describe` renders a set of keys as the table writes results, and `count`
    /// is how many objects the table expects.
    func mismatches(_ predicate: FetchPredicate, on entityName: String, expected: String, count: Int,
                    modes: [Mode] = Mode.allCases, describe: (Set<Int64>) -> String) -> [String] {
        answers(predicate, on: entityName, modes: modes).compactMap { mode, result in
            switch result {
            case .failure(let error): return "\(variant)/\(mode.rawValue) threw \(error)"
            case .success(let keys) where mode == .count:
                return keys.count == count ? nil : "\(variant)/count is \(keys.count), expected \(count)"
            case .success(let keys):
                let selected = Set(keys)
                if keys.count != selected.count { return "\(variant)/\(mode.rawValue) returned an object twice" }
                if selected.contains(-1) { return "\(variant)/\(mode.rawValue) returned an object that should not exist" }
                let described = describe(selected)
                return described == expected ? nil : "\(variant)/\(mode.rawValue) selected \(described), expected \(expected)"
            }
        }
    }
}
