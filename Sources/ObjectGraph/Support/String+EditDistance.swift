extension String {
    /// The Levenshtein distance to `other`, counted in characters.
    func editDistance(to other: String) -> Int {
        let a = Array(self.lowercased()), b = Array(other.lowercased())
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                let substitution: Int = previous[j - 1] + cost
                let deletion: Int = previous[j] + 1
                let insertion: Int = current[j - 1] + 1
                current[j] = Swift.min(deletion, insertion, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// The candidate closest to this string, if it is close enough to be a likely typo.
    func nearest(in candidates: [String]) -> String? {
        let limit = Swift.min(3, Swift.max(2, count / 3))
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(to: candidate)
            guard distance > 0, distance <= limit else { continue }
            if let current = best, current.distance < distance || (current.distance == distance && current.name < candidate) {
                continue
            }
            best = (candidate, distance)
        }
        return best?.name
    }
}
