@testable import ObjectGraph
import Testing

/// `CONTAINS`'s byte search, which both the in-memory evaluator and the SQL function use,
/// against the standard library's collection search.
@Suite("String matching: CONTAINS searches bytes")
struct StringMatchingTests {
    @Test("The byte search agrees with the collection search, at the edges and on random text")
    func containsAgreesWithFirstRange() {
        var cases: [(String, String)] = [
            ("", "a"), ("a", "a"), ("ab", "abc"), ("abc", "c"), ("abc", "ab"), ("abc", "bc"), ("aab", "ab"),
            ("crème brûlée", "brû"), ("crème brûlée", "ée"), ("crème", "è"), ("crème", "e\u{0300}"), ("日本語", "本"),
        ]
        // A small alphabet, so that near misses (a first byte that matches, the rest not) are common.
        let alphabet: [Character] = ["a", "b", "é", "日"]
        var generator = SeededGenerator(seed: 0xC0FFEE)
        func text(_ longest: Int) -> String {
            String((0..<Int(generator.next() % UInt64(longest + 1))).map { _ in alphabet[Int(generator.next() % 4)] })
        }
        for _ in 0..<5_000 { cases.append((text(12), text(3))) }
        for (haystack, needle) in cases where !needle.isEmpty {
            let expected = haystack.utf8.firstRange(of: needle.utf8) != nil
            #expect(StringMatching.contains(needle, in: haystack) == expected, "\(haystack.debugDescription) ∋ \(needle.debugDescription)")
        }
    }
}
