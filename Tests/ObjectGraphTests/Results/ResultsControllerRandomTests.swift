import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Long random sequences of edits, saves, merges from other contexts and batch requests,
/// watched by four results controllers (sections, a limit, a window with an offset): after every event, the change sets it produced,
/// applied to the results before it, must give exactly what a fresh fetch returns.
@MainActor
struct ResultsControllerRandomTests {
    /// One controller, the results its change sets built up, and how to group a fresh fetch.
    final class Watched: FetchedResultsControllerDelegate {
        let controller: FetchedResultsController
        let sectionName: (ManagedObject) -> String?
        var applied: ResultsSnapshot
        var pending: [ResultsChangeSet] = []
        var changeSets = 0
        /// The kinds of change seen: `insert`, `move`, `section delete`, …
        var kinds = Set<String>()

        init(_ controller: FetchedResultsController, sectionName: @escaping (ManagedObject) -> String?) throws {
            self.controller = controller
            self.sectionName = sectionName
            try controller.performFetch()
            applied = ResultsSnapshot(controller)
            controller.delegate = self
        }

        func controller(_ controller: FetchedResultsController, didChangeContentWith changes: ResultsChangeSet) {
            pending.append(changes)
        }

        /// A fresh fetch of the controller's request, grouped here, not by the controller.
        func freshResults(_ context: MainContext) throws -> ResultsSnapshot {
            let objects = try context.fetch(controller.fetchRequest)
            guard controller.sectionNameKeyPath != nil else {
                return ResultsSnapshot([.init(name: "", ids: objects.map(\.objectID))])
            }
            var sections: [ResultsSnapshot.Section] = []
            for object in objects {
                let name = sectionName(object) ?? ""
                if sections.last?.name == name {
                    sections[sections.count - 1].ids.append(object.objectID)
                } else {
                    sections.append(.init(name: name, ids: [object.objectID]))
                }
            }
            return ResultsSnapshot(sections)
        }
    }

    /// The did-save notifications posted since the last step cleared them.
    final class Notes: Sendable {
        let all = Locked<[DidSave]>([])
    }

    /// The random session: a main context with four controllers, and the other contexts.
    @MainActor struct Session {
        var rng: SeededGenerator
        let coordinator: PersistentStoreCoordinator
        let main: MainContext
        var watched: [Watched] = []
        let notes = Notes()
        var chefCounter = 0
        var events = 0

        static let names = ["Soup", "Stew", "Pie", "Tart", "Cake", "Bread", "Salad", "Curry"]

        mutating func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[Int.random(in: 0..<items.count, using: &rng)] }
        mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &rng) < percent }
        mutating func rating() -> Double { Double(Int.random(in: 0...10, using: &rng)) / 2 }
        mutating func newChefName() -> String {
            chefCounter += 1
            return "\(pick(["Ana", "Bo", "Cy", "Di"])!)\(chefCounter)"
        }

        /// Random recipes and chefs of `context`, pending changes included.
        func recipes(_ context: MainContext) throws -> [ManagedObject] { try context.fetch(FetchRequest(entityName: "Recipe")) }
        func chefs(_ context: MainContext) throws -> [ManagedObject] { try context.fetch(FetchRequest(entityName: "Chef")) }

        /// One random edit of a recipe or chef in `context`, unsaved.
        mutating func edit(_ context: MainContext) throws {
            let recipes = try recipes(context), chefs = try chefs(context)
            switch Int.random(in: 0..<8, using: &rng) {
            case 0, 1:
                let recipe = try context.insert("Recipe")
                recipe["name"] = pick(Self.names)!
                recipe["rating"] = rating()
                recipe["vegetarian"] = chance(50)
                recipe["chef"] = chance(85) ? pick(chefs) : nil
            case 2: pick(recipes)?["rating"] = rating()                          // a sort key
            case 3: pick(recipes)?["name"] = pick(Self.names)!                   // the last sort key
            case 4: pick(recipes)?["chef"] = chance(85) ? pick(chefs) : nil      // the section key
            case 5: if let recipe = pick(recipes) { recipe["vegetarian"] = !(recipe["vegetarian"] as! Bool) }
            case 6: pick(chefs)?["name"] = newChefName()                          // sections through a to-one
            default: if let recipe = pick(recipes) { context.delete(recipe) }
            }
        }

        /// One step: an edit of the main context, or an event, which is then checked. (Checks
        /// come only after events: an edit alone changes the results of a fresh fetch, which
        /// include unsaved changes, but not the controllers' until the next event.)
        mutating func step() async throws {
            let roll = Int.random(in: 0..<100, using: &rng)
            // Whether the step was an event: a save or batch request that changed nothing is none.
            var announced = true
            switch roll {
            case 0..<55:
                try edit(main)
                return
            case 55:
                main.rollback()
                return
            case 56:
                // Unsaved objects shown with temporary IDs get permanent ones before any save.
                try main.obtainPermanentIDs(for: Array(main.insertedObjects))
                return
            case 57..<70:
                do {
                    announced = try !ContextChange(main.save()).isEmpty
                } catch let error as ObjectGraphError where error.code == .objectNotFound {
                    // A count-only batch delete elsewhere took the row of an object changed
                    // here: the save fails and changes nothing; the changes are given up.
                    main.rollback()
                    return
                }
            case 70..<80:
                // A sibling context on the main actor saves; the main context merges its note.
                let other = MainContext(coordinator: coordinator)
                for _ in 0..<Int.random(in: 1...4, using: &rng) { try edit(other) }
                notes.all.withLock { $0 = [] }
                announced = try !ContextChange(other.save()).isEmpty
                for note in notes.all.withLock({ $0 }) { main.mergeChanges(fromContextDidSave: note) }
            case 80..<86:
                // A private context saves on its own queue; the main context merges its note.
                let writer = PrivateContext(coordinator: coordinator)
                let (name, rating) = (pick(Self.names)!, rating())
                notes.all.withLock { $0 = [] }
                try await writer.perform { context in
                    let ids = try context.fetchObjectIDs(FetchRequest(entityName: "Recipe"))
                    if let id = ids.randomElement() { context.object(with: id)["rating"] = rating }
                    let recipe = try context.insert("Recipe")
                    recipe["name"] = name
                    recipe["rating"] = rating
                    if let chef = try context.fetch(FetchRequest(entityName: "Chef")).first { recipe["chef"] = chef }
                    try context.save()
                }
                for note in notes.all.withLock({ $0 }) { main.mergeChanges(fromContextDidSave: note) }
            case 86..<91:
                let predicate = try FetchPredicate(pick(["rating < 2", "name == 'Pie'", "vegetarian == YES", "chef.name BEGINSWITH 'A'"])!)
                let values: [String: any Sendable] = chance(50) ? ["rating": rating()] : ["vegetarian": chance(50)]
                announced = try !ContextChange(main.execute(BatchUpdateRequest(entityName: "Recipe", predicate: predicate,
                                                                               propertiesToUpdate: values))).isEmpty
            case 91..<95:
                // Another context's batch delete (listing the IDs or only counting) or batch
                // update, merged from its result.
                let other = MainContext(coordinator: coordinator)
                let result: BatchResult
                if chance(60) {
                    let predicate = try FetchPredicate(pick(["rating <= 0.5", "name == 'Tart'", "rating == 3"])!)
                    result = try other.execute(BatchDeleteRequest(entityName: "Recipe", predicate: predicate,
                                                                  resultType: chance(50) ? .objectIDs : .count))
                } else {
                    let predicate = try FetchPredicate(pick(["rating > 4", "name == 'Soup'", "vegetarian == NO"])!)
                    result = try other.execute(BatchUpdateRequest(entityName: "Recipe", predicate: predicate,
                                                                  propertiesToUpdate: ["rating": rating()]))
                }
                main.mergeChanges(from: result)
                announced = !ContextChange(result).isEmpty
            default:
                let rows = (0..<Int.random(in: 1...3, using: &rng)).map { _ -> [String: any Sendable] in
                    ["name": pick(Self.names)!, "rating": rating()]
                }
                try main.execute(BatchInsertRequest(entityName: "Recipe", objects: rows))
            }
            guard announced else { return }
            events += 1
            try check()
        }

        /// After an event: each controller's change sets applied to its old results give a fresh fetch.
        func check() throws {
            for watched in watched {
                for changes in watched.pending {
                    watched.applied = try watched.applied.applying(changes)
                    watched.kinds.formUnion(changes.objectChanges.map { "\($0.type)" })
                    watched.kinds.formUnion(changes.sectionChanges.map { "section \($0.type)" })
                }
                watched.changeSets += watched.pending.count
                watched.pending = []
                let fresh = try watched.freshResults(main)
                #expect(watched.applied == fresh, "after event \(events): applying the change sets gave \(watched.applied), a fresh fetch \(fresh)")
                #expect(ResultsSnapshot(watched.controller) == fresh, "after event \(events): the controller shows other results")
                // The rest of a sequence that went wrong would only repeat the first difference.
                if watched.applied != fresh { throw CancellationError() }
            }
        }
    }

    @Test("Change sets applied to the previous results give the new results, over long random sequences",
          arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func randomSequences(seed: UInt64) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("og-results-random-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = try TestModel.coordinator(path: directory.appendingPathComponent("store.sqlite").path)
        let main = MainContext(coordinator: coordinator)
        main.mergePolicy = .inMemoryWins  // the other contexts edit the same rows
        var session = Session(rng: SeededGenerator(seed: seed), coordinator: coordinator, main: main)
        let observation = coordinator.addDidSaveObserver { [notes = session.notes] note in notes.all.withLock { $0.append(note) } }
        defer { observation.cancel() }
        for _ in 0..<4 {
            let chef = try main.insert("Chef")
            chef["name"] = session.newChefName()
        }
        for _ in 0..<20 { try session.edit(main) }
        try main.save()

        let chefName: (ManagedObject) -> String? = { ($0["chef"] as? ManagedObject)?["name"] as? String }
        session.watched = [
            try Watched(FetchedResultsController(
                fetchRequest: FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("rating >= 2"),
                                           sortKeys: [SortKey("chef.name"), SortKey("rating", ascending: false), SortKey("name")]),
                context: main, sectionNameKeyPath: "chef.name"), sectionName: chefName),
            try Watched(FetchedResultsController(
                fetchRequest: FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("chef.name BEGINSWITH 'A' OR chef == nil"),
                                           sortKeys: [SortKey("vegetarian", ascending: false), SortKey("name")]),
                context: main, sectionNameKeyPath: "vegetarian"), sectionName: { "\($0["vegetarian"] as! Bool)" }),
            try Watched({
                var request = FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name"), SortKey("rating")])
                request.fetchLimit = 12
                return try FetchedResultsController(fetchRequest: request, context: main)
            }(), sectionName: { _ in nil }),
            // A window of the results, in sections: objects enter and leave at its edges too.
            try Watched({
                var request = FetchRequest(entityName: "Recipe", sortKeys: [SortKey("vegetarian"), SortKey("rating"), SortKey("name")])
                request.fetchOffset = 3
                request.fetchLimit = 8
                return try FetchedResultsController(fetchRequest: request, context: main, sectionNameKeyPath: "vegetarian")
            }(), sectionName: { "\($0["vegetarian"] as! Bool)" }),
        ]
        for _ in 0..<400 {
            try await session.step()
        }
        #expect(session.events > 100)
        #expect(session.watched.allSatisfy { $0.changeSets > 30 }, "\(session.watched.map(\.changeSets))")
        let everyKind: Set = ["insert", "delete", "move", "update", "section insert", "section delete"]
        #expect(session.watched[0].kinds == everyKind, "\(session.watched[0].kinds)")
        for watched in session.watched.dropFirst() {
            #expect(watched.kinds.isSuperset(of: ["insert", "delete", "move", "update"]), "\(watched.kinds)")
        }
    }
}
