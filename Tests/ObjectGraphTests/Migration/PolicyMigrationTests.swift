import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Notes whose tag was a string become notes related to unique `Tag` objects.
@MainActor
enum TaggedNotes {
    static func version1() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Note", attributes: [AttributeDescription("title", .string),
                                                   AttributeDescription("tag", .string, isOptional: true)]),
        ])
    }

    static func version2() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Note", attributes: [AttributeDescription("title", .string)],
                              relationships: [RelationshipDescription("tag", to: "Tag", inverse: "notes")]),
            EntityDescription("Tag", attributes: [AttributeDescription("name", .string)],
                              relationships: [RelationshipDescription("notes", toMany: "Note", inverse: "tag")],
                              uniquenessConstraints: [["name"]]),
        ])
    }

    /// 2,500 notes (three batches), tagged in a cycle of seven names, every tenth untagged.
    static func fill(_ context: MainContext) throws {
        for index in 0..<2_500 {
            let note = try context.insert("Note")
            note["title"] = "note \(index)"
            note["tag"] = index % 10 == 9 ? nil : "tag \(index % 7)"
        }
    }

    /// Makes one Tag per name, found again through a cache of IDs across batches.
    struct TagPolicy: EntityMigrationPolicy {
        var tags: [String: ObjectID] = [:]
        var failsOn: String?

        mutating func createDestinationInstances(for source: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws {
            if source["title"] as? String == failsOn { throw ObjectGraphError(.invalidValue, "this note cannot be migrated") }
            let note = try manager.createDefaultInstance(for: source, mapping: mapping)!
            guard let name = source["tag"] as? String else { return }
            let tag = try tags[name].map(manager.destinationObject(with:)) ?? {
                let tag = try manager.insertDestinationObject("Tag")
                tag["name"] = name
                return tag
            }()
            tags[name] = tag.objectID
            note["tag"] = tag
        }
    }

    static func mapping(failingOn title: String? = nil) throws -> MappingModel {
        let v1 = try version1(), v2 = try version2()
        return try MappingModel(from: v1, to: v2, entityMappings: [
            try EntityMapping(custom: "Note", from: v1, to: v2) { TagPolicy(failsOn: title) },
        ])
    }
}

@MainActor
@Suite("Migration with a custom policy")
struct PolicyMigrationTests {
    let fixture: MigrationFixture

    init() throws { fixture = try MigrationFixture("policy") }

    @Test("Strings become unique related objects, across batches, and progress rises to 1")
    func stringsBecomeObjects() throws {
        defer { fixture.remove() }
        try fixture.write(try TaggedNotes.version1(), TaggedNotes.fill)
        let log = ProgressLog()
        let mapping = try TaggedNotes.mapping()
        #expect(mapping.needsPolicies)
        let context = try fixture.open(mapping.destinationModel, mappings: [mapping]) { log.record($0) }
        let tags = try context.all("Tag", by: "name")
        #expect(tags.map { $0["name"] as? String } == (0..<7).map { "tag \($0)" })
        let notes = try context.fetch(FetchRequest(entityName: "Note"))
        #expect(notes.count == 2_500)
        for note in notes {
            let index = Int((note["title"] as! String).dropFirst(5))!
            #expect((note["tag"] as? ManagedObject)?["name"] as? String == (index % 10 == 9 ? nil : "tag \(index % 7)"))
        }
        #expect(tags.map { ($0["notes"] as! [ManagedObject]).count }.reduce(0, +) == 2_250)
        #expect(log.reported.count > 4)
        #expect(log.reported == log.reported.sorted())
        #expect(log.reported.last == 1)
        #expect(try fixture.files().filter { $0.contains("-migrat") }.isEmpty, "no copy is left behind")
    }

    @Test("A policy that throws on one object stops the migration, names the object, and leaves the file as it was")
    func failingPolicy() throws {
        defer { fixture.remove() }
        try fixture.write(try TaggedNotes.version1(), TaggedNotes.fill)
        let before = try fixture.bytes()
        let mapping = try TaggedNotes.mapping(failingOn: "note 1234")
        let error = try #require(throws: ObjectGraphError.self) { _ = try fixture.open(mapping.destinationModel, mappings: [mapping]) }
        #expect(error.code == .migrationFailed)
        #expect(error.message.hasPrefix("mapping NoteToNote failed on Note/p1235: this note cannot be migrated."))
        #expect(error.message.hasSuffix("is unchanged."))
        #expect(try fixture.bytes() == before)
        #expect(try fixture.files() == ["store.sqlite"])
    }

    @Test("A custom mapping maps each property from its renaming identifier, as inference does")
    func customMappingFollowsRenames() throws {
        defer { fixture.remove() }
        let v1 = try TaggedNotes.version1()
        let v2 = try ObjectModel(entities: [
            EntityDescription("Note", attributes: [
                AttributeDescription("heading", .string, renamingIdentifier: "title"),
                AttributeDescription("label", .string, isOptional: true, renamingIdentifier: "tag"),
                AttributeDescription("stamp", .integer64, isOptional: true),
            ]),
        ])
        try fixture.write(v1) { context in
            for index in 0..<3 {
                let note = try context.insert("Note")
                note["title"] = "note \(index)"
                note["tag"] = "tag \(index)"
            }
        }
        struct StampPolicy: EntityMigrationPolicy {
            mutating func createDestinationInstances(for source: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws {
                try manager.createDefaultInstance(for: source, mapping: mapping)?["stamp"] = 7
            }
        }
        let custom = try EntityMapping(custom: "Note", from: v1, to: v2) { StampPolicy() }
        #expect(custom.attributeMappings.map(\.description) == ["heading ← title", "label ← tag", "stamp ← default"])
        let mapping = try MappingModel(from: v1, to: v2, entityMappings: [custom])
        let context = try fixture.open(v2, mappings: [mapping])
        let notes = try context.all("Note", by: "heading")
        #expect(notes.map { $0["heading"] as? String } == ["note 0", "note 1", "note 2"])
        #expect(notes.map { $0["label"] as? String } == ["tag 0", "tag 1", "tag 2"])
        #expect(notes.map { $0["stamp"] as? Int } == [7, 7, 7])
    }

    @Test("The default instance keeps a source nil for an optional attribute whose new version has a default")
    func nilIsNotReplacedByDefault() throws {
        defer { fixture.remove() }
        let v1 = try TaggedNotes.version1()
        let v2 = try ObjectModel(entities: [
            EntityDescription("Note", attributes: [AttributeDescription("title", .string),
                                                   AttributeDescription("tag", .string, isOptional: true, defaultValue: "inbox"),
                                                   AttributeDescription("stamp", .integer64, isOptional: true)]),
        ])
        try fixture.write(v1) { context in
            for (title, tag) in [("a", "work"), ("b", nil)] {
                let note = try context.insert("Note")
                note["title"] = title
                note["tag"] = tag
            }
        }
        let mapping = try MappingModel(from: v1, to: v2, entityMappings: [
            try EntityMapping(custom: "Note", from: v1, to: v2) { DefaultMigrationPolicy() },
        ])
        let context = try fixture.open(v2, mappings: [mapping])
        #expect(try context.all("Note", by: "title").map { $0["tag"] as? String } == ["work", nil])
        // As the same change migrated in SQL does.
        #expect(try context.insert("Note")["tag"] as? String == "inbox", "a new note gets the default")
    }

    @Test("A policy finds a destination object it associated in an earlier batch by the temporary ID it kept")
    func associatedObjectAcrossBatches() throws {
        defer { fixture.remove() }
        try fixture.write(try TaggedNotes.version1(), TaggedNotes.fill)
        let v1 = try TaggedNotes.version1()
        let v2 = try ObjectModel(entities: [
            EntityDescription("Note", attributes: [AttributeDescription("title", .string),
                                                   AttributeDescription("tag", .string, isOptional: true),
                                                   AttributeDescription("firstTitle", .string, isOptional: true)]),
        ])
        /// Keeps the ID of the first note it migrated, and copies that note's title into every later one.
        struct FirstNotePolicy: EntityMigrationPolicy {
            var first: ObjectID?
            mutating func createDestinationInstances(for source: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws {
                let note = try manager.createDefaultInstance(for: source, mapping: mapping)!
                guard let first else { first = note.objectID; return }
                note["firstTitle"] = manager.destinationObject(with: first)["title"]
            }
        }
        let mapping = try MappingModel(from: v1, to: v2, entityMappings: [
            try EntityMapping(custom: "Note", from: v1, to: v2) { FirstNotePolicy() },
        ])
        let context = try fixture.open(v2, mappings: [mapping])
        let notes = try context.fetch(FetchRequest(entityName: "Note"))
        #expect(notes.count == 2_500)
        #expect(notes.filter { $0["firstTitle"] as? String == "note 0" }.count == 2_499)
    }
}

@Suite("Inferring a mapping")
struct MappingInferenceTests {
    static func model(_ note: [AttributeDescription], relationship: RelationshipDescription? = nil,
                      inverse: RelationshipDescription? = nil, parent: String? = nil) throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Base", attributes: []),
            EntityDescription("Note", parent: parent, attributes: note,
                              relationships: relationship.map { [$0] } ?? []),
            EntityDescription("Tag", relationships: inverse.map { [$0] } ?? []),
        ])
    }

    @Test("Changes that need code are refused with the entity, the property and the change", arguments: [
        (try! model([AttributeDescription("n", .string)]), "attribute 'Note.n' changes type from Int32 to String"),
        (try! model([AttributeDescription("n", .integer32)]), "attribute 'Note.n' becomes required but has no default value"),
        (try! model([AttributeDescription("n", .integer32, isOptional: true), AttributeDescription("m", .string)]),
         "new attribute 'Note.m' is required and has no default value"),
        (try! model([AttributeDescription("n", .integer32, isOptional: true)], parent: "Base"),
         "entity 'Note' moves from parent none to 'Base'"),
        (try! model([AttributeDescription("n", .integer32, isOptional: true)],
                    relationship: RelationshipDescription("tag", to: "Tag", inverse: "notes"),
                    inverse: RelationshipDescription("notes", toMany: "Note", inverse: "tag")),
         "relationship 'Note.tag' changes from to-many to to-one"),
    ])
    func refusals(_ destination: ObjectModel, _ message: String) throws {
        let source = try Self.model([AttributeDescription("n", .integer32, isOptional: true)],
                                    relationship: RelationshipDescription("tag", toMany: "Tag", inverse: "notes"),
                                    inverse: RelationshipDescription("notes", toMany: "Note", inverse: "tag"))
        let error = try #require(throws: ObjectGraphError.self) { _ = try MappingModel.inferred(from: source, to: destination) }
        #expect(error.code == .cannotInferMapping)
        #expect(error.message.contains(message), "\(error.message)")
    }

    @Test("The same model needs nothing")
    func sameModel() throws {
        let mapping = try MappingModel.inferred(from: try Self.model([]), to: try Self.model([]))
        #expect(mapping.isEmpty)
        #expect(mapping.description == "no changes")
    }
}
