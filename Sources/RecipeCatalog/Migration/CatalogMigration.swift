public import ObjectGraph
import ObjectGraphSQLite

/// The migration from version 1 of the catalogue model (chef and cuisine as strings on a
/// recipe) to the current one (`Chef` and `Cuisine` objects, unique by name).
///
/// A custom policy migrates recipes: each recipe is copied, and its chef and cuisine names
/// become related objects, found again through a uniquing cache so that every name makes
/// one object however many recipes share it and however many batches they span. Every
/// other entity is inferred (copied as it is).
/// ```swift
/// try SQLiteStore.migrateStore(at: "old.sqlite", using: try CatalogMigration.fromVersion1())
/// ```
public enum CatalogMigration {
    /// The mapping from version 1 to the current model.
    public static func fromVersion1() throws -> MappingModel {
        let version1 = try CatalogModel.makeVersion1(), current = try CatalogModel.make()
        return try MappingModel(from: version1, to: current, entityMappings: [
            try EntityMapping(custom: CatalogModel.recipe, from: version1, to: current) { ChefAndCuisinePolicy() },
        ])
    }

    /// The catalogue model version a store was written with (1 or ``CatalogModel/versionCount``),
    /// or nil when it is not a catalogue.
    public static func version(ofStoreAt path: String) throws -> Int? {
        if try SQLiteStore.isStore(at: path, compatibleWith: try CatalogModel.make()) { return CatalogModel.versionCount }
        if try SQLiteStore.isStore(at: path, compatibleWith: try CatalogModel.makeVersion1()) { return 1 }
        return nil
    }
}

/// Copies a recipe and turns its `chef` and `cuisine` strings into unique `Chef` and
/// `Cuisine` objects.
struct ChefAndCuisinePolicy: EntityMigrationPolicy {
    /// Destination objects by entity and exact name; temporary IDs stay valid after their
    /// batch is saved (``ObjectGraph/MigrationManager/destinationObject(with:)``).
    private var cache: [String: [String: ObjectID]] = [:]

    mutating func createDestinationInstances(
        for source: ManagedObject, mapping: EntityMapping, manager: MigrationManager
    ) throws {
        guard let recipe = try manager.createDefaultInstance(for: source, mapping: mapping) else { return }
        for (key, entity) in [("chef", CatalogModel.chef), ("cuisine", CatalogModel.cuisine)] {
            guard let name = source[key] as? String, !name.isEmpty else { continue }
            let object: ManagedObject
            if let id = cache[entity]?[name] {
                object = manager.destinationObject(with: id)
            } else {
                object = try manager.insertDestinationObject(entity)
                object["name"] = name
                cache[entity, default: [:]][name] = object.objectID
            }
            recipe[key] = object
        }
    }
}
