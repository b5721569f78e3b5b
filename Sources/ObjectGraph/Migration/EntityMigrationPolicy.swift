/// Code that migrates the objects of one entity mapping, for changes a store cannot make by
/// itself (Core Data's `NSEntityMigrationPolicy`).
///
/// A migration runs in two stages over every mapping. First each source object is handed
/// to ``createDestinationInstances(for:mapping:manager:)``, which inserts its destination
/// objects and associates them with it; then each associated pair is handed to
/// ``createRelationships(for:from:mapping:manager:)``, when every destination object
/// exists. Both have default implementations (``MigrationManager/createDefaultInstance(for:mapping:)``
/// and ``MigrationManager/createDefaultRelationships(for:from:mapping:)``), so a policy
/// writes only what differs. A policy is made anew for each migration and may keep state,
/// such as a cache of objects it created:
///
/// ```swift
/// struct TagPolicy: EntityMigrationPolicy {
///     var tags: [String: ObjectID] = [:]   // name → destination Tag, across batches
///     mutating func createDestinationInstances(for source: ManagedObject, mapping: EntityMapping,
///                                             manager: MigrationManager) throws {
///         guard let note = try manager.createDefaultInstance(for: source, mapping: mapping),
///               let name = source["tag"] as? String else { return }
///         let tag = try tags[name].map(manager.destinationObject(with:)) ?? manager.insertDestinationObject("Tag")
///         tag["name"] = name
///         tags[name] = tag.objectID
///         note["tag"] = tag
///     }
/// }
/// ```
/// Throwing stops the migration; the error the caller sees names the mapping and the
/// source object, and the original store is left as it was.
public protocol EntityMigrationPolicy {
    /// Inserts the destination objects for one source object, and associates them with it.
    mutating func createDestinationInstances(
        for source: ManagedObject, mapping: EntityMapping, manager: MigrationManager
    ) throws

    /// Sets the relationships of one destination object, once every destination object exists.
    mutating func createRelationships(
        for destination: ManagedObject, from source: ManagedObject, mapping: EntityMapping, manager: MigrationManager
    ) throws
}

extension EntityMigrationPolicy {
    /// Inserts one destination object with the mapped attribute values, and associates it.
    public mutating func createDestinationInstances(
        for source: ManagedObject, mapping: EntityMapping, manager: MigrationManager
    ) throws {
        try manager.createDefaultInstance(for: source, mapping: mapping)
    }

    /// Sets every mapped relationship from the destinations of the source's related objects.
    public mutating func createRelationships(
        for destination: ManagedObject, from source: ManagedObject, mapping: EntityMapping, manager: MigrationManager
    ) throws {
        try manager.createDefaultRelationships(for: destination, from: source, mapping: mapping)
    }
}

/// The policy of mappings that have none: the default implementations of both stages.
public struct DefaultMigrationPolicy: EntityMigrationPolicy {
    /// Creates the policy.
    public init() {}
}
