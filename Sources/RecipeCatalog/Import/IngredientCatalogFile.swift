public import Foundation
import ObjectGraph

/// Loads the ingredient catalogue TSV (`SampleData/ingredients.tsv`).
///
/// The file has a header line naming the eleven columns
/// `name usdaNumber usdaDescription foodGroup kcal proteinG fatG carbohydrateG fiberG sugarG sodiumMg`,
/// separated by tabs, then one food per line. Cells hold no tabs, newlines or
/// quoting; an empty nutrient cell means unknown.
///
/// ```swift
/// let foods = try IngredientCatalogFile.load(from: URL(filePath: "SampleData/ingredients.tsv"))
/// let names = foods.map(\.name)
/// ```
public enum IngredientCatalogFile {
    /// The header line the file must start with.
    public static let columns = ["name", "usdaNumber", "usdaDescription", "foodGroup", "kcal",
                                 "proteinG", "fatG", "carbohydrateG", "fiberG", "sugarG", "sodiumMg"]

    /// Reads and parses the file at `url`.
    ///
    /// - Throws: ``ImportFileError`` when the file cannot be read or is not UTF-8;
    ///   ``ImportLineError`` for the first malformed line (wrong header, wrong
    ///   number of cells, a nutrient that is not a number, an empty or repeated name).
    public static func load(from url: URL) throws -> [IngredientCatalogEntry] {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ImportFileError(path: url.path, message: "cannot read file: \(FileErrorReason.of(error))")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ImportFileError(path: url.path, message: "file is not UTF-8")
        }
        return try parse(text, fileName: url.lastPathComponent)
    }

    /// Parses the contents of a catalogue file; `fileName` is used in errors.
    ///
    /// - Throws: ``ImportLineError`` for the first malformed line.
    public static func parse(_ text: String, fileName: String) throws(ImportLineError) -> [IngredientCatalogEntry] {
        var entries: [IngredientCatalogEntry] = []
        var seen = Set<ExactText>()  // by bytes, as the store's uniqueness of names
        var lineNumber = 0
        // LF, CRLF (one Character, which is not "\n") and a lone CR each end a line, as in recipe files.
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            lineNumber += 1
            let cells = line.split(separator: "\t", omittingEmptySubsequences: false)
            if lineNumber == 1 {
                guard cells.map(String.init) == columns else {
                    throw ImportLineError(file: fileName, line: 1, message:
                        "header must be the tab-separated columns \(columns.joined(separator: " "))")
                }
                continue
            }
            if line.isEmpty { continue }
            guard cells.count == columns.count else {
                throw ImportLineError(file: fileName, line: lineNumber, message:
                    "expected \(columns.count) tab-separated cells, found \(cells.count)")
            }
            let name = String(cells[0])
            guard !name.isEmpty else {
                throw ImportLineError(file: fileName, line: lineNumber, message: "\"name\" must not be empty")
            }
            guard seen.insert(ExactText(name)).inserted else {
                throw ImportLineError(file: fileName, line: lineNumber, message: "name \"\(name)\" appears twice")
            }
            var nutrients: [Double?] = []
            for column in 4..<columns.count {
                let cell = cells[column]
                if cell.isEmpty {
                    nutrients.append(nil)
                } else if let value = Double(cell), value.isFinite {
                    nutrients.append(value)
                } else {
                    throw ImportLineError(file: fileName, line: lineNumber, message:
                        "\"\(columns[column])\" must be a number, found \"\(cell)\"")
                }
            }
            entries.append(IngredientCatalogEntry(
                name: name, usdaNumber: String(cells[1]), usdaDescription: String(cells[2]),
                foodGroup: String(cells[3]), kcal: nutrients[0], proteinG: nutrients[1],
                fatG: nutrients[2], carbohydrateG: nutrients[3], fiberG: nutrients[4],
                sugarG: nutrients[5], sodiumMg: nutrients[6]))
        }
        return entries
    }
}
