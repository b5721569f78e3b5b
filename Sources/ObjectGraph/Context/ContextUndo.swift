/// Undo and redo: each group is the changes of one user event (one turn of the context's
/// queue) or of an explicit ``MainContext/beginUndoGroup(named:)`` … ``MainContext/endUndoGroup()``.
/// An explicit group opened after the turn changed something joins the turn's group, as
/// `UndoManager` nests it in the event's group: edit, group, edit in one turn is one step.
///
/// Undo puts attribute values, relationships (both sides), insertions and deletions back
/// as they were before the group; redo does the group again. Saving, rolling back,
/// resetting, merging a deletion made elsewhere, and merging a change made elsewhere to an
/// object a group recorded clear the history: the store then no longer matches what a
/// group recorded. So do a refresh of an object a group recorded and a child's save that
/// changes one. Merges, refreshes and a child's saves are never recorded.
extension MainContext {
    /// Whether changes are recorded for undo; off by default, as in Core Data and SwiftData
    /// (turn it on for an editor; recording costs every change). Turning it off forgets the
    /// history.
    public var isUndoEnabled: Bool {
        get { core.undo.isEnabled }
        set { core.setUndoEnabled(newValue) }
    }
    /// The most groups kept (the oldest go first); 0, the default, keeps every one.
    public var levelsOfUndo: Int {
        get { core.undo.levels }
        set { core.undo.levels = max(0, newValue) }
    }
    /// Whether ``undo()`` has a group to undo.
    public var canUndo: Bool { core.canUndo }
    /// Whether ``redo()`` has a group to redo.
    public var canRedo: Bool { !core.undo.redoGroups.isEmpty }
    /// Undoes the latest group. Returns its name ("" for an unnamed one), nil when there was nothing to undo.
    ///
    /// A group still open is closed first, as `UndoManager.undo()` closes the top-level
    /// group, so its changes so far are the ones undone; an explicit group goes on as a new
    /// step that its ``endUndoGroup()`` closes.
    @discardableResult public func undo() -> String? { core.undoLastGroup() }
    /// Redoes the group undone last. Returns its name, nil when there was nothing to redo.
    @discardableResult public func redo() -> String? { core.redoLastGroup() }
    /// Opens a group that every change joins until the matching ``endUndoGroup()``
    /// (groups nest; the outermost one counts).
    ///
    /// Opened when this turn of the main actor has already changed something, the group
    /// joins the turn's group (named by it if the turn's had no name), as `UndoManager`
    /// nests an explicit group in the event's group, so one ``undo()`` takes back the whole
    /// turn, changes after ``endUndoGroup()`` included. Opened before any change of the
    /// turn, it is a step of its own, so each command of a script run in one turn stays one
    /// step; changes after its end form the turn's group.
    public func beginUndoGroup(named name: String? = nil) { core.beginUndoGroup(named: name) }
    /// Closes the group opened last. Calling it with no group open is a programming error
    /// and traps, as `UndoManager.endUndoGrouping()` raises.
    public func endUndoGroup() { core.endUndoGroup() }
    /// Closes the outermost group instead of ``endUndoGroup()`` and puts back every change
    /// made since it opened, leaving no undo step: for an edit that failed halfway.
    ///
    /// ```swift
    /// context.beginUndoGroup(named: "rename")
    /// do {
    ///     try edit(context)
    ///     context.endUndoGroup()
    /// } catch {
    ///     context.discardUndoGroup()  // nothing of the failed edit is left to save
    ///     throw error
    /// }
    /// ```
    ///
    /// Only recorded changes come back: with ``isUndoEnabled`` off nothing is put back, and
    /// after a save inside the group only the changes since the save are. An ``undo()`` or
    /// ``redo()`` inside the group is put back too, and the undo and redo history are again
    /// as the group found them (the redo history its first change ended included). A store error that a fault met
    /// inside the group, which the next ``save()`` would otherwise throw, goes with it (with
    /// undo on): no change made after it is left. Calling it inside a nested group traps (a
    /// nested group's changes belong to the outermost one), and so does calling it with no
    /// group open.
    public func discardUndoGroup() { core.discardUndoGroup() }
    /// Forgets every undo and redo group.
    public func removeAllUndoActions() { core.undo.removeAll() }
}

extension PrivateContext {
    /// Whether changes are recorded for undo; off by default for private contexts (imports
    /// and batch edits have nothing to undo and should not pay for it).
    public var isUndoEnabled: Bool {
        get { core.undo.isEnabled }
        set { core.setUndoEnabled(newValue) }
    }
    /// Sets ``isUndoEnabled`` (an actor's property cannot be set from outside it).
    public func setUndoEnabled(_ enabled: Bool) { core.setUndoEnabled(enabled) }
    /// The most groups kept; 0 keeps every one.
    public var levelsOfUndo: Int {
        get { core.undo.levels }
        set { core.undo.levels = max(0, newValue) }
    }
    /// Whether ``undo()`` has a group to undo.
    public var canUndo: Bool { core.canUndo }
    /// Whether ``redo()`` has a group to redo.
    public var canRedo: Bool { !core.undo.redoGroups.isEmpty }
    /// Undoes the latest group; its name, or nil when there was nothing to undo.
    @discardableResult public func undo() -> String? { core.undoLastGroup() }
    /// Redoes the group undone last; its name, or nil when there was nothing to redo.
    @discardableResult public func redo() -> String? { core.redoLastGroup() }
    /// Opens a group that every change joins until the matching ``endUndoGroup()``.
    public func beginUndoGroup(named name: String? = nil) { core.beginUndoGroup(named: name) }
    /// Closes the group opened last. Calling it with no group open is a programming error
    /// and traps, as `UndoManager.endUndoGrouping()` raises.
    public func endUndoGroup() { core.endUndoGroup() }
    /// Closes the outermost group and puts back every change made since it opened, leaving
    /// no undo step (see ``MainContext/discardUndoGroup()``).
    public func discardUndoGroup() { core.discardUndoGroup() }
    /// Forgets every undo and redo group.
    public func removeAllUndoActions() { core.undo.removeAll() }
    /// Ends the implicit group of the job that opened it.
    func endImplicitUndoGroup() { core.endImplicitUndoGroup() }
}

extension ContextCore {
    /// Whether there is a group to undo, the open one included.
    var canUndo: Bool { !undo.undoGroups.isEmpty || !(undo.open?.records.isEmpty ?? true) }

    /// Switches recording on or off; off forgets the history. Explicit groups stay open, so
    /// each ``endUndoGroup()`` still has its ``beginUndoGroup(named:)``.
    func setUndoEnabled(_ enabled: Bool) {
        undo.isEnabled = enabled
        if !enabled {
            undo.removeAll()
            undo.open = nil
        }
    }
}
