import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite
import ObjectGraphSQL

@MainActor
struct StoreErrorTests {
    let directory: URL
    /// Removes the test's directory when the suite value goes, after the test.
    private let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("og-store")
        directory = scratch.url
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    @Test func aFileThatIsNotSQLiteIsRejected() throws {
        let file = path("notes.sqlite")
        try Data("these are my notes, not a database\n".utf8).write(to: URL(fileURLWithPath: file))
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let error = try #require(throws: ObjectGraphError.self) { try coordinator.addStore(at: file) }
        #expect(error.code == .notADatabase)
        #expect(error.message.contains(file))
    }

    @Test("A store in a folder that does not exist says so, naming the path")
    func aMissingFolderIsNamed() throws {
        let file = path("no-such-folder/recipes.sqlite")
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let error = try #require(throws: ObjectGraphError.self) { try coordinator.addStore(at: file) }
        #expect(error.message == "cannot open the store at '\(file)': the folder '\(path("no-such-folder"))' does not exist; create it or choose another path")
    }

    @Test("SQLite's extended result codes map to named primary codes")
    func resultCodesAreNamed() {
        #expect(SQLiteError(code: 2067, message: "", sql: nil).result == .constraint)  // SQLITE_CONSTRAINT_UNIQUE
        #expect(SQLiteError(code: 517, message: "", sql: nil).result == .busy)         // SQLITE_BUSY_SNAPSHOT
        #expect(SQLiteError(code: 26, message: "", sql: nil).result == .notADatabase)
        #expect(SQLiteError(code: 9, message: "", sql: nil).isInterrupt)
    }

    @Test func aSQLiteFileOfAnotherProgramIsRejected() throws {
        let file = path("other.sqlite")
        let connection = try SQLiteConnection(path: file)
        try connection.execute("CREATE TABLE people (name TEXT)")
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let error = try #require(throws: ObjectGraphError.self) { try coordinator.addStore(at: file) }
        #expect(error.code == .notADatabase)
        #expect(error.message.contains("not an ObjectGraph store"))
    }

    @Test func aLockedStoreReportsTheLockAndKeepsTheChanges() throws {
        let file = path("locked.sqlite")
        _ = try TestModel.coordinator(path: file)
        var options = SQLiteStore.Options()
        options.busyTimeout = .milliseconds(50)
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        try coordinator.addStore(at: file, options: options)
        let context = MainContext(coordinator: coordinator)
        let recipe = try context.insert("Recipe")
        recipe["name"] = "A"
        let blocker = try SQLiteConnection(path: file)
        try blocker.execute("BEGIN EXCLUSIVE")
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.code == .storeLocked)
        #expect(error.message.contains("is locked") && error.message.contains("waited 50 ms"))
        #expect(recipe.isInserted && recipe.objectID.isTemporary)
        try blocker.execute("ROLLBACK")
        try context.save()
        #expect(!recipe.objectID.isTemporary)
    }

    @Test func aStoreOfAnotherModelNamesTheEntitiesThatDiffer() throws {
        let file = path("model.sqlite")
        _ = try TestModel.coordinator(path: file)
        let changed = try ObjectModel(entities: [
            EntityDescription("Chef", attributes: [AttributeDescription("name", .string),
                                                   AttributeDescription("born", .date, isOptional: true)],
                              relationships: []),
            EntityDescription("Kitchen", attributes: [AttributeDescription("name", .string)]),
        ])
        let coordinator = PersistentStoreCoordinator(model: changed)
        let error = try #require(throws: ObjectGraphError.self) { try coordinator.addStore(at: file) }
        #expect(error.code == .modelMismatch)
        #expect(error.message.contains("Chef changed (attribute 'born' added; relationship 'recipes' removed; uniqueness constraints changed)"), "\(error.message)")
        #expect(error.message.contains("Kitchen is new in the model"), "\(error.message)")
        #expect(error.message.contains("only in the store: Line, Media, Photo, Recipe, Tag, Video"), "\(error.message)")
    }

    @Test("A model that changed two entities of seven names exactly those two, and what changed")
    func aMismatchNamesOnlyWhatChanged() throws {
        let file = path("two.sqlite")
        _ = try TestModel.coordinator(path: file)
        let changed = try TestModel.make(
            chefAttributes: [AttributeDescription("born", .date, isOptional: true)], linePosition: .integer64)
        let error = try #require(throws: ObjectGraphError.self) {
            try PersistentStoreCoordinator(model: changed).addStore(at: file)
        }
        #expect(error.code == .modelMismatch)
        #expect(error.message.contains("Chef changed (attribute 'born' added)"), "\(error.message)")
        #expect(error.message.contains("Line changed (attribute 'position' changed from Int32 to Int64)"), "\(error.message)")
        for unchanged in ["Recipe", "Tag", "Media", "Photo", "Video"] {
            #expect(!error.message.contains(unchanged), "\(unchanged) did not change: \(error.message)")
        }
        try PersistentStoreCoordinator(model: TestModel.make()).addStore(at: file)  // the same model still opens
    }

    @Test func aCorruptStoreSaysSoAndNothingCrashes() throws {
        let file = path("corrupt.sqlite")
        do {
            let coordinator = try TestModel.coordinator(path: file)
            let context = MainContext(coordinator: coordinator)
            for index in 0..<2_000 { try context.insert("Tag")["label"] = "tag \(index) " + String(repeating: "x", count: 80) }
            try context.save()
        }  // closing the last connection checkpoints the WAL into the file
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        for page in stride(from: 4096 * 4, to: bytes.count, by: 4096) {
            bytes.replaceSubrange(page..<(page + 200), with: Data(repeating: 7, count: 200))
        }
        try bytes.write(to: URL(fileURLWithPath: file))
        let error = try #require(throws: ObjectGraphError.self) {
            let coordinator = try TestModel.coordinator(path: file)
            _ = try MainContext(coordinator: coordinator).fetch(FetchRequest(entityName: "Tag"))
        }
        #expect(error.code == .notADatabase)
        #expect(error.message.contains("is corrupt"))
    }

    @Test func reopeningKeepsDataAndMetadata() throws {
        let file = path("reopen.sqlite")
        var identifier = ""
        do {
            let coordinator = try TestModel.coordinator(path: file)
            let store = coordinator.stores[0]
            identifier = store.identifier
            try store.setMetadata("line 1200", forKey: "importPosition")
            let context = MainContext(coordinator: coordinator)
            try context.insert("Chef")["name"] = "Ana"
            try context.save()
        }
        let coordinator = try TestModel.coordinator(path: file)
        #expect(coordinator.stores[0].identifier == identifier)
        #expect(coordinator.stores[0].metadata["importPosition"] == "line 1200")
        #expect(try MainContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Chef")) == 1)
        try coordinator.stores[0].setMetadata(nil, forKey: "importPosition")
        #expect(coordinator.stores[0].metadata["importPosition"] == nil)
    }

    @Test func aConstraintViolationLeavesStoreAndContextAsTheyWere() throws {
        let coordinator = try TestModel.coordinator()
        let context = MainContext(coordinator: coordinator)
        try context.insert("Chef")["name"] = "Ana"
        try context.save()
        let duplicate = try context.insert("Chef")
        duplicate["name"] = "Ana"
        let recipe = try context.insert("Recipe")
        recipe["name"] = "Soup"
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.code == .constraintViolation)
        #expect(error.message.contains("Chef"))
        #expect(error.message.contains("name = Ana"))
        // Nothing of the failed save reached the store, and the context still has its changes.
        let reader = MainContext(coordinator: coordinator)
        #expect(try reader.count(for: FetchRequest(entityName: "Recipe")) == 0)
        #expect(duplicate.objectID.isTemporary && recipe.objectID.isTemporary)
        #expect(context.hasChanges)
        duplicate["name"] = "Bea"
        try context.save()
        #expect(try reader.count(for: FetchRequest(entityName: "Chef")) == 2)
    }

    @Test("A constraint that fails inside a many-row INSERT names the row at fault, and saves none of the rows")
    func aConstraintViolationAmongManyRows() throws {
        let coordinator = try TestModel.coordinator()
        let context = MainContext(coordinator: coordinator)
        try context.insert("Chef")["name"] = "Ana"
        try context.save()
        var chefs: [ManagedObject] = []
        for index in 0..<120 {
            let chef = try context.insert("Chef")
            chef["name"] = index == 77 ? "Ana" : "Chef \(index)"  // in the second statement of fifty
            chefs.append(chef)
        }
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.code == .constraintViolation)
        #expect(error.message.contains("Chef") && error.message.contains("name = Ana"), "\(error.message)")
        let reader = MainContext(coordinator: coordinator)
        #expect(try reader.count(for: FetchRequest(entityName: "Chef")) == 1)
        #expect(chefs.allSatisfy(\.objectID.isTemporary) && context.hasChanges)
        chefs[77]["name"] = "Chef 77"
        chefs[90]["name"] = "Chef 60"  // repeats a row of the same statement
        let repeated = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(repeated.code == .constraintViolation && repeated.message.contains("name = Chef 60"), "\(repeated.message)")
        #expect(try reader.count(for: FetchRequest(entityName: "Chef")) == 1)
        chefs[90]["name"] = "Chef 90"
        try context.save()
        #expect(try reader.count(for: FetchRequest(entityName: "Chef")) == 121)
    }

    @Test("A save across two stores that fails in the second leaves both stores and the context as they were")
    func aFailedMultiStoreSaveChangesNoStore() throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        try coordinator.addStore(at: path("tags.sqlite"), configuration: ["Tag"])
        try coordinator.addStore(at: path("rest.sqlite"))
        let context = MainContext(coordinator: coordinator)
        try context.insert("Chef")["name"] = "Ana"
        try context.save()

        let tag = try context.insert("Tag")  // first store: writes fine
        tag["label"] = "spicy"
        let duplicate = try context.insert("Chef")  // second store: violates the unique name
        duplicate["name"] = "Ana"
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.code == .constraintViolation && error.message.contains("name = Ana"))

        let reader = MainContext(coordinator: coordinator)
        #expect(try reader.count(for: FetchRequest(entityName: "Tag")) == 0, "the first store rolled back too")
        #expect(try reader.count(for: FetchRequest(entityName: "Chef")) == 1)
        #expect(tag.objectID.isTemporary && context.insertedObjects == [tag, duplicate])

        duplicate["name"] = "Bea"
        try context.save()
        #expect(try reader.count(for: FetchRequest(entityName: "Tag")) == 1)
        #expect(try reader.count(for: FetchRequest(entityName: "Chef")) == 2)
    }

    @Test("A save inserting into two stores gives each object the ID its own store assigned")
    func aMultiStoreSaveGivesEachObjectItsOwnID() throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        try coordinator.addStore(at: path("tags.sqlite"), configuration: ["Tag"])
        try coordinator.addStore(at: path("rest.sqlite"))
        let context = MainContext(coordinator: coordinator)
        var expected: [(object: ManagedObject, entity: String, key: String, value: String)] = []
        for index in 0..<2 {
            let chef = try context.insert("Chef")
            chef["name"] = "Chef \(index)"
            expected.append((chef, "Chef", "name", "Chef \(index)"))
        }
        for index in 0..<3 {
            let tag = try context.insert("Tag")
            tag["label"] = "tag \(index)"
            expected.append((tag, "Tag", "label", "tag \(index)"))
        }
        try context.save()

        let reader = MainContext(coordinator: coordinator)
        for (object, entity, key, value) in expected {
            #expect(!object.objectID.isTemporary)
            let stored = try reader.existingObject(with: object.objectID)
            guard stored.entity.name == entity else {
                Issue.record("the \(entity) '\(value)' got the ID \(object.objectID) of a \(stored.entity.name)")
                continue
            }
            #expect(stored[key] as? String == value, "\(object.objectID) reads back as \(stored[key] ?? "nil")")
        }
    }

    @Test func invalidModelsAreRejected() throws {
        let missingInverse = #expect(throws: ObjectGraphError.self) {
            try ObjectModel(entities: [
                EntityDescription("A", relationships: [RelationshipDescription("b", to: "B", inverse: "a")]),
                EntityDescription("B"),
            ])
        }
        #expect(missingInverse?.message.contains("'B' does not have") == true)
        #expect(throws: ObjectGraphError.self) {
            try ObjectModel(entities: [EntityDescription("A", parent: "Missing")])
        }
    }

    @Test("Two parts of a model that would make one table, index or column name are refused at open, naming both")
    func collidingSchemaNames() throws {
        // An index on [chef, name] and an indexed attribute chef_name: both `_index_Recipe_chef_name`.
        let indexes = try ObjectModel(entities: [EntityDescription("Recipe", attributes: [
            AttributeDescription("chef", .string), AttributeDescription("name", .string),
            AttributeDescription("chef_name", .string, isIndexed: true),
        ], indexes: [["chef", "name"]])])
        let file = path("colliding.sqlite")
        var error = try #require(throws: ObjectGraphError.self) {
            try PersistentStoreCoordinator(model: indexes).addStore(at: file)
        }
        #expect(error.code == .invalidModel)
        #expect(error.message.contains(
            "attribute 'Recipe.chef_name' and the index of entity 'Recipe' on chef, name both make the index name '_index_Recipe_chef_name'"),
            "\(error.message)")
        #expect(!FileManager.default.fileExists(atPath: file), "nothing is written for a model that cannot be stored")

        // Across entities: Tag_note.x and Tag.note_x make one index name; in memory too.
        let entities = try ObjectModel(entities: [
            EntityDescription("Tag", attributes: [AttributeDescription("note_x", .string, isIndexed: true)]),
            EntityDescription("Tag_note", attributes: [AttributeDescription("x", .string, isIndexed: true)]),
        ])
        error = try #require(throws: ObjectGraphError.self) {
            try PersistentStoreCoordinator(model: entities).addStore(at: ":memory:")
        }
        #expect(error.message.contains("attribute 'Tag.note_x' and attribute 'Tag_note.x' both make the index name '_index_Tag_note_x'"),
                "\(error.message)")

        // SQLite takes names that differ in the case of ASCII letters for one, quoted or not.
        let cased = try ObjectModel(entities: [
            EntityDescription("Recipe", attributes: [AttributeDescription("name", .string), AttributeDescription("Name", .string)]),
            EntityDescription("recipe", attributes: [AttributeDescription("title", .string)]),
        ])
        error = try #require(throws: ObjectGraphError.self) {
            try PersistentStoreCoordinator(model: cased).addStore(at: ":memory:")
        }
        #expect(error.message.contains("entity 'Recipe' and entity 'recipe' make the table names 'Recipe' and 'recipe', "
                                       + "which the database takes for one (it ignores the case of ASCII letters in names)"),
                "\(error.message)")
        #expect(error.message.contains("attribute 'Recipe.name' and attribute 'Recipe.Name' make the column names 'name' and 'Name' of table 'Recipe'"),
                "\(error.message)")
    }

    @Test func identifiersAreQuoted() {
        #expect(SQLIdentifier("plain").quoted == "\"plain\"")
        #expect(SQLIdentifier("say \"hi\"").quoted == "\"say \"\"hi\"\"\"")
    }

    @Test func statementsAreCached() throws {
        let coordinator = try TestModel.coordinator()
        let context = MainContext(coordinator: coordinator)
        for index in 0..<50 { try context.insert("Chef")["name"] = "C\(index)" }
        try context.save()
        let cached = coordinator.sqliteStore.pool.write { $0.cachedStatementCount }
        #expect(cached < 10)
    }
}
