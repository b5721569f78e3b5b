import ObjectGraph

/// Find-or-create for the objects recipes share (chefs, cuisines, ingredients), by exact name:
/// the same UTF-8 bytes, as the store compares them (``ExactText``), so names that differ only
/// by Unicode normalization are two names, in one batch or across batches alike.
///
/// The cache maps names to object IDs, so it survives the context's reset after each batch.
/// Before a batch, the names it has not seen are looked up with one `IN` fetch per entity;
/// the rest are created. Without the cache (`usesCache == false`) every lookup is a fetch,
/// which is the slow way the uniquing lesson measures.
struct UniquingCache {
    /// The entities the cache finds or creates; each has its own name table, so a lookup
    /// hashes one name, not an entity name as well.
    private enum Kind: Int, CaseIterable {
        case chef, cuisine, ingredient
        var entity: String { [CatalogModel.chef, CatalogModel.cuisine, CatalogModel.ingredient][rawValue] }
    }

    let usesCache: Bool
    private var ids: [[ExactText: ObjectID]] = Array(repeating: [:], count: Kind.allCases.count)
    /// Objects created in the batch in progress, to learn their permanent IDs after the save.
    private var created: [(kind: Kind, name: String, object: ManagedObject)] = []
    /// Without the cache: the objects created in the batch in progress, by name (the store
    /// cannot find them until the batch is saved).
    private var unsaved: [[ExactText: ObjectID]] = Array(repeating: [:], count: Kind.allCases.count)

    init(usesCache: Bool) { self.usesCache = usesCache }

    /// Looks up, with one fetch per entity, the names of a batch the cache has not seen.
    mutating func prepare(for records: [RecipeRecord], in context: isolated PrivateContext) throws {
        guard usesCache else { return }
        var missing: [Set<ExactText>] = Array(repeating: [], count: Kind.allCases.count)
        func want(_ name: String, _ kind: Kind) {
            if ids[kind.rawValue][ExactText(name)] == nil { missing[kind.rawValue].insert(ExactText(name)) }
        }
        for record in records {
            if let chef = record.chef { want(chef, .chef) }
            if let cuisine = record.cuisine { want(cuisine, .cuisine) }
            for line in record.ingredients { want(line.name, .ingredient) }
        }
        for kind in Kind.allCases where !missing[kind.rawValue].isEmpty {
            var request = FetchRequest(entityName: kind.entity)
            request.predicate = try FetchPredicate("name IN %@", missing[kind.rawValue].map(\.text).sorted())
            request.returnsObjectsAsFaults = false
            for object in try context.fetch(request) {
                ids[kind.rawValue][ExactText(object[attribute: "name"] as String)] = object.objectID
            }
        }
    }

    mutating func chef(named name: String, in context: isolated PrivateContext) throws -> Chef {
        try object(.chef, named: name, in: context) as! Chef
    }

    mutating func cuisine(named name: String, in context: isolated PrivateContext) throws -> Cuisine {
        try object(.cuisine, named: name, in: context) as! Cuisine
    }

    mutating func ingredient(named name: String, in context: isolated PrivateContext) throws -> Ingredient {
        try object(.ingredient, named: name, in: context) as! Ingredient
    }

    private mutating func object(
        _ kind: Kind, named name: String, in context: isolated PrivateContext
    ) throws -> ManagedObject {
        if usesCache, let id = ids[kind.rawValue][ExactText(name)] { return context.object(with: id) }
        if !usesCache {
            // One fetch per lookup, against the store; names created in this batch are
            // remembered until it is saved.
            if let id = unsaved[kind.rawValue][ExactText(name)] { return context.object(with: id) }
            var request = FetchRequest(entityName: kind.entity)
            request.predicate = try FetchPredicate("name == %@", name)
            request.fetchLimit = 1
            request.includesPendingChanges = false
            if let found = try context.fetch(request).first { return found }
        }
        let object = try context.insert(kind.entity)
        object[attribute: "name"] = name
        if usesCache {
            // Until saved, the new object is found by its temporary ID like any other.
            ids[kind.rawValue][ExactText(name)] = object.objectID
            created.append((kind, name, object))
        } else {
            unsaved[kind.rawValue][ExactText(name)] = object.objectID
        }
        return object
    }

    /// Records the permanent IDs of the objects the batch created.
    mutating func didSave() {
        for (kind, name, object) in created { ids[kind.rawValue][ExactText(name)] = object.objectID }
        created.removeAll()
        for kind in Kind.allCases { unsaved[kind.rawValue].removeAll() }
    }

    /// Forgets every name, after a rollback: another context deleted an object the cache
    /// knew, so the next batch looks every name up in the store again.
    mutating func forgetAll() {
        ids = Array(repeating: [:], count: Kind.allCases.count)
        created.removeAll()
        for kind in Kind.allCases { unsaved[kind.rawValue].removeAll() }
    }

    /// Forgets the objects of a batch that was rolled back.
    mutating func didRollBack() {
        for (kind, name, _) in created { ids[kind.rawValue][ExactText(name)] = nil }
        created.removeAll()
        for kind in Kind.allCases { unsaved[kind.rawValue].removeAll() }
    }
}
