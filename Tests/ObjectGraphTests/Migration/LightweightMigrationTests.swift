import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite
@testable import ObjectGraphPostgres
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

/// Every case runs on a SQLite file and, when a server is reachable, on a PostgreSQL schema:
/// both stores run the same migration SQL, each in its own dialect.
@MainActor
@Suite("Lightweight migration in SQL")
struct LightweightMigrationTests {
    /// Writes version 1, then opens it with `v2`, migrating.
    func migrate(_ fixture: MigrationFixture, to v2: ObjectModel) throws -> MainContext {
        try fixture.write(try NotesV1.make(), NotesV1.fill)
        return try fixture.open(v2, migratingFrom: [try NotesV1.make()])
    }

    @Test("An attribute with a default and a new entity are added; every value is kept", arguments: MigrationFixture.kinds)
    func addAttributeAndEntity(kind: StoreKind) throws {
        let fixture = try MigrationFixture("light", on: kind)
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
        let context = try migrate(fixture, to: v2)
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

    @Test("An attribute and an entity are removed; the rest is kept and the old table is gone", arguments: MigrationFixture.kinds)
    func removeAttributeAndEntity(kind: StoreKind) throws {
        let fixture = try MigrationFixture("light", on: kind)
        defer { fixture.remove() }
        let v2 = try ObjectModel(entities: [
            EntityDescription("Note", attributes: [
                AttributeDescription("title", .string),
                AttributeDescription("rating", .integer16, isOptional: true),
                AttributeDescription("image", .binary, isOptional: true),
            ]),
        ])
        let context = try migrate(fixture, to: v2)
        let notes = try context.all("Note", by: "title")
        #expect(notes.map { $0["rating"] as? Int } == [4, nil, 5, nil, 2])
        #expect(notes.map { ($0["image"] as? Data)?.count } == [nil, nil, 1_000, 1_000, nil])
        #expect(try fixture.tables(of: context) == ["_metadata", "_primarykeys", "Note"])
    }

    @Test("Entities, attributes and relationships are renamed through renaming identifiers", arguments: MigrationFixture.kinds)
    func renames(kind: StoreKind) throws {
        let fixture = try MigrationFixture("light", on: kind)
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
        let context = try migrate(fixture, to: v2)
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

    @Test("An optional attribute becomes required with a default, and widens to 64 bits", arguments: MigrationFixture.kinds)
    func optionalToRequired(kind: StoreKind) throws {
        let fixture = try MigrationFixture("light", on: kind)
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
        let context = try migrate(fixture, to: v2)
        #expect(try context.all("Note", by: "title").map { $0["rating"] as? Int } == [4, 3, 5, 3, 2])
    }

    @Test("A to-one relationship becomes to-many: each note keeps its author, now in a join table", arguments: MigrationFixture.kinds)
    func toOneToToMany(kind: StoreKind) throws {
        let fixture = try MigrationFixture("light", on: kind)
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
        let context = try migrate(fixture, to: v2)
        let notes = try context.all("Note", by: "title")
        #expect(notes.map { ($0["authors"] as! [ManagedObject]).compactMap { $0["name"] as? String } }
                == [["Ben"], ["Ben"], ["Ana"], ["Ana"], ["Ana"]])
        let ana = try context.all("Author", by: "name")[0]
        #expect((ana["notes"] as! [ManagedObject]).count == 3)
        try ana.add(notes[0], toKey: "notes")
        try context.save()
        #expect((notes[0]["authors"] as! [ManagedObject]).count == 2)
    }

    @Test("Attributes move out into a new entity at the end of a to-one, one object per note that had an image", arguments: MigrationFixture.kinds)
    func moveIntoNewEntity(kind: StoreKind) throws {
        let fixture = try MigrationFixture("light", on: kind)
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
        let context = try migrate(fixture, to: v2)
        let notes = try context.all("Note", by: "title")
        #expect(notes.map { $0["hasImage"] as? Bool } == [false, false, true, true, false])
        #expect(notes.map { (($0["attachment"] as? ManagedObject)?["data"] as? Data)?.first } == [nil, nil, 1, 2, nil])
        let attachments = try context.all("Attachment", by: "data")
        #expect(attachments.count == 2)
        #expect(attachments.map { ($0["note"] as? ManagedObject)?["title"] as? String }.sorted { ($0 ?? "") < ($1 ?? "") } == ["Soup", "Stew"])
        #expect(try !fixture.columns(of: "Note", in: context).contains("image"), "the blobs left the notes' table")
    }

    @Test("Adding attributes whose value is a constant alters the table in place instead of copying it", arguments: MigrationFixture.kinds)
    func addColumnInPlace(kind: StoreKind) throws {
        let fixture = try MigrationFixture("light", on: kind)
        defer { fixture.remove() }
        let v2 = try NotesV1.make(noteAttributes: [AttributeDescription("pinned", .boolean, defaultValue: true)])
        let plan = MigrationSQL(mapping: try MappingModel.inferred(from: try NotesV1.make(), to: v2), rowCounts: [:],
                                dialect: kind == .postgres ? .postgreSQL : .sqlite)
        let sql = plan.steps.compactMap { step -> String? in if case .run(let fragment) = step { fragment.sql } else { nil } }
        let type = kind == .postgres ? "bigint" : "INTEGER"
        #expect(sql == [#"ALTER TABLE "Note" ADD COLUMN "pinned" "# + type, #"UPDATE "Note" SET "pinned" = ?"#])
        let context = try migrate(fixture, to: v2)
        #expect(try context.all("Note", by: "title").map { $0["pinned"] as? Bool } == Array(repeating: true, count: 5))
    }

    @Test("Progress is reported in order and ends at 1", arguments: MigrationFixture.kinds)
    func progress(kind: StoreKind) throws {
        let fixture = try MigrationFixture("light", on: kind)
        defer { fixture.remove() }
        try fixture.write(try NotesV1.make(), NotesV1.fill)
        let log = ProgressLog()
        let v2 = try NotesV1.make(noteAttributes: [AttributeDescription("pinned", .boolean, defaultValue: false)])
        _ = try fixture.open(v2, migratingFrom: [try NotesV1.make()]) { log.record($0) }
        #expect(!log.reported.isEmpty)
        #expect(log.reported == log.reported.sorted())
        #expect(log.reported.last == 1)
    }

    @Test("A store made with another model still fails to open without migration, naming what differs", arguments: MigrationFixture.kinds)
    func mismatchWithoutMigration(kind: StoreKind) throws {
        let fixture = try MigrationFixture("light", on: kind)
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

    @Test("With inference off, a store made with a given source model is refused for that reason, not as an unknown model", arguments: MigrationFixture.kinds)
    func inferenceOff(kind: StoreKind) throws {
        let fixture = try MigrationFixture("light", on: kind)
        defer { fixture.remove() }
        try fixture.write(try NotesV1.make(), NotesV1.fill)
        let v2 = try NotesV1.make(noteAttributes: [AttributeDescription("pinned", .boolean, defaultValue: false)])
        let error = try #require(throws: ObjectGraphError.self) {
            try fixture.open(v2, migratingFrom: [try NotesV1.make()], inferring: false)
        }
        #expect(error.code == .modelMismatch)
        #expect(error.message.contains("was made with one of the options' sourceModels, but no mapping model migrates it and shouldInferMappingModelAutomatically is off"))
        #expect(!error.message.contains("Add the model it was made with"))
    }

    @Test("A migration that breaks a new uniqueness constraint names both objects and leaves the file as it was", arguments: MigrationFixture.kinds)
    func failureLeavesStoreUntouched(kind: StoreKind) throws {
        let fixture = try MigrationFixture("light", on: kind)
        defer { fixture.remove() }
        try fixture.write(try NotesV1.make()) { context in
            try NotesV1.fill(context)
            try context.insert("Note")["title"] = "Pie"
        }
        let before = kind == .sqlite ? try fixture.bytes() : Data()
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
        if kind == .sqlite { #expect(try fixture.bytes() == before) }
        let after = try fixture.files()
        #expect(after == files, "\(after)")
        // And it still opens with the model it was made with.
        #expect(try fixture.open(try NotesV1.make()).count(for: FetchRequest(entityName: "Note")) == 6)
    }

    @Test("A canonical search column is added and filled from the text it folds", arguments: MigrationFixture.kinds)
    func addCanonicalColumn(kind: StoreKind) throws {
        let fixture = try MigrationFixture("light", on: kind)
        defer { fixture.remove() }
        let v2 = try NotesV1.make(noteAttributes: [AttributeDescription("titleKey", .string, derivedFrom: "canonical:(title)")])
        let context = try migrate(fixture, to: v2)
        #expect(try context.all("Note", by: "title").map { $0["titleKey"] as? String } == ["bun", "pie", "soup", "stew", "tart"])
        #expect(try context.count(for: FetchRequest(entityName: "Note", predicate: try FetchPredicate("titleKey == 'stew'"))) == 1)
    }

    @Test("An integer attribute becomes a double: its values are kept, and a fraction saved afterwards stays one",
          arguments: MigrationFixture.kinds)
    func integerToDouble(kind: StoreKind) throws {
        let fixture = try MigrationFixture("light", on: kind)
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
                    AttributeDescription("rating", .double, isOptional: true),
                    AttributeDescription("image", .binary, isOptional: true),
                ],
                relationships: [RelationshipDescription("author", to: "Author", inverse: "notes")]),
        ])
        let context = try migrate(fixture, to: v2)
        let notes = try context.all("Note", by: "title")
        #expect(notes.map { $0["rating"] as? Double } == [4, nil, 5, nil, 2])
        notes[0]["rating"] = 4.5
        try context.save()
        let reopened = try fixture.open(v2)
        #expect(try reopened.all("Note", by: "title").map { $0["rating"] as? Double } == [4.5, nil, 5, nil, 2])
    }

    @Test("A PostgreSQL store refuses a mapping with policies, naming the entity mappings and the change, and stays as it was",
          .enabled(if: PostgresTestServer.isAvailable))
    func policiesRefusedOnPostgres() throws {
        let fixture = try MigrationFixture("light", on: .postgres)
        try fixture.write(try TaggedNotes.version1()) { context in
            let note = try context.insert("Note")
            note["title"] = "one"
            note["tag"] = "red"
        }
        let error = try #require(throws: ObjectGraphError.self) {
            _ = try fixture.open(try TaggedNotes.version2(), mappings: [try TaggedNotes.mapping()])
        }
        #expect(error.code == .migrationFailed)
        #expect(error.message.contains("have policies, which a PostgreSQL store does not run"), "\(error.message)")
        #expect(error.message.contains("NoteToNote") && error.message.contains("Tag is new in the model"), "\(error.message)")
        #expect(error.message.hasSuffix("the store is unchanged."))
        let reopened = try fixture.open(try TaggedNotes.version1())
        #expect(try reopened.all("Note", by: "title").map { $0["tag"] as? String } == ["red"])
    }
}
