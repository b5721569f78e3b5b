public import Foundation

/// An atomic store in one HTML page that a browser shows as a readable document: a table per
/// entity, a row per object, a column per attribute, and relationships as links to the
/// destination's row (its anchor is `Entity-key`).
///
/// ```html
/// <table data-entity="Recipe">
/// <tr><th>#</th><th>name</th><th>chef</th></tr>
/// <tr id="Recipe-12"><td>12</td><td>Crème Brûlée</td><td><a href="#Chef-3">Chef 3</a></td></tr>
/// </table>
/// ```
/// A nil value is an empty cell of class `nil`; values are written as text, the way `StoredValueText`
/// describes. The reader reads the page as this store writes it, not HTML at large.
public final class HTMLStore: AtomicStore<String>, @unchecked Sendable {
    // @unchecked: no state of its own (see AtomicStore).

    private static let style = """
        body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
        table { border-collapse: collapse; margin: 0 0 2em; }
        th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: left; vertical-align: top; max-width: 28em; }
        a { white-space: nowrap; } th { background: #eef; } td.nil { background: #f6f6f6; } td.long { min-width: 22em; }
        td.data { max-width: 16em; overflow-wrap: anywhere; font: 10px monospace; } tr:target { background: #ffc; }
        """

    override public func newReferenceObject(for object: StoredObject) throws -> Int64 { largestKey(of: object.entity) + 1 }

    override public func newCacheNode(for object: StoredObject) throws -> String {
        var row = "<tr id=\"\(anchor(object.objectID))\"><td>\(object.objectID.key)</td>"
        for attribute in StoredObject.storedAttributes(of: object.entity) {
            guard let value = object.values[attribute.name] else { row += "<td class=\"nil\"></td>"; continue }
            let text = StoredValueText.text(value, of: attribute.type)
            row += (attribute.type == .binary ? "<td class=\"data\">" : text.count > 80 ? "<td class=\"long\">" : "<td>") + text.markupEscaped + "</td>"
        }
        for relationship in StoredObject.storedRelationships(of: object.entity) {
            let ids = object.destinations[relationship.name] ?? []
            guard !ids.isEmpty else { row += "<td class=\"nil\"></td>"; continue }
            row += "<td>" + ids.map { "<a href=\"#\(anchor($0))\">\(anchor($0).replacingOccurrences(of: "-", with: " "))</a>" }.joined(separator: " ") + "</td>"
        }
        return row + "</tr>\n"
    }

    override public func updateCacheNode(_ node: inout String, from object: StoredObject) throws {
        node = try newCacheNode(for: object)
    }

    override public func save(_ nodes: [(objectID: ObjectID, node: String)], metadata: [String: String], to file: AtomicStoreWriter) throws {
        try file.write("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>Object graph store</title>\n")
        try file.write("<style>\n\(Self.style)\n</style>\n</head>\n<body>\n<h1>Object graph store</h1>\n<table id=\"metadata\">\n")
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            try file.write("<tr><th>\(key.markupEscaped)</th><td>\(value.markupEscaped)</td></tr>\n")
        }
        try file.write("</table>\n<p>")
        let counts = Dictionary(grouping: nodes, by: \.objectID.entityIndex).mapValues(\.count).sorted { $0.key < $1.key }
        let contents = counts.map { "<a href=\"#\(model.entities[Int($0.key)].name)\">\(model.entities[Int($0.key)].name)</a> (\($0.value))" }
        try file.write(contents.joined(separator: " · ") + "</p>\n")
        var current: EntityDescription?
        for (id, node) in nodes {
            let entity = model.entities[Int(id.entityIndex)]
            if entity !== current {
                if current != nil { try file.write("</table>\n") }
                current = entity
                let names = ["#"] + StoredObject.storedAttributes(of: entity).map(\.name) + StoredObject.storedRelationships(of: entity).map(\.name)
                try file.write("<h2 id=\"\(entity.name)\">\(entity.name)</h2>\n<table data-entity=\"\(entity.name)\">\n")
                try file.write("<tr>" + names.map { "<th>\($0)</th>" }.joined() + "</tr>\n")
            }
            try file.write(node)
        }
        try file.write((current == nil ? "" : "</table>\n") + "</body>\n</html>\n")
    }

    override public func load(from data: Data, into objects: inout [StoredObject], metadata: inout [String: String]) throws {
        var scanner = try MarkupScanner(data)
        guard !data.isEmpty else { throw StoreFileError(.line(1), "the file is empty") }
        guard scanner.starts(with: "<!DOCTYPE html") else { throw StoreFileError(.line(1), "expected '<!DOCTYPE html>' at the start") }
        while let token = try scanner.next() {
            guard case .start("table", let attributes, false) = token else { continue }
            let rows = try readRows(&scanner)
            if attributes["id"] == "metadata" {
                for row in rows {
                    guard row.cells.count == 2 else { throw StoreFileError(.line(row.line), "a metadata row has a key and a value") }
                    metadata[row.cells[0].text] = row.cells[1].text
                }
            } else if let name = attributes["data-entity"] {
                guard let entity = model.entity(named: name) else { throw scanner.error("unknown entity '\(name)'") }
                objects += try readObjects(of: entity, rows)
            }
        }
    }

    private struct Cell {
        var text = "", links: [String] = [], isNil = false
    }

    /// The rows of a table up to `</table>`: each row's cells, header cells included.
    private func readRows(_ scanner: inout MarkupScanner) throws -> [(line: Int, cells: [Cell])] {
        var rows: [(line: Int, cells: [Cell])] = []
        var cell: Cell?
        while let token = try scanner.next() {
            switch token {
            case .end("table"): return rows
            case .start("tr", _, false): rows.append((scanner.line, []))
            case .end("tr"): guard cell == nil, !rows.isEmpty else { throw scanner.error("unexpected </tr>") }
            case .start("td", let attributes, false), .start("th", let attributes, false):
                guard cell == nil, !rows.isEmpty else { throw scanner.error("a cell outside a row") }
                cell = Cell(isNil: attributes["class"] == "nil")
            case .end("td"), .end("th"):
                guard let finished = cell else { throw scanner.error("unexpected \(token)") }
                rows[rows.count - 1].cells.append(finished)
                cell = nil
            case .start("a", let attributes, false) where cell != nil:
                guard let href = attributes["href"], href.hasPrefix("#") else { throw scanner.error("a link without href=\"#…\"") }
                cell!.links.append(String(href.dropFirst()))
                while let inner = try scanner.next(), inner != .end(name: "a") {
                    guard case .text = inner else { throw scanner.error("unexpected \(inner) inside a link") }
                }
            case .text(let text) where cell != nil && cell!.links.isEmpty: cell!.text += text
            case .text(let text) where text.allSatisfy(\.isWhitespace): continue
            default: throw scanner.error("unexpected \(token) in a table")
            }
        }
        throw scanner.error("the file ends inside a table")
    }

    /// The objects of an entity's table: a header row naming the columns, then one row per object.
    private func readObjects(of entity: EntityDescription, _ rows: [(line: Int, cells: [Cell])]) throws -> [StoredObject] {
        guard let header = rows.first, header.cells.first?.text == "#" else {
            throw StoreFileError(.line(rows.first?.line ?? 0), "the \(entity.name) table starts with a header row whose first column is '#'")
        }
        let columns = header.cells.dropFirst().map(\.text)
        for name in columns where entity.attribute(named: name) == nil && entity.relationship(named: name) == nil {
            throw StoreFileError(.line(header.line), "\(entity.name) has no attribute or relationship '\(name)'")
        }
        return try rows.dropFirst().map { line, cells in
            guard cells.count == columns.count + 1, let key = Int64(cells[0].text) else {
                throw StoreFileError(.line(line), "a \(entity.name) row has \(columns.count + 1) cells, its key first")
            }
            var object = StoredObject(entity: entity, key: key, location: "line \(line)")
            for (name, cell) in zip(columns, cells.dropFirst()) where !cell.isNil {
                if let attribute = entity.attribute(named: name) {
                    object.values[name] = try StoredValueText.value(cell.text, of: attribute, at: .line(line))
                } else {
                    object.destinations[name] = try cell.links.map { try reference($0, line: line) }
                }
            }
            return object
        }
    }

    private func anchor(_ id: ObjectID) -> String { "\(model.entities[Int(id.entityIndex)].name)-\(id.key)" }

    /// Reads an anchor `Entity-key`.
    private func reference(_ anchor: String, line: Int) throws -> ObjectID {
        guard let dash = anchor.firstIndex(of: "-"), let entity = model.entity(named: String(anchor[..<dash])),
              let key = Int64(anchor[anchor.index(after: dash)...]) else {
            throw StoreFileError(.line(line), "'#\(anchor)' does not link to an object (#Entity-key)")
        }
        return ObjectID(entity: entity, key: key)
    }
}
