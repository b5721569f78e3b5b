/// The backslash escapes of a predicate's string literals, for tools that read values in
/// the same notation (a shell's `set name="…"`), so a value means the same there as in a
/// predicate.
///
/// `\n`, `\t`, `\r` and `\0` are a line feed, a tab, a carriage return and NUL; `\\`, `\"`
/// and `\'` the character itself; `\u{1F35C}` (one to eight hex digits) and `\u00E9` (up to
/// four) a Unicode scalar. Any other escape is kept as written, backslash included, so
/// `LIKE` patterns (`\*`) and regular expressions (`\d`) pass through.
public enum StringEscapes {
    /// A malformed `\u` escape: what is wrong, and where, counted in Unicode scalars.
    public struct Failure: Error, Sendable, Equatable {
        /// What is wrong, quoting the escape: `invalid Unicode escape '\u{110000}'`.
        public var message: String
        /// The offset of the escape's backslash.
        public var offset: Int
        /// How many scalars the escape spans.
        public var length: Int
    }

    /// `text` with every escape resolved.
    /// - Throws: ``Failure`` for a `\u` escape that names no Unicode scalar or lacks its `}`.
    public static func resolving(_ text: String) throws(Failure) -> String {
        let scalars = Array(text.unicodeScalars)
        var result = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            if scalar == "\\", index < scalars.count {
                try resolve(scalars, at: &index, into: &result)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// Resolves the escape whose backslash is at `index - 1` (`index` is below
    /// `scalars.count`), appending it to `result` and moving `index` past it.
    static func resolve(_ scalars: [Unicode.Scalar], at index: inout Int,
                        into result: inout String.UnicodeScalarView) throws(Failure) {
        let start = index - 1
        let escaped = scalars[index]
        index += 1
        switch escaped {
        case "n": result.append("\n")
        case "t": result.append("\t")
        case "r": result.append("\r")
        case "0": result.append("\0")
        case "\\", "\"", "'": result.append(escaped)
        case "u":
            let braced = index < scalars.count && scalars[index] == "{"
            if braced { index += 1 }
            var digits = ""
            while index < scalars.count, digits.unicodeScalars.count < (braced ? 8 : 4),
                  scalars[index].properties.isASCIIHexDigit {
                digits.unicodeScalars.append(scalars[index])
                index += 1
            }
            if braced {
                guard index < scalars.count, scalars[index] == "}" else {
                    throw Failure(message: "expected '}' in a \\u{…} escape", offset: start, length: index - start)
                }
                index += 1
            }
            guard let value = UInt32(digits, radix: 16), let scalar = Unicode.Scalar(value) else {
                let written = braced ? "{\(digits)}" : digits
                throw Failure(message: "invalid Unicode escape '\\u\(written)'", offset: start, length: index - start)
            }
            result.append(scalar)
        default:
            result.append("\\")
            result.append(escaped)
        }
    }
}
