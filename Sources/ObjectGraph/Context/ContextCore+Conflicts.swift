/// How a save resolves rows that another context or process changed since this context
/// loaded them (optimistic locking: every row has a version each save increments).
///
/// The policies follow Core Data's. "Changed in the store" means the saved value differs
/// from the one this context loaded; "changed here" means an unsaved change of this
/// context. Properties changed on one side only never conflict: the save keeps both.
public enum MergePolicy: Sendable, Hashable {
    /// The save fails with ``ObjectGraphError/Code/mergeConflict``, naming each object and
    /// each changed property with the value loaded, the value in the store and the value
    /// here; nothing is written and the context keeps its changes.
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
    private static func same(_ lhs: Slot, _ rhs: Slot) -> Bool {
        if let left = lhs.destinationID ?? rhs.destinationID {
            return lhs.destinationID == left && rhs.destinationID == left
        }
        return lhs.storedValue == rhs.storedValue
    }

    /// The slots of `object`'s stored attributes and to-one relationships, with their names;
    /// derived attributes (which follow their sources) only when asked.
    private static func storedProperties(of object: ManagedObject, includingDerived: Bool = false) -> [(slot: Int, name: String)] {
        object.entity.storedAttributes.filter { includingDerived || $0.derivation == nil }.map { ($0.slot, $0.name) }
            + object.entity.toOneRelationships.map { ($0.slot, $0.name) }
    }

    /// The `mergeConflict` error for `ids`: per object, each property changed here with the
    /// value loaded, the value in the store and the value here.
    func conflictError(_ ids: [ObjectID]) throws -> ObjectGraphError {
        var lines: [String] = []
        for id in ids {
            guard let object = registeredObject(for: id), let (_, stored) = try storedSlots(of: object) else { continue }
            let loaded = snapshots[ObjectIdentifier(object)].flatMap { $0.wasFault ? nil : $0.slots }
            var parts: [String] = []
            for (slot, name) in Self.storedProperties(of: object) where object.hasChangedSlot(slot) {
                let was = loaded.map { describe($0[slot]) } ?? "not loaded"
                parts.append("\(name): loaded \(was), store \(describe(stored[slot].value)), here \(describe(object.slots[slot].value))")
            }
            lines.append("\(model.describe(id)) (\(parts.isEmpty ? "changed relationships" : parts.joined(separator: "; ")))")
        }
        return ObjectGraphError(.mergeConflict,
            "another context or process saved \(lines.count == 1 ? "this object" : "these objects") since they were loaded: "
            + lines.joined(separator: ", ") + "; nothing was saved. Refresh them, or choose a merge policy")
    }

    private func describe(_ slot: Slot) -> String {
        if let id = slot.destinationID { return model.describe(id) }
        switch slot.storedValue {
        case .null: return "nil"
        case .text(let text): return "'\(text)'"
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .blob(let data): return "\(data.count) bytes"
        }
    }

    /// Applies the merge policy to the conflicting objects, so that the next try writes
    /// what the policy keeps, at the rows' current versions.
    func resolveConflicts(_ ids: [ObjectID]) throws {
        for id in ids {
            guard let object = registeredObject(for: id), let (row, stored) = try storedSlots(of: object) else { continue }
            let snapshot = snapshots[ObjectIdentifier(object)]
            let loaded = snapshot.flatMap { $0.wasFault ? nil : $0.slots }
            for (slot, _) in Self.storedProperties(of: object, includingDerived: true) {
                let changedHere = object.hasChangedSlot(slot)
                let changedInStore = loaded.map { !Self.same($0[slot], stored[slot].value) } ?? true
                let takeStore: Bool
                switch mergePolicy {
                case .storeWins: takeStore = changedInStore || !changedHere
                case .inMemoryWins: takeStore = !changedHere
                case .overwrite: takeStore = false
                case .rollback: takeStore = true
                case .error: takeStore = false
                }
                if takeStore {
                    if !Self.same(object.slots[slot].value, stored[slot].value) { object.slots[slot].value = stored[slot].value }
                    if changedHere { object.slots[slot].changed = false }
                } else if mergePolicy == .overwrite && !changedHere {
                    object.slots[slot].changed = true
                }
            }
            linkToOnes(object)
            object.headerPointer.pointee.rowVersion = coordinator.store(for: object.entity).layout(for: object.entity).version(of: row)
            // What was loaded is now the store's current row.
            snapshots[ObjectIdentifier(object)] = (stored.map(\.value), false)
            if !object.hasChangedSlots {
                object.state = .clean
                snapshots[ObjectIdentifier(object)] = nil
            }
        }
    }
}
