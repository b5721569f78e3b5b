import Foundation

extension String {
    /// Case- and diacritic-folded text (placeholder until the predicate language lands).
    func canonicalFolded() -> String {
        folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }
}
