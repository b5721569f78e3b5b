/// A set of entities: what objects exist, what they hold and how they relate.
///
/// The model is declared in Swift code and checked when created: every relationship needs
/// an inverse on its destination, parents must exist, names must be unique, and a model
/// holds at most 65,536 entities.
/// ```swift
/// let model = try ObjectModel(entities: [chefEntity, recipeEntity])
/// let recipes = model.entity(named: "Recipe")
/// ```
/// - Throws: ``ObjectGraphError`` with code ``ObjectGraphError/Code/invalidModel``, naming the
///   entity and property at fault.
public final class ObjectModel: Sendable, CustomStringConvertible {
    /// The entities, in declaration order; an entity's ``EntityDescription/index`` is its position here.
    public let entities: [EntityDescription]
    private let entitiesByName: [String: EntityDescription]

    /// Checks and resolves the declared entities into a model.
    public init(entities: [EntityDescription]) throws {
        guard entities.count <= ObjectHeader.entityLimit else {
            throw ObjectGraphError(.invalidModel,
                "the model has \(entities.count) entities; a model holds at most \(ObjectHeader.entityLimit)")
        }
        var byName: [String: EntityDescription] = [:]
        for (index, entity) in entities.enumerated() {
            guard !entity.name.isEmpty, !entity.name.hasPrefix("_") else {
                throw ObjectGraphError(.invalidModel, "entity name '\(entity.name)' is empty or starts with '_'")
            }
            guard byName.updateValue(entity, forKey: entity.name) == nil else {
                throw ObjectGraphError(.invalidModel, "entity '\(entity.name)' is declared twice")
            }
            guard entity.index == -1 else {
                throw ObjectGraphError(.invalidModel,
                    "entity '\(entity.name)' already belongs to another model; describe it anew for each model")
            }
            entity.index = index
        }
        self.entities = entities
        self.entitiesByName = byName
        for entity in entities {
            entity.model = self
            if let parentName = entity.parentName {
                guard let parent = byName[parentName] else {
                    throw ObjectGraphError(.invalidModel,
                        "entity '\(entity.name)' names parent '\(parentName)', which the model does not have")
                }
                entity.parent = parent
                parent.subentities.append(entity)
            }
        }
        for entity in entities {
            var seen: Set<String> = [entity.name]
            var ancestor = entity.parent
            while let current = ancestor {
                guard seen.insert(current.name).inserted else {
                    throw ObjectGraphError(.invalidModel, "entity '\(entity.name)' inherits from itself")
                }
                ancestor = current.parent
            }
        }
        // Parents before children, so inherited properties come first in slot order.
        for entity in entities where entity.parent == nil { try Self.resolveTree(entity, root: entity) }
        for entity in entities { try Self.resolveRelationships(entity, in: byName) }
        for entity in entities { try Self.resolveDerivations(entity) }
        for entity in entities {
            entity.relationshipDerivedAttributes = entity.attributes.filter { $0.sourceRelationship != nil }
            entity.foldedShadows = entity.storedAttributes.compactMap { attribute in
                guard case .canonical(let source)? = attribute.derivation else { return nil }
                return (entity.attributesByName[source]!.slot, attribute.slot)
            }
        }
        for entity in entities where entity.parent == nil { try Self.checkSharedColumns(in: entity) }
        for entity in entities { try Self.checkIndexes(entity) }
        for entity in entities { try Self.checkObjectClass(of: entity) }
        for entity in entities { entity.versionHash = Self.versionHash(of: entity) }
        for entity in entities {
            if !entity.relationshipDerivedAttributes.isEmpty { entity.saveWork.insert(.derivesFromRelationships) }
            if !entity.requiredAttributes.isEmpty || !entity.rangedAttributes.isEmpty { entity.saveWork.insert(.checksAttributes) }
            if !entity.relationships.isEmpty { entity.saveWork.insert(.hasRelationships) }
            if !entity.toManyRelationships.isEmpty { entity.saveWork.insert(.hasToMany) }
        }
        Self.made.withLock { $0.append(self) }
    }

    /// Every model made. A model and its entities live as long as the process (see
    /// ``EntityDescription/model``); listing them here says so to a leak checker too.
    private static let made = Locked<[ObjectModel]>([])

    /// The entity called `name`.
    public func entity(named name: String) -> EntityDescription? { entitiesByName[name] }

    /// The entity called `name`, or an error that suggests the nearest name.
    /// - Throws: ``ObjectGraphError`` with code ``ObjectGraphError/Code/unknownEntity``.
    public func requireEntity(named name: String) throws -> EntityDescription {
        if let entity = entitiesByName[name] { return entity }
        throw ObjectGraphError.unknownEntity(name, known: entities.map(\.name))
    }

    /// The entity called `name`, which must not be abstract: what an insert by name makes.
    /// - Throws: ``ObjectGraphError`` `unknownEntity`, or `invalidValue` for an abstract
    ///   entity, naming the sub-entities to insert instead.
    func requireInsertableEntity(named name: String) throws -> EntityDescription {
        let entity = try requireEntity(named: name)
        guard entity.isAbstract else { return entity }
        let concrete = entity.selfAndDescendants.filter { !$0.isAbstract }.map(\.name)
        throw ObjectGraphError(.invalidValue, "entity '\(name)' is abstract: insert one of its sub-entities"
                               + (concrete.isEmpty ? " (it has none that is not abstract)" : ", such as \(concrete.joined(separator: " or "))"))
    }

    /// Version hashes by entity name; the store records them to detect a changed model.
    public var versionHashes: [String: String] {
        Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0.versionHash) })
    }

    /// `Recipe/p42`: an object ID with its entity's name.
    public func describe(_ id: ObjectID) -> String {
        guard entities.indices.contains(Int(id.entityIndex)) else {
            return id.isTemporary ? "#\(id.entityIndex)/t\(id.temporaryTag).\(id.key)" : "#\(id.entityIndex)/p\(id.key)"
        }
        return entities[Int(id.entityIndex)].describe(id)
    }

    /// The permanent ID that ``describe(_:)`` printed as `Recipe/p42`, or nil when the text
    /// is not of that form or names no entity of this model.
    public func objectID(describedAs text: String) -> ObjectID? {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let entity = entity(named: String(parts[0])), parts[1].hasPrefix("p"),
              let key = Int64(parts[1].dropFirst()) else { return nil }
        return ObjectID(entityIndex: entity.index, key: key)
    }

    /// The entity names.
    public var description: String { "ObjectModel(\(entities.map(\.name).joined(separator: ", ")))" }

    // MARK: Resolution

    private static func resolveTree(_ entity: EntityDescription, root: EntityDescription) throws {
        entity.root = root
        var attributes = entity.parent?.attributes ?? []
        var relationships = entity.parent?.relationships ?? []
        var names = Set(attributes.map(\.name) + relationships.map(\.name))
        for attribute in entity.declaredAttributes {
            try checkName(attribute.name, in: entity, names: &names)
            // A description names one slot of one entity; shared, the second entity would
            // rewrite the first one's entity and slot.
            if let owner = attribute.entity {
                throw ObjectGraphError(.invalidModel,
                    "attribute '\(attribute.name)' of '\(entity.name)' is the same AttributeDescription as '\(owner.name).\(attribute.name)'; give each entity its own")
            }
            attribute.entity = entity
            attribute.ownerIndex = UInt32(entity.index)
            attributes.append(attribute)
        }
        for relationship in entity.declaredRelationships {
            try checkName(relationship.name, in: entity, names: &names)
            if let owner = relationship.entity {
                throw ObjectGraphError(.invalidModel,
                    "relationship '\(relationship.name)' of '\(entity.name)' is the same RelationshipDescription as '\(owner.name).\(relationship.name)'; give each entity its own")
            }
            relationship.entity = entity
            relationships.append(relationship)
        }
        // A sub-entity extends its parent's slot layout with its own attributes, then its own
        // relationships, so an inherited property keeps one slot in every entity of the tree.
        var slot = entity.parent?.slotCount ?? 0
        for attribute in entity.declaredAttributes { attribute.slot = slot; slot += 1 }
        for relationship in entity.declaredRelationships { relationship.slot = slot; slot += 1 }
        entity.attributes = attributes
        entity.relationships = relationships
        entity.attributesByName = Dictionary(uniqueKeysWithValues: attributes.map { ($0.name, $0) })
        entity.relationshipsByName = Dictionary(uniqueKeysWithValues: relationships.map { ($0.name, $0) })
        entity.propertyKeys = PropertyKeyCache(attributes: attributes, relationships: relationships)
        entity.storedAttributes = attributes.filter { !$0.isTransient }
        entity.requiredAttributes = attributes.filter { !$0.isOptional && !$0.isTransient }
        entity.rangedAttributes = entity.storedAttributes.filter(\.hasRange)
        entity.attributesWithDefaults = attributes.filter { !$0.defaultValue.isNull }
        for subentity in entity.subentities { try resolveTree(subentity, root: root) }
        entity.selfAndDescendants = [entity] + entity.subentities.flatMap(\.selfAndDescendants)
    }

    private static func checkName(
        _ name: String, in entity: EntityDescription, names: inout Set<String>
    ) throws {
        guard !name.isEmpty, !name.hasPrefix("_"), name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }),
              !(name.first?.isNumber ?? true) else {
            throw ObjectGraphError(.invalidModel,
                "property name '\(name)' on entity '\(entity.name)' must be an identifier not starting with '_'")
        }
        guard names.insert(name).inserted else {
            throw ObjectGraphError(.invalidModel,
                "property '\(name)' is declared twice in the tree of entity '\(entity.name)'")
        }
    }

    private static func resolveRelationships(
        _ entity: EntityDescription, in byName: [String: EntityDescription]
    ) throws {
        for relationship in entity.declaredRelationships {
            guard let destination = byName[relationship.destinationName] else {
                throw ObjectGraphError(.invalidModel,
                    "relationship '\(entity.name).\(relationship.name)' points to unknown entity '\(relationship.destinationName)'")
            }
            guard let inverse = destination.relationshipsByName[relationship.inverseName] else {
                throw ObjectGraphError(.invalidModel,
                    "relationship '\(entity.name).\(relationship.name)' names inverse '\(relationship.inverseName)', which '\(destination.name)' does not have")
            }
            guard let inverseDestination = byName[inverse.destinationName] else {
                throw ObjectGraphError(.invalidModel,
                    "relationship '\(destination.name).\(inverse.name)' points to unknown entity '\(inverse.destinationName)'")
            }
            guard inverse.inverseName == relationship.name, entity.isKind(of: inverseDestination)
                    || inverseDestination.isKind(of: entity) else {
                throw ObjectGraphError(.invalidModel,
                    "'\(entity.name).\(relationship.name)' and '\(destination.name).\(inverse.name)' are not each other's inverse")
            }
            if let orderKey = relationship.orderKey, destination.attributesByName[orderKey] == nil {
                throw ObjectGraphError(.invalidModel,
                    "'\(entity.name).\(relationship.name)' is ordered by '\(orderKey)', which '\(destination.name)' does not have")
            }
            relationship.destination = destination
            relationship.inverse = inverse
        }
        // Sub-entities see inherited relationships with the slots their parent gave them.
        entity.toOneRelationships = entity.relationships.filter { !$0.isToMany }
        entity.toManyRelationships = entity.relationships.filter { $0.isToMany }
    }

    /// Connects each derived attribute this entity declares to its source, checking that the
    /// expression fits: `canonical:` folds a String attribute into a String, `@count` counts a
    /// to-many relationship into an integer, `!= nil` tests an attribute or to-one into a Bool.
    private static func resolveDerivations(_ entity: EntityDescription) throws {
        for attribute in entity.declaredAttributes {
            guard let derivation = attribute.derivation else { continue }
            func invalid(_ problem: String) -> ObjectGraphError {
                ObjectGraphError(.invalidModel, "derived attribute '\(entity.name).\(attribute.name)' (\(derivation)): \(problem)")
            }
            guard !attribute.isTransient else { throw invalid("a derived attribute is stored; it cannot be transient") }
            let sourceAttribute = entity.attributesByName[derivation.source]
            let sourceRelationship = entity.relationshipsByName[derivation.source]
            guard sourceAttribute != nil || sourceRelationship != nil else {
                throw invalid("'\(entity.name)' has no property '\(derivation.source)'")
            }
            guard sourceAttribute?.derivation == nil else { throw invalid("its source '\(derivation.source)' is derived itself") }
            switch derivation {
            case .canonical:
                guard sourceAttribute?.type == .string, attribute.type == .string else {
                    throw invalid("needs a String attribute '\(derivation.source)' and is a String itself")
                }
            case .count:
                guard sourceRelationship?.isToMany == true,
                      [.integer16, .integer32, .integer64].contains(attribute.type) else {
                    throw invalid("needs a to-many relationship '\(derivation.source)' and is an integer itself")
                }
            case .exists:
                guard sourceRelationship?.isToMany != true, attribute.type == .boolean else {
                    throw invalid("needs an attribute or to-one relationship '\(derivation.source)' and is a Bool itself (count a to-many one with @count)")
                }
            }
            if let sourceAttribute, !sourceAttribute.derivedTargets.contains(where: { $0 === attribute }) {
                sourceAttribute.derivedTargets.append(attribute)
            }
            attribute.sourceRelationship = sourceRelationship
            sourceRelationship?.isDerivationSource = true
        }
    }

    /// An entity's class must not add stored properties: an object's memory is its class's
    /// instance followed by the header and slots, and a stored property would overlap them.
    private static func checkObjectClass(of entity: EntityDescription) throws {
        guard entity.objectClass != ManagedObject.self,
              instanceSize(of: entity.objectClass) != instanceSize(of: ManagedObject.self) else { return }
        throw ObjectGraphError(.invalidModel,
            "class \(entity.objectClass) of entity '\(entity.name)' declares stored properties; a ManagedObject subclass keeps its state in the entity's attributes (use computed properties)")
    }

    /// The instance size Swift's class metadata records (on Linux, where classes have no
    /// Objective-C header: kind, superclass, flags, address point, then the size at byte 24).
    /// Elsewhere it returns 0 for every class, and the check above is skipped.
    private static func instanceSize(of type: AnyClass) -> UInt32 {
        #if os(Linux)
        unsafeBitCast(type, to: UnsafeRawPointer.self).load(fromByteOffset: 24, as: UInt32.self)
        #else
        0
        #endif
    }

    private static func checkIndexes(_ entity: EntityDescription) throws {
        for keys in entity.indexes + entity.uniquenessConstraints {
            for key in keys {
                let isStored = entity.attributesByName[key].map { !$0.isTransient }
                    ?? entity.relationshipsByName[key].map { !$0.isToMany } ?? false
                guard isStored else {
                    throw ObjectGraphError(.invalidModel,
                        "index or constraint on '\(entity.name)' names '\(key)', which is not a stored attribute or to-one relationship")
                }
            }
        }
    }

    /// Canonical descriptions of what decides each entity's storage, by entity name: the
    /// store keeps them to say exactly what changed when a model no longer matches it.
    public var storageDescriptions: [String: String] {
        Dictionary(uniqueKeysWithValues: entities.map { ($0.name, Self.storageDescription(of: $0)) })
    }

    /// Checks that properties of one name declared by different entities of a tree (siblings
    /// or cousins, which the name check against ancestors lets through) are stored alike,
    /// since they share the tree's column of that name: attributes of one type, or to-one
    /// relationships to one destination.
    private static func checkSharedColumns(in root: EntityDescription) throws {
        var owners: [String: (owner: String, storage: String)] = [:]
        for entity in root.selfAndDescendants {
            var declared: [(name: String, storage: String)] = []
            for attribute in entity.declaredAttributes where !attribute.isTransient {
                declared.append((attribute.name, "attribute of type \(attribute.type.displayName)"))
            }
            for relationship in entity.declaredRelationships where !relationship.isToMany {
                declared.append((relationship.name, "to-one relationship to \(relationship.destination.name)"))
            }
            for (name, storage) in declared {
                if let first = owners[name] {
                    guard first.storage == storage else {
                        throw ObjectGraphError(.invalidModel,
                            "\(first.owner).\(name) (\(first.storage)) and \(entity.name).\(name) (\(storage)) would share the column '\(name)' of the table for '\(root.name)'; give them the same type or different names")
                    }
                } else {
                    owners[name] = (entity.name, storage)
                }
            }
        }
    }

    /// FNV-1a over the entity's storage description.
    private static func versionHash(of entity: EntityDescription) -> String {
        versionHash(ofDescription: storageDescription(of: entity))
    }

    /// The version hash of an entity with this storage description (FNV-1a over its UTF-8),
    /// to check that a store's recorded hashes and descriptions belong together.
    static func versionHash(ofDescription description: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in description.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    /// `Name|Parent|isAbstract|a:name:type:optional:transient[:derivation]|r:name:destination:inverse:toMany|i:keys|u:keys`.
    static func storageDescription(of entity: EntityDescription) -> String {
        var text = "\(entity.name)|\(entity.parent?.name ?? "")|\(entity.isAbstract)"
        for attribute in entity.attributes {
            text += "|a:\(attribute.name):\(attribute.type.rawValue):\(attribute.isOptional):\(attribute.isTransient)"
            if let derivation = attribute.derivation { text += ":\(derivation)" }
        }
        for relationship in entity.relationships {
            text += "|r:\(relationship.name):\(relationship.destinationName):\(relationship.inverseName):\(relationship.isToMany)"
        }
        for keys in entity.indexes { text += "|i:" + keys.joined(separator: ",") }
        for keys in entity.uniquenessConstraints { text += "|u:" + keys.joined(separator: ",") }
        return text
    }
}
