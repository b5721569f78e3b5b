/// The row format of one inheritance tree: the columns every store hands rows back in,
/// and where each entity's slots come from.
///
/// Column 0 is `_pk`, column 1 `_ent`; then every stored attribute of the tree, every
/// to-one relationship (by their names), and the `_ent_<name>` columns of to-ones into
/// multi-entity trees. A full row ends with the row's version (``versionColumn``). A SQLite
/// store's tables have exactly these columns, the version being `_opt`.
package final class TableLayout: Sendable {
    /// How one slot is filled from a row.
    enum SlotSource: Sendable {
        case attribute(slot: Int, column: Int)
        /// A to-one relationship: its key column and, when the destination tree has several
        /// entities, the column holding the destination's entity index.
        case toOne(slot: Int, column: Int, entityColumn: Int?, destinationIndex: Int)
    }

    /// The tree's storage name: its root entity's name.
    package let table: String
    package let root: EntityDescription
    /// Column names after `_pk` and `_ent`, in order (the row's columns 2…).
    package let columns: [String]
    /// Every entity's slot sources, entity after entity: one array, which filling an
    /// object reads without a retain, where an array per entity was retained and released
    /// for every fetched row.
    private let allSources: [SlotSource]
    /// Per entity index (of the whole model; empty outside this tree): where its sources
    /// are in `allSources`.
    private let sourceRanges: [Range<Int>]
    /// `allSources` without the canonical shadows, which filling an object leaves out: a
    /// shadow serves the store's queries, and the first read of one folds it from its
    /// source (``ManagedObject/loadShadows()``), so a fetch makes one string per row, not two.
    private let fillSources: [SlotSource]
    /// Per entity index: where its sources are in `fillSources`.
    private let fillRanges: [Range<Int>]
    /// Per entity index: whether a fill leaves shadows out.
    private let leavesShadows: [Bool]
    /// The column index of each stored attribute or to-one relationship name.
    package let columnIndex: [String: Int]
    /// The entity index of every row when the tree is one entity, so a store can make a
    /// row's ID without reading column 1; nil when the tree has subentities.
    package let soleEntityIndex: Int?

    package init(root: EntityDescription) {
        self.root = root
        table = root.name
        var columns: [String] = []
        var columnIndex: [String: Int] = [:]
        func add(_ name: String) {
            if columnIndex[name] == nil {
                columnIndex[name] = columns.count + 2
                columns.append(name)
            }
        }
        let tree = root.selfAndDescendants
        for entity in tree {
            for attribute in entity.declaredAttributes where !attribute.isTransient {
                add(attribute.name)
            }
        }
        for entity in tree {
            for relationship in entity.declaredRelationships where !relationship.isToMany {
                add(relationship.name)
                if let entityColumn = Self.entityColumn(for: relationship) { add(entityColumn) }
            }
        }
        var allSources: [SlotSource] = [], fillSources: [SlotSource] = []
        let entityCount = root.model.entities.count
        var sourceRanges = [Range<Int>](repeating: 0..<0, count: entityCount), fillRanges = sourceRanges
        var leavesShadows = [Bool](repeating: false, count: entityCount)
        for entity in tree {
            var list: [SlotSource] = []
            for attribute in entity.storedAttributes {
                list.append(.attribute(slot: attribute.slot, column: columnIndex[attribute.name]!))
            }
            for relationship in entity.toOneRelationships {
                let entityColumn = Self.entityColumn(for: relationship).flatMap { columnIndex[$0] }
                list.append(.toOne(slot: relationship.slot, column: columnIndex[relationship.name]!,
                                   entityColumn: entityColumn, destinationIndex: relationship.destination.index))
            }
            sourceRanges[entity.index] = allSources.count..<allSources.count + list.count
            allSources += list
            let shadows = Set(entity.foldedShadows.map(\.shadow))
            let filled = list.filter { if case .attribute(let slot, _) = $0 { !shadows.contains(slot) } else { true } }
            fillRanges[entity.index] = fillSources.count..<fillSources.count + filled.count
            fillSources += filled
            leavesShadows[entity.index] = !shadows.isEmpty
        }
        self.columns = columns
        self.columnIndex = columnIndex
        self.allSources = allSources
        self.sourceRanges = sourceRanges
        self.fillSources = fillSources
        self.fillRanges = fillRanges
        self.leavesShadows = leavesShadows
        soleEntityIndex = tree.count == 1 ? root.index : nil
    }

    /// The slots to fill for the entity at `entityIndex` (none outside this tree).
    func sources(of entityIndex: Int) -> ArraySlice<SlotSource> { allSources[sourceRanges[entityIndex]] }

    /// The number of columns a full row has, `_pk` and `_ent` included, the version not.
    package var width: Int { columns.count + 2 }

    /// The column of a full row that holds the row's version: a counter every save of the
    /// row increments, for optimistic locking. It follows the named columns.
    package var versionColumn: Int { columns.count + 2 }

    /// The number of values a full row has: every column and the version.
    package var rowWidth: Int { columns.count + 3 }

    /// The column that records a to-one's destination entity (`_ent_<name>`), needed when
    /// the destination's tree has more than one entity.
    package static func entityColumn(for relationship: RelationshipDescription) -> String? {
        precondition(!relationship.isToMany)
        return relationship.destination.root.selfAndDescendants.count > 1 ? "_ent_" + relationship.name : nil
    }
}

extension TableLayout {
    /// Fills `object`'s stored slots from a row's columns, read through `column`, all but
    /// its canonical shadows, which wait to be folded (``ObjectHeader/shadowsPending``).
    ///
    /// `fresh` says the object was just made, every slot still null, so each value is
    /// written without first destroying the one it replaces (a call per slot otherwise).
    @inline(__always)
    func fill(_ object: ManagedObject, fresh: Bool = false, column: (Int) -> Slot) {
        let entityIndex = object.headerPointer.pointee.entityIndex
        fill(object.slots, from: fillSources, fillRanges[entityIndex], fresh: fresh, column: column)
        if leavesShadows[entityIndex] { object.headerPointer.pointee.shadowsPending = true }
    }

    /// Fills every stored slot, shadows included, of an object of the entity at
    /// `entityIndex` from a row's columns.
    @inline(__always)
    func fill(_ slots: UnsafeMutablePointer<ObjectSlot>, entityIndex: Int, column: (Int) -> Slot) {
        fill(slots, from: allSources, sourceRanges[entityIndex], fresh: false, column: column)
    }

    @inline(__always)
    private func fill(
        _ slots: UnsafeMutablePointer<ObjectSlot>, from sources: [SlotSource], _ range: Range<Int>, fresh: Bool,
        column: (Int) -> Slot
    ) {
        /// Writes `value` into slot `slot`: over a null, without destroying it.
        @inline(__always)
        func set(_ slot: Int, _ value: consuming Slot) {
            if fresh {
                assert(slots[slot].value.isNull, "a new object's slot already holds a value")
                (slots + slot).pointer(to: \.value)!.initialize(to: value)
            } else {
                slots[slot].value = value
            }
        }
        for index in range {
            switch sources[index] {
            case .attribute(let slot, let index):
                set(slot, column(index))
            case .toOne(let slot, let index, let entityColumn, let destinationIndex):
                guard case .integer(let key) = column(index) else {
                    set(slot, .null)
                    continue
                }
                var entity = destinationIndex
                if let entityColumn, case .integer(let index) = column(entityColumn) { entity = Int(index) }
                set(slot, .objectID(ObjectID(entityIndex: entity, key: key)))
            }
        }
    }

    /// Fills `object` from a full row.
    func fill(_ object: ManagedObject, from row: RowCache.Row) {
        fill(object, reading: Self.reader(of: row))
    }

    /// Fills `object` from a full row read column by column (``RowCache/withRow(for:_:)``).
    func fill(_ object: ManagedObject, reading value: (Int) -> StoredValue) {
        fill(object) { Slot(value($0)) }
        object.headerPointer.pointee.rowVersion = version(reading: value)
    }

    /// The version recorded in a full row (-1 when the row has none).
    func version(of row: RowCache.Row) -> Int64 { version(reading: Self.reader(of: row)) }

    /// The version a row read column by column records (-1 when it has none).
    func version(reading value: (Int) -> StoredValue) -> Int64 {
        guard case .integer(let version) = value(versionColumn) else { return -1 }
        return version
    }

    /// Reads `row` by column; a column past its end (a row without a version) reads as null.
    private static func reader(of row: RowCache.Row) -> (Int) -> StoredValue {
        { $0 < row.count ? row[$0] : .null }
    }
}

extension TableLayout {
    /// What a save would refuse in a row of `entity` that holds no related row: a required
    /// to-one relationship, or a to-many one with a minimum count; nil when there is none.
    private static func relationshipProblem(of entity: EntityDescription) -> String? {
        for relationship in entity.relationships {
            if !relationship.isToMany && !relationship.isOptional {
                return "required relationship '\(entity.name).\(relationship.name)' is nil"
            }
            if relationship.isToMany && relationship.minCount > 0 {
                return "'\(entity.name).\(relationship.name)' needs at least \(relationship.minCount) objects, has 0"
            }
        }
        return nil
    }

    /// Full rows of `entity` for a batch insert: defaults, the given values, derived
    /// attributes, version 0, and no key yet (column 0 is nil).
    /// - Throws: ``ObjectGraphError`` naming the row (from 1) and the key that does not fit,
    ///   or a required relationship, which a batch insert cannot set (`validation`).
    package func batchRows(_ rows: [[String: any Sendable]], of entity: EntityDescription) throws -> [[StoredValue]] {
        let relationshipProblem = Self.relationshipProblem(of: entity)
        return try rows.enumerated().map { index, values in
            var row = [StoredValue](repeating: .null, count: rowWidth)
            row[1] = .integer(Int64(entity.index))
            row[versionColumn] = .integer(0)
            for attribute in entity.attributes where !attribute.isTransient { row[columnIndex[attribute.name]!] = attribute.defaultValue.savedForm }
            // As an inserted object has them: derived from the defaults, and a new row
            // holds no related row (`recipes.@count` is 0, `photo != nil` false).
            for attribute in entity.attributesWithDefaults where !attribute.isTransient {
                for target in attribute.derivedTargets {
                    row[columnIndex[target.name]!] = Derivations.derive(attribute.defaultValue, target.derivation!)
                }
            }
            for attribute in entity.relationshipDerivedAttributes { row[columnIndex[attribute.name]!] = .integer(0) }
            for (key, value) in values {
                guard let attribute = entity.attribute(named: key), !attribute.isTransient else {
                    if entity.relationship(named: key) != nil {
                        throw ObjectGraphError(.invalidValue, "row \(index + 1): '\(entity.name).\(key)' is a relationship: "
                            + "a batch insert sets attributes only; set it through a context; nothing was inserted")
                    }
                    throw ObjectGraphError.unknownKey(key, entity: entity)
                }
                try entity.checkSettable(attribute)
                guard let stored = attribute.type.storedValue(from: value)?.savedForm else {
                    throw ObjectGraphError(.invalidValue, "row \(index + 1): \(value) is not \(attribute.type.nameWithArticle) for '\(entity.name).\(key)'; nothing was inserted")
                }
                if let problem = attribute.rangeProblem(stored) {
                    throw ObjectGraphError(.validation, "row \(index + 1): '\(entity.name).\(key)' \(problem); nothing was inserted")
                }
                row[columnIndex[key]!] = stored
                for target in attribute.derivedTargets { row[columnIndex[target.name]!] = Derivations.derive(stored, target.derivation!) }
            }
            for attribute in entity.requiredAttributes where row[columnIndex[attribute.name]!].isNull {
                throw ObjectGraphError(.validation, "row \(index + 1): required attribute '\(entity.name).\(attribute.name)' is missing; nothing was inserted")
            }
            // A new row holds no related row, as a save of an object without them would find.
            if let problem = relationshipProblem {
                throw ObjectGraphError(.validation, "row \(index + 1): \(problem): a batch insert sets attributes only, "
                    + "so insert \(entity.name) objects through a context; nothing was inserted")
            }
            return row
        }
    }
}
