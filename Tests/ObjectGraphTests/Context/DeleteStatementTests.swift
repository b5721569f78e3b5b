import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite
import ObjectGraphSQL

/// What deleting through a context costs in statements: the delete rules load a to-many
/// relationship's destinations in one statement, and a save deletes all rows of one entity
/// in one statement.
@MainActor
struct DeleteStatementTests {
    let coordinator: PersistentStoreCoordinator
    let context: MainContext

    /// Three recipes ("A", "B", "C") with three lines each, two tags on "A" and "C", saved.
    init() throws {
        coordinator = try TestModel.coordinator()
        context = MainContext(coordinator: coordinator)
        let tags = try ["quick", "cheap"].map { label in
            let tag = try context.insert("Tag")
            tag["label"] = label
            return tag
        }
        for name in ["A", "B", "C"] {
            let recipe = try context.insert("Recipe")
            recipe["name"] = name
            for position in 0..<3 {
                let line = try context.insert("Line")
                line["text"] = "\(name) \(position)"
                line["position"] = position
                line["recipe"] = recipe
            }
            if name != "B" { for tag in tags { try recipe.add(tag, toKey: "tags") } }
        }
        try context.save()
    }

    /// The saved recipes named `names`, fetched by a new context (as faults, the default).
    func recipes(_ names: [String], in reader: MainContext) throws -> [ManagedObject] {
        try reader.fetch(FetchRequest(entityName: "Recipe", predicate: FetchPredicate("name IN %@", names),
                                      sortKeys: [SortKey("name")]))
    }

    @Test("A cascade loads the destinations with their values in one statement, not one per destination")
    func cascadeLoadsDestinationsTogether() throws {
        let reader = MainContext(coordinator: coordinator)
        let recipe = try recipes(["A"], in: reader)[0]
        let before = reader.statistics
        reader.delete(recipe)
        // lines (cascade) and media (cascade) one statement each, tags (nullify, many-to-many)
        // two: the pairs and the tags' rows. Firing each relationship's fault and then each
        // destination's made nine (1 + 3 lines, 1 + 2 tags, 1 media).
        #expect((reader.statistics - before).statements == 4)
        #expect(reader.deletedObjects.count == 4)
        #expect(try reader.fetch(FetchRequest(entityName: "Tag")).allSatisfy { try $0.objects(forKey: "recipes").count == 1 })
        #expect(reader.deletedObjects.allSatisfy { !$0.isFault })
        let lines = reader.deletedObjects.filter { $0.entity.name == "Line" }
        #expect(Set(lines.compactMap { $0["text"] as? String }) == ["A 0", "A 1", "A 2"])
    }

    @Test("Deleting many objects in one call loads what their rules visit together, whatever their number")
    func deletingManyLoadsTogether() throws {
        let reader = MainContext(coordinator: coordinator)
        var request = FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")])
        request.includesPropertyValues = false
        let all = try reader.fetch(request)
        let before = reader.statistics
        reader.delete(all)
        // The recipes' own values, their lines, their media, their tags (pairs and rows): the
        // same five statements for three recipes as for three hundred. One call per recipe
        // makes five each.
        #expect((reader.statistics - before).statements == 5)
        #expect(reader.deletedObjects.count == 12)
        #expect(reader.deletedObjects.allSatisfy { !$0.isFault })
        #expect(try reader.fetch(FetchRequest(entityName: "Tag")).allSatisfy { try $0.objects(forKey: "recipes").isEmpty })
        try reader.save()
        let check = MainContext(coordinator: coordinator)
        #expect(try check.count(for: FetchRequest(entityName: "Recipe")) == 0)
        #expect(try check.count(for: FetchRequest(entityName: "Line")) == 0)
        #expect(try check.count(for: FetchRequest(entityName: "Tag")) == 2)
    }

    @Test("Deleting many objects in one call loads the faults their to-one rules reach in one statement")
    func deletingManyLoadsToOneDestinationsTogether() throws {
        let reader = MainContext(coordinator: coordinator)
        var request = FetchRequest(entityName: "Line", predicate: try FetchPredicate("position == 0"))
        request.includesPropertyValues = false
        let firstLines = try reader.fetch(request)
        #expect(firstLines.count == 3)
        let before = reader.statistics
        reader.delete(firstLines + firstLines)
        // The lines' values, then their recipes (nullify: each loses the line) in one
        // statement; the recipes' line lists stay faults.
        #expect((reader.statistics - before).statements == 2)
        #expect(reader.deletedObjects.count == 3)
        try reader.save()
        let check = MainContext(coordinator: coordinator)
        for recipe in try check.fetch(FetchRequest(entityName: "Recipe")) {
            #expect(try recipe.objects(forKey: "lines").count == 2)
        }
    }

    @Test("A save deletes every row of one entity with one statement, and only those rows")
    func saveDeletesRowsTogether() throws {
        let reader = MainContext(coordinator: coordinator)
        for recipe in try recipes(["A", "C"], in: reader) { reader.delete(recipe) }
        let before = reader.statistics
        try reader.save()
        // BEGIN, per table the largest key recorded and then its rows deleted (and the
        // recipes' tag pairs), COMMIT: seven statements, where one per row (and one per
        // recipe for its pairs) made twelve.
        #expect((reader.statistics - before).statements == 7)
        let check = MainContext(coordinator: coordinator)
        #expect(try check.fetch(FetchRequest(entityName: "Recipe")).compactMap { $0["name"] as? String } == ["B"])
        let lines = try check.fetch(FetchRequest(entityName: "Line", sortKeys: [SortKey("position")]))
        #expect(lines.compactMap { $0["text"] as? String } == ["B 0", "B 1", "B 2"])
        #expect(try check.fetch(FetchRequest(entityName: "Tag"))[0].objects(forKey: "recipes").isEmpty)
    }

    @Test("No key is handed out twice: not after the rows with the largest keys are deleted, nor past reserved ones")
    func keysAreNeverReused() throws {
        func insertChef(_ name: String, in context: MainContext) throws -> ManagedObject {
            let chef = try context.insert("Chef")
            chef["name"] = name
            return chef
        }
        let first = try insertChef("first", in: context), last = try insertChef("last", in: context)
        try context.save()
        let lastKey = last.objectID.key
        #expect(lastKey > first.objectID.key)
        context.delete(last)
        try context.save()
        let next = try insertChef("next", in: context)
        try context.save()
        #expect(next.objectID.key == lastKey + 1)
        // The same after a batch delete.
        _ = try context.execute(BatchDeleteRequest(entityName: "Chef", predicate: FetchPredicate("name == 'next'")))
        let afterBatch = try insertChef("after batch", in: context)
        try context.save()
        #expect(afterBatch.objectID.key == lastKey + 2)
        // Keys given out before their rows exist are not given out again by another context's save.
        let early = try insertChef("early", in: context)
        try context.obtainPermanentIDs(for: [early])
        let other = MainContext(coordinator: coordinator)
        let meanwhile = try insertChef("meanwhile", in: other)
        try other.save()
        try context.save()
        #expect(early.objectID.key == lastKey + 3 && meanwhile.objectID.key == lastKey + 4)
    }

    @Test("Saves that follow one another read no key; a batch insert or another store on the file in between takes its own keys")
    func keysStayUniqueBetweenSaves() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("og-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("keys.sqlite").path
        let first = try TestModel.coordinator(path: path), second = try TestModel.coordinator(path: path)
        let context = MainContext(coordinator: first), other = MainContext(coordinator: second)
        var keys: [Int64] = []
        func save(_ name: String, in context: MainContext) throws {
            let tag = try context.insert("Tag")
            tag["label"] = name
            try context.save()
            keys.append(tag.objectID.key)
        }
        try save("a", in: context)
        let before = context.statistics
        try save("b", in: context)
        #expect((context.statistics - before).statements == 3)  // BEGIN, INSERT, COMMIT: no key read
        keys += try context.execute(BatchInsertRequest(entityName: "Tag", objects: [["label": "batch 1"], ["label": "batch 2"]]))
            .insertedIDs.map(\.key)
        try save("c", in: context)
        try save("elsewhere", in: other)  // another connection commits
        try save("d", in: context)
        // The context's own commits leave its keys current, a save without inserts too.
        let tags = try context.fetch(FetchRequest(entityName: "Tag", predicate: FetchPredicate("label == 'a'")))
        context.delete(tags[0])
        try context.save()
        let afterDelete = context.statistics
        try save("e", in: context)
        #expect((context.statistics - afterDelete).statements == 3)
        #expect(keys == Array(1...8))
        #expect(try MainContext(coordinator: first).count(for: FetchRequest(entityName: "Tag")) == 7)
    }

    @Test("Keys travel as a JSON array, negative and extreme ones included")
    func keyListWritesEveryKey() {
        #expect(FetchSQL.keyList([], dialect: .sqlite) == .text("[]"))
        #expect(FetchSQL.keyList([0, -1, 42, 1_000_000, Int64.min, Int64.max], dialect: .sqlite)
                == .text("[0,-1,42,1000000,-9223372036854775808,9223372036854775807]"))
    }
}
