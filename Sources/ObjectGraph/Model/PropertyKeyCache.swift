/// Finds an entity's attribute or relationship by the bits of the `String` naming it, before
/// any hashing.
///
/// Accessors name properties with string literals (`self[attribute: "name"]`), and a literal
/// of up to 15 UTF-8 bytes is a small string: its two words hold its bytes and length, so the
/// literal at the call site has exactly the bits of the literal the model was declared with.
/// Equal bits mean equal strings (a small string's bits are its contents; a large one's name
/// its storage, which the model keeps alive and never changes). Unequal bits prove nothing
/// (the same text in a heap string), so a miss falls back to the dictionaries by name. A hit
/// costs a multiply and a comparison instead of hashing the name (about 350 instructions per
/// lookup, for every typed property read and write).
///
/// Built once while the model is resolved and never written again, so reading it from any
/// thread is safe.
struct PropertyKeyCache {
    private struct Entry {
        var bits: (UInt64, UInt64)
        var attribute: AttributeDescription?
        var relationship: RelationshipDescription?
    }

    /// Open addressing, at most half full; an entry whose bits are (0, 0) is empty: no
    /// `String` has those bits (even the empty string's discriminator is non-zero).
    private var entries: [Entry] = []
    private var mask = 0

    init() {}

    init(attributes: [AttributeDescription], relationships: [RelationshipDescription]) {
        let count = attributes.count + relationships.count
        var capacity = 8
        while capacity < count * 2 { capacity *= 2 }
        entries = Array(repeating: Entry(bits: (0, 0), attribute: nil, relationship: nil), count: capacity)
        mask = capacity - 1
        for attribute in attributes { insert(Entry(bits: Self.bits(attribute.name), attribute: attribute, relationship: nil)) }
        for relationship in relationships {
            insert(Entry(bits: Self.bits(relationship.name), attribute: nil, relationship: relationship))
        }
    }

    /// The two words of a `String` value.
    @inline(__always)
    private static func bits(_ key: String) -> (UInt64, UInt64) {
        unsafeBitCast(key, to: (UInt64, UInt64).self)
    }

    @inline(__always)
    private func home(_ bits: (UInt64, UInt64)) -> Int {
        Int(truncatingIfNeeded: ((bits.0 ^ bits.1 &* 0x9E37_79B9_7F4A_7C15) &* 0xBF58_476D_1CE4_E5B9) >> 40) & mask
    }

    private mutating func insert(_ entry: Entry) {
        var index = home(entry.bits)
        while entries[index].bits != (0, 0) { index = (index + 1) & mask }
        entries[index] = entry
    }

    /// The entry whose name has exactly the bits of `key`, if any.
    @inline(__always)
    private func entry(_ key: String) -> Entry? {
        guard mask != 0 else { return nil }
        let bits = Self.bits(key)
        var index = home(bits)
        while true {
            let entry = entries[index]
            if entry.bits == bits { return entry }
            if entry.bits == (0, 0) { return nil }
            index = (index + 1) & mask
        }
    }

    /// The attribute named by exactly these bits, if any (nil proves nothing).
    @inline(__always)
    func attribute(_ key: String) -> AttributeDescription? { entry(key)?.attribute }

    /// The relationship named by exactly these bits, if any (nil proves nothing).
    @inline(__always)
    func relationship(_ key: String) -> RelationshipDescription? { entry(key)?.relationship }
}
