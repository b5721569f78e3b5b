public import Foundation

/// An atomic store in one XML file: an element per object, named after its entity, with a
/// child element per attribute and per relationship.
///
/// ```xml
/// <?xml version="1.0" encoding="UTF-8"?>
/// <objectgraph format="1">
///   <metadata key="_storeUUID">1C9E…</metadata>
///   <Recipe id="12">
///     <name>Crème Brûlée</name>
///     <rating>4.5</rating>
///     <chef ref="Chef/3"/>
///   </Recipe>
/// </objectgraph>
/// ```
/// A nil value has no element; references are `Entity/key`, separated by spaces for a
/// many-to-many relationship. Values are written as text, the way `StoredValueText` describes.
public final class XMLStore: AtomicStore<String>, @unchecked Sendable {
    // @unchecked: no state of its own (see AtomicStore).

    override public func newReferenceObject(for object: StoredObject) throws -> Int64 { largestKey(of: object.entity) + 1 }

    override public func newCacheNode(for object: StoredObject) throws -> String {
        var element = "  <\(object.entity.name) id=\"\(object.objectID.key)\">\n"
        for attribute in StoredObject.storedAttributes(of: object.entity) {
            guard let value = object.values[attribute.name] else { continue }
            element += "    <\(attribute.name)>\(StoredValueText.text(value, of: attribute.type).markupEscaped)</\(attribute.name)>\n"
        }
        for relationship in StoredObject.storedRelationships(of: object.entity) {
            guard let ids = object.destinations[relationship.name], !ids.isEmpty else { continue }
            let references = ids.map { "\(model.entities[Int($0.entityIndex)].name)/\($0.key)" }
            element += "    <\(relationship.name) ref=\"\(references.joined(separator: " "))\"/>\n"
        }
        return element + "  </\(object.entity.name)>\n"
    }

    override public func updateCacheNode(_ node: inout String, from object: StoredObject) throws {
        node = try newCacheNode(for: object)
    }

    override public func save(_ nodes: [(objectID: ObjectID, node: String)], metadata: [String: String], to file: AtomicStoreWriter) throws {
        try file.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<objectgraph format=\"1\">\n")
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            try file.write("  <metadata key=\"\(key.markupEscaped)\">\(value.markupEscaped)</metadata>\n")
        }
        for entry in nodes { try file.write(entry.node) }
        try file.write("</objectgraph>\n")
    }

    override public func load(from data: Data, into objects: inout [StoredObject], metadata: inout [String: String]) throws {
        var scanner = try MarkupScanner(data)
        guard !data.isEmpty else { throw StoreFileError(.line(1), "the file is empty") }
        guard scanner.starts(with: "<?xml") else { throw StoreFileError(.line(1), "expected the XML prolog '<?xml version=\"1.0\"?>'") }
        guard case .start("objectgraph", let attributes, false)? = try scanner.nextElement() else {
            throw scanner.error("expected the root element <objectgraph format=\"1\">")
        }
        guard attributes["format"] == "1" else {
            throw scanner.error("this is format \(attributes["format"] ?? "(none)") of the XML store; this version reads format 1")
        }
        while let token = try scanner.nextElement() {
            switch token {
            case .end("objectgraph"):
                guard try scanner.nextElement() == nil else { throw scanner.error("content after </objectgraph>") }
                return
            case .start("metadata", let attributes, let isEmpty):
                guard let key = attributes["key"] else { throw scanner.error("<metadata> needs a key attribute") }
                metadata[key] = isEmpty ? "" : try scanner.textContent(of: "metadata")
            case .start(let name, let attributes, let isEmpty):
                objects.append(try readObject(name, attributes, isEmpty, &scanner))
            default:
                throw scanner.error("unexpected \(token)")
            }
        }
        throw scanner.error("the file ends before </objectgraph>")
    }

    private func readObject(_ name: String, _ attributes: [String: String], _ isEmpty: Bool, _ scanner: inout MarkupScanner) throws -> StoredObject {
        let line = scanner.line
        guard let entity = model.entity(named: name) else { throw scanner.error("unknown entity '\(name)'") }
        guard let key = attributes["id"].flatMap({ Int64($0) }) else { throw scanner.error("<\(name)> needs a numeric id attribute") }
        var object = StoredObject(entity: entity, key: key, location: "line \(line)")
        guard !isEmpty else { return object }
        while let token = try scanner.nextElement() {
            switch token {
            case .end(name): return object
            case .start(let property, let attributes, let isEmpty):
                guard object.values[property] == nil, object.destinations[property] == nil else {
                    throw scanner.error("'\(property)' appears twice in <\(name)>")
                }
                if let attribute = entity.attribute(named: property) {
                    let location = StoreFileError.Location.line(scanner.line)
                    object.values[property] = try StoredValueText.value(isEmpty ? "" : try scanner.textContent(of: property), of: attribute, at: location)
                } else if entity.relationship(named: property) != nil, let references = attributes["ref"], isEmpty {
                    object.destinations[property] = try references.split(separator: " ").map { try reference(String($0), scanner) }
                } else {
                    throw scanner.error("\(entity.name) has no attribute or relationship '\(property)' (or it is not written <\(property) ref=\"…\"/>)")
                }
            default: throw scanner.error("unexpected \(token) inside <\(name)>")
            }
        }
        throw scanner.error("the file ends inside <\(name)>")
    }

    /// Reads `Entity/key`.
    private func reference(_ text: String, _ scanner: MarkupScanner) throws -> ObjectID {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let entity = model.entity(named: String(parts[0])), let key = Int64(parts[1]) else {
            throw scanner.error("'\(text)' is not a reference (Entity/key)")
        }
        return ObjectID(entity: entity, key: key)
    }
}

extension MarkupScanner {
    /// The next tag, skipping text that is only white space.
    /// - Throws: ``StoreFileError`` for other text between elements.
    mutating func nextElement() throws -> Token? {
        while let token = try next() {
            guard case .text(let text) = token else { return token }
            guard text.allSatisfy(\.isWhitespace) else { throw error("unexpected text '\(text.prefix(30))'") }
        }
        return nil
    }

    /// The text of an element whose start tag was just read, through its end tag.
    mutating func textContent(of name: String) throws -> String {
        switch try next() {
        case .text(let content)?:
            guard try next() == .end(name: name) else { throw error("expected </\(name)>") }
            return content
        case .end(name)?: return ""
        default: throw error("expected text and </\(name)>")
        }
    }
}
