import ObjectGraph

/// The words that Tab completes, shared between the session and the input thread.
///
/// The session replaces the snapshot after each command (``update(_:)``); libedit's
/// completion callback, which runs on the input thread while `el_gets` blocks, reads it
/// (``matches(forPrefix:)``). A lock guards the array, so neither side ever enters
/// the other's isolation.
///
/// ```swift
/// let words = CompletionWords()
/// words.update(["echo", ".read", ".quit"])
/// words.matches(forPrefix: ".")   // [".quit", ".read"]
/// ```
final class CompletionWords: Sendable {
    private let words = Locked<[String]>([])

    /// Creates an empty word list, or one holding `initial`.
    init(_ initial: [String] = []) { update(initial) }

    /// Replaces the candidates: duplicates and empty words are dropped, the rest sorted.
    func update(_ newWords: [String]) {
        let sorted = Array(Set(newWords.filter { !$0.isEmpty })).sorted()
        words.withLock { $0 = sorted }
    }

    /// The candidates that start with `prefix`, in sorted order.
    ///
    /// - Complexity: O(*n*) in the number of words.
    func matches(forPrefix prefix: String) -> [String] {
        words.withLock { words in words.filter { $0.hasPrefix(prefix) } }
    }

    /// The longest prefix shared by all `candidates` (empty for none).
    static func commonPrefix(of candidates: [String]) -> String {
        guard var prefix = candidates.first else { return "" }
        for candidate in candidates.dropFirst() {
            while !candidate.hasPrefix(prefix) { prefix.removeLast() }
        }
        return prefix
    }
}
