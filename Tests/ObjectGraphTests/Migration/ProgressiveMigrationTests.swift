import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

@MainActor
@Suite("Migration across several model versions")
struct ProgressiveMigrationTests {
    let fixture: MigrationFixture

    init() throws { fixture = try MigrationFixture("progressive") }

    /// Version 3 of the tagged notes: version 2 with a `pinned` flag, and titles unique when asked.
    static func version3(uniqueTitles: Bool = false) throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Note", attributes: [AttributeDescription("title", .string),
                                                   AttributeDescription("pinned", .boolean, defaultValue: true)],
                              relationships: [RelationshipDescription("tag", to: "Tag", inverse: "notes")],
                              uniquenessConstraints: uniqueTitles ? [["title"]] : []),
            EntityDescription("Tag", attributes: [AttributeDescription("name", .string)],
                              relationships: [RelationshipDescription("notes", toMany: "Note", inverse: "tag")],
                              uniquenessConstraints: [["name"]]),
        ])
    }

    /// Five version-1 notes: "a", "b" and "c" tagged "t0", two called "same" tagged "t1".
    static func fill(_ context: MainContext) throws {
        for (index, title) in ["a", "same", "b", "same", "c"].enumerated() {
            let note = try context.insert("Note")
            note["title"] = title
            note["tag"] = "t\(index % 2)"
        }
        try context.coordinator.stores[0].setMetadata("7", forKey: "appBuild")
    }

    @Test("A v1 store opened with v3 runs the v1→v2 mapping's policy, then infers v2→v3, instead of inferring v1→v3")
    func mappingThenInference() throws {
        defer { fixture.remove() }
        try fixture.write(try TaggedNotes.version1(), Self.fill)
        let uuid = try SQLiteStore.metadata(ofStoreAt: fixture.path)[SQLiteStore.MetadataKey.storeUUID]
        let log = ProgressLog()
        // v1 is a source model too: inferring v1→v3 straight away would drop every tag.
        let context = try fixture.open(try Self.version3(), migratingFrom: [try TaggedNotes.version1()],
                                       mappings: [try TaggedNotes.mapping()]) { log.record($0) }
        let notes = try context.all("Note", by: "title")
        #expect(notes.map { ($0["tag"] as? ManagedObject)?["name"] as? String } == ["t0", "t0", "t0", "t1", "t1"])
        #expect(notes.map { $0["pinned"] as? Bool } == Array(repeating: true, count: 5))
        #expect(try context.all("Tag", by: "name").count == 2)
        let metadata = try SQLiteStore.metadata(ofStoreAt: fixture.path)
        #expect(metadata["appBuild"] == "7")
        #expect(metadata[SQLiteStore.MetadataKey.storeUUID] == uuid)
        #expect(log.reported == log.reported.sorted())
        #expect(log.reported.last == 1)
        #expect(try fixture.files().allSatisfy { !$0.contains("-migrat") }, "no working copy is left behind")
    }

    @Test("A chain whose second step fails leaves the v1 store byte for byte as it was")
    func failingSecondStep() throws {
        defer { fixture.remove() }
        try fixture.write(try TaggedNotes.version1(), Self.fill)
        let before = try fixture.bytes()
        let error = try #require(throws: ObjectGraphError.self) {
            _ = try fixture.open(try Self.version3(uniqueTitles: true), mappings: [try TaggedNotes.mapping()])
        }
        #expect(error.code == .migrationFailed)
        #expect(error.message.contains("have the same title"))
        #expect(error.message.hasSuffix("is unchanged."))
        #expect(try fixture.bytes() == before)
        #expect(try fixture.files() == ["store.sqlite"])
        #expect(try SQLiteStore.isStore(at: fixture.path, compatibleWith: try TaggedNotes.version1()))
    }
}
