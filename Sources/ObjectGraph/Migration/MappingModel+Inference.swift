/// Infers entity mappings from two model versions (``MappingModel/inferred(from:to:)``).
///
/// Entities and properties are matched by name, or by the destination's renaming
/// identifier (the name in the source model). Attributes of a new entity whose renaming
/// identifiers read `Entity.attribute` are moved out of that source entity.
struct Inference {
    let source: ObjectModel
    let destination: ObjectModel
    /// Source entity of each destination entity, by destination name (given mappings included).
    private var origin: [String: EntityDescription] = [:]
    /// Destination entity name of each source entity, by source name.
    private var counterpart: [String: String] = [:]
    /// Entities covered by the given mappings.
    private let givenDestinations: Set<String>
    private let givenSources: Set<String>
    /// Extractions: new entity name → (source entity, destination entity, link relationship name, moved attribute pairs).
    private var extractions: [String: Extraction] = [:]

    struct Extraction {
        let source: EntityDescription
        let owner: EntityDescription
        let link: RelationshipDescription
        /// (destination attribute, source attribute) pairs.
        let moved: [(String, String)]
    }

    init(source: ObjectModel, destination: ObjectModel, given: [EntityMapping]) throws {
        self.source = source
        self.destination = destination
        givenDestinations = Set(given.compactMap(\.destinationEntityName))
        givenSources = Set(given.compactMap(\.sourceEntityName))
        for mapping in given {
            if let from = mapping.sourceEntityName, let to = mapping.destinationEntityName, mapping.kind != .extract {
                origin[to] = source.entity(named: from)
                counterpart[from] = to
            }
        }
        for entity in destination.entities where origin[entity.name] == nil && !givenDestinations.contains(entity.name) {
            let oldName = entity.renamingIdentifier ?? entity.name
            guard let old = source.entity(named: oldName) else {
                if entity.renamingIdentifier != nil {
                    throw Self.cannot("entity '\(entity.name)' is renamed from '\(oldName)', which the source model does not have")
                }
                continue
            }
            if let other = counterpart[old.name] {
                throw Self.cannot("entities '\(other)' and '\(entity.name)' both come from '\(old.name)'; at most one destination entity can")
            }
            origin[entity.name] = old
            counterpart[old.name] = entity.name
        }
    }

    static func cannot(_ problem: String) -> ObjectGraphError {
        ObjectGraphError(.cannotInferMapping, "cannot infer a mapping: \(problem)")
    }

    mutating func run() throws -> [EntityMapping] {
        for entity in destination.entities where origin[entity.name] == nil && !givenDestinations.contains(entity.name) {
            if let extraction = try extraction(into: entity) { extractions[entity.name] = extraction }
        }
        var mappings: [EntityMapping] = []
        for entity in destination.entities where !givenDestinations.contains(entity.name) {
            if let old = origin[entity.name] {
                mappings.append(try transform(old, entity))
            } else if let extraction = extractions[entity.name] {
                mappings.append(extract(entity, extraction))
            } else {
                mappings.append(EntityMapping(
                    name: "Add\(entity.name)", kind: .add, sourceEntityName: nil, destinationEntityName: entity.name,
                    attributeMappings: entity.storedAttributes.map { PropertyMapping($0.name, source: .defaultValue) },
                    relationshipMappings: entity.relationships.map { PropertyMapping($0.name, source: .defaultValue) },
                    changes: ["new entity"]))
            }
        }
        for old in source.entities where counterpart[old.name] == nil && !givenSources.contains(old.name) {
            mappings.append(EntityMapping(name: "Remove\(old.name)", kind: .remove, sourceEntityName: old.name,
                                          destinationEntityName: nil, changes: ["entity removed, with its objects"]))
        }
        return mappings
    }

    // MARK: Changed entities

    private func transform(_ old: EntityDescription, _ new: EntityDescription) throws -> EntityMapping {
        var changes: [String] = []
        if old.name != new.name { changes.append("renamed from '\(old.name)'") }
        let oldParent = old.parent.map { counterpart[$0.name] ?? "(removed) \($0.name)" }
        guard oldParent == new.parent?.name else {
            throw Self.cannot("entity '\(new.name)' moves from parent \(oldParent.map { "'\($0)'" } ?? "none") to \(new.parent.map { "'\($0.name)'" } ?? "none"); its objects change tables, which needs a mapping model with a custom policy")
        }
        if new.isAbstract && !old.isAbstract {
            throw Self.cannot("entity '\(new.name)' becomes abstract; its objects need a concrete entity, which needs a mapping model with a custom policy")
        }
        var attributes: [PropertyMapping] = []
        var used: Set<String> = []
        for attribute in new.storedAttributes {
            let declared = attribute.entity === new
            if attribute.derivation != nil {
                attributes.append(PropertyMapping(attribute.name, source: .derived))
                if declared, old.attribute(named: attribute.name)?.derivation != attribute.derivation {
                    changes.append("derived attribute '\(attribute.name)' (\(attribute.derivation!)) computed")
                }
                continue
            }
            let oldName = attribute.renamingIdentifier ?? attribute.name
            if oldName.contains(".") {
                throw Self.cannot("attribute '\(new.name).\(attribute.name)' comes from '\(oldName)', but only a new entity can take attributes from another entity")
            }
            guard let previous = old.attribute(named: oldName), !previous.isTransient, previous.derivation == nil || oldName == attribute.name else {
                if !attribute.isOptional && attribute.defaultValue.isNull {
                    throw Self.cannot("new attribute '\(new.name).\(attribute.name)' is required and has no default value for the existing objects; give it a default value, make it optional, or write a mapping model")
                }
                attributes.append(PropertyMapping(attribute.name, source: .defaultValue))
                if declared { changes.append("attribute '\(attribute.name)' added") }
                continue
            }
            used.insert(previous.name)
            var mapping = PropertyMapping(attribute.name, source: .property(previous.name))
            if previous.type != attribute.type {
                guard Self.widens(previous.type, to: attribute.type) else {
                    throw Self.cannot("attribute '\(new.name).\(attribute.name)' changes type from \(previous.type.displayName) to \(attribute.type.displayName); convert the values in a mapping model with a custom policy")
                }
                if declared { changes.append("attribute '\(attribute.name)' widened from \(previous.type.displayName) to \(attribute.type.displayName)") }
            }
            if declared && previous.name != attribute.name { changes.append("attribute '\(previous.name)' renamed to '\(attribute.name)'") }
            if previous.isOptional && !attribute.isOptional {
                guard !attribute.defaultValue.isNull else {
                    throw Self.cannot("attribute '\(new.name).\(attribute.name)' becomes required but has no default value for objects where it is nil; give it a default value, or write a mapping model")
                }
                mapping.valueForNil = attribute.defaultValue
                if declared {
                    let value = attribute.type.swiftValue(from: attribute.defaultValue).map { "\($0)" } ?? "\(attribute.defaultValue)"
                    changes.append("attribute '\(attribute.name)' is now required (nil becomes \(value))")
                }
            } else if declared && !previous.isOptional && attribute.isOptional {
                changes.append("attribute '\(attribute.name)' is now optional")
            }
            attributes.append(mapping)
        }
        for (name, extraction) in extractions where extraction.source === old {
            for (to, from) in extraction.moved where !used.contains(from) {
                used.insert(from)
                changes.append("attribute '\(from)' moved to '\(name).\(to)'")
            }
        }
        for attribute in old.storedAttributes where attribute.entity === old && !used.contains(attribute.name)
            && new.attribute(named: attribute.name) == nil {
            changes.append("attribute '\(attribute.name)' removed")
        }
        var relationships: [PropertyMapping] = []
        var usedRelationships: Set<String> = []
        for relationship in new.relationships {
            let declared = relationship.entity === new
            if let extraction = extractions[relationship.destination.name], extraction.link === relationship {
                relationships.append(PropertyMapping(relationship.name, source: .extraction))
                if declared { changes.append("relationship '\(relationship.name)' added, to the \(relationship.destination.name) made of the moved attributes") }
                continue
            }
            let oldName = relationship.renamingIdentifier ?? relationship.name
            guard let previous = old.relationship(named: oldName) else {
                if !relationship.isOptional {
                    throw Self.cannot("new relationship '\(new.name).\(relationship.name)' is required, and the existing objects have nothing to point to; make it optional, or write a mapping model")
                }
                relationships.append(PropertyMapping(relationship.name, source: .defaultValue))
                if declared { changes.append("relationship '\(relationship.name)' added") }
                continue
            }
            guard counterpart[previous.destination.name] == relationship.destination.name else {
                throw Self.cannot("relationship '\(new.name).\(relationship.name)' leads to '\(relationship.destination.name)', but '\(old.name).\(previous.name)' led to '\(previous.destination.name)'; write a mapping model")
            }
            if previous.isToMany && !relationship.isToMany {
                throw Self.cannot("relationship '\(new.name).\(relationship.name)' changes from to-many to to-one; choose which object to keep in a mapping model with a custom policy")
            }
            if relationship.isToMany && relationship.minCount > 0 && !previous.isToMany {
                throw Self.cannot("relationship '\(new.name).\(relationship.name)' needs at least \(relationship.minCount) objects; write a mapping model")
            }
            usedRelationships.insert(previous.name)
            relationships.append(PropertyMapping(relationship.name, source: .property(previous.name)))
            if declared {
                if previous.name != relationship.name { changes.append("relationship '\(previous.name)' renamed to '\(relationship.name)'") }
                if !previous.isToMany && relationship.isToMany { changes.append("relationship '\(relationship.name)' is now to-many") }
            }
        }
        for relationship in old.relationships where relationship.entity === old && !usedRelationships.contains(relationship.name) {
            changes.append("relationship '\(relationship.name)' removed")
        }
        if old.indexes != new.indexes { changes.append("indexes changed") }
        if old.uniquenessConstraints != new.uniquenessConstraints {
            changes.append("uniqueness constraints changed (checked while migrating)")
        }
        let same = changes.isEmpty && ObjectModel.storageDescription(of: old) == ObjectModel.storageDescription(of: new)
        if !same && changes.isEmpty { changes.append("stored differently") }
        return EntityMapping(
            name: "\(old.name)To\(new.name)", kind: same ? .copy : .transform,
            sourceEntityName: old.name, destinationEntityName: new.name,
            attributeMappings: attributes, relationshipMappings: relationships, changes: changes)
    }

    /// Integer widths grow, and integers become doubles, without losing a value.
    static func widens(_ old: AttributeType, to new: AttributeType) -> Bool {
        let order: [AttributeType] = [.integer16, .integer32, .integer64]
        guard let from = order.firstIndex(of: old) else { return false }
        if new == .double { return true }
        guard let to = order.firstIndex(of: new) else { return false }
        return from <= to
    }

    // MARK: New entities made of moved attributes

    /// The extraction a new entity is made by, when its attributes name `Entity.attribute`
    /// renaming identifiers; nil for a plain new entity.
    private func extraction(into entity: EntityDescription) throws -> Extraction? {
        let moved = entity.storedAttributes.compactMap { attribute -> (AttributeDescription, Substring, Substring)? in
            guard let identifier = attribute.renamingIdentifier, let dot = identifier.firstIndex(of: ".") else { return nil }
            return (attribute, identifier[..<dot], identifier[identifier.index(after: dot)...])
        }
        guard let first = moved.first else { return nil }
        let name = entity.name
        guard moved.allSatisfy({ $0.1 == first.1 }) else {
            throw Self.cannot("new entity '\(name)' takes attributes from several entities (\(Set(moved.map { String($0.1) }).sorted().joined(separator: ", "))); it can take them from one")
        }
        guard let old = source.entity(named: String(first.1)) else {
            throw Self.cannot("attribute '\(name).\(first.0.name)' comes from '\(first.1).\(first.2)', but the source model has no entity '\(first.1)'")
        }
        guard entity.parent == nil, entity.subentities.isEmpty else {
            throw Self.cannot("new entity '\(name)' takes attributes from '\(old.name)' but is part of an inheritance tree; only a lone entity can")
        }
        guard let ownerName = counterpart[old.name], let owner = destination.entity(named: ownerName) else {
            throw Self.cannot("new entity '\(name)' takes attributes from '\(old.name)', which is removed")
        }
        let links = owner.relationships.filter { !$0.isToMany && $0.destination === entity }
        guard links.count == 1, let link = links.first else {
            throw Self.cannot("new entity '\(name)' takes attributes from '\(old.name)'; '\(owner.name)' needs exactly one to-one relationship to '\(name)' to reach them (it has \(links.count))")
        }
        var pairs: [(String, String)] = []
        for (attribute, _, oldName) in moved {
            guard let previous = old.attribute(named: String(oldName)), !previous.isTransient else {
                throw Self.cannot("attribute '\(name).\(attribute.name)' comes from '\(old.name).\(oldName)', which is not a stored attribute of the source model")
            }
            guard previous.type == attribute.type || Self.widens(previous.type, to: attribute.type) else {
                throw Self.cannot("attribute '\(name).\(attribute.name)' is \(attribute.type.nameWithArticle), but '\(old.name).\(oldName)' was \(previous.type.nameWithArticle)")
            }
            pairs.append((attribute.name, previous.name))
        }
        for attribute in entity.storedAttributes where !moved.contains(where: { $0.0 === attribute })
            && attribute.derivation == nil && !attribute.isOptional && attribute.defaultValue.isNull {
            throw Self.cannot("attribute '\(name).\(attribute.name)' is required and neither moved nor given a default value")
        }
        for relationship in entity.relationships where relationship !== link.inverse && !relationship.isOptional {
            throw Self.cannot("relationship '\(name).\(relationship.name)' is required, and the moved objects have nothing to point to")
        }
        return Extraction(source: old, owner: owner, link: link, moved: pairs)
    }

    private func extract(_ entity: EntityDescription, _ extraction: Extraction) -> EntityMapping {
        EntityMapping(
            name: "Extract\(entity.name)", kind: .extract,
            sourceEntityName: extraction.source.name, destinationEntityName: entity.name,
            attributeMappings: entity.storedAttributes.map { attribute in
                if let pair = extraction.moved.first(where: { $0.0 == attribute.name }) {
                    return PropertyMapping(attribute.name, source: .property(pair.1))
                }
                return PropertyMapping(attribute.name, source: attribute.derivation == nil ? .defaultValue : .derived)
            },
            relationshipMappings: entity.relationships.map { relationship in
                PropertyMapping(relationship.name, source: relationship === extraction.link.inverse ? .extraction : .defaultValue)
            },
            extractionRelationship: extraction.link.name,
            changes: ["new entity made of \(extraction.moved.map { "'\($0.1)'" }.joined(separator: ", ")) moved out of '\(extraction.source.name)', one for each \(extraction.source.name) that has a value, reached through '\(extraction.owner.name).\(extraction.link.name)'"])
    }
}
