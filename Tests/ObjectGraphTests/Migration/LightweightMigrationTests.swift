import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite
import ObjectGraphSQL

/// Version 1 of a small notes model: authors write notes; a note may hold an image.
@MainActor
enum NotesV1 {
    static func make(noteAttributes: [AttributeDescription] = []) throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Author",
                attributes: [AttributeDescription("name", .string)],
                relationships: [RelationshipDescription("notes", toMany: "Note", inverse: "author")],
                uniquenessConstraints: [["name"]]),
            EntityDescription("Note",
                attributes: [
                    AttributeDescription("title", .string),
                    AttributeDescription("body", .string, isOptional: true),
                    AttributeDescription("rating", .integer16, isOptional: true),
                    AttributeDescription("image", .binary, isOptional: true),
                ] + noteAttributes,
                relationships: [RelationshipDescription("author", to: "Author", inverse: "notes")]),
        ])
    }

    /// Two authors and five notes: Ana wrote three (two with images), Ben two; two notes have no rating.
    static func fill(_ context: MainContext) throws {
        let ana = try context.insert("Author"), ben = try context.insert("Author")
        ana["name"] = "Ana"
        ben["name"] = "Ben"
        for (index, (title, rating, author)) in [("Soup", 5, ana), ("Stew", nil, ana), ("Tart", 2, ana),
                                                 ("Pie", nil, ben), ("Bun", 4, ben)].enumerated() {
            let note = try context.insert("Note")
            note["title"] = title
            note["body"] = "body of \(title)"
            note["rating"] = rating
            note["author"] = author
            if index < 2 { note["image"] = Data(repeating: UInt8(index + 1), count: 1_000) }
        }
    }
}

@MainActor
@Suite("Lightweight migration in SQL")
struct LightweightMigrationTests {
    let fixture: MigrationFixture

    init() throws { fixture = try MigrationFixture("light") }

    /// Writes version 1, then opens it with `v2`, migrating.
    func migrate(to v2: ObjectModel) throws -> MainContext {
        try fixture.write(try NotesV1.make(), NotesV1.fill)
        return try fixture.open(v2, migratingFrom: [try NotesV1.make()])
    }

    @Test("An attribute with a default and a new entity are added; every value is kept")
    func addAttributeAndEntity() throws {
        defer { fixture.remove() }
        let v2 = try ObjectModel(entities: [
            EntityDescription("Author",
                attributes: [AttributeDescription("name", .string)],
                relationships: [RelationshipDescription("notes", toMany: "Note", inverse: "author")],
                uniquenessConstraints: [["name"]]),
            EntityDescription("Note",
                attributes: [
                    AttributeDescription("title", .string),
                    AttributeDescription("body", .string, isOptional: true),
                    AttributeDescription("rating", .integer16, isOptional: true),
                    AttributeDescription("image", .binary, isOptional: true),
                    AttributeDescription("pinned", .boolean, defaultValue: true),
                    AttributeDescription("words", .integer32, isOptional: true),
                ],
                relationships: [RelationshipDescription("author", to: "Author", inverse: "notes"),
                                RelationshipDescription("labels", toMany: "Label", inverse: "notes")]),
            EntityDescription("Label", attributes: [AttributeDescription("name", .string)],
                              relationships: [RelationshipDescription("notes", toMany: "Note", inverse: "labels")]),
        ])
        let mapping = try MappingModel.inferred(from: try NotesV1.make(), to: v2)
        #expect(mapping.changes == [
            "NoteToNote (transform): attribute 'pinned' added; attribute 'words' added; relationship 'labels' added",
            "AddLabel (add): new entity",
        ])
        let context = try migrate(to: v2)
        let notes = try context.all("Note", by: "title")
        #expect(notes.map { $0["title"] as? String } == ["Bun", "Pie", "Soup", "Stew", "Tart"])
        #expect(notes.map { $0["pinned"] as? Bool } == Array(repeating: true, count: 5))
        #expect(notes.map { $0["words"] as? Int } == Array(repeating: nil, count: 5))
        #expect(notes.map { $0["rating"] as? Int } == [4, nil, 5, nil, 2])
        #expect(notes.map { ($0["author"] as? ManagedObject)?["name"] as? String } == ["Ben", "Ben", "Ana", "Ana", "Ana"])
        let label = try context.insert("Label")
        label["name"] = "quick"
        try label.add(notes[0], toKey: "notes")
        try context.save()
        #expect(try context.count(for: FetchRequest(entityName: "Note", predicate: try FetchPredicate("ANY labels.name == 'quick'"))) == 1)
    }

    @Test("An attribute and an entity are removed; the rest is kept and the old table is gone")
    func removeAttributeAndEntity() throws {
        defer { fixture.remove() }
        let v2 = try ObjectModel(entities: [
            EntityDescription("Note", attributes: [
                AttributeDescription("title", .string),
                AttributeDescription("rating", .integer16, isOptional: true),
                AttributeDescription("image", .binary, isOptional: true),
            ]),
        ])
        let context = try migrate(to: v2)
        let notes = try context.all("Note", by: "title")
        #expect(notes.map { $0["rating"] as? Int } == [4, nil, 5, nil, 2])
        #expect(notes.map { ($0["image"] as? Data)?.count } == [nil, nil, 1_000, 1_000, nil])
        let tables = try (context.coordinator.stores[0] as! SQLiteStore).performRead { try $0.rows(SchemaSQL.userTables) }
        #expect(Set(tables.map { $0[0] }) == [.text("_metadata"), .text("_primarykeys"), .text("Note")])
    }

    @Test("Entities, attributes and relationships are renamed through renaming identifiers")
    func renames() throws {
        defer { fixture.remove() }
        let v2 = try ObjectModel(entities: [
            EntityDescription("Writer",
                attributes: [AttributeDescription("fullName", .string, renamingIdentifier: "name")],
                relationships: [RelationshipDescription("memos", toMany: "Memo", inverse: "writer", renamingIdentifier: "notes")],
                uniquenessConstraints: [["fullName"]], renamingIdentifier: "Author"),
            EntityDescription("Memo",
                attributes: [
                    AttributeDescription("heading", .string, renamingIdentifier: "title"),
                    AttributeDescription("body", .string, isOptional: true),
                    AttributeDescription("rating", .integer16, isOptional: true),
                    AttributeDescription("image", .binary, isOptional: true),
                ],
                relationships: [RelationshipDescription("writer", to: "Writer", inverse: "memos", renamingIdentifier: "author")],
                renamingIdentifier: "Note"),
        ])
        let context = try migrate(to: v2)
        let memos = try context.all("Memo", by: "heading")
        #expect(memos.map { $0["heading"] as? String } == ["Bun", "Pie", "Soup", "Stew", "Tart"])
        #expect(memos.map { $0["body"] as? String } == ["body of Bun", "body of Pie", "body of Soup", "body of Stew", "body of Tart"])
        let writers = try context.all("Writer", by: "fullName")
        #expect(writers.map { ($0["memos"] as! [ManagedObject]).compactMap { $0["heading"] as? String }.sorted() }
                == [["Soup", "Stew", "Tart"], ["Bun", "Pie"]])
        // The renamed table keeps handing out keys past the old ones.
        let writer = try context.insert("Writer")
        writer["fullName"] = "Cy"
        try context.save()
        #expect(writer.objectID.key == 3)
    }

    @Test("An optional attribute becomes required with a default, and widens to 64 bits")
    func optionalToRequired() throws {
        defer { fixture.remove() }
        let v2 = try ObjectModel(entities: [
            EntityDescription("Author",
                attributes: [AttributeDescription("name", .string)],
                relationships: [RelationshipDescription("notes", toMany: "Note", inverse: "author")],
                uniquenessConstraints: [["name"]]),
            EntityDescription("Note",
                attributes: [
                    AttributeDescription("title", .string),
                    AttributeDescription("body", .string, isOptional: true),
                    AttributeDescription("rating", .integer64, defaultValue: 3),
                    AttributeDescription("image", .binary, isOptional: true),
                ],
                relationships: [RelationshipDescription("author", to: "Author", inverse: "notes")]),
        ])
        #expect(try MappingModel.inferred(from: try NotesV1.make(), to: v2).changes
                == ["NoteToNote (transform): attribute 'rating' widened from Int16 to Int64; attribute 'rating' is now required (nil becomes 3)"])
        let context = try migrate(to: v2)
        #expect(try context.all("Note", by: "title").map { $0["rating"] as? Int } == [4, 3, 5, 3, 2])
    }

    @Test("A to-one relationship becomes to-many: each note keeps its author, now in a join table")
    func toOneToToMany() throws {
        defer { fixture.remove() }
        let v2 = try ObjectModel(entities: [
            EntityDescription("Author",
                attributes: [AttributeDescription("name", .string)],
                relationships: [RelationshipDescription("notes", toMany: "Note", inverse: "authors")],
                uniquenessConstraints: [["name"]]),
            EntityDescription("Note",
                attributes: [
                    AttributeDescription("title", .string),
                    AttributeDescription("body", .string, isOptional: true),
                    AttributeDescription("rating", .integer16, isOptional: true),
                    AttributeDescription("image", .binary, isOptional: true),
                ],
                relationships: [RelationshipDescription("authors", toMany: "Author", inverse: "notes", renamingIdentifier: "author")]),
        ])
        let context = try migrate(to: v2)
        let notes = try context.all("Note", by: "title")
        #expect(notes.map { ($0["authors"] as! [ManagedObject]).compactMap { $0["name"] as? String } }
                == [["Ben"], ["Ben"], ["Ana"], ["Ana"], ["Ana"]])
        let ana = try context.all("Author", by: "name")[0]
        #expect((ana["notes"] as! [ManagedObject]).count == 3)
        try ana.add(notes[0], toKey: "notes")
        try context.save()
        #expect((notes[0]["authors"] as! [ManagedObject]).count == 2)
    }

    @Test("Attributes move out into a new entity at the end of a to-one, one object per note that had an image")
    func moveIntoNewEntity() throws {
        defer { fixture.remove() }
        let v2 = try ObjectModel(entities: [
            EntityDescription("Author",
                attributes: [AttributeDescription("name", .string)],
                relationships: [RelationshipDescription("notes", toMany: "Note", inverse: "author")],
                uniquenessConstraints: [["name"]]),
            EntityDescription("Note",
                attributes: [
                    AttributeDescription("title", .string),
                    AttributeDescription("body", .string, isOptional: true),
                    AttributeDescription("rating", .integer16, isOptional: true),
                    AttributeDescription("hasImage", .boolean, derivedFrom: "attachment != nil"),
                ],
                relationships: [RelationshipDescription("author", to: "Author", inverse: "notes"),
                                RelationshipDescription("attachment", to: "Attachment", inverse: "note", deleteRule: .cascade)]),
            EntityDescription("Attachment",
                attributes: [AttributeDescription("data", .binary, renamingIdentifier: "Note.image")],
                relationships: [RelationshipDescription("note", to: "Note", inverse: "attachment", isOptional: false)]),
        ])
        let mapping = try MappingModel.inferred(from: try NotesV1.make(), to: v2)
        #expect(mapping.entityMappings.map(\.kind) == [.copy, .transform, .extract])
        let context = try migrate(to: v2)
        let notes = try context.all("Note", by: "title")
        #expect(notes.map { $0["hasImage"] as? Bool } == [false, false, true, true, false])
        #expect(notes.map { (($0["attachment"] as? ManagedObject)?["data"] as? Data)?.first } == [nil, nil, 1, 2, nil])
        let attachments = try context.all("Attachment", by: "data")
        #expect(attachments.count == 2)
        #expect(attachments.map { ($0["note"] as? ManagedObject)?["title"] as? String }.sorted { ($0 ?? "") < ($1 ?? "") } == ["Soup", "Stew"])
        let columns = try (context.coordinator.stores[0] as! SQLiteStore).performRead { try $0.rows(SchemaSQL.tableColumns, [.text("Note")]) }
        #expect(!columns.contains { $0[0] == .text("image") }, "the blobs left the notes' table")
    }

    @Test("Adding attributes whose value is a constant alters the table in place instead of copying it")
    func addColumnInPlace() throws {
        defer { fixture.remove() }
        let v2 = try NotesV1.make(noteAttributes: [AttributeDescription("pinned", .boolean, defaultValue: true)])
        let plan = MigrationSQL(mapping: try MappingModel.inferred(from: try NotesV1.make(), to: v2), rowCounts: [:])
        let sql = plan.steps.compactMap { step -> String? in if case .run(let fragment) = step { fragment.sql } else { nil } }
        #expect(sql == [#"ALTER TABLE "Note" ADD COLUMN "pinned" INTEGER"#, #"UPDATE "Note" SET "pinned" = ?"#])
        let context = try migrate(to: v2)
        #expect(try context.all("Note", by: "title").map { $0["pinned"] as? Bool } == Array(repeating: true, count: 5))
    }

    @Test("Progress is reported in order and ends at 1")
    func progress() throws {
        defer { fixture.remove() }
        try fixture.write(try NotesV1.make(), NotesV1.fill)
        let log = ProgressLog()
        let v2 = try NotesV1.make(noteAttributes: [AttributeDescription("pinned", .boolean, defaultValue: false)])
        _ = try fixture.open(v2, migratingFrom: [try NotesV1.make()]) { log.record($0) }
        #expect(!log.reported.isEmpty)
        #expect(log.reported == log.reported.sorted())
        #expect(log.reported.last == 1)
    }

    @Test("A store made with another model still fails to open without migration, naming what differs")
    func mismatchWithoutMigration() throws {
        defer { fixture.remove() }
        try fixture.write(try NotesV1.make(), NotesV1.fill)
        let v2 = try NotesV1.make(noteAttributes: [AttributeDescription("pinned", .boolean, defaultValue: false)])
        let error = try #require(throws: ObjectGraphError.self) { _ = try fixture.open(v2) }
        #expect(error.code == .modelMismatch)
        #expect(error.message.contains("Note changed (attribute 'pinned' added)"))
        // Asking for migration without the model the store was made with says so too.
        let other = try #require(throws: ObjectGraphError.self) {
            _ = try fixture.open(v2, migratingFrom: [try NotesV1.make(noteAttributes: [AttributeDescription("x", .string, isOptional: true)])])
        }
        #expect(other.code == .modelMismatch)
        #expect(other.message.contains("no given source model"))
    }

    @Test("With inference off, a store made with a given source model is refused for that reason, not as an unknown model")
    func inferenceOff() throws {
        defer { fixture.remove() }
        try fixture.write(try NotesV1.make(), NotesV1.fill)
        let v2 = try NotesV1.make(noteAttributes: [AttributeDescription("pinned", .boolean, defaultValue: false)])
        var options = SQLiteStore.Options()
        options.shouldMigrateStoreAutomatically = true
        options.shouldInferMappingModelAutomatically = false
        options.sourceModels = [try NotesV1.make()]
        let error = try #require(throws: ObjectGraphError.self) {
            try PersistentStoreCoordinator(model: v2).addStore(at: fixture.path, options: options)
        }
        #expect(error.code == .modelMismatch)
        #expect(error.message.contains("was made with one of the options' sourceModels, but no mapping model migrates it and shouldInferMappingModelAutomatically is off"))
        #expect(!error.message.contains("Add the model it was made with"))
    }

    @Test("A migration that breaks a new uniqueness constraint names both objects and leaves the file as it was")
    func failureLeavesStoreUntouched() throws {
        defer { fixture.remove() }
        try fixture.write(try NotesV1.make()) { context in
            try NotesV1.fill(context)
            try context.insert("Note")["title"] = "Pie"
        }
        let before = try fixture.bytes()
        let files = try fixture.files()
        let v2 = try ObjectModel(entities: [
            EntityDescription("Author",
                attributes: [AttributeDescription("name", .string)],
                relationships: [RelationshipDescription("notes", toMany: "Note", inverse: "author")],
                uniquenessConstraints: [["name"]]),
            EntityDescription("Note",
                attributes: [
                    AttributeDescription("title", .string),
                    AttributeDescription("body", .string, isOptional: true),
                    AttributeDescription("rating", .integer16, isOptional: true),
                    AttributeDescription("image", .binary, isOptional: true),
                ],
                relationships: [RelationshipDescription("author", to: "Author", inverse: "notes")],
                uniquenessConstraints: [["title"]]),
        ])
        let error = try #require(throws: ObjectGraphError.self) { _ = try fixture.open(v2, migratingFrom: [try NotesV1.make()]) }
        #expect(error.code == .migrationFailed)
        #expect(error.message.contains("migrating entity 'Note' failed: Note/p4 and Note/p6 have the same title"))
        #expect(error.message.contains("is unchanged"))
        #expect(try fixture.bytes() == before)
        let after = try fixture.files()
        #expect(after == files, "\(after)")
        // And it still opens with the model it was made with.
        #expect(try fixture.open(try NotesV1.make()).count(for: FetchRequest(entityName: "Note")) == 6)
    }
}
