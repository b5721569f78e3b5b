import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// `SQLiteStore.checkIntegrity()` finds nothing in a sound store and names each kind of
/// damage: a to-one naming a missing row, a one-to-one whose
/// other side does not name it back, a join-table pair naming a missing row, damaged pages.
@MainActor
struct IntegrityCheckTests {
    /// People with one passport each (a one-to-one), on top of the test model's relationships.
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Person", attributes: [AttributeDescription("name", .string)],
                              relationships: [RelationshipDescription("passport", to: "Passport", inverse: "holder")]),
            EntityDescription("Passport", attributes: [AttributeDescription("number", .string)],
                              relationships: [RelationshipDescription("holder", to: "Person", inverse: "passport")]),
        ])
    }

    let directory: URL
    /// Removes the test's directory when the suite value goes, after the test.
    private let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("og-integrity")
        directory = scratch.url
    }

    /// A store of the test model with a chef, a recipe with a line, two tags and a photo.
    func makeStore() throws -> (SQLiteStore, String) {
        let file = directory.appendingPathComponent("graph.sqlite").path
        let coordinator = try TestModel.coordinator(path: file)
        let context = MainContext(coordinator: coordinator)
        let chef = try context.insert("Chef")
        chef["name"] = "Ana"
        let recipe = try context.insert("Recipe")
        recipe["name"] = "Soup"
        recipe["chef"] = chef
        let line = try context.insert("Line")
        line["text"] = "water"
        line["position"] = 1
        line["recipe"] = recipe
        for label in ["hot", "cheap"] {
            let tag = try context.insert("Tag")
            tag["label"] = label
            try recipe.add(tag, toKey: "tags")
        }
        try context.insert("Photo")["recipe"] = recipe
        try context.save()
        return (coordinator.sqliteStore, file)
    }

    @Test("A sound store has no problems")
    func soundStore() throws {
        let (store, _) = try makeStore()
        #expect(try store.checkIntegrity() == [])
    }

    @Test("A to-one naming a missing row is named")
    func danglingToOne() throws {
        let (store, file) = try makeStore()
        let raw = try SQLiteConnection(path: file)
        try raw.execute(#"UPDATE "Recipe" SET "chef" = 999"#)
        try raw.execute(#"UPDATE "Media" SET "recipe" = 7"#)
        let problems = try store.checkIntegrity()
        #expect(problems.contains("Recipe/p1: 'chef' names Chef key 999, which is not in the store"), "\(problems)")
        #expect(problems.contains("Photo/p1: 'recipe' names Recipe key 7, which is not in the store"), "\(problems)")
        #expect(problems.count == 2, "\(problems)")
    }

    @Test("A join-table pair naming a deleted row is named")
    func danglingJoinRow() throws {
        let (store, file) = try makeStore()
        let raw = try SQLiteConnection(path: file)
        try raw.execute(#"DELETE FROM "Tag" WHERE "label" = 'hot'"#)
        let problems = try store.checkIntegrity()
        #expect(problems.count == 1 && problems[0].contains("a pair names Tag key"), "\(problems)")
    }

    @Test("A one-to-one whose other side does not name it back is named")
    func unmatchedOneToOne() throws {
        let file = directory.appendingPathComponent("people.sqlite").path
        let coordinator = PersistentStoreCoordinator(model: try Self.model())
        let store = try coordinator.addStore(at: file)
        let context = MainContext(coordinator: coordinator)
        for name in ["Ana", "Bea"] {
            let person = try context.insert("Person")
            person["name"] = name
            let passport = try context.insert("Passport")
            passport["number"] = name.uppercased()
            person["passport"] = passport
        }
        try context.save()
        #expect(try store.checkIntegrity() == [])
        let raw = try SQLiteConnection(path: file)
        try raw.execute(#"UPDATE "Passport" SET "holder" = 2 WHERE "_pk" = 1"#)  // Ana's passport names Bea
        let problems = try store.checkIntegrity()
        #expect(problems.contains("Person/p1: 'passport' names Passport key 1, whose 'holder' does not name it back"), "\(problems)")
        #expect(problems.contains("Passport/p1: 'holder' names Person key 2, whose 'passport' does not name it back"), "\(problems)")
    }

    @Test("A damaged index is reported by SQLite's integrity check")
    func damagedIndex() throws {
        let (store, file) = try makeStore()
        let raw = try SQLiteConnection(path: file)
        // An index sorted one way and declared another: lookups through it miss rows.
        try raw.execute(#"UPDATE "Tag" SET "label" = CASE "label" WHEN 'hot' THEN 'B' ELSE 'a' END"#)
        try raw.execute(#"CREATE INDEX "tag_label" ON "Tag" ("label")"#)
        try raw.execute("PRAGMA writable_schema = ON")
        try raw.execute(#"UPDATE sqlite_master SET sql = 'CREATE INDEX "tag_label" ON "Tag" ("label" COLLATE NOCASE)' WHERE name = 'tag_label'"#)
        try raw.execute("PRAGMA writable_schema = RESET")
        let problems = try store.checkIntegrity()
        #expect(problems.contains { $0.hasPrefix("integrity check: ") }, "\(problems)")
    }
}
