import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// A batch delete applies every delete rule in every direction exactly as deleting the same
/// objects through a context and saving does: the same rows remain, or the same refusal.
@MainActor
struct BatchDeleteRuleTests {
    /// The four shapes of a relationship from `Owner`, each with `rule`.
    enum Shape: String, CaseIterable, Sendable {
        case oneToOne = "single"        // Owner.single → Single.owner (to-one)
        case toOneFromMany = "shared"   // Owner.shared → Shared.owners (to-many)
        case toMany = "parts"           // Owner.parts →> Part.owner (to-one)
        case manyToMany = "tags"        // Owner.tags →> Tag.owners (to-many)
    }

    static func model(_ rule: RelationshipDescription.DeleteRule, on shape: Shape) throws -> ObjectModel {
        func ruleFor(_ candidate: Shape) -> RelationshipDescription.DeleteRule { candidate == shape ? rule : .nullify }
        return try ObjectModel(entities: [
            EntityDescription("Owner",
                attributes: [AttributeDescription("name", .string)],
                relationships: [
                    RelationshipDescription("single", to: "Single", inverse: "owner", deleteRule: ruleFor(.oneToOne)),
                    RelationshipDescription("shared", to: "Shared", inverse: "owners", deleteRule: ruleFor(.toOneFromMany)),
                    RelationshipDescription("parts", toMany: "Part", inverse: "owner", deleteRule: ruleFor(.toMany)),
                    RelationshipDescription("tags", toMany: "Tag", inverse: "owners", deleteRule: ruleFor(.manyToMany)),
                ]),
            EntityDescription("Single", attributes: [AttributeDescription("name", .string)],
                relationships: [RelationshipDescription("owner", to: "Owner", inverse: "single")]),
            EntityDescription("Shared", attributes: [AttributeDescription("name", .string)],
                relationships: [RelationshipDescription("owners", toMany: "Owner", inverse: "shared")]),
            EntityDescription("Part", attributes: [AttributeDescription("name", .string)],
                relationships: [RelationshipDescription("owner", to: "Owner", inverse: "parts")]),
            EntityDescription("Tag", attributes: [AttributeDescription("name", .string)],
                relationships: [RelationshipDescription("owners", toMany: "Owner", inverse: "tags")]),
        ])
    }

    /// Two owners: "doomed" (deleted) and "kept", sharing the Shared object and one tag.
    static func makeGraph(_ context: MainContext) throws {
        func make(_ entity: String, _ name: String) throws -> ManagedObject {
            let object = try context.insert(entity)
            object["name"] = name
            return object
        }
        let doomed = try make("Owner", "doomed"), kept = try make("Owner", "kept")
        let shared = try make("Shared", "shared")
        let common = try make("Tag", "common"), own = try make("Tag", "own")
        doomed["single"] = try make("Single", "single")
        doomed["shared"] = shared
        kept["shared"] = shared
        for index in 0..<2 { try make("Part", "part \(index)")["owner"] = doomed }
        try doomed.add(common, toKey: "tags")
        try doomed.add(own, toKey: "tags")
        try kept.add(common, toKey: "tags")
        try context.save()
    }

    /// Every remaining object with its relationships, as text, read by a fresh context.
    static func snapshot(_ coordinator: PersistentStoreCoordinator) throws -> [String] {
        let context = MainContext(coordinator: coordinator)
        var lines: [String] = []
        for entity in coordinator.model.entities {
            for object in try context.fetch(FetchRequest(entityName: entity.name, sortKeys: [SortKey("name")])) {
                var line = "\(entity.name) \(object["name"] as? String ?? "?")"
                for relationship in entity.relationships {
                    if relationship.isToMany {
                        let names = try object.objects(forKey: relationship.name).map { $0["name"] as? String ?? "?" }.sorted()
                        line += " \(relationship.name)=[\(names.joined(separator: ","))]"
                    } else {
                        let target = object[relationship.name] as? ManagedObject
                        line += " \(relationship.name)=\(target.map { coordinator.model.describe($0.objectID) } ?? "nil")"
                    }
                }
                lines.append(line)
            }
        }
        return lines
    }

    /// The outcome of deleting "doomed" (or, with `everyOwner`, both owners): the remaining
    /// graph, or the error's code. A batch delete's result must count the rows that went,
    /// and list them unless it asked for a count only.
    static func outcome(
        _ rule: RelationshipDescription.DeleteRule, _ shape: Shape, batch: Bool, store: StoreKind = .sqlite, everyOwner: Bool = false,
        resultType: BatchDeleteRequest.ResultType = .objectIDs
    ) throws -> Result<[String], ObjectGraphError> {
        let coordinator = PersistentStoreCoordinator(model: try model(rule, on: shape))
        try store.addStore(to: coordinator)
        defer { StoreKind.removeFiles(of: coordinator) }
        let context = MainContext(coordinator: coordinator)
        try makeGraph(context)
        let predicate = everyOwner ? nil : try FetchPredicate("name == 'doomed'")
        let before = try snapshot(coordinator).count
        do {
            if batch {
                let result = try context.execute(BatchDeleteRequest(entityName: "Owner", predicate: predicate, resultType: resultType))
                let gone = try before - snapshot(coordinator).count
                #expect(result.deletedCount == gone, "\(store), \(resultType)")
                #expect(result.deletedIDs.count == (resultType == .objectIDs ? gone : 0), "\(store), \(resultType)")
            } else {
                for object in try context.fetch(FetchRequest(entityName: "Owner", predicate: predicate)) { context.delete(object) }
                try context.save()
            }
        } catch let error as ObjectGraphError {
            #expect(try snapshot(coordinator).contains { $0.hasPrefix("Owner doomed") }, "a refused delete deletes nothing")
            return .failure(error)
        }
        try MemoryStoreTests.expectFileMatches(coordinator, store)
        return .success(try snapshot(coordinator))
    }

    /// Expects two outcomes to agree: the same remaining graph, or the same error.
    static func expectSame(
        _ expected: Result<[String], ObjectGraphError>, _ actual: Result<[String], ObjectGraphError>, _ label: String
    ) {
        switch (expected, actual) {
        case let (.success(expected), .success(actual)):
            #expect(actual == expected, "\(label)")
        case let (.failure(expected), .failure(actual)):
            #expect(actual.code == expected.code && actual.message == expected.message, "\(label)")
        default:
            Issue.record("\(label): expected \(expected), got \(actual)")
        }
    }

    @Test("Batch delete matches a context delete", arguments: [
        RelationshipDescription.DeleteRule.nullify, .cascade, .deny,
    ], Shape.allCases)
    func batchMatchesContext(rule: RelationshipDescription.DeleteRule, shape: Shape) throws {
        let context = try Self.outcome(rule, shape, batch: false)
        let batch = try Self.outcome(rule, shape, batch: true)
        switch (context, batch) {
        case let (.success(expected), .success(actual)):
            #expect(actual == expected)
        case let (.failure(expected), .failure(actual)):
            #expect(actual.code == expected.code)
            #expect(actual.code == .validation)
        default:
            Issue.record("context: \(context), batch: \(batch)")
        }
    }

    @Test("Every other store type's batch delete ends where the SQLite store's does", arguments: [
        RelationshipDescription.DeleteRule.nullify, .cascade, .deny, .noAction,
    ], Shape.allCases)
    func memoryStoreMatchesSQLite(rule: RelationshipDescription.DeleteRule, shape: Shape) throws {
        for batch in [true, false] {
            let sqlite = try Self.outcome(rule, shape, batch: batch)
            for kind in StoreKind.allCases where kind != .sqlite {
                Self.expectSame(sqlite, try Self.outcome(rule, shape, batch: batch, store: kind), "\(kind), batch: \(batch)")
            }
        }
    }

    @Test("A batch delete of every owner, which deletes by condition instead of by key, ends where a context delete does, on every store type",
          arguments: [RelationshipDescription.DeleteRule.nullify, .cascade], Shape.allCases)
    func everyOwner(rule: RelationshipDescription.DeleteRule, shape: Shape) throws {
        let expected = try Self.outcome(rule, shape, batch: false, everyOwner: true)
        guard case .success(let lines) = expected else {
            Issue.record("the context delete failed: \(expected)")
            return
        }
        #expect(!lines.contains { $0.hasPrefix("Owner") })
        for kind in StoreKind.allCases {
            let batch = try Self.outcome(rule, shape, batch: true, store: kind, everyOwner: true)
            guard case .success(let actual) = batch else {
                Issue.record("\(kind): \(batch)")
                continue
            }
            #expect(actual == lines, "\(kind)")
        }
    }

    @Test("A count-only batch delete, of one owner or of every owner, ends where one that lists IDs does, on every store type",
          arguments: [RelationshipDescription.DeleteRule.nullify, .cascade, .deny, .noAction], Shape.allCases)
    func countOnly(rule: RelationshipDescription.DeleteRule, shape: Shape) throws {
        for everyOwner in [false, true] {
            for kind in StoreKind.allCases {
                Self.expectSame(try Self.outcome(rule, shape, batch: true, store: kind, everyOwner: everyOwner),
                                try Self.outcome(rule, shape, batch: true, store: kind, everyOwner: everyOwner, resultType: .count),
                                "\(kind), every owner: \(everyOwner), count only")
            }
        }
    }

    @Test("A count-only batch delete of every owner reads no key of the owners or of the parts it cascades to; one that lists them reads the owners' only")
    func countOnlyReadsNoKeys() throws {
        /// The statements a batch delete of every owner ran on SQLite.
        func statements(_ resultType: BatchDeleteRequest.ResultType) throws -> [String] {
            let coordinator = PersistentStoreCoordinator(model: try Self.model(.cascade, on: .toMany))
            try coordinator.addStore(at: ":memory:")
            let context = MainContext(coordinator: coordinator)
            try Self.makeGraph(context)
            let log = StatementLog()
            coordinator.sqliteStore.setSQLDebugLevel(.statements, includesTimings: false) { [log] line in
                if line.hasPrefix("sql: ") { log.lines.withLock { $0.append(String(line.dropFirst(5))) } }
            }
            let result = try context.execute(BatchDeleteRequest(entityName: "Owner", resultType: resultType))
            let ran = log.lines.withLock { $0 }
            #expect(result.deletedCount == 4, "two owners, two parts")
            #expect(try context.count(for: FetchRequest(entityName: "Part")) == 0)
            return ran
        }
        let reads = { (statements: [String], table: String) in
            statements.filter { $0.hasPrefix("SELECT") && $0.contains("FROM \"\(table)\" AS t0") }
        }
        // Listed, the owners' keys are read first; the parts' are collected as they go.
        let listed = try statements(.objectIDs)
        #expect(!reads(listed, "Owner").isEmpty && reads(listed, "Part").isEmpty, "\(listed)")
        #expect(listed.contains { $0.hasPrefix(#"DELETE FROM "Part""#) }, "\(listed)")
        let counted = try statements(.count)
        #expect(reads(counted, "Owner").isEmpty && reads(counted, "Part").isEmpty, "\(counted.joined(separator: "\n"))")
        #expect(counted.contains { $0.hasPrefix(#"DELETE FROM "Part""#) }, "\(counted)")
    }

    @Test("A batch delete of every node of a tree whose children cascade counts each node once, and lists each once, on every store type",
          arguments: [false, true], [BatchDeleteRequest.ResultType.count, .objectIDs])
    func wholeTree(predicate: Bool, resultType: BatchDeleteRequest.ResultType) throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Node", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("children", toMany: "Node", inverse: "parent", deleteRule: .cascade),
                RelationshipDescription("parent", to: "Node", inverse: "children"),
            ]),
            EntityDescription("Other", attributes: [AttributeDescription("name", .string)]),
        ])
        for kind in StoreKind.allCases {
            let coordinator = PersistentStoreCoordinator(model: model)
            try kind.addStore(to: coordinator)
            defer { StoreKind.removeFiles(of: coordinator) }
            let context = MainContext(coordinator: coordinator)
            @discardableResult
            func node(_ name: String, under parent: ManagedObject?) throws -> ManagedObject {
                let node = try context.insert("Node")
                node["name"] = name
                if let parent { node["parent"] = parent }
                return node
            }
            let root = try node("root", under: nil)
            for index in 0..<3 { try node("grandchild \(index)", under: try node("child \(index)", under: root)) }
            try context.insert("Other")["name"] = "kept"
            try context.save()
            let request = BatchDeleteRequest(entityName: "Node", predicate: predicate ? try FetchPredicate("name == 'root'") : nil,
                                             resultType: resultType)
            let result = try context.execute(request)
            #expect(result.deletedCount == 7, "\(kind)")
            // Listed: the seven nodes, each once (every node but the root is found through a
            // reference to a deleted node, by a join on the table itself).
            #expect(Set(result.deletedIDs).count == (resultType == .count ? 0 : 7), "\(kind)")
            #expect(result.deletedIDs.count == (resultType == .count ? 0 : 7), "\(kind)")
            #expect(try context.count(for: FetchRequest(entityName: "Node")) == 0, "\(kind)")
            #expect(try context.count(for: FetchRequest(entityName: "Other")) == 1, "\(kind)")
        }
    }

    @Test("A cascade both ways (a part takes its owner, the owner takes its parts) deletes, counts and lists each row once, on every store type",
          arguments: [BatchDeleteRequest.ResultType.count, .objectIDs])
    func cascadeBothWays(resultType: BatchDeleteRequest.ResultType) throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Owner", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("parts", toMany: "Part", inverse: "owner", deleteRule: .cascade),
            ]),
            EntityDescription("Part", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("owner", to: "Owner", inverse: "parts", deleteRule: .cascade),
            ]),
        ])
        for kind in StoreKind.allCases {
            let coordinator = PersistentStoreCoordinator(model: model)
            try kind.addStore(to: coordinator)
            defer { StoreKind.removeFiles(of: coordinator) }
            let context = MainContext(coordinator: coordinator)
            for owner in ["doomed", "kept"] {
                let object = try context.insert("Owner")
                object["name"] = owner
                for index in 0..<3 {
                    let part = try context.insert("Part")
                    part["name"] = "\(owner) \(index)"
                    part["owner"] = object
                }
            }
            try context.save()
            // Deleting one part takes its owner, and with it the owner's other two parts.
            let result = try context.execute(BatchDeleteRequest(entityName: "Part", predicate: try FetchPredicate("name == 'doomed 0'"),
                                                                resultType: resultType))
            #expect(result.deletedCount == 4, "\(kind), \(resultType)")
            #expect(result.deletedIDs.count == (resultType == .count ? 0 : 4), "\(kind), \(resultType)")
            #expect(Set(result.deletedIDs).count == result.deletedIDs.count, "\(kind), \(resultType)")
            #expect(try context.count(for: FetchRequest(entityName: "Owner")) == 1, "\(kind)")
            #expect(try context.count(for: FetchRequest(entityName: "Part")) == 3, "\(kind)")
        }
    }

    @Test("After a count-only batch delete the context refreshes its objects: a deleted one is inaccessible, a survivor reads the store again")
    func countOnlyRefreshesTheContext() throws {
        let coordinator = PersistentStoreCoordinator(model: try Self.model(.cascade, on: .toMany))
        try coordinator.addStore(at: ":memory:")
        let context = MainContext(coordinator: coordinator)
        context.isUndoEnabled = true
        try Self.makeGraph(context)
        let owners = try context.fetch(FetchRequest(entityName: "Owner", sortKeys: [SortKey("name")]))
        let shared = try #require(try context.fetch(FetchRequest(entityName: "Shared")).first)
        #expect(try shared.objects(forKey: "owners").count == 2)
        let part = try #require(try context.fetch(FetchRequest(entityName: "Part")).first)
        shared["name"] = "renamed"  // an unsaved change survives the refresh
        #expect(context.canUndo)

        let result = try context.execute(BatchDeleteRequest(entityName: "Owner", resultType: .count))
        #expect(result.deletedIDs.isEmpty)
        #expect(result.deletedCount == 4)
        #expect(!context.canUndo, "undo could bring back rows that are gone")
        for object in owners + [part] {
            #expect(object.isFault)
            #expect(object["name"] == nil)
            #expect(object.isInaccessible)
        }
        #expect(shared["name"] as? String == "renamed")
        #expect(try shared.objects(forKey: "owners").isEmpty)
    }

    @Test("Another context learns of a count-only batch delete by merging its result: its objects and results controllers read the store again")
    func countOnlyMergedElsewhere() throws {
        let coordinator = PersistentStoreCoordinator(model: try Self.model(.cascade, on: .toMany))
        try coordinator.addStore(at: ":memory:")
        let writer = MainContext(coordinator: coordinator)
        try Self.makeGraph(writer)
        let other = MainContext(coordinator: coordinator)
        let controller = try FetchedResultsController(fetchRequest: FetchRequest(entityName: "Part", sortKeys: [SortKey("name")]),
                                                      context: other)
        try controller.performFetch()
        let parts = controller.sections.flatMap(\.objects)
        #expect(parts.count == 2)
        #expect(parts.allSatisfy { $0["name"] != nil })

        // Deleting the parts nullifies nothing: the result lists no ID at all.
        let result = try writer.execute(BatchDeleteRequest(entityName: "Part", resultType: .count))
        #expect(result.deletedCount == 2 && result.deletedIDs.isEmpty && result.nullifiedIDs.isEmpty)
        #expect(controller.sections.flatMap(\.objects).count == 2, "not merged yet")
        other.mergeChanges(from: result)
        #expect(controller.sections.flatMap(\.objects).isEmpty)
        #expect(parts.allSatisfy { $0.isFault })
        #expect(parts.allSatisfy { $0["name"] == nil && $0.isInaccessible })
    }

    @Test("A context that merges did-save notifications learns of a count-only batch delete: the note counts the rows it does not list")
    func countOnlyAnnounced() throws {
        let coordinator = PersistentStoreCoordinator(model: try Self.model(.cascade, on: .toMany))
        try coordinator.addStore(at: ":memory:")
        let writer = MainContext(coordinator: coordinator)
        try Self.makeGraph(writer)
        let other = MainContext(coordinator: coordinator)
        other.automaticallyMergesChanges = true
        let controller = try FetchedResultsController(fetchRequest: FetchRequest(entityName: "Part", sortKeys: [SortKey("name")]),
                                                      context: other)
        try controller.performFetch()
        let parts = controller.sections.flatMap(\.objects)
        #expect(parts.count == 2)
        #expect(parts.allSatisfy { $0["name"] != nil && !$0.isFault })
        let notes = Locked<[DidSave]>([])
        let observation = coordinator.addDidSaveObserver { note in notes.withLock { $0.append(note) } }
        defer { observation.cancel() }

        try writer.execute(BatchDeleteRequest(entityName: "Part", resultType: .count))
        let note = try #require(notes.withLock { $0.last })
        #expect(note.deletedIDs.isEmpty && note.deletedCount == 2 && !note.isEmpty)
        #expect(controller.sections.flatMap(\.objects).isEmpty)
        #expect(parts.allSatisfy { $0.isFault })
        #expect(parts.allSatisfy { $0["name"] == nil && $0.isInaccessible })
    }

    @Test("A deny rule refuses the batch delete in every direction", arguments: Shape.allCases)
    func denyRefuses(shape: Shape) throws {
        guard case .failure(let error) = try Self.outcome(.deny, shape, batch: true) else {
            Issue.record("deny on '\(shape.rawValue)' did not refuse")
            return
        }
        #expect(error.message.contains("'\(shape.rawValue)' denies deletion"), "\(error.message)")
    }

    @Test("noAction deletes only the owner's row, leaving what points at it", arguments: Shape.allCases)
    func noAction(shape: Shape) throws {
        guard case .success(let lines) = try Self.outcome(.noAction, shape, batch: true) else {
            Issue.record("noAction refused")
            return
        }
        #expect(!lines.contains { $0.hasPrefix("Owner doomed") })
        #expect(lines.filter { $0.hasPrefix("Part") }.count == 2)
        #expect(lines.filter { $0.hasPrefix("Tag") }.count == 2)
    }

    @Test("A batch delete of every object of a sub-entity finds them for the rules by its restriction, and leaves its siblings",
          arguments: [BatchDeleteRequest.ResultType.objectIDs, .count])
    func everyObjectOfASubentity(resultType: BatchDeleteRequest.ResultType) throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Item", isAbstract: true, attributes: [AttributeDescription("name", .string)]),
            EntityDescription("Box", parent: "Item",
                relationships: [RelationshipDescription("parts", toMany: "Part", inverse: "box", deleteRule: .cascade)]),
            EntityDescription("Crate", parent: "Item"),
            EntityDescription("Part", attributes: [AttributeDescription("name", .string)],
                relationships: [RelationshipDescription("box", to: "Box", inverse: "parts")]),
        ])
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(at: ":memory:")
        let context = MainContext(coordinator: coordinator)
        func make(_ entity: String, _ name: String) throws -> ManagedObject {
            let object = try context.insert(entity)
            object["name"] = name
            return object
        }
        for box in 0..<2 {
            let owner = try make("Box", "box \(box)")
            for part in 0..<2 { try make("Part", "part \(box).\(part)")["box"] = owner }
        }
        _ = try make("Crate", "crate")
        _ = try make("Part", "loose")
        try context.save()
        context.reset()

        let log = StatementLog()
        coordinator.sqliteStore.setSQLDebugLevel(.statements, includesTimings: false) { [log] line in
            if line.hasPrefix("sql: ") { log.lines.withLock { $0.append(String(line.dropFirst(5))) } }
        }
        let result = try context.execute(BatchDeleteRequest(entityName: "Box", resultType: resultType))
        coordinator.sqliteStore.setSQLDebugLevel(.off) { _ in }
        let ran = log.lines.withLock { $0 }
        let box = model.entity(named: "Box")!.index
        let boxes = #"IN (SELECT d."_pk" FROM "Item" AS d WHERE d._ent = \#(box))"#
        // The parts go by their reference: their only relationship leads back to the boxes.
        // Listed, their keys come from SQLite's update hook as they go, with no query.
        #expect(ran.contains(#"DELETE FROM "Part" AS t0 WHERE t0."box" "# + boxes), "\(ran)")
        #expect(!ran.contains { $0.hasPrefix("SELECT") && $0.contains(#"FROM "Part""#) }, "\(ran)")
        if resultType == .objectIDs {
            #expect(result.deletedIDs.count == 6)
            #expect(Set(result.deletedIDs).count == 6)
        } else {
            #expect(!ran.contains { $0.hasPrefix("SELECT") }, "\(ran)")
            #expect(result.deletedIDs.isEmpty)
        }
        #expect(result.deletedCount == 6)
        let names = { (entity: String) in try context.fetch(FetchRequest(entityName: entity)).compactMap { $0["name"] as? String }.sorted() }
        #expect(try names("Item") == ["crate"])
        #expect(try names("Part") == ["loose"])
    }
}
