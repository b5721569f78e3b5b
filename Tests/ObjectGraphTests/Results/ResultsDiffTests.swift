import Foundation
import Testing
@testable import ObjectGraph

/// The comparison of two results by ID, on hand-made cases: what each change set says,
/// and that applying it to the old results gives the new ones.
@Suite("ResultsDiff")
struct ResultsDiffTests {
    static func id(_ key: Int64) -> ObjectID { ObjectID(entityIndex: 0, key: key) }

    /// `"A: 1 2 | B: 3"` into sections of IDs.
    static func sections(_ text: String) -> ResultsDiff.Sections {
        guard !text.isEmpty else { return [] }
        return text.components(separatedBy: " | ").map { part in
            let halves = part.components(separatedBy: ":")
            let ids = halves[1].split(separator: " ").map { id(Int64($0)!) }
            return (halves[0], ids)
        }
    }

    static func snapshot(_ sections: ResultsDiff.Sections) -> ResultsSnapshot {
        ResultsSnapshot(sections.map { ResultsSnapshot.Section(name: $0.name, ids: $0.ids) })
    }

    /// Each change as `+3 [0,1]`, `-2 [0,1]`, `>4 [0,0]->[1,2]`, `~1 [0,0]`, `S+B 1`, `S-A 0`.
    static func describe(_ changes: ResultsChangeSet) -> [String] {
        changes.sectionChanges.map { "S\($0.type == .insert ? "+" : "-")\($0.name) \($0.index)" }
            + changes.objectChanges.map { change in
                let key = change.objectID.key
                switch change.type {
                case .insert: return "+\(key) \(change.newIndexPath!)"
                case .delete: return "-\(key) \(change.oldIndexPath!)"
                case .move: return ">\(key) \(change.oldIndexPath!)->\(change.newIndexPath!)"
                case .update: return "~\(key) \(change.newIndexPath!)"
                }
            }
    }

    @Test("Each case gives the expected changes, and applying them gives the new results", arguments: [
        ("A: 1 2 3", "A: 1 2 3", [Int64](), [String]()),
        ("A: 1 2 3", "A: 1 2 3", [2], ["~2 [0, 1]"]),
        ("A: 1 2 3", "A: 1 3", [], ["-2 [0, 1]"]),
        ("A: 1 3", "A: 1 2 3", [2], ["+2 [0, 1]"]),
        ("A: 1 2 3", "A: 2 3 1", [1], [">1 [0, 0]->[0, 2]"]),
        ("A: 1 2 3 4", "A: 4 3 2 1", [], [">3 [0, 2]->[0, 1]", ">2 [0, 1]->[0, 2]", ">1 [0, 0]->[0, 3]"]),
        ("A: 1 2 | B: 3", "A: 1 | B: 2 3", [2], [">2 [0, 1]->[1, 0]"]),
        ("A: 1 | B: 2", "B: 2 1", [], ["S-A 0", ">1 [0, 0]->[0, 1]"]),
        ("B: 2", "A: 1 | B: 2", [], ["S+A 0", "+1 [0, 0]"]),
        ("A: 1 2 | B: 3", "B: 3 | C: 1 2", [1], ["S-A 0", "S+C 1", ">1 [0, 0]->[1, 0]", ">2 [0, 1]->[1, 1]"]),
        ("A: 1 | B: 2", "B: 2 | A: 1", [], ["S-A 0", "S+A 1", ">1 [0, 0]->[1, 0]"]),
        ("", "A: 1", [], ["S+A 0", "+1 [0, 0]"]),
        ("A: 1 2", "", [], ["S-A 0", "-1 [0, 0]", "-2 [0, 1]"]),
        ("A: 5 1 2 3 6", "A: 1 2 7 3 5", [1, 3, 7], ["-6 [0, 4]", "+7 [0, 2]", ">5 [0, 0]->[0, 4]", "~1 [0, 0]", "~3 [0, 3]"]),
    ])
    func cases(old: String, new: String, changed: [Int64], expected: [String]) throws {
        let changes = ResultsDiff.changes(from: Self.sections(old), to: Self.sections(new),
                                          changed: Set(changed.map(Self.id)))
        #expect(Self.describe(changes) == expected)
        #expect(try Self.snapshot(Self.sections(old)).applying(changes) == Self.snapshot(Self.sections(new)))
    }

    @Test("The longest increasing run is found, and is as long as can be", arguments: [
        ([Int](), 0), ([3], 1), ([1, 2, 3], 3), ([3, 2, 1], 1), ([2, 5, 1, 3, 4, 0], 3), ([0, 8, 4, 12, 2, 10, 6, 14, 1, 9], 4),
    ])
    func longestIncreasingRun(values: [Int], length: Int) {
        let run = ResultsDiff.longestIncreasingRun(values)
        #expect(run.count == length)
        #expect(zip(run, run.dropFirst()).allSatisfy { $0 < $1 && values[$0] < values[$1] })
    }
}
