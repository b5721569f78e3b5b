/// A context's undo and redo stacks, and the group being recorded.
///
/// A group holds, for every object changed while it was open, the object's whole state
/// before its first change in the group: slot values, lifecycle state, the changed-slot
/// mask and the context's save snapshot. Undoing a group captures the objects' current
/// states (the redo group) and puts the recorded ones back; both sides of every
/// relationship change are recorded, because inverse maintenance changes both objects.
struct UndoHistory {
    /// One object's state, as a group found it before the group first changed it.
    struct Record {
        let object: ManagedObject
        var slots: [Slot]
        var state: ObjectState
        var stateBeforeDelete: ObjectState
        var changedSlots: (low: UInt64, high: [UInt64])
        var needsValues: Bool
        var snapshot: (slots: [Slot], wasFault: Bool)?
    }

    /// The changes of one user event, or of an explicit group.
    struct Group {
        var name: String?
        var records: [Record] = []
        /// The objects ``records`` holds, so a change checks "already recorded" in one lookup.
        var recorded: Set<ObjectIdentifier> = []
    }

    /// What ``ContextCore/discardUndoGroup()`` puts back: the state and history as the
    /// outermost explicit group found them.
    struct Discardable {
        /// Each object's state before its first change since the group opened, by an edit or
        /// by an undo or redo inside the group; kept only while ``separate``.
        var changes = Group(name: nil)
        /// Whether ``changes`` is kept apart from the open group's records: from the start in
        /// a group that joined a turn's group, from its first undo or redo in one of its own
        /// (whose open group holds those records until then, and need not keep them twice).
        var separate: Bool
        /// The history when the group opened: the open group it joined (nil for a group of its
        /// own), the undo groups and the redo groups.
        var open: Group?
        var undoGroups: [Group]
        var redoGroups: [Group]
        /// Whether the context's kept fault error (``ContextCore/keepFaultError(_:)``) was met
        /// inside the group: discarding the group forgets it.
        var metFaultError = false

        /// Adds `record` unless its object is already recorded.
        mutating func note(_ record: Record) {
            guard changes.recorded.insert(ObjectIdentifier(record.object)).inserted else { return }
            changes.records.append(record)
        }
    }

    /// Whether changes are recorded (``MainContext/isUndoEnabled``).
    var isEnabled = false
    /// While positive, changes are not recorded: merges, refreshes, saves and undo itself.
    var suspensions = 0
    /// Explicit groups open (``MainContext/beginUndoGroup(named:)``); nested ones join the outer.
    var explicitDepth = 0
    /// Whether the open group is a turn's implicit one whose scheduled end has not run yet:
    /// an explicit group opened then joins it, and changes after its end still do.
    var implicitEndPending = false
    /// While an explicit group is open, what discarding it puts back.
    var discardable: Discardable?
    /// The group recording now, if any.
    var open: Group?
    /// Groups that can be undone, the latest last.
    var undoGroups: [Group] = []
    /// Groups that can be redone, the latest undone last.
    var redoGroups: [Group] = []
    /// The most groups kept; 0 keeps every one.
    var levels = 0
    /// Called when a change opens an implicit group: schedules its end after the current
    /// job of the context's queue, so one user event's changes form one group.
    var scheduleImplicitEnd: (() -> Void)?

    /// The size of the last open group that recorded anything before ``removeAll()``.
    private var recentRecordCount = 0

    /// Whether a change now is recorded.
    var isRecording: Bool { isEnabled && suspensions == 0 }

    /// Closes the open group, keeping it when it recorded anything.
    mutating func close() {
        guard var group = open else { return }
        open = nil
        guard !group.records.isEmpty else { return }
        group.recorded = []  // only the open group looks objects up
        undoGroups.append(group)
        if levels > 0, undoGroups.count > levels { undoGroups.removeFirst(undoGroups.count - levels) }
    }

    /// Opens a group with room for `capacity` records.
    mutating func begin(named name: String?, capacity: Int = 0) {
        open = Group(name: name)
        if capacity > 0 {
            open!.records.reserveCapacity(capacity)
            open!.recorded.reserveCapacity(capacity)
        }
    }

    /// Whether any group, open or kept for undo or redo, holds a record.
    var hasRecords: Bool {
        open.map { !$0.records.isEmpty } == true || !undoGroups.isEmpty || !redoGroups.isEmpty
    }

    /// Whether a group, open or kept for undo or redo, recorded any of `objects`.
    func holdsAny(of objects: [ManagedObject]) -> Bool {
        guard !objects.isEmpty, hasRecords else { return false }
        let keys = Set(objects.map(ObjectIdentifier.init))
        return ([open, discardable?.changes].compactMap { $0 } + undoGroups + redoGroups)
            .contains { $0.records.contains { keys.contains(ObjectIdentifier($0.object)) } }
    }

    /// Forgets every group (after a save, a rollback or a reset).
    mutating func removeAll() {
        // Objects recorded so far must be recorded again. A loop that saves (and resets)
        // every 1,000 changes records as many again: the new group starts with room for
        // as many records as the last group that recorded any.
        if let group = open {
            if !group.records.isEmpty { recentRecordCount = min(group.records.count, 16_384) }
            begin(named: group.name, capacity: recentRecordCount)
        }
        undoGroups.removeAll()
        redoGroups.removeAll()
        // Discarding an explicit group open now puts back only what changes from here on.
        if let old = discardable {
            discardable = Discardable(separate: old.open != nil, open: old.open == nil ? nil : open, undoGroups: [], redoGroups: [])
        }
    }
}

extension ContextCore {
    /// Records `object`'s state before its first change in the current group (opening an
    /// implicit group when none is open).
    func recordForUndo(_ object: ManagedObject, inserted: Bool = false) {
        if undo.open == nil {
            undo.begin(named: nil)
            if undo.explicitDepth == 0 && !undo.implicitEndPending, let schedule = undo.scheduleImplicitEnd {
                undo.implicitEndPending = true
                schedule()
            }
        }
        let key = ObjectIdentifier(object)
        let newInGroup = undo.open!.recorded.insert(key).inserted
        let newSinceExplicitBegin = undo.discardable.map { $0.separate && !$0.changes.recorded.contains(key) } ?? false
        guard newInGroup || newSinceExplicitBegin else { return }
        // A new change: the redo history is gone (a discarded explicit group brings it back).
        if newInGroup && undo.open!.records.isEmpty { undo.redoGroups.removeAll() }
        // Undoing the insertion discards the object; its own values need not come back.
        let record = inserted
            ? UndoHistory.Record(object: object, slots: [], state: .deleted, stateBeforeDelete: .inserted,
                                 changedSlots: (0, []), needsValues: false, snapshot: nil)
            : undoRecord(of: object)
        if newInGroup { undo.open!.records.append(record) }
        if newSinceExplicitBegin { undo.discardable!.note(record) }
    }

    /// Records an object just inserted: undoing the group discards it.
    func recordInsertionForUndo(_ object: ManagedObject) { recordForUndo(object, inserted: true) }

    /// Runs `body` without recording its changes.
    func withoutUndo<T>(_ body: () throws -> T) rethrows -> T {
        undo.suspensions += 1
        defer { undo.suspensions -= 1 }
        return try body()
    }

    /// Ends the implicit group of the event that opened it (scheduled by ``recordForUndo(_:)``).
    func endImplicitUndoGroup() {
        undo.implicitEndPending = false
        guard undo.explicitDepth == 0 else { return }
        undo.close()
    }

    /// Opens an explicit group; until the matching ``endUndoGroup()`` every change joins it.
    /// The outermost one joins the turn's implicit group when that is open, as
    /// `UndoManager` nests an explicit group in the event's group; otherwise it is a group of
    /// its own.
    func beginUndoGroup(named name: String?) {
        undo.explicitDepth += 1
        guard undo.explicitDepth == 1 else { return }
        if undo.implicitEndPending, let open = undo.open, !open.records.isEmpty {
            undo.discardable = UndoHistory.Discardable(separate: true, open: undo.open, undoGroups: undo.undoGroups,
                                                       redoGroups: undo.redoGroups)
            if undo.open!.name == nil { undo.open!.name = name }  // the step takes the first name given
        } else {
            undo.close()
            undo.discardable = UndoHistory.Discardable(separate: false, open: nil, undoGroups: undo.undoGroups,
                                                       redoGroups: undo.redoGroups)
            undo.begin(named: name)
        }
    }

    /// Closes the explicit group opened last; the outermost one's group closes with it,
    /// unless it joined a turn's implicit group that is still open.
    func endUndoGroup() {
        precondition(undo.explicitDepth > 0, "endUndoGroup() without beginUndoGroup()")
        undo.explicitDepth -= 1
        guard undo.explicitDepth == 0 else { return }
        let joinedTurn = undo.discardable?.open != nil
        undo.discardable = nil
        if !(joinedTurn && undo.implicitEndPending) { undo.close() }
    }

    /// Closes the outermost explicit group and puts back the state and the history as it
    /// found them: every change made since it opened (undos and redos inside it included)
    /// is put back, and the undo and redo groups are those it found.
    func discardUndoGroup() {
        precondition(undo.explicitDepth > 0, "discardUndoGroup() without beginUndoGroup()")
        precondition(undo.explicitDepth == 1, """
            discardUndoGroup() inside a nested group, whose changes belong to the outermost one; \
            end the nested groups with endUndoGroup() and discard the outermost
            """)
        undo.explicitDepth = 0
        guard let discarded = undo.discardable else {
            undo.open = nil
            return
        }
        undo.discardable = nil
        if discarded.metFaultError { faultError = nil }
        let records = discarded.separate ? discarded.changes.records : undo.open?.records ?? []
        if !records.isEmpty { restore(records) }
        undo.open = discarded.open
        undo.undoGroups = discarded.undoGroups
        undo.redoGroups = discarded.redoGroups
        if !undo.implicitEndPending { undo.close() }
    }

    /// Undoes the latest group; returns its name (or "" when it had none), nil when there was nothing to undo.
    func undoLastGroup() -> String? {
        closeGroupForUndoOrRedo()
        guard let group = undo.undoGroups.popLast() else { return nil }
        undo.redoGroups.append(swap(group))
        return group.name ?? ""
    }

    /// Redoes the latest undone group; returns its name, nil when there was nothing to redo.
    func redoLastGroup() -> String? {
        closeGroupForUndoOrRedo()
        guard let group = undo.redoGroups.popLast() else { return nil }
        undo.undoGroups.append(swap(group))
        return group.name ?? ""
    }

    /// Closes the open group, as `UndoManager.undo()` does, so that an undo takes back the
    /// changes made so far rather than an older group under them (whose undoing the open
    /// group's records would later reverse). An explicit group goes on in a new group of the
    /// same name, which its ``endUndoGroup()`` closes.
    private func closeGroupForUndoOrRedo() {
        if undo.discardable?.separate == false {
            // The group's records so far leave with the closed group: discarding still puts them back.
            undo.discardable!.separate = true
            undo.open?.records.forEach { undo.discardable!.note($0) }
        }
        let name = undo.open?.name
        undo.close()
        if undo.explicitDepth > 0 { undo.begin(named: name) }
    }

    /// Puts the group's recorded states back and returns a group of the states it replaced.
    private func swap(_ group: UndoHistory.Group) -> UndoHistory.Group {
        let reverse = UndoHistory.Group(name: group.name, records: group.records.map { undoRecord(of: $0.object) })
        // Inside an explicit group, discarding it must put back what the undo or redo changed.
        if undo.discardable != nil { reverse.records.forEach { undo.discardable!.note($0) } }
        restore(group.records)
        return reverse
    }

    /// Puts the recorded states back, without recording that.
    private func restore(_ records: [UndoHistory.Record]) {
        withoutUndo {
            for record in records { apply(record) }
            relist(records.map(\.object))
        }
    }

    private func undoRecord(of object: ManagedObject) -> UndoHistory.Record {
        object.loadShadows()
        let header = object.headerPointer.pointee
        var slots: [Slot] = []
        slots.reserveCapacity(object.entity.slotCount)
        for index in 0..<object.entity.slotCount {
            let slot = object.slots[index].value
            if case .toMany(let storage) = slot { slots.append(.toMany(storage.copy())) } else { slots.append(slot) }
        }
        return UndoHistory.Record(object: object, slots: slots, state: header.state,
                                  stateBeforeDelete: header.stateBeforeDelete, changedSlots: object.changedSlotBits,
                                  needsValues: header.needsValues, snapshot: snapshots[ObjectIdentifier(object)])
    }

    private func apply(_ record: UndoHistory.Record) {
        let object = record.object
        for (index, slot) in record.slots.enumerated() {
            // A copy: a discardable group may hold the same record, which must not see later edits.
            if case .toMany(let storage) = slot { object.slots[index].value = .toMany(storage.copy()) } else { object.slots[index].value = slot }
        }
        if record.slots.isEmpty && record.stateBeforeDelete == .inserted {
            // An undone insertion: its values need not come back, but its relationships must
            // be empty as when it was inserted, or a save's delete rules would find the
            // objects it was linked to (whose own records unlink them) still held.
            for relationship in object.entity.relationships { object.slots[relationship.slot].value = .null }
        }
        object.headerPointer.pointee.state = record.state
        object.headerPointer.pointee.stateBeforeDelete = record.stateBeforeDelete
        object.changedSlotBits = record.changedSlots
        object.headerPointer.pointee.needsValues = record.needsValues
        snapshots[ObjectIdentifier(object)] = record.snapshot
    }

    /// Puts each object in the one change list its state calls for, once.
    private func relist(_ objects: [ManagedObject]) {
        let keys = Set(objects.map(ObjectIdentifier.init))
        inserted.removeAll { keys.contains(ObjectIdentifier($0)) }
        updated.removeAll { keys.contains(ObjectIdentifier($0)) }
        deleted.removeAll { keys.contains(ObjectIdentifier($0)) }
        for object in objects {
            switch object.state {
            case .inserted: inserted.append(object)
            case .updated: updated.append(object)
            case .deleted:
                // As delete() leaves them: an object inserted and deleted before a save is in both lists.
                if object.headerPointer.pointee.stateBeforeDelete == .inserted { inserted.append(object) }
                deleted.append(object)
            case .clean, .fault: break
            }
        }
    }
}
