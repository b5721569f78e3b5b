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
///
/// `changed` lives in the bytes Swift pads the 17-byte value to, so marking a slot changed
/// takes no room in the object's header.
struct ObjectSlot {
    var value: Slot
    /// Whether the property changed since the last save.
    var changed = false
}

/// The fixed part of every object's single heap block; the slots follow it.
///
/// The header is 24 bytes, so an object of two properties (16 bytes of Swift's own header,
/// this, two 24-byte slots) fits glibc's 96-byte blocks, where a 40-byte header took
/// 112-byte ones and a 56-byte header 128-byte ones. Each step down made a fetch of 500,000
/// such objects faster (7%, then 3%) and 8 MB smaller (the twenty-first and twenty-third
/// rounds of `Benchmarks/ROUNDS.md`). What the header holds is packed to fit:
/// - the ID as its key, a 16-bit entity index and, while it is temporary, its tag;
/// - once the ID is permanent, the row version in the tag's place (a temporary object
///   has no row, so no version);
/// - the states and flags in 16 bits;
/// - which slots changed in the slots themselves (``ObjectSlot/changed``).
struct ObjectHeader {
    /// The ID's key: the row's primary key, or a temporary ID's counter.
    private var key: Int64
    /// The context that registered the object or, once detached, its entity.
    private(set) var owner: ObjectOwner
    /// The temporary tag while the ID is temporary; afterwards ``rowVersion`` in 32 bits,
    /// `UInt32.max` standing for -1.
    private var tagOrVersion: UInt32
    /// ``entityIndex`` in 16 bits (``entityLimit``).
    private var storedEntityIndex: UInt16
    /// ``state``, ``stateBeforeDelete``, ``values`` and three flags; see ``Bits``.
    private var bits: UInt16

    /// Where each field sits in ``bits``.
    private enum Bits {
        static let stateShift: UInt16 = 0, stateBeforeDeleteShift: UInt16 = 3, valuesShift: UInt16 = 6
        static let stateMask: UInt16 = 0b111, valuesMask: UInt16 = 0b11
        static let inaccessible: UInt16 = 1 << 8
        static let temporary: UInt16 = 1 << 9
        static let shadowsPending: UInt16 = 1 << 10
    }

    /// The most entities a model may have: an object keeps its entity's index in 16 bits.
    static let entityLimit = Int(UInt16.max) + 1

    /// A header for a new object; a temporary ID has no version, a permanent one -1 until loaded.
    @inline(__always)
    init(objectID: ObjectID, owner: ObjectOwner, state: ObjectState, values: ValueState) {
        key = objectID.key
        self.owner = owner
        storedEntityIndex = UInt16(objectID.entityIndex)
        tagOrVersion = objectID.isTemporary ? objectID.temporaryTag : .max
        bits = UInt16(state.rawValue) << Bits.stateShift | UInt16(ObjectState.clean.rawValue) << Bits.stateBeforeDeleteShift
            | UInt16(values.rawValue) << Bits.valuesShift | (objectID.isTemporary ? Bits.temporary : 0)
    }

    /// The object's ID. Making a temporary ID permanent leaves the version unknown (-1)
    /// until a save or a load sets it.
    var objectID: ObjectID {
        @inline(__always) get {
            ObjectID(entityIndex: entityIndex, key: key, temporaryTag: bits & Bits.temporary != 0 ? tagOrVersion : 0)
        }
        set {
            key = newValue.key
            storedEntityIndex = UInt16(newValue.entityIndex)
            if newValue.isTemporary {
                bits |= Bits.temporary
                tagOrVersion = newValue.temporaryTag
            } else if bits & Bits.temporary != 0 {
                bits &= ~Bits.temporary
                tagOrVersion = .max
            }
        }
    }

    /// The index of the object's entity in its model (``objectID``'s, without making the ID).
    var entityIndex: Int {
        @inline(__always) get { Int(storedEntityIndex) }
    }

    /// The object's state.
    var state: ObjectState {
        @inline(__always) get { field(Bits.stateShift, Bits.stateMask) }
        @inline(__always) set { setField(newValue, Bits.stateShift, Bits.stateMask) }
    }

    /// The state before the object was deleted (to undo a delete on rollback).
    var stateBeforeDelete: ObjectState {
        @inline(__always) get { field(Bits.stateBeforeDeleteShift, Bits.stateMask) }
        @inline(__always) set { setField(newValue, Bits.stateBeforeDeleteShift, Bits.stateMask) }
    }

    /// Whether the attribute and to-one slots are loaded, wait to be loaded, or hold what a
    /// default fetch read (see ``ValueState``).
    var values: ValueState {
        @inline(__always) get { field(Bits.valuesShift, Bits.valuesMask) }
        @inline(__always) set { setField(newValue, Bits.valuesShift, Bits.valuesMask) }
    }

    /// Whether firing the fault found no row: the object was deleted elsewhere.
    var isInaccessible: Bool {
        @inline(__always) get { bits & Bits.inaccessible != 0 }
        @inline(__always) set { bits = newValue ? bits | Bits.inaccessible : bits & ~Bits.inaccessible }
    }

    /// Whether the object's canonical shadows wait to be folded from their sources: a fill
    /// from a row leaves them out (``TableLayout``), and the first read of one folds them
    /// all (``ManagedObject/loadShadows()``).
    var shadowsPending: Bool {
        @inline(__always) get { bits & Bits.shadowsPending != 0 }
        @inline(__always) set { bits = newValue ? bits | Bits.shadowsPending : bits & ~Bits.shadowsPending }
    }

    @inline(__always)
    private func field<Value: RawRepresentable<UInt8>>(_ shift: UInt16, _ mask: UInt16) -> Value {
        Value(rawValue: UInt8(truncatingIfNeeded: (bits >> shift) & mask)).unsafelyUnwrapped
    }

    @inline(__always)
    private mutating func setField<Value: RawRepresentable<UInt8>>(_ value: Value, _ shift: UInt16, _ mask: UInt16) {
        bits = (bits & ~(mask << shift)) | (UInt16(value.rawValue) << shift)
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
            return context._withUnsafeGuaranteedRef { $0.entityTable[entityIndex] }
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
    /// the check unseen. A temporary object has no row: it reads -1, and setting its
    /// version changes nothing.
    var rowVersion: Int64 {
        @inline(__always) get { bits & Bits.temporary != 0 || tagOrVersion == .max ? -1 : Int64(tagOrVersion) }
        @inline(__always) set {
            guard bits & Bits.temporary == 0 else { return }
            tagOrVersion = newValue < 0 ? .max : UInt32(clamping: min(newValue, Int64(UInt32.max - 1)))
        }
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
