import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Random sequences of edits, undo, redo, save and rollback, checked against what the
/// context showed before: undo must bring back the graph as it was before the group, redo
/// as it was after, rollback as last saved; every save must write what a fresh context
/// then fetches; inverses must agree throughout; the change sets must name what differs
/// from the store.
@MainActor
@Suite("Random editing sequences")
struct EditingSequenceTests {
    /// Owners hold items (cascade); items hold parts (cascade) and share tags (many-to-many).
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Owner",
                attributes: [AttributeDescription("key", .string), AttributeDescription("title", .string, isOptional: true)],
                relationships: [RelationshipDescription("items", toMany: "Item", inverse: "owner", deleteRule: .cascade)]),
            EntityDescription("Item",
                attributes: [AttributeDescription("key", .string), AttributeDescription("title", .string, isOptional: true)],
                relationships: [
                    RelationshipDescription("owner", to: "Owner", inverse: "items"),
                    RelationshipDescription("parts", toMany: "Part", inverse: "item", deleteRule: .cascade),
                    RelationshipDescription("tags", toMany: "Tag", inverse: "items"),
                ]),
            EntityDescription("Part",
                attributes: [AttributeDescription("key", .string), AttributeDescription("title", .string, isOptional: true)],
                relationships: [RelationshipDescription("item", to: "Item", inverse: "parts")]),
            EntityDescription("Tag",
                attributes: [AttributeDescription("key", .string), AttributeDescription("title", .string, isOptional: true)],
                relationships: [RelationshipDescription("items", toMany: "Item", inverse: "tags")]),
        ])
    }

    static let entities = ["Owner", "Item", "Part", "Tag"]

    /// The graph as a value: each live object by key, with its title and its relationships'
    /// destinations by key.
    typealias Graph = [String: String]

    static func graph(of context: MainContext) throws -> Graph {
        var graph: Graph = [:]
        for name in entities {
            for object in try context.fetch(FetchRequest(entityName: name)) {
                let key = object["key"] as! String
                var text = "\(name) title=\(object["title"] as? String ?? "-")"
                for relationship in object.entity.relationships {
                    if relationship.isToMany {
                        let keys = try object.objects(forKey: relationship.name).map { $0["key"] as! String }.sorted()
                        text += " \(relationship.name)=\(keys)"
                    } else {
                        text += " \(relationship.name)=\((object[relationship.name] as? ManagedObject)?["key"] as? String ?? "-")"
                    }
                }
                graph[key] = text
            }
        }
        return graph
    }

    /// Checks that every relationship's inverse agrees, among live objects.
    static func checkInverses(of context: MainContext, step: String) throws {
        for name in entities {
            for object in try context.fetch(FetchRequest(entityName: name)) {
                for relationship in object.entity.relationships {
                    let destinations = relationship.isToMany
                        ? try object.objects(forKey: relationship.name)
                        : [object[relationship.name] as? ManagedObject].compactMap { $0 }
                    for destination in destinations {
                        #expect(!destination.isDeleted, "\(step): \(object["key"]!).\(relationship.name) holds deleted \(destination["key"] ?? "?")")
                        let back = relationship.inverse.isToMany
                            ? try destination.objects(forKey: relationship.inverse.name)
                            : [destination[relationship.inverse.name] as? ManagedObject].compactMap { $0 }
                        #expect(back.contains(object),
                                "\(step): \(object["key"]!).\(relationship.name) holds \(destination["key"]!), whose \(relationship.inverse.name) does not hold it back")
                    }
                }
            }
        }
    }

    @Test("A relationship set on a deleted object is a dangling reference: the save refuses it, naming both objects")
    func relationshipSetOnADeletedObject() throws {
        let coordinator = try TestModel.coordinator()
        let context = MainContext(coordinator: coordinator)
        let ana = try context.insert("Chef")
        ana["name"] = "Ana"
        let bo = try context.insert("Chef")
        bo["name"] = "Bo"
        let soup = try context.insert("Recipe")
        soup["name"] = "Soup"
        soup["chef"] = ana
        try context.save()
        context.delete(soup)
        soup["chef"] = bo  // after the delete: Bo's recipes now hold a deleted recipe
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.code == .validation)
        #expect(error.message == "Chef 'Bo': 'recipes' holds Recipe 'Soup', which is deleted; nothing was saved", "\(error.message)")
        try bo.remove(soup, fromKey: "recipes")
        try context.save()
        #expect(try bo.objects(forKey: "recipes").isEmpty)
        #expect(try MainContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Recipe")) == 0)
    }

    @Test(arguments: 1...40)
    func randomSequence(seed: UInt64) throws {
        let coordinator = PersistentStoreCoordinator(model: try Self.model())
        try coordinator.addStore(at: ":memory:")
        let context = MainContext(coordinator: coordinator)
        context.isUndoEnabled = true
        var rng = SeededGenerator(seed: seed)
        var saved: Graph = [:]
        var undoStack: [Graph] = []
        var redoStack: [Graph] = []
        var nextKey = 0
        var log: [String] = []

        func live(_ entity: String) throws -> [ManagedObject] {
            try context.fetch(FetchRequest(entityName: entity, sortKeys: [SortKey("key")]))
        }
        func insert(_ entity: String) throws -> ManagedObject {
            let object = try context.insert(entity)
            nextKey += 1
            object["key"] = "\(entity.prefix(1))\(nextKey)"
            return object
        }

        for step in 0..<60 {
            let before = try Self.graph(of: context)
            let choice = Int.random(in: 0..<100, using: &rng)
            var edited = true
            var label = ""
            context.beginUndoGroup(named: "step \(step)")
            switch choice {
            case 0..<10:
                let owner = try insert("Owner")
                label = "insert \(owner["key"]!)"
            case 10..<22:
                let item = try insert("Item")
                let owners = try live("Owner")
                if let owner = owners.randomElement(using: &rng), Bool.random(using: &rng) { item["owner"] = owner }
                label = "insert \(item["key"]!) owner \((item["owner"] as? ManagedObject)?["key"] ?? "-")"
            case 22..<30:
                let part = try insert("Part")
                if let item = try live("Item").randomElement(using: &rng) { part["item"] = item }
                label = "insert \(part["key"]!)"
            case 30..<34:
                let tag = try insert("Tag")
                label = "insert \(tag["key"]!)"
            case 34..<44:
                if let item = try live("Item").randomElement(using: &rng) {
                    let owner = try live("Owner").randomElement(using: &rng)
                    let target = Bool.random(using: &rng) ? owner : nil
                    if target !== item["owner"] as? ManagedObject {
                        item["owner"] = target
                        label = "move \(item["key"]!) to \(target?["key"] ?? "nil")"
                    } else { edited = false }
                } else { edited = false }
            case 44..<50:
                if let part = try live("Part").randomElement(using: &rng), let item = try live("Item").randomElement(using: &rng),
                   part["item"] as? ManagedObject !== item {
                    if Bool.random(using: &rng) {
                        try item.add(part, toKey: "parts")
                        label = "add \(part["key"]!) to \(item["key"]!).parts"
                    } else {
                        part["item"] = item
                        label = "set \(part["key"]!).item = \(item["key"]!)"
                    }
                } else { edited = false }
            case 50..<58:
                if let item = try live("Item").randomElement(using: &rng), let tag = try live("Tag").randomElement(using: &rng) {
                    let side = Bool.random(using: &rng)
                    if try item.objects(forKey: "tags").contains(tag) {
                        if side { try item.remove(tag, fromKey: "tags") } else { try tag.remove(item, fromKey: "items") }
                        label = "untag \(item["key"]!) \(tag["key"]!)"
                    } else {
                        if side { try item.add(tag, toKey: "tags") } else { try tag.add(item, toKey: "items") }
                        label = "tag \(item["key"]!) \(tag["key"]!)"
                    }
                } else { edited = false }
            case 58..<64:
                let entity = Self.entities.randomElement(using: &rng)!
                if let object = try live(entity).randomElement(using: &rng) {
                    object["title"] = object["title"] == nil || Bool.random(using: &rng) ? "t\(step)" : nil
                    label = "retitle \(object["key"]!)"
                } else { edited = false }
            case 64..<74:
                let entity = Self.entities.randomElement(using: &rng)!
                if let object = try live(entity).randomElement(using: &rng) {
                    context.delete(object)
                    label = "delete \(object["key"]!)"
                } else { edited = false }
            default:
                edited = false
            }
            context.endUndoGroup()
            if edited {
                log.append(label)
                undoStack.append(before)
                redoStack.removeAll()
            } else {
                switch choice {
                case 74..<84:
                    let name = context.undo()
                    log.append("undo \(name ?? "nil")")
                    if let expected = undoStack.popLast() {
                        #expect(name != nil, "seed \(seed): undo had nothing to undo\n\(log.joined(separator: "\n"))")
                        redoStack.append(before)
                        let now = try Self.graph(of: context)
                        #expect(now == expected, "seed \(seed): undo did not restore the graph\n\(log.joined(separator: "\n"))\nexpected \(expected)\ngot \(now)")
                    } else {
                        #expect(name == nil)
                    }
                case 84..<91:
                    let name = context.redo()
                    log.append("redo \(name ?? "nil")")
                    if let expected = redoStack.popLast() {
                        #expect(name != nil)
                        undoStack.append(before)
                        let now = try Self.graph(of: context)
                        #expect(now == expected, "seed \(seed): redo did not restore the graph\n\(log.joined(separator: "\n"))\nexpected \(expected)\ngot \(now)")
                    } else {
                        #expect(name == nil)
                    }
                case 91..<96:
                    log.append("save")
                    do {
                        try context.save()
                    } catch {
                        Issue.record("seed \(seed): save failed: \(error)\n\(log.joined(separator: "\n"))")
                        return
                    }
                    saved = before
                    undoStack.removeAll()
                    redoStack.removeAll()
                    let fresh = MainContext(coordinator: coordinator)
                    let stored = try Self.graph(of: fresh)
                    #expect(stored == before, "seed \(seed): the store holds other than the context showed\n\(log.joined(separator: "\n"))\nexpected \(before)\ngot \(stored)")
                    #expect(!context.hasChanges)
                default:
                    log.append("rollback")
                    context.rollback()
                    undoStack.removeAll()
                    redoStack.removeAll()
                    let now = try Self.graph(of: context)
                    #expect(now == saved, "seed \(seed): rollback did not restore the saved graph\n\(log.joined(separator: "\n"))\nexpected \(saved)\ngot \(now)")
                }
            }
            let now = try Self.graph(of: context)
            try Self.checkInverses(of: context, step: "seed \(seed) step \(step) \(log.last ?? "")")
            // The change sets name what differs from the store.
            let insertedKeys = Set(context.insertedObjects.map { $0["key"] as! String })
            let deletedKeys = Set(context.deletedObjects.map { $0["key"] as! String })
            #expect(insertedKeys == Set(now.keys).subtracting(saved.keys),
                    "seed \(seed): insertedObjects \(insertedKeys.sorted())\n\(log.joined(separator: "\n"))")
            #expect(deletedKeys == Set(saved.keys).subtracting(now.keys),
                    "seed \(seed): deletedObjects \(deletedKeys.sorted())\n\(log.joined(separator: "\n"))")
            if now != saved { #expect(context.hasChanges, "seed \(seed): the graph differs from the store but hasChanges is false\n\(log.joined(separator: "\n"))") }
            for object in context.updatedObjects {
                #expect(saved[object["key"] as! String] != nil && now[object["key"] as! String] != nil)
            }
            for (key, text) in now where saved[key] != nil && saved[key] != text {
                #expect(context.updatedObjects.contains { $0["key"] as? String == key },
                        "seed \(seed): \(key) differs from the store but is not in updatedObjects\n\(log.joined(separator: "\n"))")
            }
        }
        // Whatever is left saves, and the store then agrees.
        let final = try Self.graph(of: context)
        try context.save()
        #expect(try Self.graph(of: MainContext(coordinator: coordinator)) == final, "seed \(seed): final save\n\(log.joined(separator: "\n"))")
    }
}
