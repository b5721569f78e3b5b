import Foundation

extension String {
    /// The case- and diacritic-folded, NFKC-normalized form: what `[cd]` compares and what
    /// a derived `.canonical` attribute stores.
    ///
    /// Uses Foundation's `folding(options:locale:)` (no locale), with a fast path for ASCII
    /// and one for Latin text that needs no normalization.
    /// `"Crème Brûlée"` → `"creme brulee"`, `"Straße"` → `"strasse"`, `"ǅemal"` → `"dzemal"`
    /// (`"džemal"` folding case only).
    package func canonicalFolded() -> String { folded(caseInsensitive: true, diacriticInsensitive: true) }

    /// This string folded as the `[c]` and `[d]` comparison options ask, with NFKC normalization before and after
    /// (unchanged when neither is asked).
    package func folded(caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
        guard caseInsensitive || diacriticInsensitive else { return self }
        if utf8.allSatisfy({ $0 < 0x80 }) {
            guard caseInsensitive else { return self }
            return utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) ? lowercased() : self
        }
        var options: String.CompareOptions = []
        if caseInsensitive { options.insert(.caseInsensitive) }
        if diacriticInsensitive { options.insert(.diacriticInsensitive) }
        // Latin text of scalars NFKC leaves alone is normalized already and folds to
        // normalized text: the two passes, two thirds of the time, would change nothing.
        if unicodeScalars.allSatisfy(Self.isNormalizedLatin) { return folding(options: options, locale: nil) }
        // NFKC first so compatibility forms (ﬁ, ℌ) fold too, and again after folding.
        return precomposedStringWithCompatibilityMapping.folding(options: options, locale: nil)
            .precomposedStringWithCompatibilityMapping
    }

    /// Whether `scalar` is one of the Latin scalars (up to U+024F) that NFKC leaves as they
    /// are, alone and beside each other, and whose folded forms it leaves as they are too:
    /// all but the compatibility forms (`ª`, `²`, `¼`, `Ĳ`, `ŉ`, `ſ`, `Ǆ`…), which decompose.
    /// `StringFoldingTests` checks every scalar of the range against Foundation.
    static func isNormalizedLatin(_ scalar: Unicode.Scalar) -> Bool {
        let value = Int(scalar.value)
        guard value < 0x250 else { return false }
        return normalizedLatin[value >> 6] & (1 << UInt64(value & 63)) != 0
    }

    /// ``isNormalizedLatin(_:)`` as a bitmap of U+0000–U+024F, 64 scalars a word.
    private static let normalizedLatin: [UInt64] = {
        let ranges: [ClosedRange<Int>] = [
            0x0...0x9F, 0xA1...0xA7, 0xA9...0xA9, 0xAB...0xAE, 0xB0...0xB1, 0xB6...0xB7, 0xBB...0xBB,
            0xBF...0x131, 0x134...0x13E, 0x141...0x148, 0x14A...0x17E, 0x180...0x1C3, 0x1CD...0x1F0, 0x1F4...0x24F,
        ]
        var words = [UInt64](repeating: 0, count: 0x250 / 64 + 1)
        for value in ranges.joined() { words[value >> 6] |= 1 << UInt64(value & 63) }
        return words
    }()
}
