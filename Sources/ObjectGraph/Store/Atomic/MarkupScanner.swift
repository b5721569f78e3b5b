import Foundation

/// Reads the tags and text of an XML or HTML file as the XML and HTML stores write it:
/// quoted attributes, the five named entities and numeric character references, comments,
/// `<?…?>` and `<!DOCTYPE …>` skipped. Every error names the line.
struct MarkupScanner {
    enum Token: Equatable, CustomStringConvertible {
        case start(name: String, attributes: [String: String], isEmpty: Bool)
        case end(name: String)
        case text(String)

        var description: String {
            switch self {
            case .start(let name, _, let isEmpty): "<\(name)\(isEmpty ? "/" : "")>"
            case .end(let name): "</\(name)>"
            case .text(let text): "text '\(text.prefix(30))'"
            }
        }
    }

    private let bytes: [UInt8]
    private var position = 0
    /// The line the scanner is on, from 1.
    private(set) var line = 1

    /// A scanner over `data`, which must be UTF-8.
    /// - Throws: ``StoreFileError`` naming the line and byte offset of the first byte that is not UTF-8.
    init(_ data: Data) throws {
        bytes = [UInt8](data)
        if let bad = InvalidUTF8.first(in: bytes) {
            throw StoreFileError(.line(bad.line), "byte \(bad.offset) is not UTF-8 text")
        }
    }

    /// Whether the file starts with `prefix` (after a byte-order mark, if any).
    func starts(with prefix: String) -> Bool {
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        return bytes[start...].starts(with: prefix.utf8)
    }

    /// The next token, or nil at the end of the file.
    mutating func next() throws -> Token? {
        while position < bytes.count {
            guard bytes[position] == UInt8(ascii: "<") else { return .text(try text()) }
            if skip("<!--") {
                try skip(past: "-->", what: "comment")
            } else if skip("<?") {
                try skip(past: "?>", what: "processing instruction")
            } else if skip("<!") {
                try skip(past: ">", what: "declaration")
            } else if skip("</") {
                let name = try self.name()
                skipSpace()
                try expect(">", "to close the end tag '\(name)'")
                return .end(name: name)
            } else {
                position += 1
                return try startTag()
            }
        }
        return nil
    }

    private mutating func startTag() throws -> Token {
        let name = try self.name()
        var attributes: [String: String] = [:]
        while true {
            let hadSpace = skipSpace()
            if skip("/>") { return .start(name: name, attributes: attributes, isEmpty: true) }
            if skip(">") { return .start(name: name, attributes: attributes, isEmpty: false) }
            guard hadSpace else { throw error("expected '>', '/>' or an attribute in the tag '\(name)'") }
            let attribute = try self.name()
            skipSpace()
            try expect("=", "after the attribute '\(attribute)'")
            skipSpace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else {
                throw error("expected a quoted value for the attribute '\(attribute)'")
            }
            let quote = bytes[position]
            position += 1
            guard attributes.updateValue(try text(until: quote), forKey: attribute) == nil else {
                throw error("the attribute '\(attribute)' appears twice in the tag '\(name)'")
            }
            position += 1
        }
    }

    /// Text up to the next `<` (or `quote`), with references decoded.
    private mutating func text(until end: UInt8 = UInt8(ascii: "<")) throws -> String {
        var result = ""
        var start = position
        while position < bytes.count, bytes[position] != end {
            switch bytes[position] {
            case UInt8(ascii: "&"):
                result += String(decoding: bytes[start..<position], as: UTF8.self)
                result.unicodeScalars.append(try reference())
                start = position
            case UInt8(ascii: "\n"):
                line += 1
                position += 1
            case UInt8(ascii: "<"):
                throw error("'<' inside an attribute value")
            default:
                position += 1
            }
        }
        if end != UInt8(ascii: "<"), position >= bytes.count { throw error("the file ends inside an attribute value") }
        return result + String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private static let named: [String: Unicode.Scalar] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"]

    /// Reads `&name;`, `&#123;` or `&#x7B;`.
    private mutating func reference() throws -> Unicode.Scalar {
        position += 1
        let start = position
        while position < bytes.count, bytes[position] != UInt8(ascii: ";"), position - start < 12 { position += 1 }
        guard position < bytes.count, bytes[position] == UInt8(ascii: ";") else { throw error("an '&' that starts no character reference") }
        let body = String(decoding: bytes[start..<position], as: UTF8.self)
        position += 1
        if let scalar = Self.named[body] { return scalar }
        var number: UInt32?
        if body.hasPrefix("#x") { number = UInt32(body.dropFirst(2), radix: 16) } else if body.hasPrefix("#") { number = UInt32(body.dropFirst()) }
        guard let number, let scalar = Unicode.Scalar(number) else { throw error("unknown character reference '&\(body);'") }
        return scalar
    }

    private mutating func name() throws -> String {
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            let isLetter = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") || byte == UInt8(ascii: "_") || byte >= 0x80
            let isOther = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
            guard isLetter || (position > start && isOther) else { break }
            position += 1
        }
        guard position > start else { throw error(position < bytes.count ? "expected a name" : "the file ends inside a tag") }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = position
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) {
            if bytes[position] == 0x0A { line += 1 }
            position += 1
        }
        return position > start
    }

    private mutating func skip(_ literal: String) -> Bool {
        guard bytes[position...].starts(with: literal.utf8) else { return false }
        position += literal.utf8.count
        return true
    }

    private mutating func skip(past literal: String, what: String) throws {
        while position < bytes.count, !skip(literal) {
            if bytes[position] == 0x0A { line += 1 }
            position += 1
        }
        guard position <= bytes.count, bytes[..<position].suffix(literal.utf8.count).elementsEqual(literal.utf8) else {
            throw error("the file ends inside a \(what)")
        }
    }

    private mutating func expect(_ literal: String, _ context: String) throws {
        guard position < bytes.count, skip(literal) else { throw error("expected '\(literal)' \(context)") }
    }

    func error(_ problem: String) -> StoreFileError { StoreFileError(.line(line), problem) }
}

extension String {
    /// The text with `&`, `<`, `>` and `"` escaped, for XML and HTML text and attribute values.
    var markupEscaped: String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case _ where scalar.value < 0x20 && scalar != "\n" && scalar != "\t": result += "&#\(scalar.value);"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
