public import Foundation

/// An atomic store in a compact, versioned binary file (format 1, specified in <doc:Stores>):
/// a magic number and version, the metadata, the schema the records use (entity and
/// property names), one record per object, and a CRC-32 of everything before it.
///
/// Numbers are LEB128 varints (signed ones zigzag-encoded), doubles 8 bytes little-endian,
/// strings and data a length and their bytes. Because the file names its entities and
/// properties, a reader maps them onto the model by name and reports any it does not know.
public final class BinaryStore: AtomicStore<[UInt8]>, @unchecked Sendable {
    // @unchecked: no state of its own (see AtomicStore).

    /// The first 8 bytes of every file: high-bit byte, `OGB`, CR LF, ^Z, LF (as PNG does,
    /// so transfers that mangle text or 8-bit bytes show).
    public static let magic: [UInt8] = [0x89, 0x4F, 0x47, 0x42, 0x0D, 0x0A, 0x1A, 0x0A]
    /// The format version this store writes and reads.
    public static let formatVersion: UInt8 = 1

    private enum Tag: UInt8 { case null, integer, real, text, blob, references }

    /// The names of the properties a record of `entity` holds, in order.
    private static func properties(of entity: EntityDescription) -> [String] {
        StoredObject.storedAttributes(of: entity).map(\.name) + StoredObject.storedRelationships(of: entity).map(\.name)
    }

    override public func newReferenceObject(for object: StoredObject) throws -> Int64 { largestKey(of: object.entity) + 1 }

    override public func newCacheNode(for object: StoredObject) throws -> [UInt8] {
        var record: [UInt8] = []
        record.appendVarint(UInt64(object.entity.index))
        record.appendVarint(zigzag(object.objectID.key))
        for attribute in StoredObject.storedAttributes(of: object.entity) {
            switch object.values[attribute.name] ?? .null {
            case .null: record.append(Tag.null.rawValue)
            case .integer(let value): record.append(Tag.integer.rawValue); record.appendVarint(zigzag(value))
            case .real(let value): record.append(Tag.real.rawValue); record.appendLittleEndian(value.bitPattern)
            case .text(let value): record.append(Tag.text.rawValue); record.appendBytes(Array(value.utf8))
            case .blob(let value): record.append(Tag.blob.rawValue); record.appendBytes(Array(value))
            }
        }
        for relationship in StoredObject.storedRelationships(of: object.entity) {
            let ids = object.destinations[relationship.name] ?? []
            guard !ids.isEmpty else { record.append(Tag.null.rawValue); continue }
            record.append(Tag.references.rawValue)
            record.appendVarint(UInt64(ids.count))
            for id in ids {
                record.appendVarint(UInt64(id.entityIndex))
                record.appendVarint(zigzag(id.key))
            }
        }
        return record
    }

    override public func updateCacheNode(_ node: inout [UInt8], from object: StoredObject) throws {
        node = try newCacheNode(for: object)
    }

    override public func save(_ nodes: [(objectID: ObjectID, node: [UInt8])], metadata: [String: String], to file: AtomicStoreWriter) throws {
        var crc = CRC32()
        func write(_ bytes: [UInt8]) throws {
            crc.update(bytes)
            try file.write(bytes)
        }
        var header = Self.magic + [Self.formatVersion]
        header.appendVarint(UInt64(metadata.count))
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            header.appendBytes(Array(key.utf8))
            header.appendBytes(Array(value.utf8))
        }
        header.appendVarint(UInt64(model.entities.count))
        for entity in model.entities {
            header.appendBytes(Array(entity.name.utf8))
            let properties = Self.properties(of: entity)
            header.appendVarint(UInt64(properties.count))
            for name in properties { header.appendBytes(Array(name.utf8)) }
        }
        header.appendVarint(UInt64(nodes.count))
        try write(header)
        for entry in nodes { try write(entry.node) }
        var trailer: [UInt8] = []
        trailer.appendLittleEndian(crc.value)
        try file.write(trailer)
    }

    override public func load(from data: Data, into objects: inout [StoredObject], metadata: inout [String: String]) throws {
        var reader = ByteReader(bytes: [UInt8](data))
        guard !data.isEmpty else { throw StoreFileError(.byte(0), "the file is empty") }
        guard data.starts(with: Self.magic.prefix(min(data.count, Self.magic.count))) else {
            throw StoreFileError(.byte(0), "not a binary store file (the magic number \(Self.magic.map { String(format: "%02X", $0) }.joined(separator: " ")) is missing)")
        }
        // The magic number, the version, an empty metadata, schema and object list, the checksum.
        guard data.count >= Self.magic.count + 8 else {
            throw StoreFileError(.byte(data.count), "the file ends after \(data.count) bytes, inside its header: it is truncated")
        }
        reader.position = Self.magic.count
        let version = try reader.byte()
        guard version == Self.formatVersion else {
            throw StoreFileError(.byte(8), "this is format \(version) of the binary store; this version reads format \(Self.formatVersion)")
        }
        var crc = CRC32()
        crc.update(reader.bytes[..<(reader.bytes.count - 4)])
        var stored = ByteReader(bytes: reader.bytes, position: reader.bytes.count - 4)
        guard try stored.littleEndianUInt32() == crc.value else {
            throw StoreFileError(.byte(reader.bytes.count - 4), "the checksum does not match: the file is damaged or truncated")
        }
        reader.end = reader.bytes.count - 4
        for _ in 0..<(try reader.count()) { metadata[try reader.string()] = try reader.string() }
        var schema: [(entity: EntityDescription, properties: [String])] = []
        for _ in 0..<(try reader.count()) {
            let offset = reader.position
            let name = try reader.string()
            guard let entity = model.entity(named: name) else { throw StoreFileError(.byte(offset), "unknown entity '\(name)'") }
            var properties: [String] = []
            for _ in 0..<(try reader.count()) {
                let offset = reader.position
                let property = try reader.string()
                guard Self.properties(of: entity).contains(property) else {
                    throw StoreFileError(.byte(offset), "\(name) has no stored attribute or relationship '\(property)'")
                }
                properties.append(property)
            }
            schema.append((entity, properties))
        }
        for _ in 0..<(try reader.count()) {
            let offset = reader.position
            let number = try reader.varint()
            guard number < UInt64(schema.count) else { throw StoreFileError(.byte(offset), "entity number \(number) is not in the file's schema") }
            let (entity, properties) = schema[Int(number)]
            var object = StoredObject(entity: entity, key: unzigzag(try reader.varint()), location: "byte \(offset)")
            for property in properties {
                let offset = reader.position
                let raw = try reader.byte()
                guard let tag = Tag(rawValue: raw) else { throw StoreFileError(.byte(offset), "unknown value tag \(raw)") }
                switch tag {
                case .null: continue
                case .integer: object.values[property] = .integer(unzigzag(try reader.varint()))
                case .real: object.values[property] = .real(Double(bitPattern: try reader.littleEndianUInt64()))
                case .text: object.values[property] = .text(try reader.string())
                case .blob: object.values[property] = .blob(Data(try reader.bytes(Int(try reader.count()))))
                case .references:
                    object.destinations[property] = try (0..<(try reader.count())).map { _ in
                        let offset = reader.position
                        let index = try reader.varint()
                        guard index < UInt64(model.entities.count) else { throw StoreFileError(.byte(offset), "entity number \(index) is not in the model") }
                        return ObjectID(entity: model.entities[Int(index)], key: unzigzag(try reader.varint()))
                    }
                }
            }
            objects.append(object)
        }
        guard reader.position == reader.end else { throw StoreFileError(.byte(reader.position), "\(reader.end - reader.position) bytes after the last object") }
    }
}

private func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }
private func unzigzag(_ value: UInt64) -> Int64 { Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1) }

extension [UInt8] {
    fileprivate mutating func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        append(UInt8(value))
    }

    fileprivate mutating func appendBytes(_ bytes: [UInt8]) {
        appendVarint(UInt64(bytes.count))
        append(contentsOf: bytes)
    }

    fileprivate mutating func appendLittleEndian(_ value: some FixedWidthInteger) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}

/// Reads a binary store file; every error names the byte offset.
private struct ByteReader {
    let bytes: [UInt8]
    var position = 0
    var end: Int

    init(bytes: [UInt8], position: Int = 0) {
        self.bytes = bytes
        self.position = position
        end = bytes.count
    }

    mutating func byte() throws -> UInt8 { try bytes(1).first! }

    mutating func bytes(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, count <= end - position else {
            throw StoreFileError(.byte(position), "the file ends inside a value (\(count) bytes expected, \(end - position) left)")
        }
        defer { position += count }
        return bytes[position..<position + count]
    }

    mutating func varint() throws -> UInt64 {
        let start = position
        var result: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 7) {
            let byte = try self.byte()
            result |= UInt64(byte & 0x7F) << UInt64(shift)
            if byte < 0x80 { return result }
        }
        throw StoreFileError(.byte(start), "a number longer than 64 bits")
    }

    /// A count or length: a varint no larger than the bytes left (each item takes at least one).
    mutating func count() throws -> UInt64 {
        let start = position
        let value = try varint()
        guard value <= UInt64(end - position) else { throw StoreFileError(.byte(start), "a count of \(value) is larger than the rest of the file") }
        return value
    }

    mutating func string() throws -> String {
        let start = position
        guard let text = String(validating: try bytes(Int(try count())), as: UTF8.self) else {
            throw StoreFileError(.byte(start), "a string that is not UTF-8")
        }
        return text
    }

    mutating func littleEndianUInt64() throws -> UInt64 { try bytes(8).reversed().reduce(0) { $0 << 8 | UInt64($1) } }
    mutating func littleEndianUInt32() throws -> UInt32 { try bytes(4).reversed().reduce(0) { $0 << 8 | UInt32($1) } }
}

/// CRC-32 (IEEE 802.3, as zip and PNG use).
private struct CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        (0..<8).reduce(UInt32(index)) { crc, _ in crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }
    private var crc: UInt32 = 0xFFFF_FFFF
    var value: UInt32 { crc ^ 0xFFFF_FFFF }

    mutating func update(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { crc = Self.table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    }
}
