import Synchronization

/// An object of the graph: one row of an entity, registered in one context.
///
/// An object is a single heap block: a small header (ID, entity, state, changed-slot mask)
/// followed by one slot per attribute and relationship, so fetching thousands of objects
/// costs one allocation each and no dictionaries. Read and write properties by key, or
/// subclass with typed properties that go through the same slots:
///
/// ```swift
/// final class Chef: ManagedObject {
///     var name: String {
///         get { self[attribute: "name"] }
///         set { self[attribute: "name"] = newValue }
///     }
/// }
/// let name = chef["name"] as? String   // generic access, as the shell uses it
/// ```
///
/// A fetched object may be a *fault*: its values load the first time a property is read
/// (``isFault``). Objects are confined to their context: pass ``objectID`` between contexts.
///
/// ## Topics
/// - ``objectID``
/// - ``entity``
/// - ``isFault``
/// - ``hasChanges``
/// - ``isInserted``
/// - ``isUpdated``
/// - ``isDeleted``
/// - ``changedValues()``
/// - ``subscript(_:)->Any?``
/// - ``value(forKey:)``
/// - ``setValue(_:forKey:)``
/// - ``objects(forKey:)``
/// - ``add(_:toKey:)``
/// - ``remove(_:fromKey:)``
///
/// Subclasses declare computed properties only: an object's state lives in its slots, and
/// the model rejects a class with stored properties of its own.
open class ManagedObject: Hashable, CustomStringConvertible {
    // The object's memory is one block that `ManagedBufferPointer` allocates with the
    // entity's class: the class's own (empty) instance, then the header, then one slot per
    // property. ManagedObject is not a `ManagedBuffer` subclass, so none of that storage
    // API is reachable from outside the framework.
    typealias Storage = ManagedBufferPointer<ObjectHeader, ObjectSlot>

    /// Allocates an object of `entity`'s class with every slot empty. With `counted` false
    /// the caller counts it (``ContextStatistics/objectsDidAllocate(_:)`` and the context's
    /// `objectsCreated`), as a fetch does for all its new objects at once.
    static func make(
        entity: EntityDescription, id: ObjectID, context: ContextCore?, state: ObjectState, counted: Bool = true
    ) -> ManagedObject {
        let count = entity.slotCount
        let storage = Storage(bufferClass: entity.objectClass, minimumCapacity: count) { _, _ in
            ObjectHeader(objectID: id, owner: context.map { .context($0) } ?? .detached(.passUnretained(entity)),
                         state: state, values: state == .fault ? .needed : .loaded)
        }
        storage.withUnsafeMutablePointerToElements { $0.initialize(repeating: ObjectSlot(value: .null), count: count) }
        // The buffer object is an instance of `entity.objectClass`, a ManagedObject subclass.
        let object = unsafeDowncast(storage.buffer, to: ManagedObject.self)
        if counted {
            ContextStatistics.objectsDidAllocate()
            context?.objectsCreated += 1
        }
        return object
    }

    deinit {
        ContextStatistics.live.subtract(1, ordering: .relaxed)
        let header = headerPointer
        let entity = header.pointee.entity
        if let context = header.pointee.context {
            context._withUnsafeGuaranteedRef { $0.objectWillDeallocate(header.pointee.objectID, self) }
        }
        // One slot at a time: `deinitialize(count:)` of a count known only at run time is the
        // runtime's generic array destroy, a call through the type's witness table per slot.
        let slots = self.slots
        for index in 0..<entity._withUnsafeGuaranteedRef(\.slotCount) { _ = (slots + index).move() }
        // The header holds only trivial values (IDs, unretained references, flags): nothing to destroy.
    }

    // MARK: Header access (no exclusivity checks: the header lives in the object's own block)

    @inline(__always) var headerPointer: UnsafeMutablePointer<ObjectHeader> {
        Storage(unsafeBufferObject: self).withUnsafeMutablePointerToHeader { $0 }
    }

    @inline(__always) var slots: UnsafeMutablePointer<ObjectSlot> {
        Storage(unsafeBufferObject: self).withUnsafeMutablePointerToElements { $0 }
    }

    @inline(__always) var state: ObjectState {
        get { headerPointer.pointee.state }
        set { headerPointer.pointee.state = newValue }
    }

    @inline(__always) var contextCore: ContextCore? {
        headerPointer.pointee.context?.takeUnretainedValue()
    }

    // MARK: Identity and state

    /// The object's identity; temporary until the object is first saved.
    public var objectID: ObjectID { headerPointer.pointee.objectID }

    /// The object's entity.
    public var entity: EntityDescription { headerPointer.pointee.entity.takeUnretainedValue() }

    /// Calls `body` with the object's entity without retaining it, as the loops of a save
    /// do for every object: reading ``entity`` costs an atomic retain and release.
    @inline(__always)
    func withEntity<Result>(_ body: (EntityDescription) throws -> Result) rethrows -> Result {
        try headerPointer.pointee.entity._withUnsafeGuaranteedRef(body)
    }

    /// Whether a save has `work` to do for this object (see ``EntityDescription/saveWork``).
    @inline(__always)
    func needsSaveWork(_ work: EntityDescription.SaveWork) -> Bool {
        withEntity { !$0.saveWork.isDisjoint(with: work) }
    }

    /// Whether the object's values have not been loaded yet; reading any property loads them.
    public var isFault: Bool { headerPointer.pointee.needsValues }

    /// Whether the object was inserted and not yet saved.
    public var isInserted: Bool { state == .inserted }

    /// Whether the object has unsaved changes to its values.
    public var isUpdated: Bool { state == .updated }

    /// Whether the object was deleted and the deletion is not yet saved.
    public var isDeleted: Bool { state == .deleted }

    /// Whether the object is inserted, updated or deleted since the last save.
    public var hasChanges: Bool { state == .inserted || state == .updated || state == .deleted }

    /// Whether the object still belongs to a context (false after `reset()` or when its
    /// context is gone; such an object keeps its values but can no longer load faults).
    public var isRegistered: Bool { headerPointer.pointee.context != nil }

    /// Whether the object's row was found missing when its fault fired: another context or
    /// process deleted it. Its properties read as nil, ``fulfill()`` throws, and saving a
    /// change to it fails (Core Data's inaccessible fault).
    public var isInaccessible: Bool { headerPointer.pointee.isInaccessible }

    /// Loads the object's values now if it is a fault, reporting what a property read cannot.
    ///
    /// ```swift
    /// do { try recipe.fulfill() } catch let error as ObjectGraphError where error.code == .objectNotFound { … }
    /// ```
    /// - Throws: ``ObjectGraphError`` `objectNotFound` when the object's row is gone (also on
    ///   later calls), or the store's error when it could not be read.
    public func fulfill() throws {
        if ConfinementChecks.isOn { checkConfinement("fulfill()") }
        if headerPointer.pointee.isInaccessible, let context = contextCore {
            throw ContextCore.inaccessible(objectID, model: context.model)
        }
        guard headerPointer.pointee.needsValues, let context = contextCore else { return }
        try context.loadFault(self)
    }

    /// Loads the object's values if it is a fault; `use` names the access for the
    /// confinement check's message (``ConfinementChecks``).
    @inline(__always) func fireFaultIfNeeded(_ use: @autoclosure () -> String = "a property access") {
        if ConfinementChecks.isOn { checkConfinement(use()) }
        // The context without a retain and release, as `willChange(slot:)` reaches it: it
        // outlives the call (a context detaches its objects before it goes), and reading a
        // strong reference cost an atomic retain and release on every fault fired.
        if headerPointer.pointee.needsValues, let context = headerPointer.pointee.context {
            context._withUnsafeGuaranteedRef { $0.fulfillFault(self) }
        }
    }

    /// Makes a prefilled fault (``ValueState/prefilled``) a fault that loads its row, its
    /// slots emptied as a fault's are (changes made before it fired stay), so a row found
    /// gone leaves nothing of the fetched values behind.
    func forgetPrefilledValues() {
        guard headerPointer.pointee.values == .prefilled else { return }
        headerPointer.pointee.values = .needed
        for index in 0..<entity.slotCount where !hasChangedSlot(index) {
            if case .toMany = slots[index].value { continue }
            slots[index].value = .null
        }
    }

    /// Loads values from a row into the slots that did not change while the object was a fault.
    func fillPreservingChanges(_ layout: TableLayout, column: (Int) -> Slot) {
        let count = entity.slotCount
        let changed = (0..<count).filter { hasChangedSlot($0) }
        let kept = changed.map { slots[$0].value }
        layout.fill(self, column: column)
        for (index, slot) in zip(changed, kept) { slots[index].value = slot }
    }

    /// Folds the canonical shadows that a fill left out (``ObjectHeader/shadowsPending``)
    /// from their sources. Code that copies or compares all of an object's slots calls this
    /// first: a pending shadow's slot holds nothing.
    @inline(__always)
    func loadShadows() {
        if headerPointer.pointee.shadowsPending { foldShadows() }
    }

    @inline(never)
    private func foldShadows() {
        headerPointer.pointee.shadowsPending = false
        let slots = self.slots
        withEntity { entity in
            // A shadow changed since the fill was set with its source, and holds its fold.
            for (source, shadow) in entity.foldedShadows where !slots[shadow].changed {
                slots[shadow].value = Slot(Derivations.fold(slots[source].value.storedValue))
            }
        }
    }

    /// Marks `slot` changed and makes the object updated (keeping a snapshot for rollback).
    func willChange(slot: Int) {
        // The context without a retain and release: this runs for every attribute set.
        headerPointer.pointee.context?._withUnsafeGuaranteedRef { core in
            if core.undo.isRecording { core.recordForUndo(self) }
        }
        switch state {
        case .clean, .fault:
            contextCore?.objectWillBecomeUpdated(self)
            state = .updated
        case .deleted where headerPointer.pointee.stateBeforeDelete == .clean:
            // Deleted while clean, so without a snapshot until now (a first change takes it).
            contextCore?.objectWillBecomeUpdated(self, listed: false)
        case .inserted, .updated, .deleted:
            break
        }
        slots[slot].changed = true
    }

    /// Whether `slot` changed since the last save.
    @inline(__always)
    func hasChangedSlot(_ slot: Int) -> Bool { slots[slot].changed }

    /// Whether any slot changed since the last save.
    var hasChangedSlots: Bool {
        let slots = self.slots
        return (0..<withEntity(\.slotCount)).contains { slots[$0].changed }
    }

    /// Marks every slot unchanged (after a save, or when the changes are dropped).
    func clearChangedSlots() {
        let slots = self.slots
        for index in 0..<withEntity(\.slotCount) { slots[index].changed = false }
    }

    /// The changed slots, one bit each, for undo records: slots 0 to 63 in `low`, the rest in
    /// `high`, 64 to a word (empty, so nothing allocated, for an entity of at most 64
    /// slots). Each slot keeps a bit of its own: undo puts back exactly which properties
    /// changed, and a save then writes only those.
    var changedSlotBits: (low: UInt64, high: [UInt64]) {
        get {
            let slots = self.slots
            let count = withEntity(\.slotCount)
            var low: UInt64 = 0
            for index in 0..<min(count, 64) where slots[index].changed { low |= 1 << UInt64(index) }
            guard count > 64 else { return (low, []) }
            var high = [UInt64](repeating: 0, count: (count - 64 + 63) / 64)
            for index in 64..<count where slots[index].changed { high[(index - 64) / 64] |= 1 << UInt64((index - 64) % 64) }
            return (low, high)
        }
        set {
            let slots = self.slots
            let count = withEntity(\.slotCount)
            for index in 0..<min(count, 64) { slots[index].changed = newValue.low & (1 << UInt64(index)) != 0 }
            guard count > 64 else { return }
            for index in 64..<count {
                let word = (index - 64) / 64
                slots[index].changed = word < newValue.high.count && newValue.high[word] & (1 << UInt64((index - 64) % 64)) != 0
            }
        }
    }

    /// The names of the properties changed since the last save.
    var changedKeys: Set<String> {
        var keys = Set<String>()
        guard hasChangedSlots else { return keys }
        for attribute in entity.attributes where hasChangedSlot(attribute.slot) { keys.insert(attribute.name) }
        for relationship in entity.relationships where hasChangedSlot(relationship.slot) { keys.insert(relationship.name) }
        return keys
    }

    // MARK: Hashable (identity)

    /// Objects are equal only to themselves.
    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }

    /// Hashes the object's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// `Recipe/p42 (fault)` or `Recipe/p42 {name: "Phở", …}`.
    open var description: String {
        let id = entity.describe(objectID)
        if isFault { return "\(id) (fault)" }
        loadShadows()
        let values = entity.attributes.prefix(4).map { attribute -> String in
            let value = attribute.type.swiftValue(from: slots[attribute.slot].value.storedValue)
            return "\(attribute.name): \(value.map { "\($0)" } ?? "nil")"
        }
        return "\(id) {\(values.joined(separator: ", "))\(entity.attributes.count > 4 ? ", …" : "")}"
    }
}

// Managed objects are confined to their context (ManagedBuffer is not Sendable, so neither
// are they): pass `objectID` between contexts instead.
