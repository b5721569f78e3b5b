/// Migrates objects from a store written with one model version into a new store of
/// another, object by object, following a ``MappingModel`` (Core Data's `NSMigrationManager`).
///
/// Store types run it when a mapping has a custom ``EntityMigrationPolicy`` (a SQLite store
/// makes inferred changes in SQL instead); policies use it to insert and find destination
/// objects. It reads the source in batches of ``batchSize`` objects and, after each batch,
/// saves the destination and resets both sides, so memory stays flat however large the
/// store. It runs on the caller's thread, which it blocks: call it from a thread of your
/// own, never from Swift's cooperative pool.
///
/// The stages, for every mapping in order (``EntityMapping/Kind/remove`` mappings are skipped):
/// ```text
/// 1. for each source object of the mapping's entity: policy.createDestinationInstances
///    (save and reset every batchSize objects)
/// 2. for each (source, destination) pair associated in stage 1: policy.createRelationships
///    (save and reset every batchSize pairs)
/// ```
public final class MigrationManager {
    /// The mapping being run.
    public let mappingModel: MappingModel
    /// Source objects per batch, and destination objects per save.
    public var batchSize = 1_000
    let source: ContextCore
    let destination: ContextCore
    /// Mapping name → source ID → destination IDs (permanent once their batch is saved).
    private var associations: [String: [ObjectID: [ObjectID]]] = [:]
    /// Associations made in the batch in progress, until the save gives them permanent IDs.
    private var pending: [(mapping: String, source: ObjectID, destination: ManagedObject)] = []
    /// Permanent IDs of saved objects, by the temporary ID they had in their batch (a policy
    /// finds an object it keeps the ID of, such as one it shares, through it).
    private var renamed: [ObjectID: ObjectID] = [:]
    /// The mapping whose destination objects stand for a source entity's objects, by entity name.
    private var primaryMapping: [String: String] = [:]

    /// A manager reading through `source` (whose model is the mapping's source model) and
    /// writing through `destination` (the destination model).
    package init(mapping: MappingModel, source: PersistentStoreCoordinator, destination: PersistentStoreCoordinator) {
        precondition(source.model === mapping.sourceModel && destination.model === mapping.destinationModel,
                     "the coordinators' models must be the mapping's source and destination models")
        self.mappingModel = mapping
        self.source = ContextCore(coordinator: source)
        self.destination = ContextCore(coordinator: destination)
        // Relationships are set in stage 2, after stage 1 saved the objects; stage 2 checks them.
        self.destination.validatesRelationships = false
        for entityMapping in mapping.entityMappings
        where entityMapping.kind != .extract && entityMapping.kind != .remove && entityMapping.kind != .add {
            if let name = entityMapping.sourceEntityName { primaryMapping[name] = entityMapping.name }
        }
    }

    // MARK: For policies

    /// Inserts a new destination object of the entity called `entityName`.
    /// - Throws: ``ObjectGraphError`` (`unknownEntity`) when the destination model has none.
    @discardableResult
    public func insertDestinationObject(_ entityName: String) throws -> ManagedObject {
        destination.insert(try mappingModel.destinationModel.requireEntity(named: entityName))
    }

    /// The destination object with `id`, as a fault if it is not loaded; `id` may be the
    /// temporary ID an object had in an earlier batch, before that batch was saved.
    public func destinationObject(with id: ObjectID) -> ManagedObject {
        destination.object(for: id.isTemporary ? renamed[id] ?? id : id)
    }

    /// The destination objects matching `request`, saved or inserted in this batch.
    public func fetchDestinationObjects(_ request: FetchRequest) throws -> [ManagedObject] {
        try destination.fetch(request)
    }

    /// Records that `destination` stands for `source` in `mapping`: stage 2 and lookups
    /// through relationships find it.
    public func associate(source: ManagedObject, destination: ManagedObject, mapping: EntityMapping) {
        pending.append((mapping.name, source.objectID, destination))
    }

    /// The destination objects associated with a source object: by the mapping called
    /// `mappingName`, or by the mapping that migrates the source object's entity.
    public func destinationObjects(for source: ManagedObject, mappingName: String? = nil) -> [ManagedObject] {
        guard let name = mappingName ?? primaryMapping[source.entity.name] else { return [] }
        let saved = associations[name]?[source.objectID] ?? []
        let unsaved = pending.filter { $0.mapping == name && $0.source == source.objectID }.map(\.destination)
        return saved.map { destination.object(for: $0) } + unsaved
    }

    /// Stage 1's default: one destination object with every mapped attribute, associated
    /// with `source` (for an ``EntityMapping/Kind/extract`` mapping, only when the source has
    /// a value in one of the moved attributes).
    /// - Returns: the new object, or nil when an extraction had nothing to move.
    @discardableResult
    public func createDefaultInstance(for source: ManagedObject, mapping: EntityMapping) throws -> ManagedObject? {
        guard let name = mapping.destinationEntityName else { return nil }
        let entity = try mappingModel.destinationModel.requireEntity(named: name)
        var values: [(String, Any?)] = []
        for attribute in mapping.attributeMappings {
            guard case .property(let key) = attribute.source, let destination = entity.attribute(named: attribute.name) else { continue }
            var value = try source.value(forKey: key)
            if value == nil, let fallback = attribute.valueForNil { value = destination.type.swiftValue(from: fallback) }
            // A nil stays nil where the attribute may be nil (not the new default, which is for
            // new objects); a required one keeps its default, or the save names it.
            if value != nil || destination.isOptional { values.append((attribute.name, value)) }
        }
        if mapping.kind == .extract, !values.contains(where: { $0.1 != nil }) { return nil }
        let object = try insertDestinationObject(name)
        for (key, value) in values { try object.setValue(value, forKey: key) }
        associate(source: source, destination: object, mapping: mapping)
        return object
    }

    /// Stage 2's default: each mapped relationship set to the destinations of the source's
    /// related objects. A relationship is set from one side only (the to-one side, or the
    /// side that sorts first), since setting it keeps the inverse.
    public func createDefaultRelationships(
        for destination: ManagedObject, from source: ManagedObject, mapping: EntityMapping
    ) throws {
        for property in mapping.relationshipMappings {
            guard let relationship = destination.entity.relationship(named: property.name) else { continue }
            switch property.source {
            case .extraction:
                // The extracted object's side is to-one and points back at its origin.
                guard mapping.kind == .extract else { continue }
                try destination.setValue(destinationObjects(for: source).first, forKey: relationship.name)
            case .property(let key):
                guard Self.setsFromThisSide(relationship) else { continue }
                let related: [ManagedObject]
                switch try source.value(forKey: key) {
                case let objects as [ManagedObject]: related = objects
                case let object as ManagedObject: related = [object]
                default: related = []
                }
                let targets = related.flatMap { destinationObjects(for: $0) }
                if relationship.isToMany {
                    for target in targets { destination.addObject(target, to: relationship) }
                } else {
                    try destination.setValue(targets.first, forKey: relationship.name)
                }
            case .defaultValue, .derived: continue
            }
        }
    }

    /// Whether the default stage 2 sets `relationship` from its own side.
    private static func setsFromThisSide(_ relationship: RelationshipDescription) -> Bool {
        let inverse = relationship.inverse!
        if relationship.isToMany != inverse.isToMany { return !relationship.isToMany }
        return "\(relationship.entity.name).\(relationship.name)" <= "\(inverse.entity.name).\(inverse.name)"
    }

    // MARK: Running

    /// Runs both stages, saving the destination after every batch.
    /// - Parameter progress: called after every batch with the fraction done, rising to 1.
    /// - Throws: ``ObjectGraphError`` (`migrationFailed`) naming the mapping and the source
    ///   object whose policy threw, or the batch whose save failed.
    package func migrate(progress: (Double) -> Void) throws {
        let mappings = mappingModel.entityMappings.filter { $0.kind != .remove && $0.sourceEntityName != nil }
        var keysByMapping: [[Int64]] = []
        for mapping in mappings {
            var request = FetchRequest(entityName: mapping.sourceEntityName!)
            request.includesSubentities = false
            request.sortKeys = []
            keysByMapping.append(try source.fetchObjectIDs(request).map(\.key).sorted())
        }
        let total = max(1, 2 * keysByMapping.reduce(0) { $0 + $1.count })
        var done = 0
        var policies = mappings.map { $0.policy?() ?? DefaultMigrationPolicy() }
        // Stage 1: destination objects.
        for (index, mapping) in mappings.enumerated() {
            let entity = mappingModel.sourceModel.entity(named: mapping.sourceEntityName!)!
            for start in stride(from: 0, to: keysByMapping[index].count, by: batchSize) {
                let keys = Array(keysByMapping[index][start..<min(start + batchSize, keysByMapping[index].count)])
                for object in try source.fetchPopulated(entity, keys: keys) {
                    do {
                        try policies[index].createDestinationInstances(for: object, mapping: mapping, manager: self)
                    } catch {
                        throw failure(mapping, object.objectID, error)
                    }
                }
                try saveBatch(mapping, keys: keys, entity: entity)
                done += keys.count
                progress(Double(done) / Double(total))
            }
        }
        // Stage 2: relationships, once every destination object exists.
        for (index, mapping) in mappings.enumerated() {
            let entity = mappingModel.sourceModel.entity(named: mapping.sourceEntityName!)!
            let pairs = (associations[mapping.name] ?? [:]).sorted { $0.key.key < $1.key.key }
            var skipped = keysByMapping[index].count - pairs.count
            for start in stride(from: 0, to: pairs.count, by: batchSize) {
                let batch = pairs[start..<min(start + batchSize, pairs.count)]
                let sources = try source.fetchPopulated(entity, keys: batch.map(\.key.key))
                let byID = Dictionary(uniqueKeysWithValues: sources.map { ($0.objectID, $0) })
                var targets: [ObjectID: ManagedObject] = [:]
                for (entityIndex, ids) in Dictionary(grouping: batch.flatMap(\.value), by: \.entityIndex) {
                    let target = mappingModel.destinationModel.entities[Int(entityIndex)]
                    for object in try destination.fetchPopulated(target, keys: ids.map(\.key)) { targets[object.objectID] = object }
                }
                for (sourceID, destinationIDs) in batch {
                    guard let object = byID[sourceID] else { continue }
                    for id in destinationIDs {
                        guard let target = targets[id] else { continue }
                        do {
                            try policies[index].createRelationships(for: target, from: object, mapping: mapping, manager: self)
                            try Self.checkRelationships(of: target)
                        } catch {
                            throw failure(mapping, sourceID, error)
                        }
                    }
                }
                try saveBatch(mapping, keys: batch.map(\.key.key), entity: entity)
                done += batch.count + skipped
                skipped = 0
                progress(Double(done) / Double(total))
            }
            if pairs.isEmpty && skipped > 0 {
                done += skipped
                progress(Double(done) / Double(total))
            }
        }
        if done < total { progress(1) }
    }

    /// Throws when a required relationship of a migrated object is empty, or a to-many one
    /// holds too few or too many objects.
    private static func checkRelationships(of object: ManagedObject) throws {
        for relationship in object.entity.relationships {
            if relationship.isToMany {
                guard relationship.minCount > 0 || relationship.maxCount > 0 else { continue }
                let count = object.objects(of: relationship).count
                if count < relationship.minCount || (relationship.maxCount > 0 && count > relationship.maxCount) {
                    throw ObjectGraphError(.validation,
                        "its '\(relationship.name)' holds \(count) objects, outside \(relationship.minCount)…\(relationship.maxCount == 0 ? "" : String(relationship.maxCount))")
                }
            } else if !relationship.isOptional, object.slots[relationship.slot].value.destinationID == nil {
                throw ObjectGraphError(.validation, "its required relationship '\(relationship.name)' is nil")
            }
        }
    }

    /// Saves the destination, records the permanent IDs of what the batch created, and
    /// resets both contexts.
    private func saveBatch(_ mapping: EntityMapping, keys: [Int64], entity: EntityDescription) throws {
        // Every object, associated or not: a policy may keep the temporary ID of either.
        let inserted = destination.inserted.filter { $0.state == .inserted }.map { ($0, $0.objectID) }
        do {
            _ = try destination.save()
        } catch {
            let range = keys.first.map { first in
                let firstID = mappingModel.sourceModel.describe(ObjectID(entityIndex: entity.index, key: first))
                let lastID = mappingModel.sourceModel.describe(ObjectID(entityIndex: entity.index, key: keys.last!))
                return first == keys.last! ? firstID : "\(firstID) to \(lastID)"
            } ?? "none"
            var reason = "\(error)"
            if reason.count > 500 { reason = String(reason.prefix(500)) + "…" }
            throw ObjectGraphError(.migrationFailed,
                "mapping \(mapping.name): saving the objects migrated from \(range) failed: \(reason)",
                underlying: error)
        }
        for (name, sourceID, object) in pending {
            associations[name, default: [:]][sourceID, default: []].append(object.objectID)
        }
        for (object, temporary) in inserted { renamed[temporary] = object.objectID }
        pending.removeAll()
        source.reset()
        destination.reset()
    }

    private func failure(_ mapping: EntityMapping, _ id: ObjectID, _ error: any Error) -> ObjectGraphError {
        ObjectGraphError(.migrationFailed,
            "mapping \(mapping.name) failed on \(mappingModel.sourceModel.describe(id)): \(error)",
            underlying: error)
    }
}

// A manager's contexts are confined to the thread that runs it.
@available(*, unavailable)
extension MigrationManager: Sendable {}
