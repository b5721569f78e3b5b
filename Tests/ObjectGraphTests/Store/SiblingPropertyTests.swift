import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Sibling sub-entities may declare properties of the same name: they share one column when
/// they are stored alike; otherwise the model is rejected with a clear error.
@MainActor
struct SiblingPropertyTests {
    static func model(videoBytesType: AttributeType = .integer64,
                      photosRule: RelationshipDescription.DeleteRule = .nullify) throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Media", isAbstract: true, attributes: [AttributeDescription("caption", .string)]),
            EntityDescription("Photo", parent: "Media",
                attributes: [AttributeDescription("bytes", .integer64), AttributeDescription("width", .integer32)],
                relationships: [RelationshipDescription("owner", to: "Person", inverse: "photos")]),
            EntityDescription("Video", parent: "Media",
                attributes: [AttributeDescription("bytes", videoBytesType), AttributeDescription("seconds", .double)],
                relationships: [RelationshipDescription("owner", to: "Person", inverse: "videos")]),
            EntityDescription("Person", attributes: [AttributeDescription("name", .string)],
                relationships: [RelationshipDescription("photos", toMany: "Photo", inverse: "owner", deleteRule: photosRule),
                                RelationshipDescription("videos", toMany: "Video", inverse: "owner")]),
        ])
    }

    @Test("Siblings with a same-named attribute and to-one of the same kind share columns, and round-trip")
    func sharedColumns() throws {
        let coordinator = PersistentStoreCoordinator(model: try Self.model())
        try coordinator.addStore(at: ":memory:")
        let context = MainContext(coordinator: coordinator)
        let person = try context.insert("Person")
        person["name"] = "Ana"
        let photo = try context.insert("Photo")
        photo["caption"] = "photo"
        photo["bytes"] = 100
        photo["width"] = 640
        photo["owner"] = person
        let video = try context.insert("Video")
        video["caption"] = "video"
        video["bytes"] = 2_000
        video["seconds"] = 1.5
        video["owner"] = person
        try context.save()
        context.reset()
        let media = try context.fetch(FetchRequest(entityName: "Media", sortKeys: [SortKey("caption")]))
        #expect(media.map { $0["caption"] as? String } == ["photo", "video"])
        #expect(media.map { $0["bytes"] as? Int } == [100, 2_000])
        #expect(media[0]["width"] as? Int == 640 && media[1]["seconds"] as? Double == 1.5)
        let big = try context.fetch(FetchRequest(entityName: "Video", predicate: try FetchPredicate("bytes > 1000")))
        #expect(big.count == 1 && big[0]["seconds"] as? Double == 1.5)
        let owner = try context.fetch(FetchRequest(entityName: "Person"))[0]
        #expect(try owner.objects(forKey: "photos").count == 1)
        #expect(try owner.objects(forKey: "videos").count == 1)
        for entity in ["Photo", "Video"] {
            let request = FetchRequest(entityName: entity, predicate: try FetchPredicate("owner.name == 'Ana'"))
            #expect(try context.count(for: request) == 1)
        }
    }

    @Test("A batch delete follows each sibling's relationship over the shared column, not the other's")
    func batchDeleteKeepsSiblingsApart() throws {
        let coordinator = PersistentStoreCoordinator(model: try Self.model(photosRule: .cascade))
        try coordinator.addStore(at: ":memory:")
        let context = MainContext(coordinator: coordinator)
        let person = try context.insert("Person")
        person["name"] = "Ana"
        for entity in ["Photo", "Video"] {
            let media = try context.insert(entity)
            media["caption"] = entity
            media["bytes"] = 1
            media[entity == "Photo" ? "width" : "seconds"] = 1
            media["owner"] = person
        }
        try context.save()
        try context.execute(BatchDeleteRequest(entityName: "Person"))
        context.reset()
        let left = try context.fetch(FetchRequest(entityName: "Media"))
        #expect(left.map { $0["caption"] as? String } == ["Video"])  // the photo cascaded, the video stays
        #expect(left.first?["owner"] == nil)
    }

    @Test("Siblings whose same-named attributes differ in type are rejected, naming both")
    func conflictingTypesAreRejected() throws {
        let error = try #require(throws: ObjectGraphError.self) { try Self.model(videoBytesType: .string) }
        #expect(error.code == .invalidModel)
        #expect(error.message.contains("Photo.bytes") && error.message.contains("Video.bytes"), "\(error.message)")
        #expect(error.message.contains("Int64") && error.message.contains("String"), "\(error.message)")
    }
}
