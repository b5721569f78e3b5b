import Foundation
import Testing
@testable import ObjectGraph

/// A stack of nested contexts against one flat context: a root holding unsaved changes A, a
/// child holding B and a grandchild holding C answer every read as one context that made A,
/// then B, then C. Two stores are seeded alike; the same random edits go into the stack (a
/// level each) and into the flat context (all of them); random fetches, ID fetches, counts,
/// lazy fetches and the values read through relationships are compared by each object's
/// unique name. Then the grandchild saves into the child, the child into the root, the root
/// and the flat context into their stores, and fresh contexts compare again, dictionary
/// fetches included (they read saved values only).
@MainActor
@Suite("a stack of nested contexts answers like one context holding all their changes", .serialized)
struct NestedDifferentialTests {
    @Test("Root, child and grandchild answer fetches, IDs, counts and relationships as one context with their changes; so do they after each save",
          arguments: [UInt64](1...12))
    func stackAnswersLikeOneContext(seed: UInt64) throws {
        var script = EditScript(rng: SeededGenerator(seed: seed &* 6_364_136_223_846_793_005))
        let seeding = script.seedGraph()
        let nested = try World(seeding: seeding), flat = try World(seeding: seeding)
        let root = MainContext(coordinator: nested.coordinator)
        let child = MainContext(parent: root)
        let grandchild = MainContext(parent: child)
        let single = MainContext(coordinator: flat.coordinator)

        // A into the root, B into the child, C into the grandchild; the flat context takes each.
        var stages: [(probes: [Probe], expected: [[String]])] = []
        for (level, context) in [root, child, grandchild].enumerated() {
            let edits = (0..<Int.random(in: 8...16, using: &script.rng)).map { _ in script.nextEdit() }
            for edit in edits {
                try nested.apply(edit, in: context)
                try flat.apply(edit, in: single)
            }
            let probes = try (0..<24).map { _ in try script.nextProbe() }
            let expected = try probes.map { try answers($0, in: single) }
            stages.append((probes, expected))
            guard try agree(context, stages[level], "seed \(seed), level \(level) with its edits") else { return }
        }
        // The grandchild's changes stay out of its parents until it saves.
        guard try agree(child, stages[1], "seed \(seed), child after the grandchild's edits"),
              try agree(root, stages[0], "seed \(seed), root after the descendants' edits") else { return }

        try grandchild.save()
        guard try agree(child, stages[2], "seed \(seed), child after the grandchild saved into it"),
              try agree(grandchild, stages[2], "seed \(seed), grandchild after its save") else { return }
        try child.save()
        guard try agree(root, stages[2], "seed \(seed), root after the child saved into it"),
              try agree(grandchild, stages[2], "seed \(seed), grandchild after the child's save") else { return }

        // The root writes A+B+C, the flat context the same: fresh contexts read alike.
        try root.save()
        try single.save()
        let fromStack = MainContext(coordinator: nested.coordinator)
        let fromFlat = MainContext(coordinator: flat.coordinator)
        let probes = try (0..<24).map { _ in try script.nextProbe() }
        let expected = try probes.map { try answers($0, in: fromFlat) }
        guard try agree(fromStack, (probes, expected), "seed \(seed), fresh context after the root saved") else { return }
        for index in 0..<16 {
            let request = try script.nextDictionaryRequest()
            let actual = try dictionaryAnswers(request, in: fromStack), wanted = try dictionaryAnswers(request, in: fromFlat)
            #expect(actual == wanted, "seed \(seed), dictionaries \(index): \(Self.describe(request))\n\(Self.difference(actual, wanted))")
        }
    }

    // MARK: Comparing

    /// Whether `context` answers every probe of `stage` as expected; records the first
    /// disagreement as an issue.
    func agree(_ context: MainContext, _ stage: (probes: [Probe], expected: [[String]]), _ label: String) throws -> Bool {
        for (index, probe) in stage.probes.enumerated() {
            let actual = try answers(probe, in: context)
            let expected = stage.expected[index]
            if actual != expected {
                Issue.record("\(label), probe \(index): \(Self.describe(probe.request)) lazy batch \(probe.lazyBatch)\n\(Self.difference(actual, expected))")
                return false
            }
        }
        return true
    }

    /// What `context` answers for `probe`, as lines of text: each object with the values it
    /// shows (through its relationships too), the order of the sort keys' values, the IDs,
    /// the count, and the lazily fetched objects. Unsorted results, and results sorted on
    /// keys that can tie, are compared as sets; results sorted on the unique name, in order.
    func answers(_ probe: Probe, in context: MainContext) throws -> [String] {
        let request = probe.request
        let ordered = request.sortKeys.contains { $0.keyPath == Self.identityKey[request.entityName] }
        let objects = try context.fetch(request)
        var lines = try objects.map(Self.describe)
        if !ordered {
            lines.sort()
            if !request.sortKeys.isEmpty {
                lines.append("order " + objects.map { object in
                    request.sortKeys.map { Self.format(Self.value(at: $0.keyPath, of: object)) }.joined(separator: ",")
                }.joined(separator: "; "))
            }
        }
        let ids = try context.fetchObjectIDs(request).map { Self.identity(context.object(with: $0)) }
        lines.append("IDs " + (ordered ? ids : ids.sorted()).joined(separator: ","))
        lines.append("count \(try context.count(for: request))")
        if probe.lazyBatch > 0 {
            var lazy = request
            lazy.fetchBatchSize = probe.lazyBatch
            let results = try context.fetchLazily(lazy).map(Self.describe)
            lines.append("lazily " + (ordered ? results : results.sorted()).joined(separator: " / "))
        }
        return lines
    }

    /// The rows of a dictionary fetch as text, sorted unless the request orders them by its
    /// entity's unique name.
    func dictionaryAnswers(_ request: FetchRequest, in context: MainContext) throws -> [String] {
        let rows = try context.fetchDictionaries(request).map { row in
            request.propertiesToFetch.map { key in
                guard let value = row[key] ?? nil else { return "nil" }
                if let double = value as? Double { return String(format: "%.9g", double) }  // sums of doubles
                return Self.format(value)
            }.joined(separator: "|")
        }
        let ordered = request.sortKeys.first?.keyPath == Self.identityKey[request.entityName]
        return ordered ? rows : rows.sorted()
    }

    nonisolated static let identityKey = ["Recipe": "name", "Chef": "name", "Tag": "label", "Line": "text",
                              "Media": "caption", "Photo": "caption", "Video": "caption"]

    /// The unique name that identifies an object in both worlds.
    static func identity(_ object: ManagedObject) -> String {
        format(object[identityKey[object.entity.name]!])
    }

    /// An object and what it shows: its attributes and, through its relationships, the names
    /// of the objects it reaches.
    static func describe(_ object: ManagedObject) throws -> String {
        func names(_ key: String) throws -> String {
            try object.objects(forKey: key).map(identity).sorted().joined(separator: ",")
        }
        func name(_ key: String) -> String { (object[key] as? ManagedObject).map(identity) ?? "nil" }
        switch object.entity.name {
        case "Recipe":
            // Lines by position (unique), as the relationship orders them in predicates.
            let lines = try object.objects(forKey: "lines").map { ($0["position"] as? Int ?? -1, identity($0)) }
                .sorted { $0.0 < $1.0 }.map { "\($0.1)@\($0.0)" }
            let values = ["rating", "servings", "vegetarian", "published"].map { format(object[$0]) }
            return "\(identity(object)) \(values) chef \(name("chef")) tags [\(try names("tags"))] "
                + "lines [\(lines.joined(separator: ","))] media [\(try names("media"))]"
        case "Chef": return "\(identity(object)) recipes [\(try names("recipes"))]"
        case "Tag": return "\(identity(object)) recipes [\(try names("recipes"))]"
        case "Line":
            let recipe = object["recipe"] as? ManagedObject
            return "\(identity(object)) @\(format(object["position"])) recipe \(name("recipe")) "
                + "chef \((recipe?["chef"] as? ManagedObject).map(identity) ?? "nil")"
        default:
            let seconds = object.entity.name == "Video" ? " \(format(object["seconds"]))s" : ""
            return "\(object.entity.name) \(identity(object))\(seconds) recipe \(name("recipe"))"
        }
    }

    /// The value at a key path of attributes and to-one relationships (`chef.name`).
    static func value(at keyPath: String, of object: ManagedObject) -> Any? {
        var current: Any? = object
        for key in keyPath.split(separator: ".") {
            guard let object = current as? ManagedObject else { return nil }
            current = object[String(key)]
        }
        return current
    }

    static func format(_ value: Any?) -> String {
        switch value {
        case nil: "nil"
        case let date as Date: "d\(Int(date.timeIntervalSince1970))"
        case let object as ManagedObject: identity(object)
        case let value?: "\(value)"
        }
    }

    static func describe(_ request: FetchRequest) -> String {
        var text = "\(request.entityName) where \(request.predicate.map { "\($0)" } ?? "-") sort \(request.sortKeys)"
        text += " limit \(request.fetchLimit) offset \(request.fetchOffset) values \(request.includesPropertyValues)"
        text += " faults \(request.returnsObjectsAsFaults) batch \(request.fetchBatchSize)"
        text += " prefetch \(request.relationshipKeyPathsForPrefetching) subentities \(request.includesSubentities)"
        if !request.propertiesToFetch.isEmpty {
            text += " properties \(request.propertiesToFetch) group \(request.propertiesToGroupBy) distinct \(request.returnsDistinctResults)"
        }
        return text
    }

    /// The lines only one side has, for a failure message.
    static func difference(_ actual: [String], _ expected: [String]) -> String {
        let missing = expected.filter { !actual.contains($0) }, extra = actual.filter { !expected.contains($0) }
        if missing.isEmpty && extra.isEmpty { return "same lines, other order:\n  actual \(actual)\n  expected \(expected)" }
        return (missing.map { "  expected only: \($0)" } + extra.map { "  actual only:   \($0)" }).joined(separator: "\n")
    }
}

// MARK: - Reduced cases

/// Nested contexts that disagreed with one flat context, each case reduced to a few objects.
@MainActor
struct NestedDifferentialReducedTests {
    let coordinator: PersistentStoreCoordinator
    let root: MainContext
    let ids: [String: ObjectID]

    /// Ana's Soup, Stew and Tart; Soup with a line; the tags quick and cheap, on no recipe.
    init() throws {
        coordinator = try TestModel.coordinator()
        root = MainContext(coordinator: coordinator)
        let seeding = MainContext(coordinator: coordinator)
        let chef = try seeding.insert("Chef")
        chef["name"] = "Ana"
        var objects = ["Ana": chef]
        for name in ["Soup", "Stew", "Tart"] {
            let recipe = try seeding.insert("Recipe")
            recipe["name"] = name
            recipe["chef"] = chef
            objects[name] = recipe
        }
        let line = try seeding.insert("Line")
        line["text"] = "salt"
        line["position"] = Int32(1)
        line["recipe"] = objects["Soup"]
        objects["salt"] = line
        for label in ["quick", "cheap"] {
            let tag = try seeding.insert("Tag")
            tag["label"] = label
            objects[label] = tag
        }
        try seeding.save()
        ids = objects.mapValues(\.objectID)
    }

    func labels(_ recipe: ManagedObject) throws -> Set<String> {
        Set(try recipe.objects(forKey: "tags").compactMap { $0["label"] as? String })
    }

    @Test("A grandchild sees the many-to-many members its root and its parent both added to one object")
    func grandchildSeesMembersAddedAtTwoLevels() throws {
        try root.object(with: ids["Soup"]!).add(root.object(with: ids["quick"]!), toKey: "tags")
        let child = MainContext(parent: root)
        try child.object(with: ids["Soup"]!).add(child.object(with: ids["cheap"]!), toKey: "tags")
        let grandchild = MainContext(parent: child)
        #expect(try labels(grandchild.object(with: ids["Soup"]!)) == ["quick", "cheap"])
        let quick = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("ANY tags.label == 'quick'"))
        #expect(try grandchild.fetch(quick).map { $0["name"] as? String } == ["Soup"])
        #expect(try grandchild.count(for: quick) == 1)
    }

    @Test("A grandchild does not see a member its root added and its parent removed")
    func grandchildSeesMemberRemovedByItsParent() throws {
        try root.object(with: ids["Soup"]!).add(root.object(with: ids["quick"]!), toKey: "tags")
        let child = MainContext(parent: root)
        try child.object(with: ids["Soup"]!).remove(child.object(with: ids["quick"]!), fromKey: "tags")
        try child.object(with: ids["Soup"]!).add(child.object(with: ids["cheap"]!), toKey: "tags")
        let grandchild = MainContext(parent: child)
        #expect(try labels(grandchild.object(with: ids["Soup"]!)) == ["cheap"])
        #expect(try labels(grandchild.object(with: ids["cheap"]!).objects(forKey: "recipes")[0]) == ["cheap"])
    }

    @Test("A child's fetch that prefetches a to-one shows the destination with its parent's unsaved values")
    func prefetchedToOneShowsTheParentsChanges() throws {
        root.object(with: ids["Ana"]!)["name"] = "Zoë"
        let child = MainContext(parent: root)
        var request = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Soup'"))
        request.relationshipKeyPathsForPrefetching = ["chef"]
        let soup = try #require(try child.fetch(request).first)
        #expect((soup["chef"] as? ManagedObject)?["name"] as? String == "Zoë")
    }

    @Test("A child's fetch that prefetches a to-many shows the members its parent added and removed")
    func prefetchedToManyShowsTheParentsChanges() throws {
        let pepper = try root.insert("Line")
        pepper["text"] = "pepper"
        pepper["position"] = Int32(2)
        pepper["recipe"] = root.object(with: ids["Soup"]!)
        root.delete(root.object(with: ids["salt"]!))
        let child = MainContext(parent: root)
        var request = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Soup'"))
        request.relationshipKeyPathsForPrefetching = ["lines"]
        let soup = try #require(try child.fetch(request).first)
        #expect(try soup.objects(forKey: "lines").map { $0["text"] as? String } == ["pepper"])
    }

    @Test("An object a child holds and fetched in batches shows its parent's unsaved values after the next fetch of IDs")
    func batchedFetchShowsTheParentsChanges() throws {
        root.object(with: ids["Soup"]!)["name"] = "Broth"
        let child = MainContext(parent: root)
        let soup = child.object(with: ids["Soup"]!)  // held before the fetch, as a fault
        var request = FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")])
        request.fetchBatchSize = 1
        #expect(try child.fetch(request).map { $0["name"] as? String } == ["Broth", "Stew", "Tart"])
        // The fetch of IDs checks the object the parent changed again, which fires its fault.
        #expect(try child.fetchObjectIDs(request).map { child.object(with: $0)["name"] as? String } == ["Broth", "Stew", "Tart"])
        #expect(soup["name"] as? String == "Broth")
    }

    @Test("A child's fetch and count keep their limit and offset when the parent's only changes are deletions")
    func windowAfterTheParentsDeletions() throws {
        root.delete(root.object(with: ids["Soup"]!))
        let child = MainContext(parent: root)
        var request = FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")])
        request.fetchLimit = 1
        #expect(try child.fetch(request).map { $0["name"] as? String } == ["Stew"])
        #expect(try child.count(for: request) == 1)
        request.fetchOffset = 1
        #expect(try child.fetchObjectIDs(request) == [ids["Tart"]!])
        root.rollback()
        root.delete(root.object(with: ids["quick"]!))  // another entity's
        #expect(try child.fetch(request).map { $0["name"] as? String } == ["Stew"])
    }

    @Test("A child saves after adding an object it inserted to a many-to-many and deleting it, as one context does",
          arguments: [1, 2])
    func childSavesAfterDeletingWhatItInsertedAndLinked(depth: Int) throws {
        let child = MainContext(parent: root)
        let tag = try child.insert("Tag")
        tag["label"] = "new"
        // At depth 2 the grandchild links and deletes the child's insert.
        let editor = depth == 1 ? child : MainContext(parent: child)
        try editor.object(with: ids["Stew"]!).add(editor.object(with: tag.objectID), toKey: "tags")
        editor.delete(editor.object(with: tag.objectID))
        if editor !== child { try editor.save() }
        try child.save()
        try root.save()
        let reader = MainContext(coordinator: coordinator)
        #expect(try reader.count(for: FetchRequest(entityName: "Tag")) == 2)
        #expect(try labels(reader.object(with: ids["Stew"]!)).isEmpty)
    }
}
