/// Plain-text cells in aligned columns (table mode), fitted to a width when asked.
///
/// Columns are two spaces apart and lines lose their trailing spaces. Cells longer than
/// ``maximumCellWidth`` are cut with `…`. Given a width, the table fits it: the widest
/// cuttable columns shrink first, one character at a time, never below their minimum (the
/// header's width, and at least ``minimumColumnWidth``), and the values that no longer fit
/// end in `…`. Widths count `Character`s. When the columns cannot fit even at their
/// minimums, each row prints as a record of `key | value` lines instead, like psql's
/// expanded mode:
///
/// ```
/// -[ RECORD 1 ]----------------------------
/// objectID     | Recipe/p43
/// name         | Apfelstrudel
/// instructions | Knead flour, egg, water an…
/// ```
///
/// ```swift
/// let table = TextTable(header: ["objectID", "name"], rows: [["Chef/p1", "Ana"]],
///                       isCuttable: [false, true])
/// table.lines(fittingIn: 80)   // ["objectID  name", "--------  ----", "Chef/p1   Ana"]
/// ```
struct TextTable {
    /// The column names.
    var header: [String]
    /// The cells, one array per row, as long as ``header``; line breaks are shown as spaces.
    var rows: [[String]]
    /// Which columns may be cut to fit a width: text, but not IDs, numbers or dates.
    var isCuttable: [Bool]
    /// The widest a cell gets in the table layout before it is cut with `…`; `nil` never cuts.
    var maximumCellWidth: Int? = 32

    /// The narrowest a cuttable column shrinks to when its header is narrower.
    static let minimumColumnWidth = 6
    /// What stands between two columns.
    static let separator = "  "

    /// Creates a table; line breaks in cells become spaces.
    init(header: [String], rows: [[String]], isCuttable: [Bool], maximumCellWidth: Int? = 32) {
        self.header = header
        self.rows = rows.map { $0.map { String($0.map { $0.isNewline ? " " : $0 }) } }
        self.isCuttable = isCuttable
        self.maximumCellWidth = maximumCellWidth
    }

    /// The lines to print: the table, fitted to `width` columns when one is given, or the
    /// rows as records when the table cannot fit it.
    func lines(fittingIn width: Int?) -> [String] {
        let cells = rows.map { $0.map { cell in maximumCellWidth.map { Self.cut(cell, to: $0) } ?? cell } }
        var natural = header.map(\.count)
        for row in cells { for (column, cell) in row.enumerated() { natural[column] = max(natural[column], cell.count) } }
        guard let width else { return Self.tableLines(header: header, cells: cells, widths: natural) }
        let minimums = zip(natural, zip(header, isCuttable)).map { natural, column in
            column.1 ? min(natural, max(column.0.count, Self.minimumColumnWidth)) : natural
        }
        guard let widths = Self.fit(natural, minimums: minimums, into: width) else {
            return recordLines(width: width)
        }
        return Self.tableLines(header: header, cells: cells, widths: widths)
    }

    /// Column widths that, with separators, take at most `available` columns, or `nil` when
    /// even the minimums take more.
    ///
    /// A common ceiling comes down until the columns fit: the widest columns shrink first,
    /// and none goes below its minimum. Columns left one under the ceiling that the space
    /// still allows get it back, from the left.
    ///
    /// - Complexity: O(*w* × *n*) for *n* columns of width at most *w*.
    static func fit(_ natural: [Int], minimums: [Int], into available: Int) -> [Int]? {
        let budget = available - max(0, natural.count - 1) * separator.count
        func widths(under ceiling: Int) -> [Int] { zip(natural, minimums).map { max($1, min($0, ceiling)) } }
        if natural.reduce(0, +) <= budget { return natural }
        if minimums.reduce(0, +) > budget { return nil }
        var ceiling = natural.max() ?? 0
        while widths(under: ceiling).reduce(0, +) > budget { ceiling -= 1 }
        var result = widths(under: ceiling)
        var spare = budget - result.reduce(0, +)
        for column in result.indices where spare > 0 && result[column] == ceiling && natural[column] > ceiling {
            result[column] += 1
            spare -= 1
        }
        return result
    }

    /// The header, a rule of dashes, and the rows, each cell cut to its column's width.
    private static func tableLines(header: [String], cells: [[String]], widths: [Int]) -> [String] {
        func line(_ values: [String]) -> String {
            zip(values, widths).map { value, width in
                let shown = cut(value, to: width)
                return shown + String(repeating: " ", count: width - shown.count)
            }
            .joined(separator: separator).trimmedTrailing
        }
        return [line(header), line(widths.map { String(repeating: "-", count: $0) })] + cells.map(line)
    }

    /// Each row as a block: a `-[ RECORD n ]-` rule, then one `key | value` line per column,
    /// values cut to what `width` leaves beside the keys.
    func recordLines(width: Int) -> [String] {
        let keyWidth = header.map(\.count).max() ?? 0
        let valueWidth = max(1, width - keyWidth - 3)
        let widest = rows.flatMap { $0 }.map { min($0.count, valueWidth) }.max() ?? 0
        let ruleWidth = min(width, keyWidth + 3 + widest)
        var lines: [String] = []
        for (index, row) in rows.enumerated() {
            let title = "-[ RECORD \(index + 1) ]-"
            lines.append(title + String(repeating: "-", count: max(0, ruleWidth - title.count)))
            for (key, value) in zip(header, row) {
                let padded = key + String(repeating: " ", count: keyWidth - key.count)
                lines.append((padded + " | " + Self.cut(value, to: valueWidth)).trimmedTrailing)
            }
        }
        return lines
    }

    /// `text` when it fits `width` characters, else its start and `…` in exactly `width`.
    static func cut(_ text: String, to width: Int) -> String {
        guard text.count > width else { return text }
        return width <= 1 ? "…" : String(text.prefix(width - 1)) + "…"
    }
}
