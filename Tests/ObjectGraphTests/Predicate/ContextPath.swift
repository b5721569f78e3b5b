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
///
/// The work runs on private contexts, on their own queues: the suites that use a path run
/// their thousands of cases side by side (``gate`` keeps a few at a time), not one after
/// another on the main actor, and never block Swift's cooperative pool.
///
/// Unchecked `Sendable`: a path is written only while ``make(_:variant:)`` loads it (on the
/// loading context's queue, while the caller waits); afterwards every question only reads it.
final class ContextPath: @unchecked Sendable {
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

    /// How many context paths the tests build and question at once: enough to keep both
    /// cores and a database server busy, few enough that parameterized suites whose cases
    /// all start together do not open hundreds of stores and connections.
    static let gate = TestGate(width: 4)

    let graph: TestGraph
    let variant: Variant
    let model: ObjectModel
    private(set) var coordinator: PersistentStoreCoordinator
    /// The context that holds the pending variant's unsaved changes.
    private(set) var pendingContext: PrivateContext?
    /// The fixture key of every object, by its ID in the context (temporary for pending inserts).
    private var keys: [ObjectID: Int64] = [:]
    /// The fixture keys of the objects the pending variant inserts without saving. Where
    /// objects tie on an order key, these come after saved ones (as they will once saved),
    /// so an evaluator run on the fixture must mark them (``TestObject/isUnsaved``).
    private(set) var unsavedKeys: Set<Int64> = []

    /// A path holding `graph`'s objects as `variant` says.
    static func make(_ graph: TestGraph, variant: Variant) async throws -> ContextPath {
        let path = ContextPath(graph, variant: variant)
        try await path.load()
        return path
    }

    private init(_ graph: TestGraph, variant: Variant) {
        self.graph = graph
        self.variant = variant
        model = RecipeModel.make(canonicalShadows: true)
        coordinator = PersistentStoreCoordinator(model: model)
    }

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

    /// What the first save wrote, for the pending changes to start from.
    private struct SavedState: Sendable {
        /// The saved objects' IDs by fixture key.
        var ids: [Int64: ObjectID] = [:]
        /// The saved destination of each to-one, by "key.relationship".
        var toOne: [String: Int64] = [:]
        /// The saved destinations of each owning many-to-many side, by "key.relationship".
        var toMany: [String: Set<Int64>] = [:]
        /// The decoys to delete without saving.
        var decoys: [ObjectID] = []
    }

    /// Every fixture object's role, by fixture key.
    private func roles() -> [Int64: Role] {
        var ordinals: [String: Int] = [:]
        return Dictionary(uniqueKeysWithValues: graph.objects.map { object in
            defer { ordinals[object.entity.name, default: 0] += 1 }
            return (object.key, role(ordinals[object.entity.name, default: 0]))
        })
    }

    /// Adds the store, saves the first state and, for a pending variant, makes the unsaved
    /// changes; each step off the cooperative pool.
    private func load() async throws {
        let (coordinator, store) = (self.coordinator, variant.store)
        let file = try await offPool { (try store.addStore(to: coordinator) as? any AtomicStorePath)?.path }
        let saved = try await PrivateContext(coordinator: coordinator).perform { try self.saveFirstState(in: $0) }
        if let file {
            // Questions go to what the file holds: a new coordinator reads it back (whole, as
            // an atomic store does), and the file goes, since questions never save.
            let reopened = PersistentStoreCoordinator(model: model)
            try await offPool {
                defer { StoreKind.removeFolder(of: file) }
                _ = try reopened.addStore(type: store.type, at: file)
            }
            self.coordinator = reopened
        }
        guard variant.isPending else { return }
        let context = PrivateContext(coordinator: self.coordinator)
        try await context.perform { try self.makeUnsavedChanges(in: $0, from: saved) }
        pendingContext = context
    }

    /// The saved state: real objects (decoy values for those to update), then decoys to delete.
    private func saveFirstState(in first: isolated PrivateContext) throws -> SavedState {
        let objects = graph.objects
        let roles = roles()
        let indexes = Dictionary(uniqueKeysWithValues: objects.enumerated().map { ($1.key, $0) })
        var saved: [Int64: ManagedObject] = [:]
        var state = SavedState()
        /// The first saved object of an entity other than `excluded`.
        func other(_ entity: EntityDescription, than excluded: TestObject?) -> TestObject? {
            objects.first { $0.entity === entity && roles[$0.key] != .insert && $0 !== excluded }
        }

        for object in objects where roles[object.key] != .insert {
            let managed = try first.insert(object.entity.name)
            for attribute in object.entity.storedAttributes {
                let real = object.values[attribute.name] ?? .null
                let value = roles[object.key] == .update ? Self.decoy(for: real, attribute, index: indexes[object.key]!) : real
                managed.setStoredValue(value, of: self.attribute(attribute))
            }
            saved[object.key] = managed
        }
        for object in objects where roles[object.key] != .insert {
            let isUpdated = roles[object.key] == .update
            for relationship in object.entity.relationships where !relationship.isToMany {
                var destination = object.toOne[relationship.name]
                if isUpdated { destination = indexes[object.key]! % 2 == 0 ? nil : other(relationship.destination, than: destination) }
                if let target = destination, roles[target.key] == .insert { destination = nil }
                guard let destination else { continue }
                saved[object.key]!.setObject(saved[destination.key]!, of: self.relationship(relationship))
                state.toOne["\(object.key).\(relationship.name)"] = destination.key
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
                state.toMany["\(object.key).\(relationship.name)"] = Set(destinations.map(\.key))
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
        for (key, object) in saved {
            keys[object.objectID] = key
            state.ids[key] = object.objectID
        }
        state.decoys = decoys.map(\.objectID)
        return state
    }

    /// The unsaved changes, in `context`, whose objects start as faults.
    private func makeUnsavedChanges(in context: isolated PrivateContext, from saved: SavedState) throws {
        let roles = roles()
        var current: [Int64: ManagedObject] = saved.ids.mapValues { context.object(with: $0) }
        for object in graph.objects where roles[object.key] == .insert {
            let managed = try context.insert(object.entity.name)
            for attribute in object.entity.storedAttributes {
                managed.setStoredValue(object.values[attribute.name] ?? .null, of: self.attribute(attribute))
            }
            current[object.key] = managed
            keys[managed.objectID] = object.key
            unsavedKeys.insert(object.key)
        }
        for object in graph.objects {
            let managed = current[object.key]!
            if roles[object.key] == .update {
                for attribute in object.entity.storedAttributes {
                    managed.setStoredValue(object.values[attribute.name] ?? .null, of: self.attribute(attribute))
                }
            }
            for relationship in object.entity.relationships where !relationship.isToMany {
                let destination = object.toOne[relationship.name]
                guard saved.toOne["\(object.key).\(relationship.name)"] != destination?.key else { continue }
                managed.setObject(destination.map { current[$0.key]! }, of: self.relationship(relationship))
            }
            for relationship in object.entity.relationships where Self.isOwningSide(relationship) {
                let destinations = object.toMany[relationship.name] ?? []
                guard saved.toMany["\(object.key).\(relationship.name)"] != Set(destinations.map(\.key)) else { continue }
                try managed.setValue(destinations.map { current[$0.key]! }, forKey: relationship.name)
            }
        }
        for decoy in saved.decoys { context.delete(context.object(with: decoy)) }
    }

    // MARK: Asking

    /// The fixture keys of `objects` (-1 for an object the fixture does not have).
    private func fixtureKeys(_ ids: [ObjectID]) -> [Int64] { ids.map { keys[$0] ?? -1 } }

    /// The keys each mode selects for `predicate`, or the error it threw.
    func answers(_ predicate: FetchPredicate, on entityName: String,
                 modes: [Mode] = Mode.allCases) async -> [(Mode, Result<[Int64], any Error>)] {
        var answers: [(Mode, Result<[Int64], any Error>)] = []
        for mode in modes {
            // Each mode on objects that start as faults: a new context, or the pending one refreshed.
            let context = pendingContext ?? PrivateContext(coordinator: coordinator)
            let isPending = pendingContext != nil
            let result = await context.perform { context in
                if isPending { context.refreshAllObjects() }
                return Result { try self.keys(mode, predicate, on: entityName, in: context) }
            }
            answers.append((mode, result))
        }
        return answers
    }

    /// The keys `mode` selects (for a count, as many zeros as it counted).
    private func keys(_ mode: Mode, _ predicate: FetchPredicate, on entityName: String,
                      in context: isolated PrivateContext) throws -> [Int64] {
        var request = FetchRequest(entityName: entityName, predicate: predicate)
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

    /// A description of every mode whose answer differs from the expected one (empty when
    /// all agree): `describe` renders a set of keys as the table writes results, and `count`
    /// is how many objects the table expects.
    func mismatches(_ predicate: FetchPredicate, on entityName: String, expected: String, count: Int,
                    modes: [Mode] = Mode.allCases, describe: (Set<Int64>) -> String) async -> [String] {
        await answers(predicate, on: entityName, modes: modes).compactMap { mode, result in
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
