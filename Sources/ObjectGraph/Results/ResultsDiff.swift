/// The change set between two sectioned results, computed from the object IDs alone.
///
/// Sections are matched by name (by its UTF-8 bytes, as ``FetchedResultsController`` groups
/// them), objects by ID. Of the sections both sides have, the
/// longest run that keeps its order stays; the others count as deleted and inserted. In
/// each section that stays, the longest run of objects that stay in it and keep their order
/// stays put; every other object that is on both sides moves. For distinct IDs the
/// longest common subsequence is the longest increasing subsequence of the new positions
/// taken in old order, which takes O(n log n).
struct ResultsDiff {
    /// One side: each section's name and IDs, in order.
    typealias Sections = [(name: String, ids: [ObjectID])]

    /// The changes that turn `old` into `new`; objects in `changed` that stay in place are
    /// reported as updated.
    static func changes(from old: Sections, to new: Sections, changed: Set<ObjectID>) -> ResultsChangeSet {
        var result = ResultsChangeSet()
        // Sections.
        let newSectionIndex = Dictionary(new.enumerated().map { (Array($1.name.utf8), $0) }) { first, _ in first }
        let oldKeys = old.map { Array($0.name.utf8) }
        let commonSections = old.indices.filter { newSectionIndex[oldKeys[$0]] != nil }
        let keptSections = Set(longestIncreasingRun(commonSections.map { newSectionIndex[oldKeys[$0]]! })
            .map { commonSections[$0] })
        var keptSectionPairs: [Int: Int] = [:]  // old index: new index
        for index in keptSections { keptSectionPairs[index] = newSectionIndex[oldKeys[index]]! }
        let newKept = Set(keptSectionPairs.values)
        for (index, section) in old.enumerated() where !keptSections.contains(index) {
            result.sectionChanges.append(.init(.delete, index: index, name: section.name))
        }
        for (index, section) in new.enumerated() where !newKept.contains(index) {
            result.sectionChanges.append(.init(.insert, index: index, name: section.name))
        }

        // Objects.
        var newLocation: [ObjectID: ResultIndexPath] = [:]
        for (section, ids) in new.map(\.ids).enumerated() {
            for (item, id) in ids.enumerated() { newLocation[id] = ResultIndexPath(section: section, item: item) }
        }
        var deletions: [ResultsChangeSet.ObjectChange] = []
        var rest: [ResultsChangeSet.ObjectChange] = []
        var seen = Set<ObjectID>()
        for (section, ids) in old.map(\.ids).enumerated() {
            // The objects that stay in this section (when it stays), and which of them keep their order.
            var staying: [Int] = []
            if let newSection = keptSectionPairs[section] {
                staying = ids.indices.filter { newLocation[ids[$0]]?.section == newSection }
            }
            let kept = Set(longestIncreasingRun(staying.map { newLocation[ids[$0]]!.item }).map { staying[$0] })
            for (item, id) in ids.enumerated() {
                seen.insert(id)
                let oldPath = ResultIndexPath(section: section, item: item)
                guard let newPath = newLocation[id] else {
                    deletions.append(.init(.delete, id, old: oldPath, new: nil))
                    continue
                }
                if !kept.contains(item) {
                    rest.append(.init(.move, id, old: oldPath, new: newPath))
                } else if changed.contains(id) {
                    rest.append(.init(.update, id, old: oldPath, new: newPath))
                }
            }
        }
        for (id, path) in newLocation where !seen.contains(id) {
            rest.append(.init(.insert, id, old: nil, new: path))
        }
        let order: [ResultsChangeType: Int] = [.insert: 0, .move: 1, .update: 2]
        rest.sort { (order[$0.type]!, $0.newIndexPath!) < (order[$1.type]!, $1.newIndexPath!) }
        result.objectChanges = deletions + rest
        return result
    }

    /// The indexes of a longest strictly increasing subsequence of `values` (patience sorting).
    static func longestIncreasingRun(_ values: [Int]) -> [Int] {
        var tails: [Int] = []          // index into values of the smallest tail of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run: [Int] = []
        var index = tails.last ?? -1
        while index >= 0 {
            run.append(index)
            index = previous[index]
        }
        return run.reversed()
    }
}
