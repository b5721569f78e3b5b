import Foundation
import Testing
@testable import RecipeCatalog

@Suite("Shipped sample data")
struct SampleDataTests {
    @Test("recipes.jsonl parses with no errors and uses only catalogue ingredients")
    func sampleRecipes() throws {
        let batch = try RecipeFileReader.readAll(url: TestFiles.sampleData("recipes.jsonl"))
        #expect(batch.errors == [])
        #expect(batch.records.count >= 160)
        #expect(Set(batch.records.map(\.sourceID)).count == batch.records.count)
        #expect(Set(batch.records.compactMap(\.cuisine)).count >= 20)
        #expect(batch.records.filter { $0.photo != nil }.count >= 15)
        let catalogue = try IngredientCatalogFile.load(from: TestFiles.sampleData("ingredients.tsv"))
        let known = Set(catalogue.map(\.name))
        let unknown = batch.records.flatMap(\.ingredients).map(\.name).filter { !known.contains($0) }
        #expect(unknown == [])
    }

    @Test("ingredients.tsv loads every USDA food")
    func catalogue() throws {
        let catalogue = try IngredientCatalogFile.load(from: TestFiles.sampleData("ingredients.tsv"))
        #expect(catalogue.count > 7_000)
        let butter = try #require(catalogue.first { $0.name == "butter" })
        #expect(butter.usdaNumber == "01001")
        #expect(butter.foodGroup == "Dairy and Egg Products")
        #expect(butter.kcal == 717)
    }
}
