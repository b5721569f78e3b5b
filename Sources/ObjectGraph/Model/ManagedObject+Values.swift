import Foundation

extension ManagedObject {
    /// Reads or writes a property by name, as Core Data's `value(forKey:)` does.
    ///
    /// Attributes read as `Int`, `Double`, `Bool`, `String`, `Date`, `Data`, `UUID` or `URL`
    /// (nil when unset); a to-one relationship as `ManagedObject?`; a to-many one as
    /// `[ManagedObject]`. An unknown key or a value of the wrong type is a programming
    /// error and traps; use ``value(forKey:)`` and ``setValue(_:forKey:)`` to get errors instead.
    public subscript(key: String) -> Any? {
        get {
            do { return try value(forKey: key) } catch { preconditionFailure("\(error)") }
        }
        set {
            do { try setValue(newValue, forKey: key) } catch { preconditionFailure("\(error)") }
        }
    }

    /// The value of an attribute or relationship.
    /// - Throws: ``ObjectGraphError`` with code ``ObjectGraphError/Code/unknownKey``.
    public func value(forKey key: String) throws -> Any? {
        let entity = self.entity
        if let attribute = entity.attribute(named: key) {
            return attribute.type.swiftValue(from: storedValue(of: attribute))
        }
        if let relationship = entity.relationship(named: key) {
            return relationship.isToMany
                ? objects(of: relationship) as Any?
                : object(of: relationship) as Any?
        }
        throw ObjectGraphError.unknownKey(key, entity: entity)
    }

    /// Sets an attribute or relationship, keeping inverse relationships consistent.
    ///
    /// Numbers convert between integer widths and to `Double`; a to-many relationship takes
    /// an array of objects and replaces its contents.
    /// - Throws: ``ObjectGraphError`` with code ``ObjectGraphError/Code/unknownKey`` or
    ///   ``ObjectGraphError/Code/invalidValue``.
    public func setValue(_ value: Any?, forKey key: String) throws {
        try requireContext()
        let entity = self.entity
        if let attribute = entity.attribute(named: key) {
            try entity.checkSettable(attribute)
            guard let stored = attribute.type.storedValue(from: value) else {
                throw ObjectGraphError(.invalidValue,
                    "\(type(of: value!)) value \(value!) does not fit '\(entity.name).\(key)' of type \(attribute.type.displayName)")
            }
            setStoredValue(stored, of: attribute)
            return
        }
        if let relationship = entity.relationship(named: key) {
            if relationship.isToMany {
                guard let objects = (value as? [ManagedObject]) ?? (value == nil ? [] : nil) else {
                    throw ObjectGraphError(.invalidValue, "'\(entity.name).\(key)' needs an array of objects")
                }
                try checkDestination(objects, of: relationship)
                replaceObjects(of: relationship, with: objects)
            } else {
                guard value == nil || value is ManagedObject else {
                    throw ObjectGraphError(.invalidValue, "'\(entity.name).\(key)' needs an object or nil")
                }
                let object = value as? ManagedObject
                if let object { try checkDestination(object, of: relationship) }
                setObject(object, of: relationship)
            }
            return
        }
        throw ObjectGraphError.unknownKey(key, entity: entity)
    }

    /// Sets an attribute from text typed by a person (`prepMinutes=20`, `published=2024-03-01`).
    /// - Throws: ``ObjectGraphError`` for an unknown key, a relationship, or text that does not parse.
    /// - SeeAlso: ``EntityDescription/value(parsing:forKey:)``, which checks text without an object.
    public func setValue(parsing text: String, forKey key: String) throws {
        try requireContext()
        let attribute = try entity.settableAttribute(key)
        setStoredValue(try attribute.type.parse(text, key: key), of: attribute)
    }

    /// The changed properties and their new values since the last save.
    public func changedValues() -> [String: Any?] {
        if ConfinementChecks.isOn { checkConfinement("changedValues()") }
        var result: [String: Any?] = [:]
        for attribute in entity.attributes where hasChangedSlot(attribute.slot) {
            result[attribute.name] = attribute.type.swiftValue(from: slots[attribute.slot].value.storedValue)
        }
        for relationship in entity.relationships where hasChangedSlot(relationship.slot) {
            result[relationship.name] = try? value(forKey: relationship.name)
        }
        return result
    }

    /// The values of the given attributes as last saved or fetched (the current ones when unchanged).
    public func committedValues(forKeys keys: [String]) -> [String: Any?] {
        if ConfinementChecks.isOn { checkConfinement("committedValues(forKeys:)") }
        var result: [String: Any?] = [:]
        loadShadows()
        let snapshot = contextCore?.snapshot(of: self)
        for key in keys {
            guard let attribute = entity.attribute(named: key) else { continue }
            let slot = snapshot?[attribute.slot] ?? slots[attribute.slot].value
            result[key] = attribute.type.swiftValue(from: slot.storedValue)
        }
        return result
    }

    // MARK: Typed access for subclasses

    /// Reads or writes an attribute by its description: the fastest typed access, for code
    /// that looks the attribute up once (importers, generated accessors).
    ///
    /// ```swift
    /// let name = model.entity(named: "Chef")!.attribute(named: "name")!
    /// chef[name] = "Ana"
    /// ```
    ///
    /// The attribute must belong to this object's entity (or an ancestor): one of another
    /// entity stops the program with a message, since its slot means something else here.
    ///
    /// The subscript is inlined into the caller, so `Value`'s conversion is specialized
    /// there instead of being called through the protocol's witness table.
    @inlinable
    public subscript<Value: AttributeValue>(attribute: AttributeDescription) -> Value {
        get { Value(storedValue: checkedStoredValue(of: attribute)) }
        set { setCheckedStoredValue(newValue.storedValue, of: attribute) }
    }

    /// The typed subscript's read, after checking that the attribute is this object's.
    @usableFromInline
    func checkedStoredValue(of attribute: AttributeDescription) -> StoredValue {
        checkOwnership(of: attribute)
        return storedValue(of: attribute)
    }

    /// The typed subscript's write, after checking that the attribute is this object's and
    /// not derived.
    @usableFromInline
    func setCheckedStoredValue(_ value: StoredValue, of attribute: AttributeDescription) {
        checkOwnership(of: attribute)
        if attribute.isDerived { refuseDerived(attribute) }
        setStoredValue(value, of: attribute)
    }

    /// Stops the program unless `attribute` is one of this object's entity's, in debug and
    /// release builds alike. The common case (declared by the object's own entity) compares
    /// two integers; an inherited attribute walks the entity's ancestors.
    @inline(__always)
    private func checkOwnership(of attribute: AttributeDescription) {
        if Int(attribute.ownerIndex) == headerPointer.pointee.entityIndex { return }
        checkInheritedOwnership(of: attribute)
    }

    @inline(never)
    private func checkInheritedOwnership(of attribute: AttributeDescription) {
        let owner = attribute.entity, entity = self.entity
        guard let owner, entity.isKind(of: owner) else {
            preconditionFailure("attribute '\(owner?.name ?? "?").\(attribute.name)' does not belong to entity '\(entity.name)'")
        }
    }

    @inline(never)
    private func refuseDerived(_ attribute: AttributeDescription) -> Never {
        do { try entity.checkSettable(attribute) } catch { preconditionFailure("\(error)") }
        preconditionFailure("'\(attribute.name)' is derived")
    }

    /// Reads an attribute as a Swift type, for typed properties of subclasses.
    ///
    /// ```swift
    /// final class Recipe: ManagedObject {
    ///     var servings: Int { self[attribute: "servings"] }
    ///     var rating: Double? { self[attribute: "rating"] }
    /// }
    /// ```
    @inlinable
    public subscript<Value: AttributeValue>(attribute key: String) -> Value {
        get { Value(storedValue: storedValue(named: key)) }
        set { setStoredValue(newValue.storedValue, named: key) }
    }

    /// The string-keyed subscript's read.
    @usableFromInline
    func storedValue(named key: String) -> StoredValue {
        storedValue(of: requireAttribute(key))
    }

    /// The string-keyed subscript's write; a derived attribute stops the program.
    @usableFromInline
    func setStoredValue(_ value: StoredValue, named key: String) {
        let attribute = requireAttribute(key)
        if attribute.isDerived { refuseDerived(attribute) }
        setStoredValue(value, of: attribute)
    }

    private func requireAttribute(_ key: String) -> AttributeDescription {
        guard let attribute = entity.attribute(named: key) else {
            preconditionFailure("\(ObjectGraphError.unknownKey(key, entity: entity))")
        }
        return attribute
    }

    /// Reads or writes a to-one relationship as a typed object, for subclasses.
    public subscript<Destination: ManagedObject>(toOne key: String) -> Destination? {
        get { object(of: requireRelationship(key, toMany: false)).map { Self.cast($0, key) } }
        set {
            let relationship = requireRelationship(key, toMany: false)
            // The same checks as setValue(_:forKey:): a destination of another context, or
            // one a reset detached, would be linked without either context knowing.
            if let newValue {
                do { try checkDestination(newValue, of: relationship) } catch { preconditionFailure("\(error)") }
            }
            setObject(newValue, of: relationship)
        }
    }

    /// Reads a to-many relationship as typed objects, for subclasses.
    public subscript<Destination: ManagedObject>(toMany key: String) -> [Destination] {
        objects(of: requireRelationship(key, toMany: true)).map { Self.cast($0, key) }
    }

    /// A destination as the type the caller expects, or a stop with a message naming the
    /// relationship and both types (the entity's `objectClass` and the property's type disagree).
    private static func cast<Destination: ManagedObject>(_ object: ManagedObject, _ key: String) -> Destination {
        guard let typed = object as? Destination else {
            preconditionFailure("'\(key)' holds a \(type(of: object)) (\(object.entity.name)), not a \(Destination.self)")
        }
        return typed
    }

    private func requireRelationship(_ key: String, toMany: Bool) -> RelationshipDescription {
        guard let relationship = entity.relationship(named: key), relationship.isToMany == toMany else {
            preconditionFailure("'\(entity.name)' has no \(toMany ? "to-many" : "to-one") relationship '\(key)'")
        }
        return relationship
    }

    /// Throws when the object belongs to no context any more (a reset, a saved delete or
    /// its context's end detached it): no context would record a change, and it would be lost.
    func requireContext() throws {
        guard contextCore == nil else { return }
        throw ObjectGraphError(.invalidValue, """
            \(entity.describe(objectID)) no longer belongs to a context (reset() detached it, a saved delete \
            removed it, or its context is gone): a change to it would be lost; fetch it again, or call \
            object(with:) on a context
            """)
    }

    func checkDestination(_ objects: [ManagedObject], of relationship: RelationshipDescription) throws {
        for object in objects { try checkDestination(object, of: relationship) }
    }

    /// Checks that `object` may be a destination of `relationship` on this object: of the
    /// destination entity, and registered in the same context.
    /// - Throws: ``ObjectGraphError`` `invalidValue` naming both objects.
    func checkDestination(_ object: ManagedObject, of relationship: RelationshipDescription) throws {
        guard object.entity.isKind(of: relationship.destination) else {
            throw ObjectGraphError(.invalidValue,
                "'\(entity.name).\(relationship.name)' holds \(relationship.destination.name) objects, not \(object.entity.name)")
        }
        guard object.contextCore === contextCore else {
            if object.contextCore == nil {
                throw ObjectGraphError(.invalidValue, """
                    \(object.entity.describe(object.objectID)) no longer belongs to a context (reset() \
                    detached it, or its context is gone): keep its objectID instead and call object(with:) \
                    on the context to link it to \(entity.describe(objectID)).
                    """)
            }
            throw ObjectGraphError(.invalidValue, """
                \(object.entity.describe(object.objectID)) belongs to another context than \
                \(entity.describe(objectID)). Pass its objectID across contexts and call \
                object(with:) on the receiving context instead.
                """)
        }
    }

    // MARK: Slots

    /// The stored value of an attribute, loading the object first if it is a fault (and
    /// its canonical shadows if it is one).
    @inline(__always)
    func storedValue(of attribute: AttributeDescription) -> StoredValue {
        fireFaultIfNeeded("reading '\(attribute.name)'")
        if attribute.isDerived { loadShadows() }
        return slots[attribute.slot].value.storedValue
    }

    /// Sets an attribute's stored value, records the change and updates derived attributes.
    func setStoredValue(_ value: StoredValue, of attribute: AttributeDescription) {
        fireFaultIfNeeded("setting '\(attribute.name)'")
        // A transient change is a change (Core Data's hasChanges); saving writes no column for it.
        willChange(slot: attribute.slot)
        if attribute.hasDerivedTargets {
            for target in attribute.derivedTargets {
                willChange(slot: target.slot)
                slots[target.slot].value = Slot(Derivations.derive(value, target.derivation!))
            }
        }
        slots[attribute.slot].value = Slot(value)
    }
}

/// Computes the values of attributes derived from another attribute.
package enum Derivations {
    /// The derived value for the source attribute's new `value`.
    package static func derive(_ value: StoredValue, _ derivation: AttributeDescription.Derivation) -> StoredValue {
        switch derivation {
        case .canonical:
            return fold(value)
        case .exists:
            return .integer(value.isNull ? 0 : 1)
        case .count:
            preconditionFailure("a count is derived from a relationship, not an attribute")
        }
    }

    /// A canonical shadow's value: the text folded, or null.
    package static func fold(_ value: StoredValue) -> StoredValue {
        guard case .text(let text) = value else { return .null }
        return .text(text.canonicalFolded())
    }
}
