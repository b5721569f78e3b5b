import Foundation
import Testing
@testable import RecipeCatalog

@Suite("IngredientCatalogFile")
struct IngredientCatalogFileTests {
    let header = IngredientCatalogFile.columns.joined(separator: "\t")

    @Test("Rows parse, empty nutrient cells are nil")
    func rows() throws {
        let text = header + "\nbutter\t01001\tButter, salted\tDairy and Egg Products\t717\t0.85\t81.11\t0.06\t\t0.06\t576\n"
        let entries = try IngredientCatalogFile.parse(text, fileName: "ingredients.tsv")
        #expect(entries == [IngredientCatalogEntry(
            name: "butter", usdaNumber: "01001", usdaDescription: "Butter, salted",
            foodGroup: "Dairy and Egg Products", kcal: 717, proteinG: 0.85, fatG: 81.11,
            carbohydrateG: 0.06, fiberG: nil, sugarG: 0.06, sodiumMg: 576)])
    }

    @Test("Windows (CRLF) and classic Mac (CR) line ends read like Unix ones, and bad rows keep their line numbers",
          arguments: ["\r\n", "\r"])
    func otherLineEnds(lineEnd: String) throws {
        let unix = header + "\nbutter\t01001\tButter, salted\tDairy\t717\t\t\t\t\t\t\n\negg\t01123\tEgg\tDairy\t143\t\t\t\t\t\t\n"
        let other = unix.replacingOccurrences(of: "\n", with: lineEnd)
        #expect(other.split(separator: "\n").count == 1, "CRLF is one Character, not a \\n")
        let entries = try IngredientCatalogFile.parse(other, fileName: "ingredients.tsv")
        #expect(entries == (try IngredientCatalogFile.parse(unix, fileName: "ingredients.tsv")))
        #expect(entries.map(\.name) == ["butter", "egg"])
        #expect {
            _ = try IngredientCatalogFile.parse(other + "bad" + lineEnd, fileName: "ingredients.tsv")
        } throws: { error in
            (error as? ImportLineError)?.description == "ingredients.tsv:5: expected 11 tab-separated cells, found 1"
        }
    }

    @Test("Names that differ only by Unicode normalization are two names, as the store compares them")
    func normalizationVariantsAreTwoNames() throws {
        let text = header + "\ncr\u{E8}me\t1\tA\tG\t\t\t\t\t\t\t\ncre\u{300}me\t2\tB\tG\t\t\t\t\t\t\t\n"
        let entries = try IngredientCatalogFile.parse(text, fileName: "ingredients.tsv")
        #expect(entries.map(\.usdaNumber) == ["1", "2"])
    }

    @Test("Bad rows name the file and line", arguments: [
        ("a\t1\tA\tG\t1\t2\t3\t4\t5\t6", "ingredients.tsv:3: expected 11 tab-separated cells, found 10"),
        ("a\t1\tA\tG\tlots\t2\t3\t4\t5\t6\t7", #"ingredients.tsv:3: "kcal" must be a number, found "lots""#),
        ("x\t1\tA\tG\t1\t2\t3\t4\t5\t6\t7", #"ingredients.tsv:3: name "x" appears twice"#),
    ])
    func badRows(row: String, message: String) {
        let text = header + "\nx\t0\tX\tG\t\t\t\t\t\t\t\n" + row + "\n"
        #expect {
            _ = try IngredientCatalogFile.parse(text, fileName: "ingredients.tsv")
        } throws: { error in
            (error as? ImportLineError)?.description == message
        }
    }
}
