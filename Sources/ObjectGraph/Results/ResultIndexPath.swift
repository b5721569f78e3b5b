/// A position in a results controller's sections: the section, then the object within it.
///
/// ```swift
/// let first = controller.object(at: ResultIndexPath(section: 0, item: 0))
/// ```
/// Index paths order section first, then item: the order in which a change set's
/// insertions are applied.
public struct ResultIndexPath: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The section's index in ``FetchedResultsController/sections``.
    public var section: Int
    /// The object's index within its section.
    public var item: Int

    /// Creates an index path.
    public init(section: Int, item: Int) {
        self.section = section
        self.item = item
    }

    /// Section first, then item.
    public static func < (lhs: ResultIndexPath, rhs: ResultIndexPath) -> Bool {
        (lhs.section, lhs.item) < (rhs.section, rhs.item)
    }

    /// `[1, 4]`.
    public var description: String { "[\(section), \(item)]" }
}
