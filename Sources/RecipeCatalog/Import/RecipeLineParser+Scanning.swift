internal import Foundation

/// A JSON number as read from the line.
struct ScannedNumber {
    /// The value as an integer, when it was written without fraction or exponent and fits.
    var integer: Int?
    /// The value as a double: infinite when the number is too large for one.
    var double: Double
    /// Whether it was written without fraction or exponent, whether or not it fits an `Int`.
    var isWrittenAsInteger = false
}

/// Exact powers of ten for the fast path of number conversion.
private let powersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]

extension RecipeLineParser {
    /// Skips JSON whitespace (space, tab, carriage return, newline).
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D, 0x0A: index += 1
            default: return
            }
        }
    }

    /// Reads `true`, `false` or `null`, exactly.
    mutating func parseLiteral(_ literal: StaticString) throws(LineProblem) {
        let count = literal.utf8CodeUnitCount
        let start = literal.utf8Start
        for offset in 0..<count {
            guard index + offset < bytes.count else { index += offset; throw truncated() }
            guard bytes[index + offset] == start[offset] else {
                throw malformed("invalid literal; expected a value")
            }
        }
        index += count
    }

    /// Reads a string starting at its opening quote, decoding escapes.
    mutating func parseString() throws(LineProblem) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes; ASCII needs no validation.
        var high: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            high |= byte
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                if high < 0x80 {
                    index += 1
                    return String(decoding: slice, as: UTF8.self)
                }
                guard let string = String(validating: slice, as: UTF8.self) else {
                    index = start
                    throw invalidUTF8(in: slice)
                }
                index += 1
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw malformed("control character in string; escape it") }
            index += 1
        }
        guard index < bytes.count else { throw truncated() }
        // Slow path: copy what we have and decode escapes.
        var buffer = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try buffer.withUnsafeBufferPointer { (slice) throws(LineProblem) -> String in
                    guard let string = String(validating: slice, as: UTF8.self) else {
                        throw invalidUTF8(in: slice)
                    }
                    return string
                }
            case UInt8(ascii: "\\"):
                try parseEscape(into: &buffer)
            case ..<0x20:
                throw malformed("control character in string; escape it")
            default:
                buffer.append(byte)
                index += 1
            }
        }
        throw truncated()
    }

    /// Decodes one escape sequence starting at the backslash and appends its UTF-8.
    private mutating func parseEscape(into buffer: inout [UInt8]) throws(LineProblem) {
        index += 1
        guard index < bytes.count else { throw truncated() }
        let escaped = bytes[index]
        index += 1
        switch escaped {
        case UInt8(ascii: "\""): buffer.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): buffer.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            let escapeStart = index - 2
            var unit = try parseHex4()
            if (0xDC00...0xDFFF).contains(unit) {
                index = escapeStart
                throw malformed("lone low surrogate in \\u escape")
            }
            if (0xD800...0xDBFF).contains(unit) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                      bytes[index + 1] == UInt8(ascii: "u") else {
                    if index >= bytes.count { throw truncated() }
                    index = escapeStart
                    throw malformed("high surrogate in \\u escape is not followed by a low surrogate")
                }
                index += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else {
                    index = escapeStart
                    throw malformed("high surrogate in \\u escape is not followed by a low surrogate")
                }
                unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(unit) else {
                index = escapeStart
                throw malformed("invalid \\u escape")
            }
            buffer.append(contentsOf: scalar.utf8)
        default:
            index -= 2
            throw malformed("invalid escape in string")
        }
    }

    /// Reads four hex digits.
    private mutating func parseHex4() throws(LineProblem) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw truncated() }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw malformed("\\u escape needs four hex digits")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// The problem for a string whose bytes are not UTF-8, at the first bad byte.
    private mutating func invalidUTF8(in slice: UnsafeBufferPointer<UInt8>) -> LineProblem {
        var iterator = slice.makeIterator()
        var decoder = UTF8()
        var offset = 0
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: break loop
            case .error: break loop
            }
        }
        if let base = slice.baseAddress, let line = bytes.baseAddress {
            index = base - line + offset
        }
        return LineProblem(message: "malformed JSON at column \(column): invalid UTF-8 in string")
    }

    /// Reads a JSON number (RFC 8259 grammar).
    mutating func parseNumber() throws(LineProblem) -> ScannedNumber {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        var isInteger = true
        guard index < bytes.count else { throw truncated() }
        guard isDigit(bytes[index]) else { throw malformed("expected a digit in number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) {
                throw malformed("numbers may not have leading zeros")
            }
        } else {
            while index < bytes.count, isDigit(bytes[index]) {
                accumulate(bytes[index], into: &mantissa, digits: &digits, exponent: &exponent)
                index += 1
            }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count else { throw truncated() }
            guard isDigit(bytes[index]) else { throw malformed("expected a digit after '.'") }
            while index < bytes.count, isDigit(bytes[index]) {
                accumulate(bytes[index], into: &mantissa, digits: &digits, exponent: &exponent)
                exponent -= 1
                index += 1
            }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            guard index < bytes.count else { throw truncated() }
            var exponentNegative = false
            if bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < bytes.count else { throw truncated() }
            guard isDigit(bytes[index]) else { throw malformed("expected a digit in exponent") }
            var value = 0
            while index < bytes.count, isDigit(bytes[index]) {
                if value < 100_000 { value = value * 10 + Int(bytes[index] - UInt8(ascii: "0")) }
                index += 1
            }
            exponent += exponentNegative ? -value : value
        }
        if isInteger, digits <= 18, exponent == 0 {
            let value = Int(mantissa)
            return ScannedNumber(integer: negative ? -value : value, double: Double(negative ? -value : value),
                                 isWrittenAsInteger: true)
        }
        if digits <= 15, exponent >= -22, exponent <= 22 {
            // Both the mantissa and 10^|exponent| are exact doubles, so one
            // multiplication or division rounds correctly.
            var value = Double(mantissa)
            value = exponent < 0 ? value / powersOfTen[-exponent] : value * powersOfTen[exponent]
            return ScannedNumber(integer: nil, double: negative ? -value : value)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        // The grammar was checked above; only the range can fail (Swift gives infinity then).
        let value = Double(text) ?? (negative ? -.infinity : .infinity)
        if isInteger, let integer = Int(text) {
            return ScannedNumber(integer: integer, double: value, isWrittenAsInteger: true)
        }
        return ScannedNumber(integer: nil, double: value, isWrittenAsInteger: isInteger)
    }

    /// Adds one decimal digit to the mantissa, counting significant digits and
    /// turning digits past the 19th into exponent.
    private func accumulate(_ byte: UInt8, into mantissa: inout UInt64, digits: inout Int, exponent: inout Int) {
        if digits < 19 {
            mantissa = mantissa * 10 + UInt64(byte - UInt8(ascii: "0"))
            if mantissa != 0 { digits += 1 }
        } else {
            exponent += 1
            digits += 1
        }
    }

    /// Whether `byte` is an ASCII digit.
    private func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    /// Skips one value of any type, checking that it is well-formed.
    mutating func skipValue(depth: Int) throws(LineProblem) {
        guard depth < 64 else { throw malformed("values nested too deeply") }
        guard index < bytes.count else { throw truncated() }
        switch bytes[index] {
        case UInt8(ascii: "\""): _ = try parseString()
        case UInt8(ascii: "t"): try parseLiteral("true")
        case UInt8(ascii: "f"): try parseLiteral("false")
        case UInt8(ascii: "n"): try parseLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = index
            guard try parseNumber().double.isFinite else {
                index = start
                throw malformed("number out of range")  // as Foundation's JSON parser refuses it
            }
        case UInt8(ascii: "["):
            index += 1
            skipWhitespace()
            guard index < bytes.count else { throw truncated() }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return }
            while true {
                skipWhitespace()
                try skipValue(depth: depth + 1)
                skipWhitespace()
                guard index < bytes.count else { throw truncated() }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return }
                guard bytes[index] == UInt8(ascii: ",") else { throw malformed("expected ',' or ']' in array") }
                index += 1
            }
        case UInt8(ascii: "{"):
            index += 1
            skipWhitespace()
            guard index < bytes.count else { throw truncated() }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return }
            while true {
                skipWhitespace()
                guard index < bytes.count else { throw truncated() }
                guard bytes[index] == UInt8(ascii: "\"") else { throw malformed("expected a quoted field name") }
                _ = try parseString()
                skipWhitespace()
                guard index < bytes.count else { throw truncated() }
                guard bytes[index] == UInt8(ascii: ":") else { throw malformed("expected ':' after field name") }
                index += 1
                skipWhitespace()
                try skipValue(depth: depth + 1)
                skipWhitespace()
                guard index < bytes.count else { throw truncated() }
                if bytes[index] == UInt8(ascii: "}") { index += 1; return }
                guard bytes[index] == UInt8(ascii: ",") else { throw malformed("expected ',' or '}' after a value") }
                index += 1
            }
        default:
            throw malformed("expected a value")
        }
    }
}
