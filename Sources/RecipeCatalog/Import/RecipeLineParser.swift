internal import Foundation
import ObjectGraph

/// Why one line could not be parsed; the reader adds the file name and line number.
struct LineProblem: Error, Equatable {
    /// The message, e.g. `"rating" must be a number, found string`.
    var message: String

    /// The problem of a string value, naming its field: `invalid UTF-8 in "chef"` rather
    /// than `invalid UTF-8 in string`.
    func naming(_ field: String) -> LineProblem {
        LineProblem(message: message.replacingOccurrences(of: " in string", with: " in \"\(field)\""))
    }
}

/// A hand-written JSON scanner for the fixed shape of a recipe line.
///
/// Foundation's `JSONSerialization` builds a dictionary of boxed values per
/// line; this scanner reads the bytes once, decodes only the fields the
/// format defines and skips the rest, which makes it several times faster.
/// It accepts exactly RFC 8259 JSON (strict numbers, escapes, UTF-8) and
/// reports the first problem with its column.
struct RecipeLineParser {
    /// The line's bytes, without the newline.
    let bytes: UnsafeBufferPointer<UInt8>
    /// Whether the line is the file's last and has no newline after it.
    let isUnterminatedLastLine: Bool
    /// The current byte offset.
    var index = 0

    /// Creates a parser for one line.
    init(bytes: UnsafeBufferPointer<UInt8>, isUnterminatedLastLine: Bool = false) {
        self.bytes = bytes
        self.isUnterminatedLastLine = isUnterminatedLastLine
    }

    /// Parses the line into a record numbered `lineNumber`.
    mutating func parseRecord(lineNumber: Int) throws(LineProblem) -> RecipeRecord {
        skipWhitespace()
        guard index < bytes.count else { throw truncated() }
        guard bytes[index] == UInt8(ascii: "{") else {
            if bytes[index...].starts(with: [0xEF, 0xBB, 0xBF]) {
                // Invisible in most editors: say what it is (two files joined with `cat`, say).
                throw malformed("a byte order mark (U+FEFF) starts the line; only a file's first line may begin with one")
            }
            let found = kindAhead()
            try skipValue(depth: 0)  // text that is not JSON at all is reported as malformed, with its column
            throw LineProblem(message: "expected a JSON object, found \(found)")
        }
        index += 1
        var sourceID: String?
        var name: String?
        var record = RecipeRecord(sourceID: "", name: "", lineNumber: lineNumber)
        var more = try openMembers()
        while more {
            let key = try parseKey()
            switch key {
            case "id": sourceID = try stringValue(key)
            case "name": name = try stringValue(key)
            case "chef": record.chef = try uniquedName(key)
            case "cuisine": record.cuisine = try uniquedName(key)
            case "course": record.course = try stringValue(key)
            case "instructions": record.instructions = try stringValue(key)
            case "prepMinutes": record.prepMinutes = try integerValue(key)
            case "cookMinutes": record.cookMinutes = try integerValue(key)
            case "servings": record.servings = try integerValue(key)
            case "rating": record.rating = try numberValue(key)
            case "published":
                let start = index
                if let text = try stringValue(key) {
                    guard let date = ISO8601Date.parse(text) else {
                        index = start
                        throw LineProblem(message:
                            "\"published\" must be a date as YYYY-MM-DD or ISO 8601, found \"\(text)\"")
                    }
                    record.published = date
                }
            case "photo":
                if let text = try stringValue(key) {
                    guard let data = Data(base64Encoded: text) else {
                        throw LineProblem(message: "\"photo\" is not valid base64")
                    }
                    record.photo = data
                }
            case "ingredients": record.ingredients = try ingredientsValue()
            default: try skipValue(depth: 0)
            }
            more = try nextMember()
        }
        skipWhitespace()
        if index < bytes.count {
            throw malformed("unexpected text after the object")
        }
        guard let sourceID else { throw LineProblem(message: "missing \"id\"") }
        guard !sourceID.isEmpty else { throw LineProblem(message: "\"id\" must not be empty") }
        guard let name else { throw LineProblem(message: "missing \"name\"") }
        guard !name.isEmpty else { throw LineProblem(message: "\"name\" must not be empty") }
        record.sourceID = sourceID
        record.name = name
        return record
    }

    // MARK: Fields

    /// After `{`: returns `false` for an empty object (consuming `}`), `true` when a member follows.
    private mutating func openMembers() throws(LineProblem) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw truncated() }
        if bytes[index] == UInt8(ascii: "}") { index += 1; return false }
        return true
    }

    /// After a member's value: consumes `,` and returns `true`, or consumes `}` and returns `false`.
    private mutating func nextMember() throws(LineProblem) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw truncated() }
        switch bytes[index] {
        case UInt8(ascii: ","):
            index += 1
            skipWhitespace()
            guard index < bytes.count else { throw truncated() }
            return true
        case UInt8(ascii: "}"):
            index += 1
            return false
        default:
            throw malformed("expected ',' or '}' after a value")
        }
    }

    /// Reads `"key":` and returns the key.
    private mutating func parseKey() throws(LineProblem) -> String {
        guard bytes[index] == UInt8(ascii: "\"") else {
            throw malformed("expected a quoted field name")
        }
        let key = try parseString()
        skipWhitespace()
        guard index < bytes.count else { throw truncated() }
        guard bytes[index] == UInt8(ascii: ":") else { throw malformed("expected ':' after field name") }
        index += 1
        skipWhitespace()
        guard index < bytes.count else { throw truncated() }
        return key
    }

    /// A string field; `null` gives `nil`. The field's name (for messages) is built only
    /// when there is a problem: an ingredient's is a new string.
    private mutating func stringValue(_ field: @autoclosure () -> String) throws(LineProblem) -> String? {
        switch bytes[index] {
        case UInt8(ascii: "\""):
            do { return try parseString() } catch { throw error.naming(field()) }
        case UInt8(ascii: "n"): try parseLiteral("null"); return nil
        default: throw try wrongType(field(), expected: "a string")
        }
    }

    /// The name of an object the importer finds or creates (a chef, a cuisine); `null` gives
    /// `nil`, for none. An empty or all-blank name would make an object no one can tell apart.
    private mutating func uniquedName(_ field: String) throws(LineProblem) -> String? {
        guard let name = try stringValue(field) else { return nil }
        guard name.contains(where: { !$0.isWhitespace }) else {
            throw LineProblem(message: "\"\(field)\" must not be empty or blank; leave it out, or null, for none")
        }
        return name
    }

    /// An integer field; `null` gives `nil`, a number with a fraction is an error.
    private mutating func integerValue(_ field: @autoclosure () -> String) throws(LineProblem) -> Int? {
        switch bytes[index] {
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = index
            let number = try parseNumber()
            if let integer = number.integer { return integer }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            if number.isWrittenAsInteger {
                throw LineProblem(message: "\"\(field())\" is \(text), outside the range of Int64")
            }
            throw LineProblem(message: "\"\(field())\" must be an integer, found \(text)")
        case UInt8(ascii: "n"): try parseLiteral("null"); return nil
        default: throw try wrongType(field(), expected: "an integer")
        }
    }

    /// A number field; `null` gives `nil`.
    private mutating func numberValue(_ field: @autoclosure () -> String) throws(LineProblem) -> Double? {
        switch bytes[index] {
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = index
            let number = try parseNumber()
            guard number.double.isFinite else {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                throw LineProblem(message: "\"\(field())\" is \(text), outside the range of Double")
            }
            return number.double
        case UInt8(ascii: "n"): try parseLiteral("null"); return nil
        default: throw try wrongType(field(), expected: "a number")
        }
    }

    /// The `ingredients` array; `null` gives an empty list.
    private mutating func ingredientsValue() throws(LineProblem) -> [IngredientLine] {
        if bytes[index] == UInt8(ascii: "n") { try parseLiteral("null"); return [] }
        guard bytes[index] == UInt8(ascii: "[") else {
            throw try wrongType("ingredients", expected: "an array")
        }
        index += 1
        var lines: [IngredientLine] = []
        skipWhitespace()
        guard index < bytes.count else { throw truncated() }
        if bytes[index] == UInt8(ascii: "]") { index += 1; return lines }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw truncated() }
            lines.append(try ingredientValue(position: lines.count))
            skipWhitespace()
            guard index < bytes.count else { throw truncated() }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return lines }
            guard bytes[index] == UInt8(ascii: ",") else {
                throw malformed("expected ',' or ']' in \"ingredients\"")
            }
            index += 1
        }
    }

    /// One `{"name": …, "quantity": …, "unit": …}` object.
    private mutating func ingredientValue(position: Int) throws(LineProblem) -> IngredientLine {
        /// The member's path, for messages: `ingredients[2].unit`.
        func path(_ member: String = "") -> String { "ingredients[\(position)]\(member)" }
        guard bytes[index] == UInt8(ascii: "{") else {
            throw try wrongType(path(), expected: "an object")
        }
        index += 1
        var name: String?
        var line = IngredientLine(name: "")
        var more = try openMembers()
        while more {
            switch try parseKey() {
            case "name": name = try stringValue(path(".name"))
            case "quantity": line.quantity = try numberValue(path(".quantity"))
            case "unit": line.unit = try stringValue(path(".unit"))
            default: try skipValue(depth: 1)
            }
            more = try nextMember()
        }
        guard let name else { throw LineProblem(message: "missing \"\(path(".name"))\"") }
        guard !name.isEmpty else { throw LineProblem(message: "\"\(path(".name"))\" must not be empty") }
        line.name = name
        return line
    }

    // MARK: Errors

    /// The error for a value of the wrong JSON type; checks that the value is well-formed first.
    private mutating func wrongType(_ field: String, expected: String) throws(LineProblem) -> LineProblem {
        let found = kindAhead()
        try skipValue(depth: 0)
        return LineProblem(message: "\"\(field)\" must be \(expected), found \(found)")
    }

    /// A "malformed JSON" problem at the current column.
    func malformed(_ detail: String) -> LineProblem {
        if index >= bytes.count { return truncated() }
        return LineProblem(message: "malformed JSON at column \(column): \(detail)")
    }

    /// The problem for a line that ends inside the object.
    func truncated() -> LineProblem {
        if isUnterminatedLastLine {
            return LineProblem(message: "file ends in the middle of a JSON object (truncated last line)")
        }
        return LineProblem(message: "malformed JSON at column \(column): line ends in the middle of the object")
    }

    /// The 1-based column (in characters) of the current byte.
    var column: Int {
        var count = 1
        var i = 0
        while i < index && i < bytes.count {
            if bytes[i] & 0xC0 != 0x80 { count += 1 }  // count characters, not continuation bytes
            i += 1
        }
        return count
    }

    /// The JSON type of the value that starts at the current byte, for messages.
    func kindAhead() -> String {
        guard index < bytes.count else { return "end of line" }
        switch bytes[index] {
        case UInt8(ascii: "\""): return "string"
        case UInt8(ascii: "{"): return "object"
        case UInt8(ascii: "["): return "array"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return "boolean"
        case UInt8(ascii: "n"): return "null"
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return "number"
        default: return "invalid JSON"
        }
    }
}
