public import Foundation
import ObjectGraphSQLite

/// Writes a small catalogue in version 1 of the model, to practise migrating: the first
/// recipes of an import file, with their ingredient lines, the ingredients they use and
/// their photos. `SampleData/catalog-v1.sqlite` is made by it (from the first 40 recipes).
public enum CatalogVersion1Sample {
    /// The number of recipes in the shipped version-1 sample.
    public static let recipeCount = 40

    /// Creates the store at `path` (which must not exist) from the first `count` recipes of `recipes`.
    public static func write(to path: String, from recipes: URL, count: Int = recipeCount) async throws {
        let records = Array(try RecipeFileReader.readAll(url: recipes).records.prefix(count))
        let coordinator = PersistentStoreCoordinator(model: try CatalogModel.makeVersion1())
        try coordinator.addStore(at: path)
        let context = PrivateContext(coordinator: coordinator)
        try await context.perform { context in
            var ingredients: [String: ManagedObject] = [:]
            for record in records {
                let recipe = try context.insert(CatalogModel.recipe)
                recipe["sourceID"] = record.sourceID
                recipe["name"] = record.name
                recipe["chef"] = record.chef
                recipe["cuisine"] = record.cuisine
                recipe["course"] = record.course
                recipe["prepMinutes"] = record.prepMinutes
                recipe["cookMinutes"] = record.cookMinutes
                recipe["servings"] = record.servings
                recipe["rating"] = record.rating
                recipe["published"] = record.published
                recipe["instructions"] = record.instructions
                for (order, line) in record.ingredients.enumerated() {
                    let ingredient = try ingredients[line.name] ?? {
                        let ingredient = try context.insert(CatalogModel.ingredient)
                        ingredient["name"] = line.name
                        ingredients[line.name] = ingredient
                        return ingredient
                    }()
                    let item = try context.insert(CatalogModel.recipeIngredient)
                    item["quantity"] = line.quantity
                    item["unit"] = line.unit
                    item["displayOrder"] = order
                    item["ingredient"] = ingredient
                    item["recipe"] = recipe
                }
                if let data = record.photo {
                    let photo = try context.insert(CatalogModel.recipePhoto)
                    photo["data"] = data
                    photo["recipe"] = recipe
                }
            }
            try context.save()
        }
    }
}
