public import Foundation
import ObjectGraph

/// Generates large, realistic-looking recipe catalogues in the import format.
///
/// The generator combines real ingredient names (usually the `name` column of
/// `SampleData/ingredients.tsv`), two dozen cuisines, a few thousand chef names
/// composed from syllables (some accented) and recipe names built from
/// patterns such as "<Adjective> <Ingredient> <Dish>" or "<Dish> à la <Chef>".
/// Lines get ids `g-0000001`, `g-0000002`, …, 3–12 ingredient lines each, and
/// occasionally leave out the rating, the chef or the date.
///
/// Output is a pure function of the seed, the ingredient names, the options and
/// the count: the same inputs give byte-identical files on every machine. The
/// randomness comes from ``SplitMix64``; no dictionary is iterated.
///
/// ```swift
/// let names = try IngredientCatalogFile.load(from: tsvURL).map(\.name)
/// let generator = CatalogGenerator(seed: 42, ingredientNames: names)
/// try generator.write(count: 300_000, to: outputURL) { done in bar.update(done) }
/// ```
///
/// - Complexity: O(count); well over 200,000 lines per second in release builds.
public struct CatalogGenerator: Sendable {
    /// The seed of the pseudo-random sequence.
    public let seed: UInt64
    /// The ingredient names lines may use, in the order given.
    public let ingredientNames: [String]
    /// How many distinct chefs the catalogue draws from.
    public let chefCount: Int
    /// Every how many lines a recipe carries a small photo; 0 (the default) for none.
    public let photoInterval: Int

    private let vocabulary: GeneratorVocabulary

    /// Creates a generator.
    ///
    /// - Parameters:
    ///   - seed: the seed; different seeds give different catalogues.
    ///   - ingredientNames: the names to use; an empty list falls back to a few basics.
    ///   - chefCount: the number of generated chefs, at least 1.
    ///   - photoInterval: put a tiny PNG on every `photoInterval`-th recipe; 0 for none.
    public init(seed: UInt64, ingredientNames: [String], chefCount: Int = 3_000, photoInterval: Int = 0) {
        self.seed = seed
        self.ingredientNames = ingredientNames
        self.chefCount = max(1, chefCount)
        self.photoInterval = max(0, photoInterval)
        self.vocabulary = GeneratorVocabulary(
            seed: seed, ingredientNames: ingredientNames, chefCount: max(1, chefCount))
    }

    /// Writes `count` lines to `url`, replacing the file, and reports progress.
    ///
    /// The file appears whole or not at all: the lines go to a hidden file beside it
    /// (`.NAME.PID.N.tmp`), flushed to disk and renamed over it at the end, so a run that
    /// stops early (Ctrl-C, an error, a closed terminal) leaves no half-written file under
    /// its name. A hidden file left by a run that was killed outright is removed by the
    /// next run writing to the same name.
    ///
    /// - Parameters:
    ///   - count: the number of recipes.
    ///   - url: the file to write.
    ///   - progress: called with the number of lines written so far, every 1,000
    ///     lines and once at the end.
    /// - Throws: ``ImportFileError`` when the file cannot be created or written;
    ///   `CancellationError` when the calling task is cancelled (checked every 1,000 lines).
    ///   Either way the hidden file is removed and a file already at `url` is left as it was.
    public func write(count: Int, to url: URL, progress: (Int) -> Void = { _ in }) throws {
        do {
            let staged = try AtomicFile.stage(url.path) { file in
                var random = SplitMix64(seed: seed)
                var out: [UInt8] = []
                out.reserveCapacity(1 << 20 + 4096)
                for index in 0..<count {
                    appendLine(index: index, random: &random, to: &out)
                    if out.count >= 1 << 20 {
                        try file.write(out)
                        out.removeAll(keepingCapacity: true)
                    }
                    if (index + 1) % 1_000 == 0 {
                        progress(index + 1)
                        if Task.isCancelled { throw CancellationError() }
                    }
                }
                try file.write(out)
            }
            try staged.commit()
        } catch let error as ObjectGraphError {
            guard let failure = error.underlying as? AtomicFile.Failure else { throw error }
            throw ImportFileError(path: url.path, message: "\(failure.action) it: \(failure.reason)")
        }
        progress(count)
    }

    /// Returns the first `count` lines, without newlines; the same lines ``write(count:to:progress:)`` writes.
    public func makeLines(count: Int) -> [String] {
        var random = SplitMix64(seed: seed)
        var lines: [String] = []
        var out: [UInt8] = []
        for index in 0..<count {
            out.removeAll(keepingCapacity: true)
            appendLine(index: index, random: &random, to: &out)
            out.removeLast()  // newline
            lines.append(String(decoding: out, as: UTF8.self))
        }
        return lines
    }

    /// Appends line `index` (0-based) and its newline to `out`.
    func appendLine(index: Int, random: inout SplitMix64, to out: inout [UInt8]) {
        let v = vocabulary
        out += v.fragments.openID
        appendPadded(index + 1, width: 7, to: &out)

        // Pick the ingredients first: the name and instructions mention them.
        let lineCount = 3 + random.next(below: 10)
        var picks: [Int] = []
        picks.reserveCapacity(lineCount)
        while picks.count < lineCount {
            let pick = random.next(below: v.ingredients.count)
            if !picks.contains(pick) || v.ingredients.count < lineCount { picks.append(pick) }
        }
        let chef = random.next(below: v.chefs.count)

        out += v.fragments.name
        v.appendRecipeName(picks: picks, chef: chef, random: &random, to: &out)
        if !random.chance(percent: 2) {
            out += v.fragments.chef
            out += v.chefs[chef]
        }
        out += v.fragments.cuisine
        out += v.cuisines[random.next(below: v.cuisines.count)]
        out += v.fragments.course
        out += v.courses[random.next(below: v.courses.count)]
        out += v.fragments.prepMinutes
        appendInteger(5 + 5 * random.next(below: 12), to: &out)
        out += v.fragments.cookMinutes
        appendInteger(5 * random.next(below: 37), to: &out)
        out += v.fragments.servings
        appendInteger(1 + random.next(below: 12), to: &out)
        if !random.chance(percent: 4) {
            out += v.fragments.rating
            let halves = 2 + random.next(below: 9)  // 1.0 ... 5.0
            appendInteger(halves / 2, to: &out)
            out += halves % 2 == 0 ? v.fragments.pointZero : v.fragments.pointFive
        }
        if !random.chance(percent: 3) {
            out += v.fragments.published
            let day = GeneratorVocabulary.firstDay + random.next(below: GeneratorVocabulary.dayRange)
            let date = ISO8601Date.civilFromDays(day)
            appendPadded(date.year, width: 4, to: &out)
            out.append(UInt8(ascii: "-"))
            appendPadded(date.month, width: 2, to: &out)
            out.append(UInt8(ascii: "-"))
            appendPadded(date.day, width: 2, to: &out)
            out.append(UInt8(ascii: "\""))
        }
        out += v.fragments.ingredients
        for (position, pick) in picks.enumerated() {
            if position > 0 { out += v.fragments.comma }
            out += v.fragments.ingredientName
            out += v.ingredients[pick]
            out.append(UInt8(ascii: "\""))
            if !random.chance(percent: 8) {
                v.appendQuantity(random: &random, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
        out += v.fragments.instructions
        v.appendInstructions(picks: picks, random: &random, to: &out)
        out.append(UInt8(ascii: "\""))
        if photoInterval > 0 && (index + 1) % photoInterval == 0 {
            out += v.fragments.photo
            out += GeneratorVocabulary.tinyPNGBase64
            out.append(UInt8(ascii: "\""))
        }
        out += v.fragments.close
    }
}

/// Appends the decimal digits of a non-negative `value`.
func appendInteger(_ value: Int, to out: inout [UInt8]) {
    if value < 10 {
        out.append(UInt8(ascii: "0") + UInt8(value))
        return
    }
    var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                 UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                 UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var count = 0
    var rest = value
    withUnsafeMutableBytes(of: &digits) { buffer in
        while rest > 0 {
            buffer[count] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
            count += 1
        }
        for i in stride(from: count - 1, through: 0, by: -1) { out.append(buffer[i]) }
    }
}

/// Appends `value` with leading zeros to at least `width` digits.
func appendPadded(_ value: Int, width: Int, to out: inout [UInt8]) {
    var magnitude = 1
    var digits = 1
    while magnitude * 10 <= value {
        magnitude *= 10
        digits += 1
    }
    for _ in digits..<max(width, digits) { out.append(UInt8(ascii: "0")) }
    appendInteger(value, to: &out)
}
