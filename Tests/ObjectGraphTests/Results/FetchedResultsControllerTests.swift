import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// Results controllers on a main context: sections, the first-sort-key rule, and the change
/// sets after saves, merges and batch requests, with the statements each costs.
@MainActor
struct FetchedResultsControllerTests {
    let coordinator: PersistentStoreCoordinator
    let context: MainContext

    /// Removes the test's directory when the suite value goes, after the test.
    private let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("og-results")
        let directory = scratch.url
        coordinator = try TestModel.coordinator(path: directory.appendingPathComponent("store.sqlite").path)
        context = MainContext(coordinator: coordinator)
    }

    /// Saved chefs and their recipes (name, rating), by name.
    @discardableResult
    func seed(_ chefs: [String: [(String, Double)]], in context: MainContext? = nil) throws -> [String: ManagedObject] {
        let context = context ?? self.context
        var objects: [String: ManagedObject] = [:]
        for (chefName, recipes) in chefs.sorted(by: { $0.key < $1.key }) {
            let chef = try context.insert("Chef")
            chef["name"] = chefName
            objects[chefName] = chef
            for (name, rating) in recipes {
                let recipe = try context.insert("Recipe")
                recipe["name"] = name
                recipe["rating"] = rating
                recipe["chef"] = chef
                objects[name] = recipe
            }
        }
        try context.save()
        return objects
    }

    func request(_ predicate: String? = nil, _ sortKeys: [SortKey]) throws -> FetchRequest {
        FetchRequest(entityName: "Recipe", predicate: try predicate.map { try FetchPredicate($0) }, sortKeys: sortKeys)
    }

    /// Collects change sets as the delegate.
    final class Recorder: FetchedResultsControllerDelegate {
        var changeSets: [ResultsChangeSet] = []
        func controller(_ controller: FetchedResultsController, didChangeContentWith changes: ResultsChangeSet) {
            changeSets.append(changes)
        }
    }

    func names(_ controller: FetchedResultsController) -> [String] {
        controller.sections.map { section in
            section.name + ": " + section.objects.map { $0["name"] as? String ?? "?" }.joined(separator: ", ")
        }
    }

    @Test("Sections follow the first sort key through a to-one relationship; objects and index paths agree")
    func sectionsByKeyPath() throws {
        let objects = try seed(["Ana": [("Soup", 3), ("Pie", 5)], "Bo": [("Stew", 4)], "Cy": [("Tart", 1)]])
        let controller = try FetchedResultsController(
            fetchRequest: try request("rating >= 2", [SortKey("chef.name", ascending: false), SortKey("name")]),
            context: context, sectionNameKeyPath: "chef.name")
        #expect(controller.sections.isEmpty)
        try controller.performFetch()
        #expect(names(controller) == ["Bo: Stew", "Ana: Pie, Soup"])
        #expect(controller.fetchedObjects.map { $0["name"] as? String } == ["Stew", "Pie", "Soup"])
        #expect(controller.object(at: ResultIndexPath(section: 1, item: 1)) === objects["Soup"])
        #expect(controller.indexPath(forObject: objects["Pie"]!) == ResultIndexPath(section: 1, item: 0))
        #expect(controller.indexPath(forObject: objects["Tart"]!) == nil)
        #expect(controller.sections[1].numberOfObjects == 2)
    }

    @Test("Section names that Swift's String calls equal but the store sorts apart (é and e + ◌́) are two sections")
    func canonicallyEquivalentSectionNames() throws {
        let decomposed = "e\u{301}", precomposed = "\u{e9}"
        try seed([decomposed: [("Soup", 5)], "f": [("Stew", 4)]])  // one literal would see one key
        try seed([precomposed: [("Tart", 3)]])
        let controller = try FetchedResultsController(
            fetchRequest: try request(nil, [SortKey("chef.name"), SortKey("name")]),
            context: context, sectionNameKeyPath: "chef.name")
        try controller.performFetch()
        // The store orders text by its UTF-8 bytes: e (65) < f (66) < é (C3 A9).
        #expect(controller.fetchedObjects.map { $0["name"] as? String } == ["Soup", "Stew", "Tart"])
        #expect(controller.sections.map { Array($0.name.unicodeScalars) }
                == [decomposed, "f", precomposed].map { Array($0.unicodeScalars) })
        let before = ResultsSnapshot(controller)
        let recorder = Recorder()
        controller.delegate = recorder
        let pie = try context.insert("Recipe")
        pie["name"] = "Pie"
        pie["chef"] = try context.fetch(FetchRequest(entityName: "Chef", predicate: try FetchPredicate("name == 'f'"))).first
        try context.save()
        let changes = try #require(recorder.changeSets.last)
        #expect(changes.sectionChanges.isEmpty)
        #expect(changes.objectChanges == [.init(.insert, pie.objectID, old: nil, new: .init(section: 1, item: 0))])
        #expect(try before.applying(changes) == ResultsSnapshot(controller))
    }

    /// Index titles of two letters, as a delegate may choose.
    final class TwoLetterIndex: FetchedResultsControllerDelegate {
        func controller(_ controller: FetchedResultsController, didChangeContentWith changes: ResultsChangeSet) {}
        func controller(_ controller: FetchedResultsController, sectionIndexTitleForSectionName sectionName: String) -> String? {
            sectionName.isEmpty ? nil : String(sectionName.prefix(2))
        }
    }

    @Test("Section index titles: each section's first letter upper-cased, each title once, none for the nil section; a title finds its first section; a delegate may choose others")
    func sectionIndexTitles() throws {
        try seed(["Ana": [("Soup", 3)], "Anouk": [("Pie", 5)], "Bo": [("Stew", 4)], "\u{e9}lodie": [("Tart", 1)]])
        let loose = try context.insert("Recipe")
        loose["name"] = "Bread"  // no chef: the section named ""
        try context.save()
        let controller = try FetchedResultsController(
            fetchRequest: try request(nil, [SortKey("chef.name"), SortKey("name")]), context: context, sectionNameKeyPath: "chef.name")
        try controller.performFetch()
        #expect(controller.sections.map(\.name) == ["", "Ana", "Anouk", "Bo", "\u{e9}lodie"])
        #expect(controller.sectionIndexTitles == ["A", "B", "\u{c9}"])
        #expect(controller.sectionIndexTitle(forSectionName: "") == nil)
        #expect(controller.section(forSectionIndexTitle: "A", at: 0) == 1)
        #expect(controller.section(forSectionIndexTitle: "B", at: 1) == 3)
        #expect(controller.section(forSectionIndexTitle: "\u{c9}", at: 2) == 4)
        #expect(controller.section(forSectionIndexTitle: "Z", at: 0) == nil)
        let delegate = TwoLetterIndex()
        controller.delegate = delegate
        #expect(controller.sectionIndexTitles == ["An", "Bo", "\u{e9}l"])
        #expect(controller.section(forSectionIndexTitle: "Bo", at: 2) == 3)
        let plain = try FetchedResultsController(fetchRequest: try request(nil, [SortKey("name")]), context: context)
        try plain.performFetch()
        #expect(plain.sectionIndexTitles.isEmpty)
    }

    @Test("Without a section key path there is one section, even when empty")
    func oneSectionWithoutKeyPath() throws {
        let controller = try FetchedResultsController(fetchRequest: try request(nil, [SortKey("name")]), context: context)
        try controller.performFetch()
        #expect(controller.sections.count == 1)
        #expect(controller.sections[0].name == "")
        #expect(controller.fetchedObjects.isEmpty)
    }

    @Test("A section key path that is not the first sort key is refused, naming both")
    func firstSortKeyMustBeTheSectionKeyPath() throws {
        let error = #expect(throws: ObjectGraphError.self) {
            try FetchedResultsController(fetchRequest: try request(nil, [SortKey("name"), SortKey("chef.name")]),
                                         context: context, sectionNameKeyPath: "chef.name")
        }
        #expect(error?.code == .invalidValue)
        #expect(error?.message == """
            the first sort key must be the section key path 'chef.name' (it is 'name'): sections follow the order \
            of the first sort key; sort by 'chef.name' first
            """)
        let unknown = #expect(throws: PredicateSyntaxError.self) {
            try FetchedResultsController(fetchRequest: try request(nil, [SortKey("chef.nmae")]),
                                         context: context, sectionNameKeyPath: "chef.nmae")
        }
        let text = unknown.map { "\($0)" } ?? ""
        #expect(text.contains("unknown key 'nmae' on entity 'Chef'") && text.contains("did you mean 'name'?"))
    }

    @Test("The context's own save reports inserted, deleted, moved and updated objects and new sections")
    func ownSave() throws {
        let objects = try seed(["Ana": [("Soup", 3), ("Pie", 5)], "Bo": [("Stew", 4)]])
        let controller = try FetchedResultsController(
            fetchRequest: try request("rating >= 2", [SortKey("chef.name"), SortKey("name")]),
            context: context, sectionNameKeyPath: "chef.name")
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        let before = ResultsSnapshot(controller)

        let cy = try context.insert("Chef")
        cy["name"] = "Cy"
        let cake = try context.insert("Recipe")
        cake["name"] = "Cake"
        cake["rating"] = 4.0
        cake["chef"] = cy
        objects["Soup"]!["rating"] = 1.0         // leaves
        objects["Pie"]!["name"] = "Apple pie"    // stays first: updated
        objects["Stew"]!["chef"] = objects["Ana"] // another section
        try context.save()

        #expect(names(controller) == ["Ana: Apple pie, Stew", "Cy: Cake"])
        #expect(recorder.changeSets.count == 1)
        let changes = try #require(recorder.changeSets.first)
        #expect(changes.sectionChanges == [.init(.delete, index: 1, name: "Bo"), .init(.insert, index: 1, name: "Cy")])
        #expect(changes.objectChanges == [
            .init(.delete, objects["Soup"]!.objectID, old: .init(section: 0, item: 1), new: nil),
            .init(.insert, cake.objectID, old: nil, new: .init(section: 1, item: 0)),
            .init(.move, objects["Stew"]!.objectID, old: .init(section: 1, item: 0), new: .init(section: 0, item: 1)),
            .init(.update, objects["Pie"]!.objectID, old: .init(section: 0, item: 0), new: .init(section: 0, item: 0)),
        ])
        #expect(try before.applying(changes) == ResultsSnapshot(controller))
    }

    @Test("A merge of another context's save brings newly matching objects in and takes others out; the async sequence hears it")
    func mergeFromAnotherContext() async throws {
        let objects = try seed(["Ana": [("Soup", 5), ("Stew", 2), ("Pie", 5), ("Tart", 1)]])
        let controller = try FetchedResultsController(fetchRequest: try request("rating > 4", [SortKey("name")]), context: context)
        try controller.performFetch()
        var changes = controller.changes.makeAsyncIterator()
        #expect(names(controller) == [": Pie, Soup"])

        let writer = PrivateContext(coordinator: coordinator)
        let notes = Locked<[DidSave]>([])
        let observation = coordinator.addDidSaveObserver { note in notes.withLock { $0.append(note) } }
        let ids = objects.mapValues(\.objectID)
        try await writer.perform { context in
            context.object(with: ids["Soup"]!)["rating"] = 1.0
            context.object(with: ids["Stew"]!)["rating"] = 5.0
            context.delete(context.object(with: ids["Tart"]!))
            try context.save()
        }
        observation.cancel()
        #expect(names(controller) == [": Pie, Soup"], "changed before the merge")
        context.mergeChanges(fromContextDidSave: try #require(notes.withLock { $0.last }))
        #expect(names(controller) == [": Pie, Stew"])
        let delivered = try #require(await changes.next())
        #expect(delivered.objectChanges == [
            .init(.delete, ids["Soup"]!, old: .init(section: 0, item: 1), new: nil),
            .init(.insert, ids["Stew"]!, old: nil, new: .init(section: 0, item: 1)),
        ])
    }

    @Test("An unsaved rename of the object a section key path goes through sorts its section by the new name")
    func unsavedRenameAlongTheSectionKeyPath() throws {
        let objects = try seed(["Ana": [("Soup", 5)], "Bo": [("Stew", 4)], "Cy": [("Tart", 3)]])
        let controller = try FetchedResultsController(
            fetchRequest: try request(nil, [SortKey("chef.name"), SortKey("name")]),
            context: context, sectionNameKeyPath: "chef.name")
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        let before = ResultsSnapshot(controller)
        objects["Cy"]!["name"] = "Al"  // unsaved: the store still sorts Cy last
        var limited = try request(nil, [SortKey("chef.name"), SortKey("name")])
        limited.fetchLimit = 1
        #expect(try context.fetch(limited).map { $0["name"] as? String } == ["Tart"])

        // Another context's save is an event; the refetch counts the unsaved rename.
        let other = MainContext(coordinator: coordinator)
        let note = Locked<DidSave?>(nil)
        let observation = coordinator.addDidSaveObserver { saved in note.withLock { $0 = saved } }
        other.object(with: objects["Stew"]!.objectID)["rating"] = 1.0
        try other.save()
        observation.cancel()
        context.mergeChanges(fromContextDidSave: try #require(note.withLock { $0 }))
        #expect(names(controller) == ["Al: Tart", "Ana: Soup", "Bo: Stew"])
        let changes = try #require(recorder.changeSets.last)
        #expect(try before.applying(changes) == ResultsSnapshot(controller))
    }

    @Test("In a child context, a rename the parent has not saved sorts by the new name too")
    func parentRenameAlongASortKey() throws {
        let objects = try seed(["Ana": [("Soup", 5)], "Bo": [("Stew", 4)], "Cy": [("Tart", 3)]])
        objects["Cy"]!["name"] = "Al"  // unsaved in the parent
        let child = MainContext(parent: context)
        var request = try request(nil, [SortKey("chef.name"), SortKey("name")])
        #expect(try child.fetch(request).map { $0["name"] as? String } == ["Tart", "Soup", "Stew"])
        request.fetchLimit = 1
        #expect(try child.fetch(request).map { $0["name"] as? String } == ["Tart"])
        #expect(try child.fetchObjectIDs(request) == [objects["Tart"]!.objectID])
    }

    @Test("Ties between sub-entities keep the store's order when unsaved changes are sorted in memory: no false moves")
    func tiesAcrossSubentities() throws {
        var saved: [ManagedObject] = []
        for entity in ["Video", "Photo", "Video", "Photo"] {
            let media = try context.insert(entity)
            media["caption"] = "same"
            saved.append(media)
        }
        try context.save()
        let request = FetchRequest(entityName: "Media", sortKeys: [SortKey("caption")])
        let controller = try FetchedResultsController(fetchRequest: request, context: context)
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        #expect(controller.fetchedObjects.map(\.objectID) == saved.map(\.objectID), "the store orders ties by row")

        let extra = try context.insert("Photo")  // unsaved: the next refetch sorts in memory
        extra["caption"] = "zzz"
        #expect(try context.fetch(request).map(\.objectID) == saved.map(\.objectID) + [extra.objectID])
        let other = MainContext(coordinator: coordinator)
        let note = Locked<DidSave?>(nil)
        let observation = coordinator.addDidSaveObserver { saved in note.withLock { $0 = saved } }
        try seed(["Ana": [("Soup", 5)]], in: other)
        observation.cancel()
        context.mergeChanges(fromContextDidSave: try #require(note.withLock { $0 }))
        #expect(recorder.changeSets.map { $0.objectChanges.map(\.type) } == [[.insert]])
    }

    @Test("Batch requests, here or merged from elsewhere, are events; an event that changes nothing reports nothing")
    func batchRequests() throws {
        try seed(["Ana": [("Soup", 5), ("Stew", 2), ("Pie", 3)]])
        let controller = try FetchedResultsController(fetchRequest: try request("rating >= 3", [SortKey("rating"), SortKey("name")]),
                                                      context: context)
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        #expect(names(controller) == [": Pie, Soup"])

        try context.execute(BatchUpdateRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Stew'"),
                                               propertiesToUpdate: ["rating": 9.0]))
        #expect(names(controller) == [": Pie, Soup, Stew"])
        let other = MainContext(coordinator: coordinator)
        let result = try other.execute(BatchDeleteRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Pie'")))
        context.mergeChanges(from: result)
        #expect(names(controller) == [": Soup, Stew"])
        try context.execute(BatchInsertRequest(entityName: "Recipe", objects: [["name": "Gruel", "rating": 0.5]]))
        #expect(recorder.changeSets.map { $0.objectChanges.map(\.type) } == [[.insert], [.delete]])
    }

    @Test("An object shown before it was saved is the same object after: reported updated, under its new ID")
    func unsavedObjectKeepsItsPlaceWhenSaved() throws {
        try seed(["Ana": [("Soup", 5)]])
        let controller = try FetchedResultsController(fetchRequest: try request(nil, [SortKey("name")]), context: context)
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        let pie = try context.insert("Recipe")
        pie["name"] = "Pie"
        // Another context's save is an event: the fetch includes this context's unsaved insert.
        let other = MainContext(coordinator: coordinator)
        let note = Locked<DidSave?>(nil)
        let observation = coordinator.addDidSaveObserver { saved in note.withLock { $0 = saved } }
        try seed(["Bo": [("Stew", 1)]], in: other)
        observation.cancel()
        context.mergeChanges(fromContextDidSave: try #require(note.withLock { $0 }))
        let shown = ResultsSnapshot(controller)
        #expect(names(controller) == [": Pie, Soup, Stew"])
        #expect(shown.sections[0].ids[0].temporaryTag != 0)
        try context.save()
        let changes = try #require(recorder.changeSets.last)
        #expect(changes.objectChanges == [.init(.update, pie.objectID, old: .init(section: 0, item: 0), new: .init(section: 0, item: 0))])
        #expect(pie.objectID.temporaryTag == 0)
        #expect(try shown.applying(changes) == ResultsSnapshot(controller))
    }

    @Test("Each change set costs one fetch statement; a new section object loads with one more, not one per object")
    func statementsPerChangeSet() throws {
        let objects = try seed(["Ana": [("Soup", 5), ("Pie", 4)], "Bo": [("Stew", 4)]])
        let controller = try FetchedResultsController(
            fetchRequest: try request(nil, [SortKey("chef.name"), SortKey("name")]),
            context: context, sectionNameKeyPath: "chef.name")
        try controller.performFetch()
        let other = MainContext(coordinator: coordinator)
        let notes = Locked<[DidSave]>([])
        let observation = coordinator.addDidSaveObserver { note in notes.withLock { $0.append(note) } }
        defer { observation.cancel() }

        // A rating changed elsewhere: the refetch is the one statement.
        other.object(with: objects["Soup"]!.objectID)["rating"] = 1.0
        try other.save()
        var before = context.statistics
        context.mergeChanges(fromContextDidSave: notes.withLock { $0.last! })
        #expect((context.statistics - before).statements == 1)

        // Three recipes of a new chef: the refetch and one query for the chef.
        let cy = try other.insert("Chef")
        cy["name"] = "Cy"
        for name in ["A", "B", "C"] {
            let recipe = try other.insert("Recipe")
            recipe["name"] = name
            recipe["chef"] = cy
        }
        try other.save()
        before = context.statistics
        context.mergeChanges(fromContextDidSave: notes.withLock { $0.last! })
        #expect((context.statistics - before).statements == 2)
        #expect(names(controller) == ["Ana: Pie, Soup", "Bo: Stew", "Cy: A, B, C"])

        // The context's own save: its statements, then one fetch.
        objects["Pie"]!["rating"] = 2.0
        before = context.statistics
        try context.save()
        let saving = (context.statistics - before).statements
        let plain = MainContext(coordinator: coordinator)
        plain.object(with: objects["Stew"]!.objectID)["rating"] = 2.0
        before = plain.statistics
        try plain.save()
        #expect(saving == (plain.statistics - before).statements + 1)
    }

    @Test("When the store is ahead of the merges, an object the last refetch already showed is not reported again")
    func storeAheadOfMerges() throws {
        let controller = try FetchedResultsController(fetchRequest: try request(nil, [SortKey("name")]), context: context)
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        let other = MainContext(coordinator: coordinator)
        let notes = Locked<[DidSave]>([])
        let observation = coordinator.addDidSaveObserver { note in notes.withLock { $0.append(note) } }
        for name in ["Soup", "Stew"] {  // two saves before the first merge, as a background import does
            let recipe = try other.insert("Recipe")
            recipe["name"] = name
            try other.save()
        }
        observation.cancel()
        for note in notes.withLock({ $0 }) { context.mergeChanges(fromContextDidSave: note) }
        #expect(recorder.changeSets.map { $0.objectChanges.map(\.type) } == [[.insert, .insert]])
        #expect(names(controller) == [": Soup, Stew"])
    }

    /// Saves another recipe the first time it hears a change set.
    final class SavingDelegate: FetchedResultsControllerDelegate {
        let context: MainContext
        var heard = 0
        init(_ context: MainContext) { self.context = context }
        func controller(_ controller: FetchedResultsController, didChangeContentWith changes: ResultsChangeSet) {
            heard += 1
            guard heard == 1 else { return }
            let recipe = try! context.insert("Recipe")
            recipe["name"] = "Zest"
            try! context.save()
        }
    }

    @Test("A delegate that saves again makes a second change set, which every sequence gets after the first")
    func delegateThatSaves() async throws {
        let controller = try FetchedResultsController(fetchRequest: try request(nil, [SortKey("name")]), context: context)
        let delegate = SavingDelegate(context)
        controller.delegate = delegate
        try controller.performFetch()
        var changes = controller.changes.makeAsyncIterator()
        let before = ResultsSnapshot(controller)
        try seed(["Ana": [("Soup", 5)]])
        let first = try #require(await changes.next()), second = try #require(await changes.next())
        #expect(delegate.heard == 2)
        #expect(try before.applying(first).applying(second) == ResultsSnapshot(controller))
        #expect(names(controller) == [": Soup, Zest"])
    }

    @Test("A released controller stops refetching and ends its sequences")
    func releasedControllerStops() async throws {
        try seed(["Ana": [("Soup", 5)]])
        func insertAndSave(_ name: String) throws -> Int {
            let recipe = try context.insert("Recipe")
            recipe["name"] = name
            let before = context.statistics
            try context.save()
            return (context.statistics - before).statements
        }
        let alone = try insertAndSave("Stew")
        var controller: FetchedResultsController? = try FetchedResultsController(
            fetchRequest: try request(nil, [SortKey("name")]), context: context)
        try controller!.performFetch()
        let stream = controller!.changes
        controller = nil
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == nil)
        #expect(try insertAndSave("Pie") == alone, "a released controller still refetched")
    }

    @Test("After a refetch failed, the next event's change set reports what the failed one updated too")
    func updatesOfAFailedRefetchAreReportedNext() throws {
        let objects = try seed(["Ana": [("Soup", 5), ("Stew", 2)]])
        let controller = try FetchedResultsController(fetchRequest: try request(nil, [SortKey("name")]), context: context)
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        let other = MainContext(coordinator: coordinator)
        let notes = Locked<[DidSave]>([])
        let observation = coordinator.addDidSaveObserver { note in notes.withLock { $0.append(note) } }
        defer { observation.cancel() }
        other.object(with: objects["Stew"]!.objectID)["rating"] = 4.0  // stays in place: an update
        try other.save()
        let store = coordinator.sqliteStore
        try store.perform { connection in try connection.execute(#"ALTER TABLE "Recipe" RENAME TO "Gone""#) }
        context.mergeChanges(fromContextDidSave: try #require(notes.withLock { $0.last }))
        #expect(controller.refetchError != nil)
        #expect(recorder.changeSets.isEmpty)
        try store.perform { connection in try connection.execute(#"ALTER TABLE "Gone" RENAME TO "Recipe""#) }

        other.object(with: objects["Ana"]!.objectID)["name"] = "Anna"  // changes no recipe
        try other.save()
        context.mergeChanges(fromContextDidSave: try #require(notes.withLock { $0.last }))
        #expect(controller.refetchError == nil)
        #expect(recorder.changeSets.map(\.objectChanges) == [
            [.init(.update, objects["Stew"]!.objectID, old: .init(section: 0, item: 1), new: .init(section: 0, item: 1))],
        ])
    }

    @Test("An object with unsaved changes whose row a count-only batch delete elsewhere removed leaves the results")
    func unsavedObjectWhoseRowIsGone() throws {
        let objects = try seed(["Ana": [("Soup", 5), ("Stew", 2)]])
        let controller = try FetchedResultsController(fetchRequest: try request("rating >= 1", [SortKey("name")]), context: context)
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        objects["Soup"]!["rating"] = 4.0  // unsaved: the in-memory pass rechecks it
        let other = MainContext(coordinator: coordinator)
        let result = try other.execute(BatchDeleteRequest(entityName: "Recipe", predicate: try FetchPredicate("name == 'Soup'"),
                                                          resultType: .count))
        context.mergeChanges(from: result)
        #expect(try context.fetch(controller.fetchRequest).map(\.objectID) == [objects["Stew"]!.objectID])
        #expect(names(controller) == [": Stew"])
        #expect(objects["Soup"]!.isInaccessible)
        #expect(recorder.changeSets.map(\.objectChanges) == [
            [.init(.delete, objects["Soup"]!.objectID, old: .init(section: 0, item: 0), new: nil)],
        ])
    }

    @Test("refreshAllObjects and reset are no events; after a reset the next event shows the context's new objects")
    func refreshAndResetWhileLive() throws {
        let objects = try seed(["Ana": [("Soup", 5), ("Stew", 2)]])
        let controller = try FetchedResultsController(
            fetchRequest: try request(nil, [SortKey("chef.name"), SortKey("name")]),
            context: context, sectionNameKeyPath: "chef.name")
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        context.refreshAllObjects()
        #expect(names(controller) == ["Ana: Soup, Stew"], "the faults fire again")
        let pie = try context.insert("Recipe")
        pie["name"] = "Pie"
        context.reset()
        #expect(recorder.changeSets.isEmpty)

        let other = MainContext(coordinator: coordinator)
        let note = Locked<DidSave?>(nil)
        let observation = coordinator.addDidSaveObserver { saved in note.withLock { $0 = saved } }
        let tart = try other.insert("Recipe")
        tart["name"] = "Tart"
        tart["chef"] = other.object(with: objects["Ana"]!.objectID)
        try other.save()
        observation.cancel()
        context.mergeChanges(fromContextDidSave: try #require(note.withLock { $0 }))
        #expect(names(controller) == ["Ana: Soup, Stew, Tart"])
        #expect(controller.fetchedObjects.allSatisfy { $0.isRegistered }, "the objects the reset detached are replaced")
        #expect(recorder.changeSets.map { $0.objectChanges.map(\.type) } == [[.insert]])
    }

    @Test("In the nested stack, after the persist context saved, the main context's controller keeps the objects it shows: a refetch names them by their new IDs, as updates")
    func nestedStackControllerAfterPersistSave() async throws {
        let stack = NestedContextStack(coordinator: coordinator)
        let controller = try FetchedResultsController(fetchRequest: try request(nil, [SortKey("name")]), context: stack.main)
        try controller.performFetch()
        let recorder = Recorder()
        controller.delegate = recorder
        let pie = try stack.main.insert("Recipe")
        pie["name"] = "Pie"
        try await stack.save()
        #expect(controller.fetchedObjects.count == 1 && controller.fetchedObjects.first === pie)
        let before = ResultsSnapshot(controller)
        let tart = try stack.main.insert("Recipe")
        tart["name"] = "Tart"
        try stack.main.save()
        let fresh = try stack.main.fetch(controller.fetchRequest)
        #expect(fresh.count == 2 && fresh.first === pie, "\(fresh.map(\.objectID))")
        #expect(controller.fetchedObjects.map(ObjectIdentifier.init) == fresh.map(ObjectIdentifier.init))
        let changes = try #require(recorder.changeSets.last)
        #expect(changes.objectChanges == [
            .init(.insert, tart.objectID, old: nil, new: .init(section: 0, item: 1)),
            .init(.update, pie.objectID, old: .init(section: 0, item: 0), new: .init(section: 0, item: 0)),
        ])
        #expect(try before.applying(changes) == ResultsSnapshot(controller))
    }
}
