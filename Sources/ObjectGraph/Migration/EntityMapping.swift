/// How the objects of one source entity become objects of one destination entity in a
/// migration (Core Data's `NSEntityMapping`).
///
/// Inferred mappings (``MappingModel/inferred(from:to:)``) describe changes a store can
/// make by itself; a mapping with a ``policy`` hands each object to code.
/// ```swift
/// // Every source Recipe becomes a destination Recipe; a policy makes the chefs.
/// let recipes = try EntityMapping(custom: "Recipe", from: version1, to: version2) { ChefPolicy() }
/// ```
public struct EntityMapping: Sendable, CustomStringConvertible {
    /// What a mapping does with its entity.
    public enum Kind: String, Sendable, Hashable {
        /// A destination entity with no source: it starts empty.
        case add
        /// A source entity with no destination: its objects are dropped.
        case remove
        /// The entity is stored exactly as before (perhaps under a new name).
        case copy
        /// The entity changed in a way the store can migrate by itself: the ``changes``.
        case transform
        /// A new entity made of attributes moved out of another one: one object for each
        /// source object that has a value in any of them, at the end of a to-one relationship
        /// (``extractionRelationship``) from that object's counterpart.
        case extract
        /// A ``policy`` migrates the objects, in code.
        case custom
    }

    /// A unique name, `SourceToDestination` by default.
    public var name: String
    /// What the mapping does.
    public var kind: Kind
    /// The source entity's name (nil for ``Kind/add``).
    public var sourceEntityName: String?
    /// The destination entity's name (nil for ``Kind/remove``).
    public var destinationEntityName: String?
    /// Where each stored attribute of the destination entity gets its value.
    public var attributeMappings: [PropertyMapping]
    /// Where each relationship of the destination entity gets its objects.
    public var relationshipMappings: [PropertyMapping]
    /// For ``Kind/extract``: the relationship of the source object's counterpart that leads
    /// to the extracted object (`photo`, for a blob moved out into its own entity).
    public var extractionRelationship: String?
    /// What changed, one phrase each (`attribute 'servings' is now required (nil becomes 4)`).
    public var changes: [String]
    /// Makes the policy object that migrates this mapping's objects, one per migration; nil
    /// for the default behaviour (``DefaultMigrationPolicy``).
    public var policy: (@Sendable () -> any EntityMigrationPolicy)?

    /// Creates a mapping; most mappings come from inference or ``init(custom:destinationName:from:to:policy:)``.
    public init(
        name: String, kind: Kind, sourceEntityName: String?, destinationEntityName: String?,
        attributeMappings: [PropertyMapping] = [], relationshipMappings: [PropertyMapping] = [],
        extractionRelationship: String? = nil, changes: [String] = [],
        policy: (@Sendable () -> any EntityMigrationPolicy)? = nil
    ) {
        self.name = name
        self.kind = kind
        self.sourceEntityName = sourceEntityName
        self.destinationEntityName = destinationEntityName
        self.attributeMappings = attributeMappings
        self.relationshipMappings = relationshipMappings
        self.extractionRelationship = extractionRelationship
        self.changes = changes
        self.policy = policy
    }

    /// A mapping from the entity called `name` in `source` to the one called `name` (or
    /// `destinationName`) in `destination`, migrated by a policy: each property is mapped from
    /// the source property of its renaming identifier, or else of the same name, as the
    /// default policy copies them, and the policy does the rest.
    /// - Throws: ``ObjectGraphError`` (`unknownEntity`) when a model has no such entity.
    public init(
        custom name: String, destinationName: String? = nil, from source: ObjectModel, to destination: ObjectModel,
        policy: @escaping @Sendable () -> any EntityMigrationPolicy
    ) throws {
        let sourceEntity = try source.requireEntity(named: name)
        let destinationEntity = try destination.requireEntity(named: destinationName ?? name)
        /// The source property a destination property is renamed from, or has the name of.
        func origin(_ name: String, renamedFrom oldName: String?, in sourceNames: [String]) -> PropertyMapping.Source {
            if let oldName, sourceNames.contains(oldName) { return .property(oldName) }
            return sourceNames.contains(name) ? .property(name) : .defaultValue
        }
        let sourceAttributes = sourceEntity.storedAttributes.map(\.name)
        let sourceRelationships = sourceEntity.relationships.map(\.name)
        self.init(
            name: "\(sourceEntity.name)To\(destinationEntity.name)", kind: .custom,
            sourceEntityName: sourceEntity.name, destinationEntityName: destinationEntity.name,
            attributeMappings: destinationEntity.storedAttributes.map { attribute in
                attribute.derivation != nil ? PropertyMapping(attribute.name, source: .derived)
                    : PropertyMapping(attribute.name, source: origin(attribute.name, renamedFrom: attribute.renamingIdentifier,
                                                                     in: sourceAttributes))
            },
            relationshipMappings: destinationEntity.relationships.map { relationship in
                PropertyMapping(relationship.name, source: origin(relationship.name, renamedFrom: relationship.renamingIdentifier,
                                                                  in: sourceRelationships))
            },
            changes: ["migrated by a custom policy"], policy: policy)
    }

    /// `RecipeToRecipe (transform): attribute 'servings' is now required (nil becomes 4)`.
    public var description: String {
        var text = "\(name) (\(kind.rawValue))"
        if !changes.isEmpty { text += ": " + changes.joined(separator: "; ") }
        return text
    }
}

/// Where one property of a destination object gets its value (Core Data's `NSPropertyMapping`).
public struct PropertyMapping: Sendable, Hashable, CustomStringConvertible {
    /// The origin of the value.
    public enum Source: Sendable, Hashable {
        /// The source object's property of this name (the same name, or the one before a rename).
        case property(String)
        /// None: the destination's default value (nil, or empty for a to-many relationship).
        case defaultValue
        /// A derived attribute, computed by the framework from the migrated values.
        case derived
        /// For ``EntityMapping/Kind/extract``: the relationship between an object and the
        /// object made of the attributes moved out of it, on either side.
        case extraction
    }

    /// The destination property's name.
    public var name: String
    /// Where its value comes from.
    public var source: Source
    /// For an attribute that became required: the value stored where the source has nil.
    public var valueForNil: StoredValue?

    /// Creates a property mapping.
    public init(_ name: String, source: Source, valueForNil: StoredValue? = nil) {
        self.name = name
        self.source = source
        self.valueForNil = valueForNil
    }

    /// `name ← oldName`.
    public var description: String {
        switch source {
        case .property(let old): old == name ? name : "\(name) ← \(old)"
        case .defaultValue: "\(name) ← default"
        case .derived: "\(name) ← derived"
        case .extraction: "\(name) ← extraction"
        }
    }
}
