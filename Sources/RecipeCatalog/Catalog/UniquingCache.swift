import ObjectGraph

/// Find-or-create for the objects recipes share (chefs, cuisines, ingredients), by exact name.
///
/// The cache maps names to object IDs, so it survives the context's reset after each batch.
/// Before a batch, the names it has not seen are looked up with one `IN` fetch per entity;
/// the rest are created. Without the cache (`usesCache == false`) every lookup is a fetch,
/// which is the slow way the uniquing lesson measures.
struct UniquingCache {
    let usesCache: Bool
    private var ids: [String: [String: ObjectID]] = [:]
    /// Objects created in the batch in progress, to learn their permanent IDs after the save.
    private var created: [(entity: String, name: String, object: ManagedObject)] = []

    init(usesCache: Bool) { self.usesCache = usesCache }

    /// Looks up, with one fetch per entity, the names of a batch the cache has not seen.
    mutating func prepare(for records: [RecipeRecord], in context: isolated PrivateContext) throws {
        guard usesCache else { return }
        let wanted: [(String, Set<String>)] = [
            (CatalogModel.chef, Set(records.compactMap(\.chef))),
            (CatalogModel.cuisine, Set(records.compactMap(\.cuisine))),
            (CatalogModel.ingredient, Set(records.flatMap { $0.ingredients.map(\.name) })),
        ]
        for (entity, names) in wanted {
            let missing = names.filter { ids[entity]?[$0] == nil }
            guard !missing.isEmpty else { continue }
            var request = FetchRequest(entityName: entity)
            request.predicate = try FetchPredicate("name IN %@", missing.sorted())
            request.returnsObjectsAsFaults = false
            for object in try context.fetch(request) {
                ids[entity, default: [:]][object[attribute: "name"] as String] = object.objectID
            }
        }
    }

    mutating func chef(named name: String, in context: isolated PrivateContext) throws -> Chef {
        try object(CatalogModel.chef, named: name, in: context) as! Chef
    }

    mutating func cuisine(named name: String, in context: isolated PrivateContext) throws -> Cuisine {
        try object(CatalogModel.cuisine, named: name, in: context) as! Cuisine
    }

    mutating func ingredient(named name: String, in context: isolated PrivateContext) throws -> Ingredient {
        try object(CatalogModel.ingredient, named: name, in: context) as! Ingredient
    }

    private mutating func object(
        _ entity: String, named name: String, in context: isolated PrivateContext
    ) throws -> ManagedObject {
        if usesCache, let id = ids[entity]?[name] { return context.object(with: id) }
        if !usesCache {
            // One fetch per lookup; unsaved objects of the batch are found in memory.
            var request = FetchRequest(entityName: entity)
            request.predicate = try FetchPredicate("name == %@", name)
            request.fetchLimit = 1
            if let found = try context.fetch(request).first { return found }
        }
        let object = try context.insert(entity)
        object[attribute: "name"] = name
        if usesCache {
            // Until saved, the new object is found by its temporary ID like any other.
            ids[entity, default: [:]][name] = object.objectID
            created.append((entity, name, object))
        }
        return object
    }

    /// Records the permanent IDs of the objects the batch created.
    mutating func didSave() {
        for (entity, name, object) in created { ids[entity]?[name] = object.objectID }
        created.removeAll()
    }

    /// Forgets the objects of a batch that was rolled back.
    mutating func didRollBack() {
        for (entity, name, _) in created { ids[entity]?[name] = nil }
        created.removeAll()
    }
}
