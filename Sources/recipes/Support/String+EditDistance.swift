extension String {
    /// The Levenshtein distance to `other`, counted in characters.
    ///
    /// Used for "Did you mean" suggestions on short words such as option names.
    ///
    /// - Complexity: O(*n* × *m*) time, O(*m*) memory.
    func editDistance(to other: String) -> Int {
        let source = Array(self), target = Array(other)
        guard !source.isEmpty else { return target.count }
        guard !target.isEmpty else { return source.count }
        var previous = Array(0...target.count)
        var current = previous
        for (i, s) in source.enumerated() {
            current[0] = i + 1
            for (j, t) in target.enumerated() {
                current[j + 1] = Swift.min(previous[j + 1] + 1, current[j] + 1,
                                           previous[j] + (s == t ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[target.count]
    }

    /// The candidate closest to this string, if it is close enough to be a likely typo.
    func closest(in candidates: [String], maximumDistance: Int = 2) -> String? {
        candidates
            .map { (candidate: $0, distance: editDistance(to: $0)) }
            .filter { $0.distance <= maximumDistance }
            .min { $0.distance < $1.distance }?
            .candidate
    }
}
