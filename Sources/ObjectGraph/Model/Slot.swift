package import Foundation

/// What one property slot of an object holds.
///
/// Attributes hold their stored value; a to-one relationship holds the destination's ID
/// until it is first touched, then the destination object itself (a strong reference, so
/// realized relationships keep each other alive until refreshed); a to-many relationship
/// holds a ``ToManyStorage``.
package enum Slot {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
    /// An unrealized to-one relationship: the destination's ID.
    case objectID(ObjectID)
    /// A realized to-one relationship.
    case object(ManagedObject)
    /// A to-many relationship, realized or a fault.
    case toMany(ToManyStorage)

    package init(_ value: StoredValue) {
        switch value {
        case .null: self = .null
        case .integer(let v): self = .integer(v)
        case .real(let v): self = .real(v)
        case .text(let v): self = .text(v)
        case .blob(let v): self = .blob(v)
        }
    }

    /// The attribute value this slot holds; relationships read as null.
    var storedValue: StoredValue {
        switch self {
        case .integer(let v): .integer(v)
        case .real(let v): .real(v)
        case .text(let v): .text(v)
        case .blob(let v): .blob(v)
        case .null, .objectID, .object, .toMany: .null
        }
    }

    /// Whether the slot holds nothing (an attribute that is nil, an empty to-one); read
    /// without converting the slot into a ``StoredValue`` (a retain and release for text).
    var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The destination ID of a to-one slot, realized or not.
    var destinationID: ObjectID? {
        switch self {
        case .objectID(let id): id
        case .object(let object): object.objectID
        default: nil
        }
    }
}

/// The objects of one to-many relationship of one object; `objects == nil` is a fault.
///
/// Changes made while the relationship is a fault are kept as pending additions and
/// removals and applied when it fires, so maintaining an inverse never runs a query.
/// `added` and `removed` also record the changes since the last save, which is what a
/// many-to-many relationship writes to its join table.
///
/// Every edit of a relationship goes through here (an import adds each new line to its
/// recipe's and its ingredient's), so the stored properties skip Swift's dynamic
/// exclusivity checks, as the context's registry does: a storage belongs to one object of
/// one context and is used only on that context's queue, and no access to a property
/// calls out to code that could touch the same storage (the closures passed in compare
/// objects or IDs only).
package final class ToManyStorage {
    /// The destination objects, or nil until the relationship is first touched.
    @exclusivity(unchecked) private(set) var objects: [ManagedObject]?
    /// Objects added since the last save.
    @exclusivity(unchecked) private(set) var added: [ManagedObject] = []
    /// IDs of objects removed since the last save.
    @exclusivity(unchecked) private(set) var removed: [ObjectID] = []
    /// Membership of `objects` and `added`, so adding to a popular relationship (an
    /// ingredient used by thousands of recipes) stays O(1) instead of scanning the arrays.
    /// Built only once an array outgrows ``scanLimit``: below it a scan of the references is
    /// cheaper than hashing (most relationships hold a few objects: a recipe's lines).
    @exclusivity(unchecked) private var memberSet: Set<ObjectIdentifier>?
    @exclusivity(unchecked) private var addedSet: Set<ObjectIdentifier>?
    /// The array length up to which membership is checked by scanning.
    private static let scanLimit = 16

    init(objects: [ManagedObject]?) {
        self.objects = objects
        if let objects, objects.count > Self.scanLimit { memberSet = Set(objects.lazy.map(ObjectIdentifier.init)) }
    }

    /// A copy for snapshots, so later edits do not change the snapshot.
    func copy() -> ToManyStorage {
        let copy = ToManyStorage(objects: nil)
        copy.objects = objects
        copy.memberSet = memberSet
        copy.added = added
        copy.addedSet = addedSet
        copy.removed = removed
        return copy
    }

    /// Inserts `object` into `array` unless it is there, keeping `set` (the array's
    /// membership, once the array is long) in step; returns whether it was inserted.
    private static func insert(
        _ object: ManagedObject, into array: inout [ManagedObject], set: inout Set<ObjectIdentifier>?
    ) -> Bool {
        if set != nil {
            guard set!.insert(ObjectIdentifier(object)).inserted else { return false }
        } else {
            for member in array where member === object { return false }
            if array.count >= scanLimit { set = Set(array.lazy.map(ObjectIdentifier.init) + [ObjectIdentifier(object)]) }
        }
        array.append(object)
        return true
    }

    /// Removes `object` from `array` and from its membership set.
    private static func remove(
        _ object: ManagedObject, from array: inout [ManagedObject], set: inout Set<ObjectIdentifier>?
    ) {
        if set != nil {
            guard set!.remove(ObjectIdentifier(object)) != nil else { return }
        }
        array.removeAll { $0 === object }
    }

    func add(_ object: ManagedObject) {
        if objects != nil {
            guard Self.insert(object, into: &objects!, set: &memberSet) else { return }
        }
        if !removed.isEmpty { removed.removeAll { $0 == object.objectID } }
        _ = Self.insert(object, into: &added, set: &addedSet)
    }

    func remove(_ object: ManagedObject) {
        if objects != nil { Self.remove(object, from: &objects!, set: &memberSet) }
        Self.remove(object, from: &added, set: &addedSet)
        if !removed.contains(object.objectID) { removed.append(object.objectID) }
    }

    /// Realizes a fault from the stored destinations plus the pending changes.
    func realize(stored: [ManagedObject]) {
        objects = removed.isEmpty ? stored : stored.filter { object in !removed.contains(object.objectID) }
        memberSet = objects!.count > Self.scanLimit ? Set(objects!.lazy.map(ObjectIdentifier.init)) : nil
        for object in added { _ = Self.insert(object, into: &objects!, set: &memberSet) }
    }

    /// Forgets the changes since the last save (after a save writes them).
    func clearChanges() {
        added.removeAll()
        addedSet = nil
        removed.removeAll()
    }

    /// Drops destinations that no longer exist (a batch delete elsewhere).
    func removeAll(where gone: (ManagedObject) -> Bool) {
        objects?.removeAll(where: gone)
        added.removeAll(where: gone)
        if let objects, objects.count > Self.scanLimit { memberSet = Set(objects.lazy.map(ObjectIdentifier.init)) } else { memberSet = nil }
        addedSet = added.count > Self.scanLimit ? Set(added.lazy.map(ObjectIdentifier.init)) : nil
    }
}

/// Where an object stands in its life cycle.
enum ObjectState: UInt8 {
    /// Registered and unchanged, values not loaded yet.
    case fault
    /// Loaded, unchanged since the last save or fetch.
    case clean
    /// Inserted and not yet saved.
    case inserted
    /// Loaded and changed since the last save.
    case updated
    /// Deleted; the row goes at the next save.
    case deleted
}

/// One property slot of an object's heap block.
struct ObjectSlot {
    var value: Slot
}

/// The fixed part of every object's single heap block; the slots follow it.
///
/// The header is 40 bytes, so an object of two properties (16 bytes of Swift's own header,
/// this, two 24-byte slots) fits glibc's 112-byte blocks: at 56 bytes it took 128-byte
/// ones, and a fetch of 500,000 such objects took about 7% longer (the twenty-first
/// round of `Benchmarks/ROUNDS.md`).
struct ObjectHeader {
    var objectID: ObjectID
    /// The context that registered the object or, once detached, its entity.
    private(set) var owner: ObjectOwner
    /// One bit per slot (slots past 63 share the last bit) changed since the last save.
    var changedSlots: UInt64 = 0
    /// ``rowVersion`` in 32 bits; `UInt32.max` stands for -1.
    private var storedRowVersion = UInt32.max
    var state: ObjectState
    /// The state before the object was deleted (to undo a delete on rollback).
    var stateBeforeDelete: ObjectState = .clean
    /// Whether the attribute and to-one slots are loaded, wait to be loaded, or hold what a
    /// default fetch read (see ``ValueState``).
    var values: ValueState
    /// Whether firing the fault found no row: the object was deleted elsewhere.
    var isInaccessible: Bool = false

    init(objectID: ObjectID, owner: ObjectOwner, state: ObjectState, values: ValueState) {
        self.objectID = objectID
        self.owner = owner
        self.state = state
        self.values = values
    }

    /// The context that registered the object; nil once detached (reset, or the context is gone).
    var context: Unmanaged<ContextCore>? {
        @inline(__always) get { owner.context }
    }

    /// The object's entity, unretained: the registering context's model holds it, and a
    /// detached object's header holds it itself.
    var entity: Unmanaged<EntityDescription> {
        @inline(__always) get {
            guard let context = owner.context else { return owner.detachedEntity }
            return context._withUnsafeGuaranteedRef { $0.entityTable[Int(objectID.entityIndex)] }
        }
    }

    /// Lets go of the context (reset, a save's deletes, or the context going away); the
    /// object keeps its entity.
    mutating func detach() {
        guard owner.context != nil else { return }
        owner = .detached(entity)
    }

    /// The version of the row the values were loaded from (optimistic locking); -1 when
    /// they were never loaded.
    ///
    /// A row saved more than 4,294,967,293 times is held as that number, which no longer
    /// matches the store's: saving such an object reports a conflict rather than passing
    /// the check unseen.
    var rowVersion: Int64 {
        @inline(__always) get { storedRowVersion == .max ? -1 : Int64(storedRowVersion) }
        @inline(__always) set { storedRowVersion = newValue < 0 ? .max : UInt32(clamping: min(newValue, Int64(UInt32.max - 1))) }
    }

    /// Whether the attribute and to-one slots still wait to be loaded. True for a fault, and
    /// for a fault that was changed without being loaded (an inverse relationship maintained
    /// on it): its state is then `updated` while its values still load on first access.
    /// Setting it true forgets whether the slots hold a default fetch's values.
    var needsValues: Bool {
        @inline(__always) get { values != .loaded }
        @inline(__always) set { values = newValue ? .needed : .loaded }
    }
}

/// The context that registered an object, or once the object is detached its entity, in
/// one word: the low bit says which (both are heap objects, aligned to 16 bytes).
///
/// Neither is retained. A context detaches its objects before it goes, and an entity lives
/// as long as its model, which is never freed (entities and model reference each other).
struct ObjectOwner {
    private let bits: UInt

    /// Registered in `context`.
    @inline(__always)
    static func context(_ context: ContextCore) -> ObjectOwner {
        ObjectOwner(bits: UInt(bitPattern: Unmanaged.passUnretained(context).toOpaque()))
    }

    /// Detached, of `entity`.
    @inline(__always)
    static func detached(_ entity: Unmanaged<EntityDescription>) -> ObjectOwner {
        ObjectOwner(bits: UInt(bitPattern: entity.toOpaque()) | 1)
    }

    /// The registering context, nil when detached.
    var context: Unmanaged<ContextCore>? {
        @inline(__always) get {
            bits & 1 == 0 ? Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped) : nil
        }
    }

    /// The entity of a detached object (only valid when ``context`` is nil).
    var detachedEntity: Unmanaged<EntityDescription> {
        @inline(__always) get { Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: bits & ~1).unsafelyUnwrapped) }
    }
}

/// Where an object's attribute and to-one values stand.
enum ValueState: UInt8 {
    /// Loaded: the slots hold the object's values.
    case loaded
    /// A fault: the slots wait to be loaded from the row cache or the store.
    case needed
    /// A fault whose slots already hold the values a default fetch read. Firing it takes no
    /// copy unless a save through the coordinator has changed its row since (the row cache's
    /// change log tells), in which case it loads as a `needed` fault does.
    case prefilled
}
