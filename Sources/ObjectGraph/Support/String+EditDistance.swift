extension String {
    /// The edit distance to `other`, counted in characters, ignoring case: insertions,
    /// deletions, substitutions and swaps of two neighbours (`nmae` is one edit from `name`).
    func editDistance(to other: String) -> Int {
        let a = Array(self.lowercased()), b = Array(other.lowercased())
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best: Int = Swift.min(table[i - 1][j] + 1, table[i][j - 1] + 1)
                best = Swift.min(best, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    best = Swift.min(best, table[i - 2][j - 2] + 1)
                }
                table[i][j] = best
            }
        }
        return table[a.count][b.count]
    }

    /// The candidate closest to this string, if it is close enough to be a likely typo.
    ///
    /// A candidate that differs only in case (`recipe` for `Recipe`) is the closest of all;
    /// only the string itself is never suggested.
    func nearest(in candidates: [String]) -> String? {
        let limit = Swift.min(3, Swift.max(2, count / 3))
        var best: (name: String, distance: Int)?
        for candidate in candidates where candidate != self {
            let distance = editDistance(to: candidate)
            guard distance <= limit else { continue }
            if let current = best, current.distance < distance || (current.distance == distance && current.name < candidate) {
                continue
            }
            best = (candidate, distance)
        }
        return best?.name
    }
}
