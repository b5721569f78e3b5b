import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Several coordinators opening one old store at once, each allowed to migrate it: the
/// store is migrated once, and every one of them opens it.
@MainActor
struct ConcurrentMigrationTests {
    @Test("Three coordinators that open an old store at once migrate it once, and all open it")
    func threeOpenersAtOnce() async throws {
        let fixture = try MigrationFixture("concurrent")
        defer { fixture.remove() }
        try fixture.write(try NotesV1.make()) { context in
            try NotesV1.fill(context)
            for index in 0..<20_000 { try context.insert("Note")["title"] = "note \(index)" }
        }
        let v1 = try NotesV1.make()
        // A renamed attribute: the Note table is rebuilt, which takes a while.
        let v2 = try ObjectModel(entities: [
            EntityDescription("Author",
                attributes: [AttributeDescription("name", .string)],
                relationships: [RelationshipDescription("notes", toMany: "Note", inverse: "author")],
                uniquenessConstraints: [["name"]]),
            EntityDescription("Note",
                attributes: [AttributeDescription("heading", .string, renamingIdentifier: "title"),
                             AttributeDescription("body", .string, isOptional: true),
                             AttributeDescription("rating", .integer16, isOptional: true),
                             AttributeDescription("image", .binary, isOptional: true)],
                relationships: [RelationshipDescription("author", to: "Author", inverse: "notes")]),
        ])
        let path = fixture.path
        @Sendable func open() throws -> PersistentStoreCoordinator {
            var options = SQLiteStore.Options()
            options.shouldMigrateStoreAutomatically = true
            options.sourceModels = [v1]
            let coordinator = PersistentStoreCoordinator(model: v2)
            try coordinator.addStore(at: path, options: options)
            return coordinator
        }
        async let first = offPool(open)
        async let second = offPool(open)
        async let third = offPool(open)
        let coordinators = try await [first, second, third]
        for coordinator in coordinators {
            let context = MainContext(coordinator: coordinator)
            #expect(try context.count(for: FetchRequest(entityName: "Note")) == 20_005)
            #expect(try context.count(for: FetchRequest(entityName: "Note", predicate: try FetchPredicate("heading == 'Soup'"))) == 1)
        }
        #expect(try fixture.files().allSatisfy { !$0.contains("-migrat") }, "no working copy is left")
    }
}
