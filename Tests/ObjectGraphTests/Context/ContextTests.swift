import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

@MainActor
struct ContextTests {
    let coordinator: PersistentStoreCoordinator
    let context: MainContext

    init() throws {
        coordinator = try TestModel.coordinator()
        context = MainContext(coordinator: coordinator)
    }

    @discardableResult
    func makeRecipe(_ name: String, chef: ManagedObject? = nil, lines: Int = 0) throws -> ManagedObject {
        let recipe = try context.insert("Recipe")
        recipe["name"] = name
        if let chef { recipe["chef"] = chef }
        for position in 0..<lines {
            let line = try context.insert("Line")
            line["text"] = "\(name) line \(position)"
            line["position"] = position
            line["recipe"] = recipe
        }
        return recipe
    }

    @Test("An object inserted and deleted before any save is discarded: no change is left")
    func insertThenDeleteLeavesNoChange() throws {
        let recipe = try makeRecipe("Draft")
        context.delete(recipe)
        #expect(context.insertedObjects.isEmpty && context.deletedObjects.isEmpty)
        #expect(!context.hasChanges)
        let saved = try makeRecipe("Kept")
        try context.save()
        context.delete(saved)
        #expect(context.deletedObjects == [saved] && context.hasChanges)
    }

    @Test("Objects deleted and saved are released even when their relationships formed cycles")
    func deletedObjectsAreReleased() throws {
        let context = MainContext(coordinator: try TestModel.coordinator())
        let chef = try context.insert("Chef")
        chef["name"] = "Ana"
        for index in 0..<3 {
            let recipe = try context.insert("Recipe")
            recipe["name"] = "R\(index)"
            recipe["chef"] = chef
            let line = try context.insert("Line")
            line["text"] = "salt"
            line["position"] = 1
            line["recipe"] = recipe
        }
        try context.save()
        context.reset()
        var request = FetchRequest(entityName: "Recipe")
        request.relationshipKeyPathsForPrefetching = ["lines", "chef"]
        weak var firstRecipe: ManagedObject?
        weak var firstLine: ManagedObject?
        try {
            let recipes = try context.fetch(request)
            firstRecipe = recipes[0]
            firstLine = (recipes[0]["lines"] as? [ManagedObject])?.first
            for recipe in recipes { context.delete(recipe) }   // lines cascade
            try context.save()
        }()
        #expect(firstLine == nil, "a deleted line is still alive")
        #expect(firstRecipe == nil, "a deleted recipe is still alive")
    }

    @Test("Inserted objects that a rollback discards are released even when they formed cycles")
    func rolledBackObjectsAreReleased() throws {
        let context = MainContext(coordinator: try TestModel.coordinator())
        weak var recipe: ManagedObject?
        weak var line: ManagedObject?
        try {
            let newRecipe = try context.insert("Recipe")
            let newLine = try context.insert("Line")
            newLine["recipe"] = newRecipe
            recipe = newRecipe
            line = newLine
        }()
        context.rollback()
        #expect(recipe == nil && line == nil)
    }

    @Test func insertAppliesDefaultsAndTracksChanges() throws {
        let recipe = try makeRecipe("Leek soup")
        #expect(recipe["servings"] as? Int == 4)
        #expect(recipe["vegetarian"] as? Bool == false)
        #expect(recipe["rating"] == nil)
        #expect(recipe.isInserted && context.hasChanges)
        #expect(context.insertedObjects == [recipe])
        try context.save()
        #expect(!context.hasChanges && !recipe.hasChanges)
        recipe["rating"] = 4.5
        #expect(recipe.isUpdated)
        #expect(recipe.changedValues().keys.sorted() == ["rating"])
        #expect(recipe.committedValues(forKeys: ["rating"])["rating"]! == nil)
        #expect(context.updatedObjects == [recipe])
    }

    @Test func uniquingGivesOneObjectPerID() throws {
        try makeRecipe("A")
        try context.save()
        let first = try context.fetch(FetchRequest(entityName: "Recipe"))
        let second = try context.fetch(FetchRequest(entityName: "Recipe"))
        #expect(first[0] === second[0])
        #expect(context.object(with: first[0].objectID) === first[0])
    }

    @Test func faultsFireFromTheRowCacheThenTheStore() throws {
        try makeRecipe("A")
        try context.save()
        let reader = MainContext(coordinator: coordinator)
        let recipe = try reader.fetch(FetchRequest(entityName: "Recipe"))[0]
        #expect(recipe.isFault)
        let before = reader.statistics
        #expect(recipe["name"] as? String == "A")
        let cost = reader.statistics - before
        #expect(cost.faultsFired == 1)
        #expect(cost.statements == 0)  // the fetch left the row in the coordinator's row cache
        #expect(!recipe.isFault)

        let third = MainContext(coordinator: coordinator)
        coordinator.rowCache.removeAll()
        let fault = third.object(with: recipe.objectID)
        let start = third.statistics
        #expect(fault["name"] as? String == "A")
        #expect((third.statistics - start).statements == 1)
    }

    @Test func populatedFetchNeedsNoFaults() throws {
        try makeRecipe("A")
        try context.save()
        let reader = MainContext(coordinator: coordinator)
        var request = FetchRequest(entityName: "Recipe")
        request.returnsObjectsAsFaults = false
        let recipe = try reader.fetch(request)[0]
        #expect(!recipe.isFault)
        let before = reader.statistics
        #expect(recipe["name"] as? String == "A")
        #expect((reader.statistics - before).faultsFired == 0)
    }

    @Test("objectsRealized counts each object whose values loaded once: fired faults, populated fetches, prefetched and existing objects; not faults never read")
    func realizedObjects() throws {
        let chef = try context.insert("Chef")
        chef["name"] = "Ana"
        for name in ["A", "B", "C"] { try makeRecipe(name, chef: chef, lines: 2) }
        try context.save()
        let reader = MainContext(coordinator: coordinator)
        func realized(_ work: () throws -> Void) rethrows -> (realized: Int, created: Int) {
            let before = reader.statistics
            try work()
            let cost = reader.statistics - before
            return (cost.objectsRealized, cost.objectsCreated)
        }
        // Faults made and never read, and the IDs and count they came from: nothing realized.
        let unread = try realized {
            for id in try reader.fetchObjectIDs(FetchRequest(entityName: "Line")) { _ = reader.object(with: id) }
            _ = try reader.fetch(FetchRequest(entityName: "Recipe"))
            _ = try reader.count(for: FetchRequest(entityName: "Line"))
        }
        #expect(unread.realized == 0 && unread.created == 9)
        // Each of those faults read, once, however it loads (prefilled, row cache, store).
        let fired = try realized {
            for recipe in try reader.fetch(FetchRequest(entityName: "Recipe")) { _ = recipe["name"]; _ = recipe["name"] }
            coordinator.rowCache.removeAll()
            for line in try reader.fetch(FetchRequest(entityName: "Line")) { _ = line["text"] }
        }
        #expect(fired.realized == 9)
        // A populated fetch and a prefetch realize what they fill; objects already loaded do not count again.
        let other = MainContext(coordinator: coordinator)
        var populated = FetchRequest(entityName: "Recipe")
        populated.returnsObjectsAsFaults = false
        populated.relationshipKeyPathsForPrefetching = ["lines"]
        let start = other.statistics
        let recipes = try other.fetch(populated)
        _ = try other.fetch(populated)
        #expect((other.statistics - start).objectsRealized == 9)
        withExtendedLifetime(recipes) {}
        // existingObject(with:) loads a fault at once.
        let third = MainContext(coordinator: coordinator)
        let before = third.statistics
        _ = try third.existingObject(with: chef.objectID)
        #expect((third.statistics - before).objectsRealized == 1)
    }

    @Test func temporaryIDsBecomePermanentOnSave() throws {
        let recipe = try makeRecipe("A")
        let temporary = recipe.objectID
        #expect(temporary.isTemporary)
        let result = try context.save()
        #expect(!recipe.objectID.isTemporary)
        #expect(result.insertedIDs == [recipe.objectID])
        #expect(context.object(with: recipe.objectID) === recipe)
    }

    @Test func obtainPermanentIDsBeforeSaving() throws {
        let recipe = try makeRecipe("A")
        try context.obtainPermanentIDs(for: [recipe])
        let id = recipe.objectID
        #expect(!id.isTemporary && recipe.isInserted)
        try context.save()
        #expect(recipe.objectID == id)
        let other = MainContext(coordinator: coordinator)
        #expect(try other.existingObject(with: id)["name"] as? String == "A")
    }

    @Test func uriRoundTrips() throws {
        let recipe = try makeRecipe("A")
        try context.save()
        let uri = coordinator.uri(for: recipe.objectID)
        #expect(uri.absoluteString.hasPrefix("x-objectgraph://"))
        #expect(uri.absoluteString.hasSuffix("/Recipe/p\(recipe.objectID.key)"))
        #expect(coordinator.objectID(forURI: uri) == recipe.objectID)
        #expect(coordinator.objectID(forURI: URL(string: "x-objectgraph://other/Recipe/p1")!) == nil)
        #expect(context.model.objectID(describedAs: context.model.describe(recipe.objectID)) == recipe.objectID)
        #expect(context.model.objectID(describedAs: "Recipie/p1") == nil)
    }

    @Test func rollbackRestoresSavedValuesAndDropsInserts() throws {
        let recipe = try makeRecipe("A")
        try context.save()
        recipe["name"] = "B"
        let extra = try makeRecipe("C")
        context.rollback()
        #expect(recipe["name"] as? String == "A")
        #expect(!recipe.hasChanges && !context.hasChanges)
        #expect(!extra.isRegistered)
        #expect(try context.count(for: FetchRequest(entityName: "Recipe")) == 1)
    }

    @Test func resetDetachesObjects() throws {
        let recipe = try makeRecipe("A")
        try context.save()
        context.reset()
        #expect(!recipe.isRegistered)
        #expect(recipe["name"] as? String == "A")  // detached objects keep their values
        let again = try context.fetch(FetchRequest(entityName: "Recipe"))[0]
        #expect(again !== recipe)
        #expect(context.registeredObjects.count == 1)
    }

    @Test func unchangedObjectsAreHeldWeaklyChangedOnesStrongly() throws {
        try makeRecipe("A")
        try makeRecipe("B")
        try context.save()
        do {
            let recipes = try context.fetch(FetchRequest(entityName: "Recipe"))
            #expect(recipes.count == 2)
            #expect(context.registeredObjects.count == 2)
            recipes[0]["name"] = "changed"
        }
        // The unchanged one is gone once the caller dropped it; the changed one survives.
        #expect(context.registeredObjects.count == 1)
        #expect(context.updatedObjects.count == 1)
        try context.save()
        #expect(context.registeredObjects.isEmpty)
    }

    @Test func toManyFaultsAndInverses() throws {
        let chef = try context.insert("Chef")
        chef["name"] = "Ana"
        let recipe = try makeRecipe("A", chef: chef, lines: 3)
        try context.save()
        #expect(try recipe.objects(forKey: "lines").map { $0["position"] as? Int } == [0, 1, 2])
        let reader = MainContext(coordinator: coordinator)
        let fetchedChef = try reader.fetch(FetchRequest(entityName: "Chef"))[0]
        let before = reader.statistics
        let recipes = try fetchedChef.objects(forKey: "recipes")
        #expect(recipes.count == 1)
        #expect((reader.statistics - before).relationshipFaultsFired == 1)
        // Moving a line to another recipe updates both sides.
        let other = try reader.insert("Recipe")
        other["name"] = "B"
        let line = try recipes[0].objects(forKey: "lines")[0]
        line["recipe"] = other
        #expect(try recipes[0].objects(forKey: "lines").count == 2)
        #expect(try other.objects(forKey: "lines").count == 1)
        try reader.save()
        let third = MainContext(coordinator: coordinator)
        var request = FetchRequest(entityName: "Recipe")
        request.sortKeys = [SortKey("name")]
        let all = try third.fetch(request)
        #expect(try all.map { try $0.objects(forKey: "lines").count } == [2, 1])
    }

    @Test("A to-many fault of one object, fired by a read or by a cascade, leaves out a loaded line moved to another recipe")
    func toManyFaultOfOneSourceLeavesOutMovedLines() throws {
        try makeRecipe("A", lines: 3)
        try makeRecipe("B")
        try context.save()
        let reader = MainContext(coordinator: coordinator)
        var byName = FetchRequest(entityName: "Recipe")
        byName.sortKeys = [SortKey("name")]
        let recipes = try reader.fetch(byName)
        var linesRequest = FetchRequest(entityName: "Line")
        linesRequest.returnsObjectsAsFaults = false
        linesRequest.sortKeys = [SortKey("position")]
        let lines = try reader.fetch(linesRequest)
        lines[0]["recipe"] = recipes[1]  // A's lines are still a fault; the store says A
        // Refreshing A drops the removal A recorded: only the line itself says it moved.
        reader.refresh(recipes[0], mergeChanges: false)
        #expect(try recipes[0].objects(forKey: "lines").count == 2)
        #expect(try recipes[1].objects(forKey: "lines") == [lines[0]])

        // The same through a delete rule: the cascade from A spares the moved line.
        let deleter = MainContext(coordinator: coordinator)
        let fresh = try deleter.fetch(byName)
        let moved = try deleter.fetch(linesRequest)[0]
        moved["recipe"] = fresh[1]
        deleter.delete(fresh[0])
        try deleter.save()
        let after = MainContext(coordinator: coordinator)
        let left = try after.fetch(FetchRequest(entityName: "Line"))
        #expect(left.count == 1)
        #expect((left.first?["recipe"] as? ManagedObject)?["name"] as? String == "B")
    }

    @Test func toManyChangesWhileFaultAreKept() throws {
        let chef = try context.insert("Chef")
        chef["name"] = "Ana"
        try context.save()
        let reader = MainContext(coordinator: coordinator)
        let fetchedChef = try reader.fetch(FetchRequest(entityName: "Chef"))[0]
        let recipe = try reader.insert("Recipe")
        recipe["name"] = "New"
        let before = reader.statistics
        recipe["chef"] = fetchedChef  // the inverse is a fault: recorded, not fired
        #expect((reader.statistics - before).relationshipFaultsFired == 0)
        #expect(try fetchedChef.objects(forKey: "recipes") == [recipe])
    }

    @Test func manyToManyRelationships() throws {
        let tag = try context.insert("Tag")
        tag["label"] = "quick"
        let a = try makeRecipe("A"), b = try makeRecipe("B")
        try a.add(tag, toKey: "tags")
        try b.add(tag, toKey: "tags")
        #expect(try tag.objects(forKey: "recipes").count == 2)
        try context.save()
        let reader = MainContext(coordinator: coordinator)
        let fetchedTag = try reader.fetch(FetchRequest(entityName: "Tag"))[0]
        let names = try fetchedTag.objects(forKey: "recipes").compactMap { $0["name"] as? String }.sorted()
        #expect(names == ["A", "B"])
        let recipeA = try fetchedTag.objects(forKey: "recipes").first { $0["name"] as? String == "A" }!
        try recipeA.remove(fetchedTag, fromKey: "tags")
        try reader.save()
        let third = MainContext(coordinator: coordinator)
        #expect(try third.fetch(FetchRequest(entityName: "Tag"))[0].objects(forKey: "recipes").count == 1)
    }

    @Test func cascadeDeletesThroughSeveralLevels() throws {
        let recipe = try makeRecipe("A", lines: 3)
        let photo = try context.insert("Photo")
        photo["recipe"] = recipe
        try context.save()
        context.delete(recipe)
        #expect(context.deletedObjects.count == 5)
        try context.save()
        #expect(try context.count(for: FetchRequest(entityName: "Line")) == 0)
        #expect(try context.count(for: FetchRequest(entityName: "Media")) == 0)
    }

    @Test func denyBlocksSaveUntilTheDestinationsAreGone() throws {
        let chef = try context.insert("Chef")
        chef["name"] = "Ana"
        let recipe = try makeRecipe("A", chef: chef)
        try context.save()
        context.delete(chef)
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.code == .validation)
        #expect(error.message.contains("'recipes' denies deletion"))
        #expect(try context.count(for: FetchRequest(entityName: "Chef")) == 0)  // pending delete counts
        context.rollback()
        #expect(try context.count(for: FetchRequest(entityName: "Chef")) == 1)
        context.delete(recipe)
        context.delete(chef)
        try context.save()
        #expect(try context.count(for: FetchRequest(entityName: "Chef")) == 0)
    }

    @Test("A deleted object keeps no copy of its values until one changes; rollback gives back the saved ones either way")
    func deletedObjectsSnapshotOnlyWhenChanged() throws {
        let recipe = try makeRecipe("A", lines: 2)
        try context.save()
        let lines = try recipe.objects(forKey: "lines").sorted { ($0["position"] as! Int) < ($1["position"] as! Int) }
        let (kept, edited) = (lines[0], lines[1])
        context.delete(kept)
        context.delete(edited)
        #expect(context.core.snapshot(of: kept) == nil && context.core.snapshot(of: edited) == nil)
        edited["text"] = "edited after the delete"
        #expect(context.core.snapshot(of: kept) == nil && context.core.snapshot(of: edited) != nil)
        #expect(edited.committedValues(forKeys: ["text"])["text"] as? String == "A line 1")
        #expect(kept.committedValues(forKeys: ["text"])["text"] as? String == "A line 0")
        context.rollback()
        #expect(!kept.isDeleted && !edited.isDeleted && !context.hasChanges)
        #expect(kept["text"] as? String == "A line 0" && edited["text"] as? String == "A line 1")
        #expect(try recipe.objects(forKey: "lines").count == 2)
        // Changed through its inverse: taking the deleted line out of the recipe clears its `recipe`.
        context.delete(kept)
        try recipe.remove(kept, fromKey: "lines")
        #expect(kept["recipe"] == nil && context.core.snapshot(of: kept) != nil)
        context.rollback()
        #expect((kept["recipe"] as? ManagedObject) === recipe && !kept.isDeleted)
        #expect(try recipe.objects(forKey: "lines").count == 2)
        context.delete(recipe)  // the lines cascade
        #expect(context.deletedObjects.count == 3)
        try context.save()
        #expect(try context.count(for: FetchRequest(entityName: "Line")) == 0)
    }

    @Test func nullifyClearsTheInverse() throws {
        let chef = try context.insert("Chef")
        chef["name"] = "Ana"
        let recipe = try makeRecipe("A", chef: chef)
        try context.save()
        context.delete(recipe)
        #expect(try chef.objects(forKey: "recipes").isEmpty)
        try context.save()
        let reader = MainContext(coordinator: coordinator)
        #expect(try reader.fetch(FetchRequest(entityName: "Chef"))[0].objects(forKey: "recipes").isEmpty)
    }

    @Test func validationNamesTheProblemAndSavesNothing() throws {
        let transactions = coordinator.sqliteStore.connectionStatistics.transactions
        _ = try context.insert("Recipe")  // no name
        let line = try context.insert("Line")
        line["text"] = "orphan"
        line["position"] = 0
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.code == .validation)
        #expect(error.message.contains("required attribute 'name' is nil"))
        #expect(error.message.contains("required relationship 'recipe' is nil"))
        #expect(context.hasChanges)
        #expect(coordinator.sqliteStore.connectionStatistics.transactions == transactions)
    }

    @Test func inheritanceFetchesIncludeSubentities() throws {
        let recipe = try makeRecipe("A")
        for index in 0..<3 {
            let photo = try context.insert("Photo")
            photo["caption"] = "photo \(index)"
            photo["recipe"] = recipe
        }
        let video = try context.insert("Video")
        video["seconds"] = 12.5
        video["recipe"] = recipe
        try context.save()
        let reader = MainContext(coordinator: coordinator)
        #expect(try reader.count(for: FetchRequest(entityName: "Media")) == 4)
        #expect(try reader.count(for: FetchRequest(entityName: "Photo")) == 3)
        var exact = FetchRequest(entityName: "Media")
        exact.includesSubentities = false
        #expect(try reader.count(for: exact) == 0)
        let media = try reader.fetch(FetchRequest(entityName: "Media"))
        #expect(Set(media.map(\.entity.name)) == ["Photo", "Video"])
        let fetchedVideo = media.first { $0.entity.name == "Video" }!
        #expect(fetchedVideo["seconds"] as? Double == 12.5)
        #expect((fetchedVideo["recipe"] as? ManagedObject)?["name"] as? String == "A")
        let recipeMedia = try (fetchedVideo["recipe"] as! ManagedObject).objects(forKey: "media")
        #expect(recipeMedia.count == 4)
    }

    @Test func sortLimitOffsetAndPendingChanges() throws {
        for (name, rating) in [("b", 3.0), ("a", 5.0), ("c", 1.0), ("d", 4.0)] {
            try makeRecipe(name)["rating"] = rating
        }
        try context.save()
        var request = FetchRequest(entityName: "Recipe")
        request.sortKeys = [SortKey("rating", ascending: false)]
        request.fetchLimit = 2
        request.fetchOffset = 1
        #expect(try context.fetch(request).map { $0["name"] as! String } == ["d", "b"])
        #expect(try context.count(for: request) == 2)
        // Unsaved changes take part: a new best recipe, and one deleted.
        try makeRecipe("e")["rating"] = 4.5
        let all = try context.fetch(FetchRequest(entityName: "Recipe"))
        context.delete(all.first { $0["name"] as? String == "d" }!)
        #expect(try context.fetch(request).map { $0["name"] as! String } == ["e", "b"])
        #expect(try context.count(for: FetchRequest(entityName: "Recipe")) == 4)
    }

    @Test func refreshTurnsObjectsBackIntoFaults() throws {
        let recipe = try makeRecipe("A", lines: 2)
        try context.save()
        _ = try recipe.objects(forKey: "lines")
        context.refresh(recipe, mergeChanges: false)
        #expect(recipe.isFault)
        #expect(recipe["name"] as? String == "A")
        recipe["name"] = "B"
        context.refresh(recipe, mergeChanges: true)
        #expect(recipe["name"] as? String == "B" && recipe.isUpdated)
        context.refresh(recipe, mergeChanges: false)
        #expect(recipe["name"] as? String == "A" && !recipe.hasChanges)
    }

    @Test func unknownNamesGiveSpecificErrors() throws {
        let entityError = try #require(throws: ObjectGraphError.self) { try context.insert("Recipie") }
        #expect(entityError.code == .unknownEntity)
        #expect(entityError.message == "unknown entity 'Recipie'; did you mean 'Recipe'?")
        let recipe = try makeRecipe("A")
        let keyError = try #require(throws: ObjectGraphError.self) { try recipe.value(forKey: "nmae") }
        #expect(keyError.code == .unknownKey)
        #expect(keyError.message.contains("did you mean 'name'?"))
        let valueError = try #require(throws: ObjectGraphError.self) { try recipe.setValue("many", forKey: "servings") }
        #expect(valueError.code == .invalidValue)
        var request = FetchRequest(entityName: "Recipe")
        request.sortKeys = [SortKey("ratng")]
        #expect(throws: ObjectGraphError.self) { try context.fetch(request) }
    }

    @Test("A name that differs only in case suggests the model's spelling")
    func namesDifferingInCaseGetASuggestion() throws {
        let entityError = try #require(throws: ObjectGraphError.self) { try context.insert("recipe") }
        #expect(entityError.message == "unknown entity 'recipe'; did you mean 'Recipe'?")
        let recipe = try makeRecipe("A")
        let keyError = try #require(throws: ObjectGraphError.self) { try recipe.value(forKey: "Name") }
        #expect(keyError.message.hasSuffix("did you mean 'name'?"), "\(keyError.message)")
    }

    @Test func existingObjectThrowsForMissingRows() throws {
        let recipe = try makeRecipe("A")
        try context.save()
        let id = recipe.objectID
        context.delete(recipe)
        try context.save()
        let error = try #require(throws: ObjectGraphError.self) {
            try MainContext(coordinator: coordinator).existingObject(with: id)
        }
        #expect(error.code == .objectNotFound)
    }

    @Test func privateContextsShareOnlyIDs() async throws {
        let importer = PrivateContext(coordinator: coordinator)
        let ids = try await importer.perform { context in
            var ids: [ObjectID] = []
            for index in 0..<10 {
                let recipe = try context.insert("Recipe")
                recipe["name"] = "R\(index)"
                ids.append(recipe.objectID)
            }
            try context.save()
            return try context.fetch(FetchRequest(entityName: "Recipe")).map(\.objectID)
        }
        #expect(ids.count == 10)
        #expect(context.object(with: ids[3])["name"] as? String == "R3")
    }
}

/// Resetting a context whose objects hold each other only through relationships: releasing
/// one may end another's life while the registry is being emptied.
@MainActor
@Test("reset() detaches every object, even when detaching releases others")
func resetDetachesEverythingWhileReleasing() throws {
    let coordinator = try TestModel.coordinator()
    let writer = MainContext(coordinator: coordinator)
    for index in 0..<3_000 {
        let recipe = try writer.insert("Recipe")
        recipe["name"] = "r\(index)"
        let line = try writer.insert("Line")
        line["text"] = "l\(index)"
        line["position"] = 0
        line["recipe"] = recipe
    }
    try writer.save()
    let context = MainContext(coordinator: coordinator)
    var request = FetchRequest(entityName: "Line")
    request.returnsObjectsAsFaults = false
    request.relationshipKeyPathsForPrefetching = ["recipe"]
    var kept: [ManagedObject] = []
    do {
        let lines = try context.fetch(request)
        // Every line and its recipe hold each other (a cycle); every other line is kept
        // here, the rest live only in their cycles, which detaching breaks.
        for (index, line) in lines.enumerated() {
            let recipe = try #require(line["recipe"] as? ManagedObject)
            _ = try recipe.objects(forKey: "lines")
            if index % 2 == 0 { kept.append(line) }
        }
    }
    #expect(context.statistics.registeredObjects == 6_000)
    context.reset()
    #expect(kept.allSatisfy { !$0.isRegistered })
    #expect(context.statistics.registeredObjects == 0)
}
