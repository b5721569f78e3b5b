import Foundation

/// Recipe-like names full of accents, deterministic per index, for the search workload:
/// a qualifier, a dish and a side (`Provençal crème brûlée with piñon`), one in twenty in capitals.
enum RecipeNames {
    /// How a name starts: the prefix searches look for these.
    private static let qualifiers = [
        "Spicy", "Grandma's", "Quick", "Crispy", "Provençal", "Señora Ana's", "Smoky", "Creamy", "Rustic",
        "Crème-glazed", "Zesty", "Golden", "Tante Hélène's", "Old-fashioned", "Naïve", "Château",
    ]
    /// The dish in the middle of a name.
    private static let dishes = [
        "crème brûlée", "jalapeño soup", "café gâteau", "piña tart", "açaí bowl", "rösti", "soufflé", "crêpes",
        "pâté", "purée of leek", "bœuf stew", "flambéed pears", "risotto", "paella", "goulash", "tortilla",
        "curry", "lemon tart", "salade niçoise", "smørrebrød",
    ]
    /// How a name ends, often not at all.
    private static let sides = [
        "with jalapeño", "with crème fraîche", "à la française", "with piñon", "with açaí", "with herbs",
        "with lemon", "on toast", "au gratin", "with rösti", "", "",
    ]

    /// The name of recipe `index`.
    static func name(_ index: Int) -> String {
        var state = UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15
        state ^= state >> 29
        state &*= 0xBF58_476D_1CE4_E5B9
        state ^= state >> 32
        /// One of `words`, chosen by the next digits of `state`.
        func pick(_ words: [String]) -> String {
            defer { state /= UInt64(words.count) }
            return words[Int(state % UInt64(words.count))]
        }
        let parts = [pick(qualifiers), pick(dishes), pick(sides)].filter { !$0.isEmpty }
        let name = parts.joined(separator: " ")
        return state % 20 == 0 ? name.uppercased() : name
    }

    /// Case- and diacritic-folded, NFKC-normalized text: what ObjectGraph stores in a
    /// `canonical:(name)` attribute, so the checks can predict every hit.
    static func fold(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        return text.precomposedStringWithCompatibilityMapping
            .folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .precomposedStringWithCompatibilityMapping
    }
}
