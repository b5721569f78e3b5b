import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Mistakes a newcomer makes with the API: each throws an error that names the problem,
/// where a trap, a silent success or a misleading message used to be.
@MainActor
struct APIMistakeTests {
    private let scratch: ScratchDirectory

    init() throws { scratch = try ScratchDirectory("og-mistakes") }

    func path(_ name: String) -> String { scratch.url.appendingPathComponent(name).path }

    @Test("Inserting an abstract entity by name throws, naming the sub-entities to insert (it trapped)")
    func insertAbstractEntity() async throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let error = try #require(throws: ObjectGraphError.self) { _ = try MainContext(coordinator: coordinator).insert("Media") }
        #expect(error.code == .invalidValue && error.message == "entity 'Media' is abstract: insert one of its sub-entities, such as Photo or Video")
        let background = PrivateContext(coordinator: coordinator)
        let message = await background.perform { context -> String? in
            do { _ = try context.insert("Media") } catch let error as ObjectGraphError { return error.message } catch {}
            return nil
        }
        #expect(message == error.message)
    }

    @Test("With no store added, a save throws and keeps its changes, and fetches and batch requests throw")
    func noStore() throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let context = MainContext(coordinator: coordinator)
        let tag = try context.insert("Tag")
        tag["label"] = "kept"
        let message = "the coordinator has no store: add one with addStore(at:) (or addStore(type:at:)) before fetching or saving"
        for attempt in [
            { _ = try context.save() },
            { _ = try context.fetch(FetchRequest(entityName: "Tag")) },
            { _ = try context.count(for: FetchRequest(entityName: "Tag")) },
            { _ = try context.fetchObjectIDs(FetchRequest(entityName: "Tag")) },
            { _ = try context.execute(BatchDeleteRequest(entityName: "Tag")) },
            { _ = try context.execute(BatchUpdateRequest(entityName: "Tag", propertiesToUpdate: ["label": "x"])) },
            { _ = try context.execute(BatchInsertRequest(entityName: "Tag", objects: [["label": "x"]])) },
        ] as [() throws -> Void] {
            let error = try #require(throws: ObjectGraphError.self) { try attempt() }
            #expect(error.code == .storeFailure && error.message == message)
        }
        #expect(context.hasChanges && tag.isInserted, "the failed save kept the insert")
        try coordinator.addStore(at: path("late.sqlite"))
        try context.save()
        #expect(try context.count(for: FetchRequest(entityName: "Tag")) == 1)
    }

    @Test("A relationship set to an object of another context, or a detached one, throws instead of trapping")
    func objectsOfOtherContexts() throws {
        let coordinator = try TestModel.coordinator(path: path("two.sqlite"))
        let first = MainContext(coordinator: coordinator), second = MainContext(coordinator: coordinator)
        let chef = try first.insert("Chef")
        chef["name"] = "Ana"
        let recipe = try second.insert("Recipe")
        let error = try #require(throws: ObjectGraphError.self) { try recipe.setValue(chef, forKey: "chef") }
        #expect(error.code == .invalidValue && error.message.contains("belongs to another context"), "\(error.message)")
        #expect(throws: ObjectGraphError.self) { try recipe.add(try first.insert("Tag"), toKey: "tags") }
        second.reset()
        let tag = try first.insert("Tag")
        let detached = try #require(throws: ObjectGraphError.self) { try tag.setValue([recipe], forKey: "recipes") }
        #expect(detached.message.contains("no longer belongs to a context"), "\(detached.message)")
        // A change to a detached object would be recorded nowhere: it throws instead of being lost.
        let lost = try #require(throws: ObjectGraphError.self) { try recipe.setValue("Lost", forKey: "name") }
        #expect(lost.message.hasPrefix("Recipe/t"), "\(lost.message)")
        #expect(lost.message.contains("no longer belongs to a context (reset() detached it"), "\(lost.message)")
        #expect(throws: ObjectGraphError.self) { try recipe.setValue(parsing: "5", forKey: "servings") }
        #expect(throws: ObjectGraphError.self) { try recipe.add(tag, toKey: "tags") }
    }

    @Test("The same SQLite file added twice, by any spelling, is refused; the coordinator keeps working")
    func sameStoreTwice() throws {
        let file = path("twice.sqlite")
        let coordinator = try TestModel.coordinator(path: file)
        try FileManager.default.createSymbolicLink(atPath: path("link.sqlite"), withDestinationPath: "twice.sqlite")
        for spelling in [file, path("link.sqlite")] {
            let error = try #require(throws: ObjectGraphError.self) { try coordinator.addStore(at: spelling) }
            #expect(error.code == .storeFailure)
            #expect(error.message.hasPrefix("the store at '\(spelling)' is already added to this coordinator"), "\(error.message)")
        }
        #expect(coordinator.stores.count == 1)
        let context = MainContext(coordinator: coordinator)
        try context.insert("Tag")["label"] = "saved at once"
        try context.save()
    }

    @Test("existingObject(with:) throws for a registered object whose row another context deleted")
    func existingObjectOfADeletedRow() throws {
        let coordinator = try TestModel.coordinator(path: path("gone.sqlite"))
        let context = MainContext(coordinator: coordinator), other = MainContext(coordinator: coordinator)
        try context.insert("Tag")["label"] = "soon gone"
        try context.save()
        let id = try context.fetchObjectIDs(FetchRequest(entityName: "Tag"))[0]
        context.reset()
        let fault = context.object(with: id)
        other.delete(other.object(with: id))
        try other.save()
        #expect(fault["label"] == nil && fault.isInaccessible)
        let error = try #require(throws: ObjectGraphError.self) { try context.existingObject(with: id) }
        #expect(error.code == .objectNotFound && error.message.contains("another context or process deleted it"), "\(error.message)")
    }

    @Test("Batch updates name a derived, transient or relationship key as such, and a broken uniqueness with its value")
    func batchUpdateKeys() throws {
        let model = try TestModel.make(chefAttributes: [AttributeDescription("recipeCount", .integer32, derivedFrom: "recipes.@count")])
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(at: path("batch.sqlite"))
        let context = MainContext(coordinator: coordinator)
        for name in ["Ana", "Bo"] { try context.insert("Chef")["name"] = name }
        try context.insert("Recipe")["name"] = "Soup"
        try context.save()
        func message(_ entity: String, _ values: [String: any Sendable]) throws -> String {
            try #require(throws: ObjectGraphError.self) {
                try context.execute(BatchUpdateRequest(entityName: entity, propertiesToUpdate: values))
            }.message
        }
        #expect(try message("Chef", ["recipeCount": 9])
                == "'Chef.recipeCount' is derived (recipes.@count) and computed by the framework; change 'recipes' instead")
        #expect(try message("Recipe", ["note": "x"]) == "'Recipe.note' is transient: it is never stored, so a batch update cannot set it")
        #expect(try message("Recipe", ["chef": "x"])
                == "'Recipe.chef' is a relationship: a batch update sets attributes only; change it through a context")
        let unique = try #require(throws: ObjectGraphError.self) {
            try context.execute(BatchUpdateRequest(entityName: "Chef", propertiesToUpdate: ["name": "Ana"]))
        }
        #expect(unique.code == .constraintViolation)
        #expect(unique.message == "cannot update Chef: another Chef would have name = Ana too, and it is unique; nothing was updated")
        #expect(try context.fetch(FetchRequest(entityName: "Chef", sortKeys: [SortKey("name")])).map { $0["name"] as? String }
                == ["Ana", "Bo"])
    }

    @Test("add(_:toKey:) with an attribute says so; a key path error points at the key path, not a predicate")
    func wrongKinds() throws {
        let context = MainContext(coordinator: try TestModel.coordinator())
        let recipe = try context.insert("Recipe"), tag = try context.insert("Tag")
        let error = try #require(throws: ObjectGraphError.self) { try recipe.add(tag, toKey: "name") }
        #expect(error.message == "'Recipe.name' is an attribute, not a to-many relationship; its to-many relationships: 'lines', 'tags', 'media'")
        let sort = try #require(throws: PredicateSyntaxError.self) {
            try context.fetch(FetchRequest(entityName: "Recipe", sortKeys: [SortKey("chef.nmae")]))
        }
        #expect(sort.description.contains(" --> key path:1:6"), "\(sort.description)")
    }

    @Test("A negative fetch limit or offset is an error, not a silent 'no limit'")
    func negativeWindow() throws {
        let context = MainContext(coordinator: try TestModel.coordinator())
        var request = FetchRequest(entityName: "Tag")
        request.fetchLimit = -1
        let limit = try #require(throws: ObjectGraphError.self) { try context.fetch(request) }
        #expect(limit.message == "fetchLimit is -1; it must be 0 or more (a fetchLimit of 0 means no limit)")
        request.fetchLimit = 0
        request.fetchOffset = -5
        let offset = try #require(throws: ObjectGraphError.self) { try context.count(for: request) }
        #expect(offset.code == .invalidValue && offset.message.hasPrefix("fetchOffset is -5"))
    }

    @Test("Store metadata of a missing path or a folder names it")
    func metadataOfNothing() throws {
        let missing = try #require(throws: ObjectGraphError.self) { try SQLiteStore.metadata(ofStoreAt: path("nothere.sqlite")) }
        #expect(missing.message == "cannot read the store at '\(path("nothere.sqlite"))': there is no file there")
        let folder = try #require(throws: ObjectGraphError.self) {
            try SQLiteStore.isStore(at: scratch.url.path, compatibleWith: TestModel.make())
        }
        #expect(folder.message == "cannot read the store at '\(scratch.url.path)': it is a directory")
    }
}
