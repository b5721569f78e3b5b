import ObjectGraphSQLite
import Testing
@testable import recipes

/// The fetch clauses parsed in-process, on a small model with sub-entities.
@MainActor
@Suite("FetchCommand")
struct FetchCommandTests {
    let context: MainContext

    init() throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Media", isAbstract: true, attributes: [AttributeDescription("caption", .string, isOptional: true)]),
            EntityDescription("Photo", parent: "Media", attributes: [AttributeDescription("width", .integer32, defaultValue: 0)]),
            EntityDescription("Video", parent: "Media", attributes: [AttributeDescription("seconds", .double, defaultValue: 0)]),
        ])
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(at: ":memory:")
        context = MainContext(coordinator: coordinator)
    }

    func parse(_ text: String, command: String = "fetch") throws -> FetchCommand {
        let parts = CommandWords.clauses(text, keywords: FetchCommand.keywords)
        return try FetchCommand(entity: try context.model.requireEntity(named: parts.head), clauses: parts.clauses,
                                command: command)
    }

    @Test("nosub leaves out the sub-entities' rows, and .explain shows the restriction")
    func nosub() throws {
        let all = try parse("Media ids")
        let own = try parse("Media ids nosub")
        #expect(all.request.includesSubentities && !own.request.includesSubentities)
        let media = try context.model.requireEntity(named: "Media").index
        #expect(try context.explain(all.request, resultType: all.resultType).sql == #"SELECT t0."_pk", t0."_ent" FROM "Media" AS t0"#)
        #expect(try context.explain(own.request, resultType: own.resultType).sql
                == #"SELECT t0."_pk", t0."_ent" FROM "Media" AS t0 WHERE t0._ent = \#(media)"#)
        #expect(try parse("Media nosub", command: "count").request.includesSubentities == false)
    }

    @Test("Clauses come in any order")
    func anyOrder() throws {
        let first = try parse("Photo where width > 10 sort caption desc limit 3 offset 1 keys caption, width distinct")
        let second = try parse("Photo distinct keys caption, width offset 1 limit 3 sort caption desc where width > 10")
        for command in [first, second] {
            #expect(command.result == .dictionaries(keyPaths: ["caption", "width"]))
            #expect(command.request.propertiesToFetch == ["caption", "width"] && command.request.returnsDistinctResults)
            #expect(command.request.fetchLimit == 3 && command.request.fetchOffset == 1)
            #expect(command.request.sortKeys == [SortKey("caption", ascending: false)] && command.request.predicate != nil)
            #expect(command.keywords.count == 6)
        }
    }

    @Test("group sets the group keys of a keys fetch; it belongs to fetch")
    func group() throws {
        let command = try parse("Photo group caption, width keys caption, width, @count, @avg.width sort width")
        #expect(command.result == .dictionaries(keyPaths: ["caption", "width", "@count", "@avg.width"]))
        #expect(command.request.propertiesToGroupBy == ["caption", "width"])
        #expect { try parse("Photo group caption", command: "count") } throws: {
            ($0 as? CommandError)?.message == "'group' works only with fetch, not count"
        }
    }

    @Test("A plain fetch populates its objects; faults asks for faults; other commands keep the default")
    func faults() throws {
        #expect(try parse("Photo").request.returnsObjectsAsFaults == false)
        #expect(try parse("Photo faults").request.returnsObjectsAsFaults == true)
        #expect(try parse("Photo", command: "update").request.returnsObjectsAsFaults == true)
        #expect(try parse("Photo ids").result == .objectIDs)
    }

    @Test("A clause keyword with nothing after it is an error that shows the clause, never ignored", arguments: [
        ("Photo sort", "'sort' needs key paths, such as: sort rating desc, name"),
        ("Photo prefetch", "'prefetch' needs relationship key paths, such as: prefetch chef, cuisine"),
        ("Photo limit", "'limit' needs a whole number, found nothing, such as: limit 10"),
        ("Photo offset -1", "'offset' needs a whole number, found '-1', such as: offset 10"),
        ("Photo batch", "'batch' needs a positive number, found nothing, such as: batch 50"),
        ("Photo keys width, @count group", "'group' needs key paths, such as: group cuisine.name"),
        ("Photo keys width, @count group width,", "'group' has an empty key path in 'width,'"),
        ("Photo sort width,", "bad sort key '': write a key path, then asc or desc if you like, and a comma before the next"),
        ("Photo sort width asc desc", "bad sort key 'width asc desc': write a key path, then asc or desc if you like, and a comma before the next"),
        ("Photo limit 1 limit 2", "'limit' is given twice; each clause comes once"),
        ("Photo where width > 1 sort width where width < 9", "'where' is given twice; each clause comes once"),
    ])
    func emptyClauses(text: String, message: String) {
        #expect { try parse(text) } throws: { ($0 as? CommandError)?.message == message }
    }

    @Test("--batch is found standing alone outside quotes, and removed")
    func batchFlag() {
        #expect(CommandWords.removingFlag("--batch", from: "Recipe where rating < 2 --batch") == ("Recipe where rating < 2", true))
        #expect(CommandWords.removingFlag("--batch", from: "Recipe --batch where rating < 2") == ("Recipe  where rating < 2", true))
        #expect(CommandWords.removingFlag("--batch", from: "Recipe where name == '--batch'") == ("Recipe where name == '--batch'", false))
        #expect(CommandWords.removingFlag("--batch", from: "Recipe where name == 'it\\'s --batch' --batch")
                == ("Recipe where name == 'it\\'s --batch'", true))
        #expect(CommandWords.removingFlag("--batch", from: "Recipe where x --batches") == ("Recipe where x --batches", false))
    }
}
