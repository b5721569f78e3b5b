import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Derived attributes in nested contexts: a child's save computes them as a root's save
/// does, its parent holds them as if computed there, a child reads its parents' values,
/// and the root writes them. Any depth.
@MainActor
struct NestedDerivedAttributeTests {
    /// Authors with books (to-many) and a publisher (to-one), a count and a nil test
    /// derived from them, and a unique name.
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Author",
                attributes: [
                    AttributeDescription("name", .string),
                    AttributeDescription("bookCount", .integer32, derivedFrom: "books.@count"),
                    AttributeDescription("hasPublisher", .boolean, derivedFrom: "publisher != nil"),
                ],
                relationships: [
                    RelationshipDescription("books", toMany: "Book", inverse: "author", deleteRule: .cascade),
                    RelationshipDescription("publisher", to: "Publisher", inverse: "authors"),
                ],
                uniquenessConstraints: [["name"]]),
            EntityDescription("Book", attributes: [AttributeDescription("title", .string)],
                relationships: [RelationshipDescription("author", to: "Author", inverse: "books")]),
            EntityDescription("Publisher", attributes: [AttributeDescription("name", .string)],
                relationships: [RelationshipDescription("authors", toMany: "Author", inverse: "publisher")]),
        ])
    }

    let coordinator: PersistentStoreCoordinator

    init() throws {
        coordinator = PersistentStoreCoordinator(model: try Self.model())
        try coordinator.addStore(at: ":memory:")
    }

    /// The derived values of the author named `name` as `context` reads them, nil for a nil value.
    static func derived(_ name: String, in context: MainContext) throws -> (books: Int?, publisher: Bool?) {
        let author = try #require(try context.fetch(FetchRequest(entityName: "Author",
                                                                 predicate: FetchPredicate("name == %@", name))).first)
        return (author["bookCount"] as? Int, author["hasPublisher"] as? Bool)
    }

    /// The derived values of the author named `name` as a fresh context reads them from the store.
    func stored(_ name: String) throws -> (books: Int?, publisher: Bool?) {
        try Self.derived(name, in: MainContext(coordinator: coordinator))
    }

    @Test("The nested stack saves a new object with count and nil-test derived attributes through three levels")
    func newObjectThroughThreeLevels() async throws {
        let stack = NestedContextStack(coordinator: coordinator)
        let update = stack.newUpdateContext()
        try await update.perform { context in
            try context.insert("Author")["name"] = "Ana"
            try context.save()
        }
        try await stack.save()
        let ana = try stored("Ana")
        #expect(ana.books == 0 && ana.publisher == false)
        try await stack.save()  // nothing left to write, nothing to fail
    }

    @Test("A new object's derived values, computed by the leaf's save, read the same in the middle and reach the store")
    func derivedValuesInTheMiddle() async throws {
        let stack = NestedContextStack(coordinator: coordinator)
        let update = stack.newUpdateContext()
        let leafValues = try await update.perform { context in
            let author = try context.insert("Author")
            author["name"] = "Ana"
            let publisher = try context.insert("Publisher")
            publisher["name"] = "Tusquets"
            author["publisher"] = publisher
            for title in ["Uno", "Dos"] {
                let book = try context.insert("Book")
                book["title"] = title
                book["author"] = author
            }
            try context.save()
            return [author["bookCount"] as? Int, (author["hasPublisher"] as? Bool).map { $0 ? 1 : 0 }]
        }
        #expect(leafValues == [2, 1], "after its save, the leaf shows the values it computed")
        let middle = try Self.derived("Ana", in: stack.main)
        #expect(middle.books == 2 && middle.publisher == true)
        try await stack.save()
        let ana = try stored("Ana")
        #expect(ana.books == 2 && ana.publisher == true)
    }

    @Test("A parent reads a child's new object with its derived values before the parent saves, and so do its other children")
    func parentReadsTheChildsDerivedValues() throws {
        let root = MainContext(coordinator: coordinator)
        let child = MainContext(parent: root)
        try child.insert("Author")["name"] = "Ana"
        try child.save()
        let inRoot = try Self.derived("Ana", in: root)
        #expect(inRoot.books == 0 && inRoot.publisher == false)
        let sibling = MainContext(parent: root)  // reads the object the root holds unsaved
        let inSibling = try Self.derived("Ana", in: sibling)
        #expect(inSibling.books == 0 && inSibling.publisher == false)
        try root.save()
        let ana = try stored("Ana")
        #expect(ana.books == 0 && ana.publisher == false)
    }

    @Test("A book a leaf adds to a saved author changes the author's count in the middle, then in the store")
    func savedObjectGainsThroughThreeLevels() throws {
        let root = MainContext(coordinator: coordinator)
        try root.insert("Author")["name"] = "Ana"
        try root.save()
        let middle = MainContext(parent: root)
        let leaf = MainContext(parent: middle)
        let book = try leaf.insert("Book")
        book["title"] = "Uno"
        book["author"] = try leaf.fetch(FetchRequest(entityName: "Author"))[0]
        try leaf.save()
        #expect(try Self.derived("Ana", in: middle).books == 1)
        try middle.save()
        #expect(try Self.derived("Ana", in: root).books == 1)
        try root.save()
        #expect(try stored("Ana").books == 1)
    }

    @Test("A duplicate unique name saved through three levels fails with the uniqueness error")
    func duplicateThroughThreeLevels() async throws {
        let stack = NestedContextStack(coordinator: coordinator)
        let first = stack.newUpdateContext()
        try await first.perform { context in
            try context.insert("Author")["name"] = "Ana"
            try context.save()
        }
        try await stack.save()
        let second = stack.newUpdateContext()
        try await second.perform { context in
            try context.insert("Author")["name"] = "Ana"
            try context.save()
        }
        let error = try await #require(throws: ObjectGraphError.self) { try await stack.save() }
        #expect(error.code == .constraintViolation, "\(error.message)")
        #expect(error.message == "cannot save Author: another Author already has name = Ana; nothing was saved")
    }
}
