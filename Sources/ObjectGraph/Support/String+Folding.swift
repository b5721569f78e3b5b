import Foundation

extension String {
    /// The case- and diacritic-folded, NFKC-normalized form: what `[cd]` compares and what
    /// a derived `.canonical` attribute stores.
    ///
    /// Uses Foundation's `folding(options:locale:)` (no locale), with a fast path for ASCII.
    /// `"Crème Brûlée"` → `"creme brulee"`, `"Straße"` → `"strasse"`, `"ǅemal"` → `"džemal"`.
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
        // NFKC first so compatibility forms (ﬁ, ℌ) fold too, and again after folding.
        return precomposedStringWithCompatibilityMapping.folding(options: options, locale: nil)
            .precomposedStringWithCompatibilityMapping
    }
}
