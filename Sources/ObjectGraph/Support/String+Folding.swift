import Foundation

extension String {
    /// The case- and diacritic-folded, NFKC-normalized form: what `[cd]` compares and what
    /// a derived `.canonical` attribute stores.
    ///
    /// Uses Foundation's `folding(options:locale:)` (no locale), with a fast path for ASCII
    /// and one for Latin text that needs no normalization (``LatinFolds``).
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
        // Latin text of scalars NFKC leaves alone is normalized already and folds to
        // normalized text, scalar by scalar: its folds are looked up, not computed.
        let latin = caseInsensitive ? (diacriticInsensitive ? LatinFolds.caseAndDiacritics : LatinFolds.caseOnly)
            : LatinFolds.diacriticsOnly
        if let folded = latin.fold(self) { return folded }
        var options: String.CompareOptions = []
        if caseInsensitive { options.insert(.caseInsensitive) }
        if diacriticInsensitive { options.insert(.diacriticInsensitive) }
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

/// The folds of the Latin scalars that need no normalization (``String/isNormalizedLatin(_:)``),
/// each folded alone by Foundation when a table is first used. Case and diacritic folding
/// of such a scalar does not depend on its neighbours, so a string of them folds to its
/// scalars' folds in a row: a lookup per scalar, where Foundation's `folding` cost about
/// 18,000 instructions a recipe name. `StringFoldingTests` checks the two agree.
struct LatinFolds: Sendable {
    /// `[cd]`, and the canonical shadows.
    static let caseAndDiacritics = LatinFolds([.caseInsensitive, .diacriticInsensitive])
    /// `[c]`.
    static let caseOnly = LatinFolds([.caseInsensitive])
    /// `[d]`.
    static let diacriticsOnly = LatinFolds([.diacriticInsensitive])

    /// The UTF-8 of every scalar's fold, one after another (nothing for scalars off the path).
    private let bytes: [UInt8]
    /// Where the fold of the scalar with each value starts in `bytes`; the next entry is where it ends.
    private let starts: [Int32]
    /// The most UTF-8 bytes a scalar folds to.
    private let longest: Int

    private init(_ options: String.CompareOptions) {
        var bytes: [UInt8] = [], starts: [Int32] = [], longest = 1
        for value in UInt32(0)..<0x250 {
            starts.append(Int32(bytes.count))
            guard let scalar = Unicode.Scalar(value), String.isNormalizedLatin(scalar) else { continue }
            let folded = String(scalar).folding(options: options, locale: nil).utf8
            bytes += folded
            longest = max(longest, folded.count)
        }
        starts.append(Int32(bytes.count))
        self.bytes = bytes
        self.starts = starts
        self.longest = longest
    }

    /// `text` folded, or nil when one of its scalars is off the path: one pass that looks
    /// up each scalar's fold and gives up at the first it cannot.
    func fold(_ text: String) -> String? {
        var onPath = true
        // Every scalar takes at least one byte of `text`, and folds to at most `longest`.
        let folded = String(unsafeUninitializedCapacity: text.utf8.count * longest) { folded in
            var count = 0
            bytes.withUnsafeBufferPointer { bytes in
                starts.withUnsafeBufferPointer { starts in
                    for scalar in text.unicodeScalars {
                        guard String.isNormalizedLatin(scalar) else {
                            onPath = false
                            return
                        }
                        let value = Int(scalar.value)
                        for index in Int(starts[value])..<Int(starts[value + 1]) {
                            folded[count] = bytes[index]
                            count += 1
                        }
                    }
                }
            }
            return count
        }
        return onPath ? folded : nil
    }
}
