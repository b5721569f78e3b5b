@testable import ObjectGraph
import Foundation
import Testing

/// The Latin fast path of `folded(caseInsensitive:diacriticInsensitive:)`, which skips the
/// NFKC passes, against the full path through Foundation.
@Suite("String folding: the Latin fast path agrees with NFKC, folding, NFKC")
struct StringFoldingTests {
    /// The three ways `[c]`, `[d]` and `[cd]` fold.
    static let optionSets: [String.CompareOptions] = [[.caseInsensitive], [.diacriticInsensitive], [.caseInsensitive, .diacriticInsensitive]]

    /// The full path: NFKC, Foundation's folding, NFKC.
    static func slowFolded(_ text: String, _ options: String.CompareOptions) -> String {
        text.precomposedStringWithCompatibilityMapping.folding(options: options, locale: nil)
            .precomposedStringWithCompatibilityMapping
    }

    @Test("A scalar is on the fast path exactly when NFKC leaves it and its folded forms alone")
    func everyLatinScalar() {
        for value in 0..<0x300 {
            let scalar = Unicode.Scalar(value)!, text = String(scalar)
            var normalized = value < 0x250 && text.precomposedStringWithCompatibilityMapping == text
                && scalar.properties.canonicalCombiningClass == .notReordered
            for options in Self.optionSets {
                let folded = text.folding(options: options, locale: nil)
                if folded.precomposedStringWithCompatibilityMapping != folded { normalized = false }
            }
            #expect(String.isNormalizedLatin(scalar) == normalized, "U+\(String(value, radix: 16, uppercase: true))")
        }
        #expect(!String.isNormalizedLatin("ﬁ") && !String.isNormalizedLatin("\u{0301}"))
    }

    @Test("Latin strings fold the same on both paths")
    func latinStrings() {
        let latin = (0..<0x250).compactMap(Unicode.Scalar.init).filter(String.isNormalizedLatin)
        var generator = SeededGenerator(seed: 0x5EED)
        var texts = ["Crème Brûlée", "Straße", "İstanbul", "ÀÉÎÕÜ ÿ Ÿ", "Łódź", "Ørsted Æble", "ǍǏǑ ȘȚ"]
        for _ in 0..<20_000 {
            let length = Int(generator.next() % 12) + 1
            var text = String.UnicodeScalarView()
            for _ in 0..<length { text.append(latin[Int(generator.next() % UInt64(latin.count))]) }
            texts.append(String(text))
        }
        for text in texts {
            for options in Self.optionSets {
                let fast = text.folded(caseInsensitive: options.contains(.caseInsensitive),
                                       diacriticInsensitive: options.contains(.diacriticInsensitive))
                #expect(fast == Self.slowFolded(text, options), "\(text.debugDescription) \(options)")
            }
        }
    }

    @Test("Text with compatibility forms or combining marks still takes the full path")
    func fullPath() {
        #expect("ǅemal".canonicalFolded() == "dzemal")
        #expect("ǅemal".folded(caseInsensitive: true, diacriticInsensitive: false) == "džemal")
        #expect("ﬁne ½".canonicalFolded() == Self.slowFolded("ﬁne ½", [.caseInsensitive, .diacriticInsensitive]))
        #expect("Cre\u{0300}me".canonicalFolded() == "creme")
        // Latin text that leaves the path only at its last scalar.
        #expect("Crème ﬁ".canonicalFolded() == "creme fi")
        #expect("ſ".folded(caseInsensitive: true, diacriticInsensitive: false) == "s")
    }
}
