import Testing
@testable import ObjectGraph

@MainActor
struct SmokeTests {
    @Test func insertSaveFetch() throws {
        let coordinator = try TestModel.coordinator()
        let context = MainContext(coordinator: coordinator)
        let chef = try context.insert("Chef")
        chef["name"] = "Zoë"
        let recipe = try context.insert("Recipe")
        recipe["name"] = "Phở"
        recipe["chef"] = chef
        #expect(recipe.objectID.isTemporary)
        try context.save()
        #expect(!recipe.objectID.isTemporary)
        #expect(try chef.objects(forKey: "recipes").count == 1)
        let other = MainContext(coordinator: coordinator)
        let fetched = try other.fetch(FetchRequest(entityName: "Recipe"))
        #expect(fetched.count == 1)
        #expect(fetched[0].isFault)
        #expect(fetched[0]["name"] as? String == "Phở")
        #expect((fetched[0]["chef"] as? ManagedObject)?["name"] as? String == "Zoë")
    }
}
