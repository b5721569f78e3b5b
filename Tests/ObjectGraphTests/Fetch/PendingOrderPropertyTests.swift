import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// A fetch with unsaved changes sorts them in memory; the store sorts saved rows. Both must
/// give one order: over random edits, each fetch before a save returns the same objects in
/// the same order as after it, with ties, nils, sub-entities, keys through to-ones whose
/// objects were renamed, text the store sorts by bytes, and a window; and a fetch without
/// values, which places the changed objects among faults in the store's order, agrees.
@MainActor
struct PendingOrderPropertyTests {
    static let names = ["Soup", "Stew", "Pie", "\u{e9}clair", "e\u{301}clair", ""]
    static let captions: [String?] = ["a", "b", nil, "A", "a"]
    static let requests: [FetchRequest] = [
        FetchRequest(entityName: "Recipe", sortKeys: [SortKey("chef.name"), SortKey("rating", ascending: false)]),
        FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name"), SortKey("published")]),
        FetchRequest(entityName: "Media", sortKeys: [SortKey("caption", ascending: false)]),
        FetchRequest(entityName: "Media", sortKeys: [SortKey("recipe.chef.name"), SortKey("caption")]),
        {
            var request = FetchRequest(entityName: "Recipe", sortKeys: [SortKey("chef.name", ascending: false), SortKey("name")])
            request.fetchLimit = 5
            request.fetchOffset = 2
            return request
        }(),
    ]

    @Test("A fetch before a save returns what the same fetch returns after it", arguments: Array(1...12) as [UInt64])
    func fetchBeforeSaveEqualsAfter(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let context = MainContext(coordinator: try TestModel.coordinator())
        var chefs: [ManagedObject] = []
        for index in 0..<4 {
            let chef = try context.insert("Chef")
            chef["name"] = "C\(index)"
            chefs.append(chef)
        }
        try context.save()
        for round in 0..<40 {
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let recipes = try context.fetch(FetchRequest(entityName: "Recipe"))
                let media = try context.fetch(FetchRequest(entityName: "Media"))
                let rating = Bool.random(using: &rng) ? nil : Double(Int.random(in: 0...3, using: &rng))
                switch Int.random(in: 0..<9, using: &rng) {
                case 0, 1:
                    let recipe = try context.insert("Recipe")
                    recipe["name"] = Self.names.randomElement(using: &rng)!
                    recipe["rating"] = rating
                    recipe["chef"] = Bool.random(using: &rng) ? chefs.randomElement(using: &rng) : nil
                case 2:
                    let item = try context.insert(Bool.random(using: &rng) ? "Photo" : "Video")
                    item["caption"] = Self.captions.randomElement(using: &rng)!
                    item["recipe"] = recipes.randomElement(using: &rng)
                case 3: recipes.randomElement(using: &rng)?["rating"] = rating
                case 4: recipes.randomElement(using: &rng)?["chef"] = chefs.randomElement(using: &rng)
                case 5:  // a rename the store does not know yet (names stay unique)
                    chefs.randomElement(using: &rng)!["name"] = ["Z", "A", "\u{e9}", "e\u{301}"].randomElement(using: &rng)!
                        + "\(round)-\(Int.random(in: 0..<1_000_000, using: &rng))"
                case 6: media.randomElement(using: &rng)?["caption"] = Self.captions.randomElement(using: &rng)!
                case 7:
                    if let recipe = recipes.randomElement(using: &rng), (recipe["media"] as? Set<ManagedObject>)?.isEmpty ?? true {
                        context.delete(recipe)
                    }
                default: if let item = media.randomElement(using: &rng) { context.delete(item) }
                }
            }
            // Without values first, unchanged objects turned into faults: faults the store
            // sorted stay put, and only the changed objects are placed among them.
            context.refreshAllObjects()
            let faults = try Self.requests.map { request in
                var keysOnly = request
                keysOnly.includesPropertyValues = false
                return try context.fetch(keysOnly)
            }
            // Objects, not their IDs: an unsaved object's ID changes when it is saved.
            let before = try Self.requests.map { try context.fetch($0) }
            try context.save()
            for (index, request) in Self.requests.enumerated() {
                #expect(faults[index].map(ObjectIdentifier.init) == before[index].map(ObjectIdentifier.init),
                        "seed \(seed), round \(round), request \(index): \(faults[index].map(\.objectID)) without values, \(before[index].map(\.objectID)) with")
                let after = try context.fetch(request)
                #expect(after.map(ObjectIdentifier.init) == before[index].map(ObjectIdentifier.init),
                        "seed \(seed), round \(round), request \(index): \(before[index].map(\.objectID)) before the save, \(after.map(\.objectID)) after")
            }
        }
    }
}
