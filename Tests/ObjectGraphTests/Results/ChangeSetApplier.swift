import Testing
@testable import ObjectGraph

/// Results as plain values: each section's name and object IDs.
struct ResultsSnapshot: Equatable, CustomStringConvertible {
    var sections: [Section]

    struct Section: Equatable {
        var name: String
        var ids: [ObjectID]
    }

    init(_ sections: [Section]) { self.sections = sections }

    /// What a controller shows now.
    @MainActor init(_ controller: FetchedResultsController) {
        sections = controller.sections.map { Section(name: $0.name, ids: $0.objects.map(\.objectID)) }
    }

    var description: String {
        sections.map { "\($0.name): \($0.ids.map { "\($0.temporaryTag == 0 ? "p" : "t")\($0.key)" }.joined(separator: " "))" }
            .joined(separator: " | ")
    }

    /// Applies `changes` in the order ``ResultsChangeSet`` documents, checking each step
    /// against the previous results (a change that names a place that does not exist, or
    /// another object than the one there, is an error). Written independently of the
    /// framework's diff, so a wrong change set cannot pass by agreeing with itself.
    func applying(_ changes: ResultsChangeSet) throws -> ResultsSnapshot {
        struct Mismatch: Error, CustomStringConvertible { let description: String }
        func at(_ path: ResultIndexPath?, in snapshot: ResultsSnapshot) throws -> ObjectID {
            guard let path, snapshot.sections.indices.contains(path.section),
                  snapshot.sections[path.section].ids.indices.contains(path.item) else {
                throw Mismatch(description: "no object at \(path.map(\.description) ?? "nil") in \(snapshot)")
            }
            return snapshot.sections[path.section].ids[path.item]
        }
        var result = self
        // Every old place is named by at most one change, with the object that was there
        // (an object saved meanwhile was there under its temporary ID).
        var named = Set<ResultIndexPath>()
        for change in changes.objectChanges where change.type != .insert {
            let old = try at(change.oldIndexPath, in: self)
            guard named.insert(change.oldIndexPath!).inserted else {
                throw Mismatch(description: "two changes name \(change.oldIndexPath!)")
            }
            guard old == change.objectID || old.temporaryTag != 0 else {
                throw Mismatch(description: "\(change.type) names \(change.objectID) at \(change.oldIndexPath!), where \(old) was")
            }
        }
        // 1. Remove deleted and moved objects, last first.
        let removals = changes.objectChanges.filter { $0.type == .delete || $0.type == .move }
            .map { $0.oldIndexPath! }.sorted(by: >)
        for path in removals { result.sections[path.section].ids.remove(at: path.item) }
        // 2. Remove deleted sections, last first; they must be empty by now.
        for change in changes.sectionChanges.filter({ $0.type == .delete }).sorted(by: { $0.index > $1.index }) {
            guard result.sections.indices.contains(change.index), result.sections[change.index].name == change.name,
                  result.sections[change.index].ids.isEmpty else {
                throw Mismatch(description: "section '\(change.name)' at \(change.index) cannot be deleted from \(result)")
            }
            result.sections.remove(at: change.index)
        }
        // 3. Insert new sections, first first.
        for change in changes.sectionChanges.filter({ $0.type == .insert }).sorted(by: { $0.index < $1.index }) {
            guard change.index <= result.sections.count else {
                throw Mismatch(description: "section '\(change.name)' cannot be inserted at \(change.index) into \(result)")
            }
            result.sections.insert(Section(name: change.name, ids: []), at: change.index)
        }
        // 4. Insert inserted and moved objects, first first.
        let insertions = changes.objectChanges.filter { $0.type == .insert || $0.type == .move }
            .sorted { $0.newIndexPath! < $1.newIndexPath! }
        for change in insertions {
            guard let path = change.newIndexPath, result.sections.indices.contains(path.section),
                  path.item <= result.sections[path.section].ids.count else {
                throw Mismatch(description: "\(change.objectID) cannot be inserted at \(change.newIndexPath.map(\.description) ?? "nil") into \(result)")
            }
            result.sections[path.section].ids.insert(change.objectID, at: path.item)
        }
        // 5. Updated objects stay where they are, under their current ID.
        for change in changes.objectChanges where change.type == .update {
            _ = try at(change.newIndexPath, in: result)
            result.sections[change.newIndexPath!.section].ids[change.newIndexPath!.item] = change.objectID
        }
        return result
    }
}
