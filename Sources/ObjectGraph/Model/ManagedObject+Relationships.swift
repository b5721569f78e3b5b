extension ManagedObject {
    /// The objects of a to-many relationship, loading them on first access.
    /// - Throws: ``ObjectGraphError`` for an unknown key or a to-one relationship.
    public func objects(forKey key: String) throws -> [ManagedObject] {
        objects(of: try toManyRelationship(key))
    }

    /// Adds `object` to a to-many relationship and sets the inverse, without loading the
    /// relationship if it is still a fault.
    public func add(_ object: ManagedObject, toKey key: String) throws {
        try requireContext()
        let relationship = try toManyRelationship(key)
        try checkDestination([object], of: relationship)
        addObject(object, to: relationship)
    }

    /// Removes `object` from a to-many relationship and clears the inverse.
    public func remove(_ object: ManagedObject, fromKey key: String) throws {
        try requireContext()
        let relationship = try toManyRelationship(key)
        removeObject(object, from: relationship)
    }

    private func toManyRelationship(_ key: String) throws -> RelationshipDescription {
        guard let relationship = entity.relationship(named: key) else {
            guard entity.attribute(named: key) != nil else { throw ObjectGraphError.unknownKey(key, entity: entity) }
            let names = entity.relationships.filter(\.isToMany).map { "'\($0.name)'" }
            throw ObjectGraphError(.invalidValue, "'\(entity.name).\(key)' is an attribute, not a to-many relationship"
                + (names.isEmpty ? "; '\(entity.name)' has none" : "; its to-many relationships: \(names.joined(separator: ", "))"))
        }
        guard relationship.isToMany else {
            throw ObjectGraphError(.invalidValue, "'\(entity.name).\(key)' is a to-one relationship")
        }
        return relationship
    }

    /// Turns realized relationships back into IDs and faults, releasing the objects they held.
    func releaseRelationships() {
        for relationship in entity.relationships {
            switch slots[relationship.slot].value {
            case .object(let object): slots[relationship.slot].value = .objectID(object.objectID)
            case .toMany: slots[relationship.slot].value = .null
            default: break
            }
        }
    }

    // MARK: To-one

    /// The destination of a to-one relationship, realizing it (and keeping it) on first access.
    func object(of relationship: RelationshipDescription) -> ManagedObject? {
        fireFaultIfNeeded("reading '\(relationship.name)'")
        switch slots[relationship.slot].value {
        case .object(let object): return object
        case .objectID(let id):
            guard let context = contextCore else { return nil }
            let object = context.object(for: id)
            slots[relationship.slot].value = .object(object)
            return object
        default: return nil
        }
    }

    /// Sets a to-one relationship and keeps the inverse on the old and new destinations.
    func setObject(_ newValue: ManagedObject?, of relationship: RelationshipDescription) {
        if ConfinementChecks.isOn { checkConfinement("setting '\(relationship.name)'") }
        let old = object(of: relationship)
        if old === newValue { return }
        primitiveSetObject(newValue, of: relationship)
        let inverse = relationship.inverse!
        if let old { old.inverseWillRemove(self, via: inverse) }
        if let newValue { newValue.inverseWillAdd(self, via: inverse) }
    }

    /// Sets the slot only, recording the change.
    func primitiveSetObject(_ value: ManagedObject?, of relationship: RelationshipDescription) {
        willChange(slot: relationship.slot)
        slots[relationship.slot].value = value.map { .object($0) } ?? .null
    }

    /// Called on the destination when `source` starts pointing at it through `relationship`'s inverse.
    func inverseWillAdd(_ source: ManagedObject, via relationship: RelationshipDescription) {
        if relationship.isToMany {
            willChange(slot: relationship.slot)
            storage(of: relationship).add(source)
        } else {
            // One-to-one: the destination's old partner loses it.
            let previous = object(of: relationship)
            if previous === source { return }
            if let previous { previous.primitiveSetObject(nil, of: relationship.inverse) }
            primitiveSetObject(source, of: relationship)
        }
    }

    /// Called on the destination when `source` stops pointing at it.
    func inverseWillRemove(_ source: ManagedObject, via relationship: RelationshipDescription) {
        if relationship.isToMany {
            willChange(slot: relationship.slot)
            storage(of: relationship).remove(source)
        } else if object(of: relationship) === source {
            primitiveSetObject(nil, of: relationship)
        }
    }

    // MARK: To-many

    /// The storage of a to-many relationship, created (as a fault, or empty for a new object) on demand.
    func storage(of relationship: RelationshipDescription) -> ToManyStorage {
        if case .toMany(let storage) = slots[relationship.slot].value { return storage }
        // A nested context's temporary ID may name an object its parents hold, with members.
        let isNew = state == .inserted || (objectID.isTemporary && contextCore?.parent == nil)
        let storage = ToManyStorage(objects: isNew || contextCore == nil ? [] : nil)
        slots[relationship.slot].value = .toMany(storage)
        return storage
    }

    /// The objects of a to-many relationship, firing its fault on first access.
    func objects(of relationship: RelationshipDescription) -> [ManagedObject] {
        if ConfinementChecks.isOn { checkConfinement("reading '\(relationship.name)'") }
        let storage = storage(of: relationship)
        if let objects = storage.objects { return objects }
        guard let context = contextCore else { return storage.added }
        context.fulfillToManyFault(storage, of: self, relationship: relationship)
        return storage.objects ?? []
    }

    /// Whether a to-many relationship has been loaded (or needs no loading).
    func isRealized(_ relationship: RelationshipDescription) -> Bool {
        if case .toMany(let storage) = slots[relationship.slot].value { return storage.objects != nil }
        return state == .inserted
    }

    /// Replaces the contents of a to-many relationship, maintaining every inverse.
    func replaceObjects(of relationship: RelationshipDescription, with newObjects: [ManagedObject]) {
        if ConfinementChecks.isOn { checkConfinement("setting '\(relationship.name)'") }
        let current = objects(of: relationship)
        for object in current where !newObjects.contains(where: { $0 === object }) {
            removeObject(object, from: relationship)
        }
        for object in newObjects where !current.contains(where: { $0 === object }) {
            addObject(object, to: relationship)
        }
    }

    /// Adds one object to a to-many relationship (realized or not) and sets its inverse.
    func addObject(_ object: ManagedObject, to relationship: RelationshipDescription) {
        if ConfinementChecks.isOn { checkConfinement("adding to '\(relationship.name)'") }
        let inverse = relationship.inverse!
        if inverse.isToMany {
            willChange(slot: relationship.slot)
            storage(of: relationship).add(object)
            object.inverseWillAdd(self, via: inverse)
        } else {
            // Setting the inverse to-one moves the object out of its previous owner too.
            object.setObject(self, of: inverse)
        }
    }

    /// Removes one object from a to-many relationship and clears its inverse.
    func removeObject(_ object: ManagedObject, from relationship: RelationshipDescription) {
        if ConfinementChecks.isOn { checkConfinement("removing from '\(relationship.name)'") }
        let inverse = relationship.inverse!
        if inverse.isToMany {
            willChange(slot: relationship.slot)
            storage(of: relationship).remove(object)
            object.inverseWillRemove(self, via: inverse)
        } else if object.object(of: inverse) === self {
            object.setObject(nil, of: inverse)
        }
    }
}
