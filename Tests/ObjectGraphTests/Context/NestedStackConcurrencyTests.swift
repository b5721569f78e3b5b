import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// The nested stack under load: the update context saves into the main context while the
/// main actor reads it.
@MainActor
struct NestedStackConcurrencyTests {
    @Test("The update context saves batches into the main context while the main context fetches, counts and reads; every batch arrives whole")
    func updateSavesWhileMainReads() async throws {
        let coordinator = try TestModel.coordinator()
        let stack = NestedContextStack(coordinator: coordinator)
        let chef = try stack.main.insert("Chef")
        chef["name"] = "Ana"
        try await stack.save()
        let chefID = chef.objectID
        let update = stack.newUpdateContext()
        let batches = 20, perBatch = 10
        let writer = Task.detached {
            for batch in 0..<batches {
                try await update.perform { context in
                    let ana = context.object(with: chefID)
                    for index in 0..<perBatch {
                        let recipe = try context.insert("Recipe")
                        recipe["name"] = "B\(batch)-\(index)"
                        recipe["rating"] = Double(batch)
                        recipe["chef"] = ana
                    }
                    // An edit of an object a previous batch saved into the main context.
                    if batch > 0, let earlier = try context.fetch(FetchRequest(
                        entityName: "Recipe", predicate: try FetchPredicate("name == 'B\(batch - 1)-0'"))).first {
                        earlier["servings"] = 100 + batch
                    }
                    try context.save()
                }
            }
        }
        let all = FetchRequest(entityName: "Recipe")
        var reads = 0
        while true {
            let count = try stack.main.count(for: all)
            let recipes = try stack.main.fetch(all)
            #expect(count % perBatch == 0 && recipes.count % perBatch == 0, "a batch arrived in part: \(count), \(recipes.count)")
            #expect(Set(recipes.map(\.objectID)).count == recipes.count)
            let chefRecipes = try chef.objects(forKey: "recipes")
            #expect(chefRecipes.count % perBatch == 0, "the chef's recipes hold part of a batch: \(chefRecipes.count)")
            reads += 1
            if count == batches * perBatch { break }
            await Task.yield()
        }
        try await writer.value
        #expect(reads > 0)
        try await stack.save()
        let reader = MainContext(coordinator: coordinator)
        let saved = try reader.fetch(all)
        #expect(saved.count == batches * perBatch)
        #expect(saved.filter { ($0["servings"] as? Int ?? 0) != 4 }.count == batches - 1)
        #expect(try await update.perform { try $0.count(for: all) } == batches * perBatch)
    }
}
