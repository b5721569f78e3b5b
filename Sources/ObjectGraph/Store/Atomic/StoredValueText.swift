import Foundation

/// Attribute values as text, for the text formats (XML, HTML): readable, and read back to
/// exactly the value written.
///
/// Integers are decimal; Booleans `true`/`false`; doubles Swift's shortest form that reads
/// back to the same bits (`0.1`, `1e-07`, `inf`, `nan`); dates ISO 8601 in UTC
/// (`ISO8601Date`: proleptic Gregorian) when they fall on a whole second of the years
/// -9999…9999 (`2024-03-05T18:30:00Z`), otherwise seconds since 1970; binary data Base64;
/// strings, UUIDs and URLs as they are.
enum StoredValueText {
    static func text(_ value: StoredValue, of type: AttributeType) -> String {
        switch (type, value) {
        case (.boolean, .integer(let flag)): return flag == 0 ? "false" : "true"
        case (.date, .real(let seconds)) where seconds.rounded() == seconds && textDates.contains(seconds):
            return ISO8601Date.string(from: Date(timeIntervalSince1970: seconds))
        case (_, .integer(let number)): return String(number)
        case (_, .real(let number)): return "\(number)"
        case (_, .text(let text)): return text
        case (_, .blob(let data)): return data.base64EncodedString()
        case (_, .null): return ""
        }
    }

    /// The value `text` stands for, as `attribute` stores it.
    /// - Throws: ``StoreFileError`` at `location` naming the attribute and the text.
    static func value(_ text: String, of attribute: AttributeDescription, at location: StoreFileError.Location) throws -> StoredValue {
        let value: StoredValue?
        switch attribute.type {
        case .integer16, .integer32, .integer64: value = Int64(text).map(StoredValue.integer)
        case .boolean: value = text == "true" ? .integer(1) : text == "false" ? .integer(0) : nil
        case .double: value = Double(text).map(StoredValue.real)
        case .date: value = (Double(text) ?? ISO8601Date.parse(text)?.timeIntervalSince1970).map(StoredValue.real)
        case .string, .uuid, .url: value = .text(text)
        case .binary: value = Data(base64Encoded: text).map(StoredValue.blob)
        }
        guard let value else {
            let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
            throw StoreFileError(location, "'\(shown)' is not \(attribute.type.nameWithArticle) (attribute '\(attribute.name)' of \(attribute.entity.name))")
        }
        return value
    }

    /// The seconds since 1970 of the years -9999…9999, which dates are written as ISO 8601 in.
    private static let textDates = Double(ISO8601Date.daysFromCivil(year: -9_999, month: 1, day: 1)) * 86_400
        ..< Double(ISO8601Date.daysFromCivil(year: 10_000, month: 1, day: 1)) * 86_400
}
