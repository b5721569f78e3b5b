import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Derived attributes: declared by an expression, computed by the framework on save (in
/// memory for a context's save, in SQL for a batch delete), never set by hand.
@MainActor
struct DerivedAttributeTests {
    /// Albums with tracks (to-many), a cover (one-to-one) and genres (many-to-many), and one
    /// derived attribute of each kind.
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Album",
                attributes: [
                    AttributeDescription("title", .string),
                    AttributeDescription("subtitle", .string, isOptional: true),
                    AttributeDescription("titleCanonical", .string, derivedFrom: "canonical:(title)"),
                    AttributeDescription("trackCount", .integer32, derivedFrom: "tracks.@count"),
                    AttributeDescription("genreCount", .integer16, derivedFrom: "genres.@count"),
                    AttributeDescription("hasCover", .boolean, derivedFrom: "cover != nil"),
                    AttributeDescription("hasSubtitle", .boolean, derivedFrom: "subtitle != nil"),
                ],
                relationships: [
                    RelationshipDescription("tracks", toMany: "Track", inverse: "album", deleteRule: .cascade),
                    RelationshipDescription("cover", to: "Cover", inverse: "album", deleteRule: .cascade),
                    RelationshipDescription("genres", toMany: "Genre", inverse: "albums"),
                ]),
            EntityDescription("Track", attributes: [AttributeDescription("title", .string)],
                relationships: [RelationshipDescription("album", to: "Album", inverse: "tracks")]),
            EntityDescription("Cover", attributes: [AttributeDescription("bytes", .binary, isOptional: true)],
                relationships: [RelationshipDescription("album", to: "Album", inverse: "cover")]),
            EntityDescription("Genre", attributes: [AttributeDescription("name", .string)],
                relationships: [RelationshipDescription("albums", toMany: "Album", inverse: "genres")]),
        ])
    }

    let coordinator: PersistentStoreCoordinator

    init() throws {
        coordinator = PersistentStoreCoordinator(model: try Self.model())
        try coordinator.addStore(at: ":memory:")
    }

    /// An album with `tracks` tracks, a cover when asked, and the given genres, saved.
    @discardableResult
    func makeAlbum(_ context: MainContext, _ title: String, tracks: Int, cover: Bool = false,
                   genres: [ManagedObject] = []) throws -> ManagedObject {
        let album = try context.insert("Album")
        album["title"] = title
        for index in 0..<tracks {
            let track = try context.insert("Track")
            track["title"] = "\(title) \(index + 1)"
            track["album"] = album
        }
        if cover { try context.insert("Cover")["album"] = album }
        for genre in genres { try album.add(genre, toKey: "genres") }
        try context.save()
        return album
    }

    /// The derived values of the album titled `title`, read by a fresh context from the store.
    func stored(_ title: String) throws -> [String: Int] {
        let context = MainContext(coordinator: coordinator)
        let album = try #require(try context.fetch(FetchRequest(entityName: "Album",
                                                                predicate: FetchPredicate("title == %@", title))).first)
        return ["tracks": album["trackCount"] as! Int, "genres": album["genreCount"] as! Int,
                "cover": (album["hasCover"] as! Bool) ? 1 : 0, "subtitle": (album["hasSubtitle"] as! Bool) ? 1 : 0]
    }

    @Test("A save computes counts and nil tests from the relationships; the object shows them at once")
    func computedOnSave() throws {
        let context = MainContext(coordinator: coordinator)
        let rock = try context.insert("Genre")
        rock["name"] = "rock"
        let album = try context.insert("Album")
        album["title"] = "Blue"
        for _ in 0..<3 {
            let track = try context.insert("Track")
            track["title"] = "t"
            track["album"] = album
        }
        try context.insert("Cover")["album"] = album
        try album.add(rock, toKey: "genres")
        #expect(album["trackCount"] as? Int == 0, "computed on save, like Core Data's derived attributes")
        try context.save()
        #expect(album["trackCount"] as? Int == 3)
        #expect(album["hasCover"] as? Bool == true)
        #expect(album["genreCount"] as? Int == 1)
        #expect(try stored("Blue") == ["tracks": 3, "genres": 1, "cover": 1, "subtitle": 0])
    }

    @Test("An attribute's nil test and canonical fold follow every write, before any save")
    func attributeDerivationsFollowWrites() throws {
        let context = MainContext(coordinator: coordinator)
        let album = try context.insert("Album")
        album["title"] = "Crème Brûlée"
        #expect(album["titleCanonical"] as? String == "creme brulee")
        #expect(album["hasSubtitle"] as? Bool == false)
        album["subtitle"] = "live"
        #expect(album["hasSubtitle"] as? Bool == true)
        try context.save()
        album["subtitle"] = nil
        #expect(album["hasSubtitle"] as? Bool == false)
        try context.save()
        #expect(try stored("Crème Brûlée")["subtitle"] == 0)
    }

    @Test("Deleting, moving and adding through a context keep the counts right, with the to-many still a fault")
    func contextChangesKeepCountsRight() throws {
        let setup = MainContext(coordinator: coordinator)
        let jazz = try setup.insert("Genre")
        jazz["name"] = "jazz"
        try makeAlbum(setup, "A", tracks: 3, cover: true, genres: [jazz])
        try makeAlbum(setup, "B", tracks: 1)

        // A fresh context: the albums' to-many relationships are faults.
        let context = MainContext(coordinator: coordinator)
        func album(_ title: String) throws -> ManagedObject {
            try #require(try context.fetch(FetchRequest(entityName: "Album", predicate: FetchPredicate("title == %@", title))).first)
        }
        let a = try album("A"), b = try album("B")
        let firstOfA = try #require(try context.fetch(FetchRequest(entityName: "Track", predicate: FetchPredicate("title == 'A 1'"))).first)
        firstOfA["album"] = b                               // moved: A loses one, B gains one
        let added = try context.insert("Track")
        added["title"] = "B new"
        added["album"] = b                                  // added to a faulted to-many
        context.delete(try #require(a["cover"] as? ManagedObject))  // nullify: A loses its cover
        try context.save()
        #expect(a["trackCount"] as? Int == 2 && b["trackCount"] as? Int == 3)
        #expect(try stored("A") == ["tracks": 2, "genres": 1, "cover": 0, "subtitle": 0])
        #expect(try stored("B") == ["tracks": 3, "genres": 0, "cover": 0, "subtitle": 0])

        context.delete(try #require(try context.fetch(FetchRequest(entityName: "Genre")).first))
        try context.save()
        #expect(try stored("A")["genres"] == 0)
    }

    @Test("A batch delete recomputes the derived values of the rows that lost a related row, in SQL, and merges them")
    func batchDeleteRecomputes() throws {
        let context = MainContext(coordinator: coordinator)
        let pop = try context.insert("Genre"), folk = try context.insert("Genre")
        pop["name"] = "pop"
        folk["name"] = "folk"
        let a = try makeAlbum(context, "A", tracks: 4, cover: true, genres: [pop, folk])
        try makeAlbum(context, "B", tracks: 2, genres: [pop])

        let tracks = try context.execute(BatchDeleteRequest(entityName: "Track", predicate: FetchPredicate("title IN {'A 1', 'A 2', 'B 1'}")))
        #expect(Set(tracks.recomputedIDs.map { coordinator.model.describe($0) }) == ["Album/p1", "Album/p2"])
        #expect(a["trackCount"] as? Int == 2, "the registered album was refreshed")
        #expect(try stored("A")["tracks"] == 2 && stored("B")["tracks"] == 1)

        let covers = try context.execute(BatchDeleteRequest(entityName: "Cover"))  // nullify: A's cover column cleared
        #expect(covers.recomputedIDs == [a.objectID])
        #expect(a["hasCover"] as? Bool == false)

        try context.execute(BatchDeleteRequest(entityName: "Genre", predicate: FetchPredicate("name == 'pop'")))  // many-to-many
        #expect(try stored("A")["genres"] == 1 && stored("B")["genres"] == 0)

        // A deleted album is not recomputed: its cascade takes its tracks and cover.
        let albums = try context.execute(BatchDeleteRequest(entityName: "Album", predicate: FetchPredicate("title == 'A'")))
        #expect(albums.recomputedIDs.isEmpty)
    }

    @Test("A count-only batch delete of every row recomputes the rows that lose one, and none that go with it")
    func countOnlyBatchDeleteRecomputes() throws {
        let context = MainContext(coordinator: coordinator)
        let pop = try context.insert("Genre")
        pop["name"] = "pop"
        let a = try makeAlbum(context, "A", tracks: 3, cover: true, genres: [pop])
        try makeAlbum(context, "B", tracks: 2)

        let tracks = try context.execute(BatchDeleteRequest(entityName: "Track", resultType: .count))
        #expect(tracks.deletedCount == 5 && tracks.deletedIDs.isEmpty)
        #expect(tracks.recomputedIDs.count == 2)
        #expect(a["trackCount"] as? Int == 0)
        #expect(try stored("A")["tracks"] == 0 && stored("B")["tracks"] == 0)

        let albums = try context.execute(BatchDeleteRequest(entityName: "Album", resultType: .count))
        #expect(albums.deletedCount == 3, "two albums and a cover")
        #expect(albums.recomputedIDs.isEmpty)
        #expect(try context.count(for: FetchRequest(entityName: "Cover")) == 0)
        #expect(try context.count(for: FetchRequest(entityName: "Genre")) == 1)
        #expect(try pop.objects(forKey: "albums").isEmpty)
    }

    @Test("Setting a derived attribute is refused with the expression and what to change instead")
    func derivedAttributesCannotBeSet() throws {
        let context = MainContext(coordinator: coordinator)
        let album = try context.insert("Album")
        #expect(throws: ObjectGraphError.self) { try album.setValue(5, forKey: "trackCount") }
        do {
            try album.setValue(parsing: "yes", forKey: "hasCover")
            Issue.record("hasCover was set")
        } catch let error as ObjectGraphError {
            #expect(error.message == "'Album.hasCover' is derived (cover != nil) and computed by the framework; change 'cover' instead")
        }
        #expect(throws: ObjectGraphError.self) {
            try context.execute(BatchUpdateRequest(entityName: "Album", propertiesToUpdate: ["trackCount": 1]))
        }
    }

    @Test("Expressions read back as written; a derivation that does not fit its source is a model error")
    func modelChecks() throws {
        #expect(AttributeDescription.Derivation(expression: "tracks.@count") == .count("tracks"))
        #expect(AttributeDescription.Derivation(expression: " cover != nil ") == .exists("cover"))
        #expect(AttributeDescription.Derivation(expression: "canonical:(title)")?.description == "canonical:(title)")
        #expect(AttributeDescription.Derivation(expression: "tracks.@sum") == nil)
        #expect(AttributeDescription.Derivation(expression: "a b != nil") == nil)

        func error(_ attribute: AttributeDescription) -> String? {
            do {
                _ = try ObjectModel(entities: [
                    EntityDescription("Album",
                        attributes: [AttributeDescription("title", .string), attribute],
                        relationships: [RelationshipDescription("tracks", toMany: "Track", inverse: "album")]),
                    EntityDescription("Track", attributes: [AttributeDescription("length", .double)],
                        relationships: [RelationshipDescription("album", to: "Album", inverse: "tracks")]),
                ])
                return nil
            } catch {
                return (error as? ObjectGraphError)?.message
            }
        }
        #expect(error(AttributeDescription("n", .integer64, derivedFrom: "tracks.@count")) == nil)
        #expect(error(AttributeDescription("n", .integer32, derivedFrom: "title.@count"))
                == "derived attribute 'Album.n' (title.@count): needs a to-many relationship 'title' and is an integer itself")
        #expect(error(AttributeDescription("n", .string, derivedFrom: "tracks.@count"))?.contains("is an integer itself") == true)
        #expect(error(AttributeDescription("b", .boolean, derivedFrom: "tracks != nil"))?.contains("count a to-many one with @count") == true)
        #expect(error(AttributeDescription("b", .boolean, derivedFrom: "missing != nil"))
                == "derived attribute 'Album.b' (missing != nil): 'Album' has no property 'missing'")
        #expect(error(AttributeDescription("c", .string, derivedFrom: "canonical:(tracks)"))?.contains("needs a String attribute") == true)
        #expect(error(AttributeDescription("b", .boolean, isTransient: true, derivedFrom: "title != nil"))?.contains("cannot be transient") == true)
    }

    @Test("An expression the model cannot read stops the program with a message")
    func unreadableExpressionTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = AttributeDescription("n", .integer32, derivedFrom: "tracks.count")
        }
    }

    @Test("A typed write to a derived attribute stops the program with the same message")
    func typedWriteTraps() async {
        await #expect(processExitsWith: .failure) {
            await MainActor.run {
                let coordinator = PersistentStoreCoordinator(model: try! DerivedAttributeTests.model())
                let album = MainContext(coordinator: coordinator).insert(coordinator.model.entity(named: "Album")!)
                album[attribute: "trackCount"] = 3
            }
        }
    }

    @Test("A typed write through the attribute's description to a derived attribute stops the program too")
    func typedDescriptionWriteTraps() async {
        await #expect(processExitsWith: .failure) {
            await MainActor.run {
                let coordinator = PersistentStoreCoordinator(model: try! DerivedAttributeTests.model())
                let album = MainContext(coordinator: coordinator).insert(coordinator.model.entity(named: "Album")!)
                let trackCount = coordinator.model.entity(named: "Album")!.attribute(named: "trackCount")!
                album[trackCount] = 3
            }
        }
    }

    @Test("The model-mismatch error says which attribute became derived")
    func mismatchNamesDerivation() {
        let plain = try! ObjectModel(entities: [EntityDescription("Album", attributes: [
            AttributeDescription("title", .string), AttributeDescription("hasTitle", .boolean)])])
        let derived = try! ObjectModel(entities: [EntityDescription("Album", attributes: [
            AttributeDescription("title", .string), AttributeDescription("hasTitle", .boolean, derivedFrom: "title != nil")])])
        #expect(ModelDifferences(stored: plain.storageDescriptions, current: derived.storageDescriptions).summary
                == "Album changed (attribute 'hasTitle' is now derived (title != nil))")
    }
}
