/// A string that equals and hashes by its UTF-8 bytes, the way the store compares text.
///
/// Swift's `String` equality is canonical equivalence: `"é"` written as one scalar (NFC)
/// equals `"e"` followed by a combining acute (NFD). The store compares bytes (SQLite's
/// `BINARY` collation, which ObjectGraph's other stores follow), so to the store those are
/// two names. The importer keys its tables of names and ids with this type, so that what it
/// treats as one name is exactly what the store does, whatever the batches.
///
/// ```swift
/// ExactText("Caf\u{E9}") == ExactText("Cafe\u{301}")   // false; as Strings they are equal
/// ```
struct ExactText: Hashable {
    /// The text.
    let text: String

    /// Wraps `text`.
    init(_ text: String) { self.text = text }

    static func == (lhs: ExactText, rhs: ExactText) -> Bool {
        lhs.text.utf8.count == rhs.text.utf8.count && lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    func hash(into hasher: inout Hasher) {
        var text = self.text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
