import Foundation
import ObjectGraph

/// The worked example of the Stores article, verbatim: an atomic store that keeps one JSON
/// object per line. (`AtomicStoreTests` checks that it round-trips.)
final class JSONLinesStore: AtomicStore<String>, @unchecked Sendable {
    /// One object as a line: values tagged by their storage class, references as "Entity/key".
    struct Line: Codable {
        var entity: String
        var key: Int64
        var values: [String: [String: String]]  // name → ["integer": "42"], ["text": "Soup"], …
        var links: [String: [String]]
    }

    override func load(from data: Data, into objects: inout [StoredObject], metadata: inout [String: String]) throws {
        // Empty subsequences kept, so that line numbers count blank lines too.
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = lines.first, !first.isEmpty else { throw StoreFileError(.line(1), "empty file: expected the metadata line") }
        // A decoder's error names no line: say which one, and what it should hold.
        do { metadata = try JSONDecoder().decode([String: String].self, from: Data(first.utf8)) } catch {
            throw StoreFileError(.line(1), "expected the metadata, a JSON object of strings")
        }
        for (number, text) in lines.enumerated().dropFirst() where !text.isEmpty {
            guard let line = try? JSONDecoder().decode(Line.self, from: Data(text.utf8)) else {
                throw StoreFileError(.line(number + 1), "expected an object: {\"entity\", \"key\", \"values\", \"links\"}")
            }
            guard let entity = model.entity(named: line.entity) else { throw StoreFileError(.line(number + 1), "unknown entity '\(line.entity)'") }
            var object = StoredObject(entity: entity, key: line.key, location: "line \(number + 1)")
            for (name, tagged) in line.values {
                switch (tagged.first?.key, tagged.first?.value) {
                case ("integer", let text?): object.values[name] = Int64(text).map(StoredValue.integer)
                case ("real", let text?): object.values[name] = Double(text).map(StoredValue.real)
                case ("text", let text?): object.values[name] = .text(text)
                case ("blob", let text?): object.values[name] = Data(base64Encoded: text).map(StoredValue.blob)
                default: throw StoreFileError(.line(number + 1), "'\(name)' has no tagged value")
                }
            }
            for (name, references) in line.links {
                object.destinations[name] = try references.map { reference in
                    let parts = reference.split(separator: "/")
                    guard parts.count == 2, let target = model.entity(named: String(parts[0])), let key = Int64(parts[1]) else {
                        throw StoreFileError(.line(number + 1), "'\(reference)' is not Entity/key")
                    }
                    return ObjectID(entity: target, key: key)
                }
            }
            objects.append(object)
        }
    }

    override func newReferenceObject(for object: StoredObject) throws -> Int64 { largestKey(of: object.entity) + 1 }

    override func newCacheNode(for object: StoredObject) throws -> String {
        var line = Line(entity: object.entity.name, key: object.objectID.key, values: [:], links: [:])
        for (name, value) in object.values {
            switch value {
            case .integer(let number): line.values[name] = ["integer": String(number)]
            case .real(let number): line.values[name] = ["real": "\(number)"]
            case .text(let text): line.values[name] = ["text": text]
            case .blob(let data): line.values[name] = ["blob": data.base64EncodedString()]
            case .null: continue
            }
        }
        for (name, ids) in object.destinations {
            line.links[name] = ids.map { "\(model.entities[Int($0.entityIndex)].name)/\($0.key)" }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(line), as: UTF8.self)
    }

    override func updateCacheNode(_ node: inout String, from object: StoredObject) throws {
        node = try newCacheNode(for: object)
    }

    override func save(_ nodes: [(objectID: ObjectID, node: String)], metadata: [String: String], to file: AtomicStoreWriter) throws {
        try file.write(String(decoding: try JSONEncoder().encode(metadata), as: UTF8.self) + "\n")
        for entry in nodes { try file.write(entry.node + "\n") }
    }
}
