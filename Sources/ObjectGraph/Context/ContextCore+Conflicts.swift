import Foundation

/// How a save resolves rows that another context or process changed since this context
/// loaded them (optimistic locking: every row has a version each save increments).
///
/// The policies follow Core Data's. "Changed in the store" means the saved value differs
/// from the one this context loaded; "changed here" means an unsaved change of this
/// context. Properties changed on one side only never conflict: the save keeps both.
public enum MergePolicy: Sendable, Hashable {
    /// The save fails with ``ObjectGraphError/Code/mergeConflict`` where both sides changed
    /// a property, naming each such object and property with the value loaded, the value
    /// in the store and the value here; nothing is written and the context keeps its
    /// changes. Rows changed on disjoint properties save, keeping both sides' changes.
    case error
    /// Property by property, the store's value wins where both sides changed it.
    case storeWins
    /// Property by property, this context's value wins where both sides changed it.
    case inMemoryWins
    /// This context's whole object is written over the row, every property.
    case overwrite
    /// This context's changes to the conflicting objects are discarded: they take the
    /// store's values; the save writes the rest.
    case rollback
}

extension ContextCore {
    /// The current row and the slot values it holds for `object`, or nil when the row is gone.
    ///
    /// The row cache's copy of the row is older (that is the conflict), so it is dropped:
    /// refreshing the object after the conflict then loads the store's row, not the same
    /// stale one again.
    private func storedSlots(of object: ManagedObject) throws -> (row: RowCache.Row, slots: [ObjectSlot])? {
        let store = coordinator.store(for: object.entity)
        coordinator.rowCache.remove([object.objectID])
        guard let row = try store.fetchLatestRow(object.objectID) else { return nil }
        let layout = store.layout(for: object.entity)
        var slots = [ObjectSlot](repeating: ObjectSlot(value: .null), count: object.entity.slotCount)
        slots.withUnsafeMutableBufferPointer { buffer in
            layout.fill(buffer.baseAddress!, entityIndex: object.entity.index) { Slot(row[$0]) }
        }
        return (row, slots)
    }

    /// Whether two slots hold the same stored value (or point to the same object).
    static func same(_ lhs: Slot, _ rhs: Slot) -> Bool {
        if let left = lhs.destinationID ?? rhs.destinationID {
            return lhs.destinationID == left && rhs.destinationID == left
        }
        return lhs.storedValue == rhs.storedValue
    }

    /// The slots of `object`'s stored attributes and to-one relationships, with their names
    /// and (for attributes) types; derived attributes (which follow their sources) only when asked.
    private static func storedProperties(
        of object: ManagedObject, includingDerived: Bool = false
    ) -> [(slot: Int, name: String, type: AttributeType?)] {
        object.entity.storedAttributes.filter { includingDerived || $0.derivation == nil }.map { ($0.slot, $0.name, $0.type) }
            + object.entity.toOneRelationships.map { ($0.slot, $0.name, nil) }
    }

    /// The values `object`'s changes were based on: what this context loaded, with what a
    /// child loaded laid over it for the properties whose changes came from a child that
    /// loaded older values; nil when the object was changed before it was ever loaded.
    func loadedSlots(of object: ManagedObject) -> [Slot]? {
        guard let snapshot = snapshots[ObjectIdentifier(object)], !snapshot.wasFault else { return nil }
        guard let inherited = inheritedBases[ObjectIdentifier(object)] else { return snapshot.slots }
        var slots = snapshot.slots
        for (slot, value) in inherited.slots { slots[slot] = value }
        return slots
    }

    /// Per object of `ids` still in the store, the properties changed both here and in the
    /// store since the change here was based on them, each with the value loaded, the
    /// value in the store and the value here. Properties changed on one side only are not
    /// listed: they never conflict.
    private func overlappingChanges(_ ids: [ObjectID]) throws -> [(id: ObjectID, parts: [String])] {
        var result: [(id: ObjectID, parts: [String])] = []
        for id in ids {
            guard let object = registeredObject(for: id), let (_, stored) = try storedSlots(of: object) else { continue }
            let loaded = loadedSlots(of: object)
            var parts: [String] = []
            for (slot, name, type) in Self.storedProperties(of: object) where object.hasChangedSlot(slot) {
                // Never loaded: whatever the store holds may be a change the other side made.
                if let loaded, Self.same(loaded[slot], stored[slot].value) { continue }
                let was = loaded.map { describe($0[slot], type) } ?? "not loaded"
                parts.append("\(name): loaded \(was), store \(describe(stored[slot].value, type)), here \(describe(object.slots[slot].value, type))")
            }
            result.append((id, parts))
        }
        return result
    }

    /// Whether any of `ids` has a property changed both here and in the store: a conflict
    /// for the error policy. Rows whose version moved for changes to other properties are not.
    func hasOverlappingChanges(_ ids: [ObjectID]) throws -> Bool {
        try overlappingChanges(ids).contains { !$0.parts.isEmpty }
    }

    /// The `mergeConflict` error for `ids`: per object, each property changed both here and
    /// in the store, with the value loaded, the value in the store and the value here.
    ///
    /// Objects with no such property are named only when none has one: their rows changed
    /// again at every try of the save (or hold a version past what an object records).
    func conflictError(_ ids: [ObjectID]) throws -> ObjectGraphError {
        let changes = try overlappingChanges(ids)
        let overlapping = changes.filter { !$0.parts.isEmpty }
        let lines = overlapping.isEmpty
            ? changes.map { "\(model.describe($0.id)) (its row changed again at every try of the save)" }
            : overlapping.map { "\(model.describe($0.id)) (\($0.parts.joined(separator: "; ")))" }
        return ObjectGraphError(.mergeConflict,
            "another context or process saved \(lines.count == 1 ? "this object" : "these objects") since they were loaded: "
            + lines.joined(separator: ", ") + "; nothing was saved. Refresh them, or choose a merge policy")
    }

    /// A slot's value as a conflict message shows it: text quoted, dates in ISO 8601 (UTC,
    /// with fractional seconds only when there are some), objects by their IDs.
    private func describe(_ slot: Slot, _ type: AttributeType?) -> String {
        if let id = slot.destinationID { return model.describe(id) }
        switch slot.storedValue {
        case .null: return "nil"
        case .text(let text): return "'\(text)'"
        case .integer(let value) where type == .date: return Self.describeDate(Double(value))
        case .integer(let value): return String(value)
        case .real(let value) where type == .date && value.isFinite: return Self.describeDate(value)
        case .real(let value): return String(value)
        case .blob(let data): return "\(data.count) bytes"
        }
    }

    private static func describeDate(_ seconds: Double) -> String {
        ISO8601Date.string(from: Date(timeIntervalSince1970: seconds))
    }

    /// Keeps the inverse of a to-one that a policy set to the store's destination in step:
    /// `previous`, the destination set here, lets go of `object`, and the store's destination,
    /// when registered, holds it. Neither is marked changed: the store already holds them so.
    private func takeStoredInverse(of object: ManagedObject, _ relationship: RelationshipDescription,
                                   from previous: ManagedObject?) {
        let inverse = relationship.inverse!
        let next = destinationIfRegistered(object.slots[relationship.slot].value)
        if inverse.isToMany {
            if let previous, case .toMany(let storage) = previous.slots[inverse.slot].value { storage.remove(object) }
            if let next, case .toMany(let storage) = next.slots[inverse.slot].value { storage.add(object) }
        } else {
            if let previous, previous.slots[inverse.slot].value.destinationID == object.objectID {
                previous.slots[inverse.slot].value = .null
            }
            if let next, !next.hasChangedSlot(inverse.slot) { next.slots[inverse.slot].value = .object(object) }
        }
    }

    /// Applies the merge policy to the conflicting objects, so that the next try writes
    /// what the policy keeps, at the rows' current versions.
    func resolveConflicts(_ ids: [ObjectID]) throws {
        for id in ids {
            guard let object = registeredObject(for: id), let (row, stored) = try storedSlots(of: object) else { continue }
            let loaded = loadedSlots(of: object)
            for (slot, _, _) in Self.storedProperties(of: object, includingDerived: true) {
                let changedHere = object.hasChangedSlot(slot)
                let changedInStore = loaded.map { !Self.same($0[slot], stored[slot].value) } ?? true
                let takeStore: Bool
                switch mergePolicy {
                case .storeWins: takeStore = changedInStore || !changedHere
                case .inMemoryWins: takeStore = !changedHere
                case .overwrite: takeStore = false
                case .rollback: takeStore = true
                // Reached only without properties changed on both sides (any would have
                // failed the save): each side's changes are kept, as with the two above.
                case .error: takeStore = !changedHere
                }
                if takeStore {
                    if !Self.same(object.slots[slot].value, stored[slot].value) {
                        let previous = destinationIfRegistered(object.slots[slot].value)
                        object.slots[slot].value = stored[slot].value
                        if let relationship = object.entity.toOneRelationships.first(where: { $0.slot == slot }) {
                            takeStoredInverse(of: object, relationship, from: previous)
                        }
                    }
                    if changedHere { object.slots[slot].changed = false }
                } else if mergePolicy == .overwrite && !changedHere {
                    object.slots[slot].changed = true
                }
            }
            linkToOnes(object)
            object.headerPointer.pointee.rowVersion = coordinator.store(for: object.entity).layout(for: object.entity).version(of: row)
            // What was loaded is now the store's current row.
            snapshots[ObjectIdentifier(object)] = (stored.map(\.value), false)
            inheritedBases[ObjectIdentifier(object)] = nil
            if !object.hasChangedSlots {
                object.state = .clean
                snapshots[ObjectIdentifier(object)] = nil
            }
        }
    }
}
