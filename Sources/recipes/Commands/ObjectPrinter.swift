import Foundation
import ObjectGraph

/// Renders objects in the shell's output modes.
///
/// Every mode shows the object's ID (`objectID`, such as `Recipe/p42`), its stored
/// attributes in model order and its to-one relationships, by the destination's `name`
/// when it has one, otherwise by its ID. Dates print in ISO 8601; data prints in base64 in
/// JSON and CSV, which scripts read, and as its size (`<5939 bytes>`) in table and line modes.
struct ObjectPrinter {
    let mode: OutputMode
    /// The widest a table cell gets before it is cut with `…`; `nil` never cuts (`.width off`).
    var maximumCellWidth: Int? = 32
    /// The width that tables fit (see ``TextTable``); `nil` does not fit them.
    var fittingWidth: Int?

    /// One printable value.
    enum Value {
        case null, bool(Bool), integer(Int), number(Double), text(String), date(Date), data(Data)
    }

    /// The keys shown for an entity: the ID, stored attributes, to-one relationships.
    /// Table mode leaves out canonical search shadows such as `nameCanonical`, which repeat
    /// another column; the other modes show every stored attribute.
    static func keys(for entity: EntityDescription, mode: OutputMode = .json) -> [String] {
        ["objectID"] + entity.attributes.filter { !$0.isTransient && (mode != .table || !isShadow($0)) }.map(\.name)
            + entity.relationships.filter { !$0.isToMany }.map(\.name)
    }

    private static func isShadow(_ attribute: AttributeDescription) -> Bool {
        if case .canonical? = attribute.derivation { true } else { false }
    }

    /// The value of `key` of `object`, as printed.
    static func value(of object: ManagedObject, key: String) -> Value {
        if key == "objectID" { return .text(object.entity.describe(object.objectID)) }
        if let attribute = object.entity.attribute(named: key) {
            return value((try? object.value(forKey: key)) ?? nil, type: attribute.type)
        }
        guard let destination = (try? object.value(forKey: key)) as? ManagedObject else { return .null }
        return .text(label(of: destination, excluding: object.entity.relationship(named: key)?.inverseName))
    }

    /// An attribute's value (as the framework returns it: `Int`, `Double`, `Bool`, `String`,
    /// `Date`, `Data`, `UUID`, `URL` or nil), as printed.
    static func value(_ raw: Any?, type: AttributeType) -> Value {
        switch (type, raw) {
        case (.boolean, let v as Bool): .bool(v)
        case (_, let v as Int): .integer(v)
        case (_, let v as Double): .number(v)
        case (_, let v as String): .text(v)
        case (_, let v as Date): .date(v)
        case (_, let v as Data): .data(v)
        case (_, let v as UUID): .text(v.uuidString)
        case (_, let v as URL): .text(v.absoluteString)
        default: .null
        }
    }

    /// An object's name when its entity has a `name` attribute; otherwise the label of the
    /// first object it points to by a to-one relationship (a recipe line reads as its
    /// ingredient); otherwise its ID.
    static func label(of object: ManagedObject, excluding inverse: String? = nil) -> String {
        if object.entity.attribute(named: "name") != nil, let name = (try? object.value(forKey: "name")) as? String {
            return name
        }
        for relationship in object.entity.relationships where !relationship.isToMany && relationship.name != inverse {
            if let destination = (try? object.value(forKey: relationship.name)) as? ManagedObject,
               destination.entity.attribute(named: "name") != nil {
                return label(of: destination)
            }
        }
        return object.entity.describe(object.objectID)
    }

    /// The lines that print `objects` with the columns `keys`.
    func render(_ objects: [ManagedObject], keys: [String]) -> [String] {
        render(rows: objects.map { object in keys.map { Self.value(of: object, key: $0) } }, keys: keys)
    }

    /// The lines that print `rows` of values under the column names `keys`.
    func render(rows: [[Value]], keys: [String]) -> [String] {
        switch mode {
        case .json:
            return rows.map { row in
                "{" + zip(keys, row).map { "\(Self.jsonString($0)): \(Self.json($1))" }.joined(separator: ", ") + "}"
            }
        case .csv:
            return [keys.map(Self.csvField).joined(separator: ",")]
                + rows.map { $0.map { Self.csvField(Self.csv($0)) }.joined(separator: ",") }
        case .line:
            let width = keys.map(\.count).max() ?? 0
            var lines: [String] = []
            for (index, row) in rows.enumerated() {
                if index > 0 { lines.append("") }
                for (key, value) in zip(keys, row) {
                    lines.append(String(repeating: " ", count: width - key.count) + key + " = " + Self.visible(Self.plain(value)))
                }
            }
            return lines
        case .table:
            // Text may be cut to fit; IDs, numbers, dates and flags keep their width.
            let isCuttable = keys.indices.map { column in
                keys[column] != "objectID" && rows.contains { if case .text = $0[column] { true } else { false } }
            }
            let table = TextTable(header: keys, rows: rows.map { $0.map { Self.visible(Self.plain($0)) } }, isCuttable: isCuttable,
                                  maximumCellWidth: maximumCellWidth)
            return table.lines(fittingIn: fittingWidth)
        }
    }

    /// A value as a CSV field's text: as plain text, but data in full, in base64 (as JSON has it).
    static func csv(_ value: Value) -> String {
        if case .data(let v) = value { return v.base64EncodedString() }
        return plain(value)
    }

    /// A value as plain text (table and line modes; CSV but for data).
    static func plain(_ value: Value) -> String {
        switch value {
        case .null: ""
        case .bool(let v): v ? "true" : "false"
        case .integer(let v): String(v)
        case .number(let v): format(v)
        case .text(let v): v
        case .date(let v): isoDate(v)
        case .data(let v): "<\(v.count) bytes>"
        }
    }

    /// `text` with its control characters (but line feeds and tabs) written as `\u{1B}`,
    /// for the modes a terminal shows: stored text cannot move the cursor, clear the screen
    /// or change colours. JSON escapes them itself, and CSV keeps the data exact.
    static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isHidden) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if isHidden(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// A control character other than a line feed or a tab.
    private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control && scalar != "\n" && scalar != "\t"
    }

    /// A value as JSON.
    static func json(_ value: Value) -> String {
        switch value {
        case .null: "null"
        case .bool(let v): v ? "true" : "false"
        case .integer(let v): String(v)
        case .number(let v): v.isFinite ? format(v) : "null"
        case .text(let v): jsonString(v)
        case .date(let v): jsonString(isoDate(v))
        case .data(let v): jsonString(v.base64EncodedString())
        }
    }

    static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(format: "%.1f", number) : String(number)
    }

    /// A date as ISO 8601 (proleptic Gregorian, as `insert` and the importer read it): the
    /// date alone at midnight UTC, otherwise date and time, with milliseconds when it has them.
    static func isoDate(_ date: Date) -> String {
        ISO8601Date.string(from: date, dateAloneAtMidnight: true)
    }

    static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension String {
    /// The text without trailing spaces.
    var trimmedTrailing: String {
        var text = Substring(self)
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}
