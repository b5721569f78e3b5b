/// Keeps the results of a fetch request on a ``MainContext`` up to date and says what
/// changed after every save, merge and batch request: Core Data's
/// `NSFetchedResultsController`.
///
/// ```swift
/// var request = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("rating >= 4"))
/// request.sortKeys = [SortKey("cuisine.name"), SortKey("name")]
/// let controller = try FetchedResultsController(fetchRequest: request, context: context,
///                                               sectionNameKeyPath: "cuisine.name")
/// try controller.performFetch()
/// for section in controller.sections { print(section.name, section.objects.count) }
/// for await changes in controller.changes {
///     for change in changes.objectChanges { print(change.type, change.objectID) }
/// }
/// ```
///
/// After ``performFetch()`` the controller refetches once after each of the context's own
/// saves and batch requests and after each merge of another context's save
/// (``MainContext/mergeChanges(fromContextDidSave:)``, which
/// ``MainContext/automaticallyMergesChanges`` calls), compares the new results with the
/// old ones and reports the difference as a ``ResultsChangeSet`` to its ``delegate`` and on
/// every ``changes`` sequence. Objects that match after a merge appear and objects that no
/// longer match leave, because the comparison is with a real fetch. Unsaved changes of the
/// context count as its fetches count them, but on their own they are no event: they show at
/// the next one. Results controllers work on main contexts only; a private context's work
/// reaches one through a save and a merge.
@MainActor
public final class FetchedResultsController {
    /// The request, as given.
    public let fetchRequest: FetchRequest
    /// The context fetched from.
    public let context: MainContext
    /// The key path whose value names each object's section (an attribute, or a path
    /// through to-one relationships such as `group.name`); one section when nil.
    public let sectionNameKeyPath: String?
    /// Told about each non-empty change set, on the main actor, as soon as the results changed.
    public weak var delegate: (any FetchedResultsControllerDelegate)?
    /// The results by section. Without a section key path there is one section, named
    /// `""`, even when it is empty; with one, a section for each value in the results,
    /// in the order of the first sort key (a nil value names the section `""`).
    public private(set) var sections: [ResultsSection] = []
    /// The error of the last refetch, if it failed; the results then stay as they were
    /// and the next event tries again (its change set then also reports what the failed
    /// events updated).
    public private(set) var refetchError: (any Error)?

    private let sectionAttribute: AttributeDescription?
    private let sectionPath: [String]
    private let request: FetchRequest
    /// Each section's object IDs as last fetched (an unsaved object's ID changes when it is saved).
    private var fetchedIDs: [[ObjectID]] = []
    private var isFetched = false
    /// What events whose refetch failed updated: the next change set reports those still in place.
    private var unreportedUpdates = Set<ObjectID>()
    private let subscribers = ChangeSetSubscribers()

    /// Creates a controller; nothing is fetched until ``performFetch()``.
    ///
    /// - Throws: ``ObjectGraphError`` `unknownEntity` or `unknownKey`, a
    ///   ``PredicateSyntaxError`` for a section key path that is not an attribute, or
    ///   ``ObjectGraphError`` `invalidValue` when there is a section key path and the first
    ///   sort key is not on it (sections follow the order of the first sort key).
    public init(fetchRequest: FetchRequest, context: MainContext, sectionNameKeyPath: String? = nil) throws {
        let entity = try context.model.requireEntity(named: fetchRequest.entityName)
        var request = fetchRequest
        if let sectionNameKeyPath {
            sectionAttribute = try CheckedExpression.attributePath(sectionNameKeyPath, of: entity).attribute
            guard fetchRequest.sortKeys.first?.keyPath == sectionNameKeyPath else {
                let first = fetchRequest.sortKeys.first.map { "'\($0.keyPath)'" } ?? "missing"
                throw ObjectGraphError(.invalidValue, """
                    the first sort key must be the section key path '\(sectionNameKeyPath)' (it is \(first)): \
                    sections follow the order of the first sort key; sort by '\(sectionNameKeyPath)' first
                    """)
            }
            sectionPath = sectionNameKeyPath.split(separator: ".").map(String.init)
            // The objects along the path are read for every result: fetch them in one query.
            let hops = sectionPath.dropLast().joined(separator: ".")
            if !hops.isEmpty && !request.relationshipKeyPathsForPrefetching.contains(hops) {
                request.relationshipKeyPathsForPrefetching.append(hops)
            }
        } else {
            sectionAttribute = nil
            sectionPath = []
        }
        self.fetchRequest = fetchRequest
        self.request = request
        self.context = context
        self.sectionNameKeyPath = sectionNameKeyPath
    }

    deinit { subscribers.finishAll() }

    /// Fetches the results, and from now on keeps them up to date. Calling it again fetches
    /// afresh without reporting changes.
    /// - Throws: what ``MainContext/fetch(_:)`` throws for the request.
    public func performFetch() throws {
        let objects = try context.fetch(request)
        (sections, fetchedIDs) = group(objects)
        refetchError = nil
        unreportedUpdates = []
        if !isFetched {
            isFetched = true
            context.resultsControllers.add(self)
        }
    }

    /// Every result, section after section.
    public var fetchedObjects: [ManagedObject] { sections.flatMap(\.objects) }

    /// The object at `indexPath`; an index path outside the results is a programming error.
    public func object(at indexPath: ResultIndexPath) -> ManagedObject {
        precondition(sections.indices.contains(indexPath.section)
                     && sections[indexPath.section].objects.indices.contains(indexPath.item),
                     "index path \(indexPath) is outside the results (\(sections.map(\.objects.count)) objects by section)")
        return sections[indexPath.section].objects[indexPath.item]
    }

    /// Where `object` is in the results, or nil.
    public func indexPath(forObject object: ManagedObject) -> ResultIndexPath? {
        for (section, contents) in sections.enumerated() {
            if let item = contents.objects.firstIndex(where: { $0 === object }) {
                return ResultIndexPath(section: section, item: item)
            }
        }
        return nil
    }

    // MARK: Section index

    /// The index title of the section named `name`, for a table view's index: the
    /// delegate's choice (``FetchedResultsControllerDelegate/controller(_:sectionIndexTitleForSectionName:)``),
    /// by default the first character of the name upper-cased, as Core Data's; nil for a
    /// section named `""`.
    public func sectionIndexTitle(forSectionName name: String) -> String? {
        guard let delegate else { return Self.defaultSectionIndexTitle(forSectionName: name) }
        return delegate.controller(self, sectionIndexTitleForSectionName: name)
    }

    /// The first character of `name`, upper-cased; nil when `name` is empty.
    public nonisolated static func defaultSectionIndexTitle(forSectionName name: String) -> String? {
        name.first.map { String($0).uppercased() }
    }

    /// The sections' index titles, each once, in the order of the sections: what a table
    /// view's index shows (Core Data's `sectionIndexTitles`). Sections without a title
    /// (named `""`) have no entry.
    public var sectionIndexTitles: [String] {
        var seen = Set<String>()
        return sections.compactMap { sectionIndexTitle(forSectionName: $0.name) }.filter { seen.insert($0).inserted }
    }

    /// The section to show when the index title `title` is chosen: the first section with
    /// that title, or nil when none has it. `index` is the title's place in
    /// ``sectionIndexTitles``, as a table view passes it (Core Data's signature); the title
    /// alone decides.
    public func section(forSectionIndexTitle title: String, at index: Int) -> Int? {
        sections.firstIndex { sectionIndexTitle(forSectionName: $0.name) == title }
    }

    /// The change sets from now on, one per event that changed the results. Each use makes
    /// a new sequence; change sets wait in it until read, and it ends when the controller
    /// is released or the iterating task is cancelled.
    public var changes: AsyncStream<ResultsChangeSet> { subscribers.makeStream() }

    /// A save, merge or batch request of the context: refetch, compare, report.
    func contextDidChange(_ change: ContextChange) {
        let objects: [ManagedObject]
        do {
            objects = try context.fetch(request)
        } catch {
            refetchError = error
            unreportedUpdates.formUnion(change.updatedIDs)
            return
        }
        refetchError = nil
        // Updated: what the event updated, and objects shown before they were saved (their
        // ID changed). Not what it inserted: a refetch can already have shown those, when
        // the store was ahead of the merges (a background import saves its next batch
        // while the main actor merges the last).
        var changed = unreportedUpdates.union(change.updatedIDs)
        unreportedUpdates = []
        var old: ResultsDiff.Sections = []
        for (section, ids) in zip(sections, fetchedIDs) {
            let now = section.objects.map(\.objectID)
            for (before, after) in zip(ids, now) where before != after { changed.insert(after) }
            old.append((section.name, now))
        }
        let (newSections, newIDs) = group(objects)
        let changeSet = ResultsDiff.changes(from: old, to: zip(newSections, newIDs).map { ($0.name, $1) },
                                            changed: changed)
        sections = newSections
        fetchedIDs = newIDs
        guard !changeSet.isEmpty else { return }
        // The sequences first: a delegate that saves again makes the next change set, which
        // must come after this one.
        subscribers.yield(changeSet)
        delegate?.controller(self, didChangeContentWith: changeSet)
    }

    /// Splits fetched objects into sections, by the name of their section key path's value
    /// (in the order the names first appear), with their IDs. Names are compared as the
    /// store orders text, by their UTF-8 bytes: `"é"` and `"e\u{301}"`, equal to Swift's
    /// `==`, sort apart and are two sections.
    private func group(_ objects: [ManagedObject]) -> ([ResultsSection], [[ObjectID]]) {
        guard let sectionAttribute else {
            return ([ResultsSection(name: "", objects: objects)], [objects.map(\.objectID)])
        }
        var sections: [ResultsSection] = []
        var index: [[UInt8]: Int] = [:]
        for object in objects {
            let value = sectionAttribute.type.swiftValue(from: object.value(atKeyPath: sectionPath))
            let name = value.map { "\($0)" } ?? ""
            // Sections follow the first sort key, so an object is mostly in the last one.
            if let last = sections.indices.last, sections[last].name.utf8.elementsEqual(name.utf8) {
                sections[last].objects.append(object)
            } else if let position = index[Array(name.utf8)] {
                sections[position].objects.append(object)
            } else {
                index[Array(name.utf8)] = sections.count
                sections.append(ResultsSection(name: name, objects: [object]))
            }
        }
        return (sections, sections.map { $0.objects.map(\.objectID) })
    }
}

/// One section of a ``FetchedResultsController``'s results.
public struct ResultsSection {
    /// The value of the section key path its objects share, as text (`""` for nil, and for
    /// the only section of a controller without a section key path).
    public var name: String
    /// Its objects, in the fetch's order.
    public var objects: [ManagedObject]

    /// How many objects it holds.
    public var numberOfObjects: Int { objects.count }
}

/// Hears a ``FetchedResultsController``'s change sets, on the main actor.
@MainActor
public protocol FetchedResultsControllerDelegate: AnyObject {
    /// The results changed: `controller.sections` are already the new ones, and `changes`
    /// turns the previous ones into them.
    func controller(_ controller: FetchedResultsController, didChangeContentWith changes: ResultsChangeSet)

    /// The index title of the section named `sectionName` (nil for none); by default
    /// ``FetchedResultsController/defaultSectionIndexTitle(forSectionName:)``.
    func controller(_ controller: FetchedResultsController, sectionIndexTitleForSectionName sectionName: String) -> String?
}

extension FetchedResultsControllerDelegate {
    /// The first character of `sectionName`, upper-cased, as Core Data's default.
    public func controller(_ controller: FetchedResultsController, sectionIndexTitleForSectionName sectionName: String) -> String? {
        FetchedResultsController.defaultSectionIndexTitle(forSectionName: sectionName)
    }
}
