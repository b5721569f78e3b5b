/// Deterministic data shared by every engine.
enum BenchmarkData {
    /// The cities users live in, a few with accents.
    static let cities = ["Aarhus", "Berlin", "Cusco", "Dakar", "Essen", "Faro", "Graz", "Hanoi", "Izmir", "Jaipur",
                         "Kyoto", "Lima", "Malmö", "Nantes", "Oslo", "Porto", "Quito", "Riga", "Sevilla", "Tunis",
                         "Ulm", "Valencia", "Wrocław", "Xiamen", "York", "Zürich", "Agra", "Bonn", "Cork", "Delft"]
    /// The syllables words are spelled with.
    private static let syllables = ["ka", "lo", "mi", "nu", "pe", "ra", "si", "to", "ve", "zo", "bri", "cha", "dre", "fli"]

    /// One of ``cities``, spread over indexes by a multiplicative hash.
    static func city(_ index: Int) -> String {
        var state = UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15
        state ^= state >> 31
        return cities[Int(state % UInt64(cities.count))]
    }

    /// A word of 2–5 syllables, distinct per index.
    static func word(_ index: Int) -> String {
        var value = index
        var word = ""
        repeat {
            word += syllables[value % syllables.count]
            value /= syllables.count
        } while value > 0
        return word
    }

    /// The UTF-8 bytes of the names `"User 0"` … `"User \(count - 1)"`: the insert checksum.
    static func userNameBytes(_ count: Int) -> Int {
        (0..<count).reduce(0) { $0 + "User \($1)".utf8.count }
    }
}
