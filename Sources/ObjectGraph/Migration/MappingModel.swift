/// How the objects of a store written with one model version become objects of another:
/// one ``EntityMapping`` per entity (Core Data's `NSMappingModel`).
///
/// Infer one from the two models when every change is one a store can make by itself
/// (adding, removing and renaming entities and properties, optional to required with a
/// default, to-one to to-many, attributes moved out into a new entity), or give the
/// mappings that need code and let the rest be inferred:
/// ```swift
/// let mapping = try MappingModel.inferred(from: version1, to: version2)
/// print(mapping)   // one line per entity that changes, with the changes
///
/// let custom = try MappingModel(from: version1, to: version2, entityMappings: [
///     try EntityMapping(custom: "Note", from: version1, to: version2) { NotePolicy() },
/// ])
/// ```
/// - SeeAlso: ``AttributeDescription/renamingIdentifier``, ``EntityMigrationPolicy``
public struct MappingModel: Sendable, CustomStringConvertible {
    /// The model the store was written with.
    public let sourceModel: ObjectModel
    /// The model the store is migrated to.
    public let destinationModel: ObjectModel
    /// The mappings, in the order a migration runs them: the given ones first, then the
    /// inferred ones in destination-model order, then the removals.
    public let entityMappings: [EntityMapping]

    /// A mapping made of `entityMappings`, with a mapping inferred for every entity they
    /// do not cover.
    /// - Throws: ``ObjectGraphError`` (`cannotInferMapping`) naming the entity, the property
    ///   and the change that needs code; (`unknownEntity`) when a given mapping names an
    ///   entity the models do not have.
    public init(from source: ObjectModel, to destination: ObjectModel, entityMappings: [EntityMapping]) throws {
        for mapping in entityMappings {
            if let name = mapping.sourceEntityName { _ = try source.requireEntity(named: name) }
            if let name = mapping.destinationEntityName { _ = try destination.requireEntity(named: name) }
        }
        self.sourceModel = source
        self.destinationModel = destination
        var inference = try Inference(source: source, destination: destination, given: entityMappings)
        self.entityMappings = entityMappings + (try inference.run())
    }

    /// The mapping inferred from two model versions: every change must be one a store can
    /// make by itself.
    /// - Throws: ``ObjectGraphError`` (`cannotInferMapping`) naming the entity, the property
    ///   and the change that needs a mapping model with a custom policy.
    public static func inferred(from source: ObjectModel, to destination: ObjectModel) throws -> MappingModel {
        try MappingModel(from: source, to: destination, entityMappings: [])
    }

    /// Whether a policy must run (some mapping has code), so the store's objects are
    /// migrated one by one rather than by the store itself.
    public var needsPolicies: Bool { entityMappings.contains { $0.kind == .custom || $0.policy != nil } }

    /// Whether the two models store the same thing: nothing to migrate.
    public var isEmpty: Bool { entityMappings.allSatisfy { $0.kind == .copy && $0.sourceEntityName == $0.destinationEntityName } }

    /// The changes, one line per mapping that changes something.
    public var changes: [String] {
        entityMappings.filter { !($0.kind == .copy && $0.sourceEntityName == $0.destinationEntityName) }.map(\.description)
    }

    /// The changes, one per line.
    public var description: String { changes.isEmpty ? "no changes" : changes.joined(separator: "\n") }

    /// The mapping that migrates `entity`'s own objects (not an extraction), by source entity name.
    package func mapping(forSource name: String) -> EntityMapping? {
        entityMappings.first { $0.sourceEntityName == name && $0.kind != .extract && $0.kind != .remove && $0.kind != .add }
    }

    /// The mapping that makes objects of the destination entity called `name`.
    package func mapping(forDestination name: String) -> EntityMapping? {
        entityMappings.first { $0.destinationEntityName == name }
    }
}
