/// What one save, merge or batch request changed in a ``FetchedResultsController``'s
/// results: objects inserted, deleted, moved and updated, sections inserted and deleted.
///
/// Applied to the previous results it gives the new ones, in this order (the order of a
/// table view's batch updates):
/// 1. remove the objects of every `.delete` and `.move` change, at their ``ObjectChange/oldIndexPath``;
/// 2. remove the deleted sections (now empty), at their old indexes;
/// 3. insert the inserted sections (empty), at their new indexes, lowest first;
/// 4. insert the objects of every `.insert` and `.move` change at their
///    ``ObjectChange/newIndexPath``, lowest first;
/// 5. an `.update` leaves its object where it is: its old and new index paths differ only
///    by the removals and insertions around it. It names the object by its ID now, which
///    differs from the one it had when an unsaved object was saved meanwhile.
///
/// Every object of a deleted or inserted section has its own change. An object that
/// changed and moved is reported once, as a move.
public struct ResultsChangeSet: Sendable, Equatable {
    /// The change of one object.
    public struct ObjectChange: Sendable, Hashable {
        /// What happened to it.
        public var type: ResultsChangeType
        /// The object's ID now (for a deleted object, its last one).
        public var objectID: ObjectID
        /// Where it was; nil for an insertion.
        public var oldIndexPath: ResultIndexPath?
        /// Where it is; nil for a deletion.
        public var newIndexPath: ResultIndexPath?

        /// Creates a change.
        public init(_ type: ResultsChangeType, _ objectID: ObjectID,
                    old oldIndexPath: ResultIndexPath?, new newIndexPath: ResultIndexPath?) {
            self.type = type
            self.objectID = objectID
            self.oldIndexPath = oldIndexPath
            self.newIndexPath = newIndexPath
        }
    }

    /// A section that appeared or went away (`.insert` or `.delete`).
    public struct SectionChange: Sendable, Hashable {
        /// `.insert` or `.delete`.
        public var type: ResultsChangeType
        /// Its index: in the old sections for a deletion, in the new ones for an insertion.
        public var index: Int
        /// Its name.
        public var name: String

        /// Creates a change.
        public init(_ type: ResultsChangeType, index: Int, name: String) {
            self.type = type
            self.index = index
            self.name = name
        }
    }

    /// Sections deleted (by old index, ascending), then sections inserted (by new index, ascending).
    public var sectionChanges: [SectionChange] = []
    /// Deletions (by old index path), then insertions, moves and updates (each by new
    /// index path), each group in ascending order.
    public var objectChanges: [ObjectChange] = []

    /// Creates an empty change set.
    public init() {}

    /// Whether nothing changed.
    public var isEmpty: Bool { sectionChanges.isEmpty && objectChanges.isEmpty }

    /// The changes of one type, in the order of ``objectChanges``.
    public func objectChanges(_ type: ResultsChangeType) -> [ObjectChange] { objectChanges.filter { $0.type == type } }
}

/// How an object or a section changed, as Core Data's `NSFetchedResultsChangeType` says it.
public enum ResultsChangeType: Sendable, Hashable {
    /// It is new in the results.
    case insert
    /// It left the results: deleted, or it no longer matches.
    case delete
    /// It is at another place in the order, or in another section.
    case move
    /// It changed and stays in place.
    case update
}
