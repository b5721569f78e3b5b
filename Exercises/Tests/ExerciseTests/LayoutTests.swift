import Foundation
import Testing
import ExerciseKit

/// Every exercise has what `recipes exercise` and the learner need: a README that links a
/// tutorial, a hint, the starter, the solution and a checker executable.
@Test("Every exercise folder has a README linking a tutorial, hints, a starter, a solution and a checker")
func everyExerciseIsComplete() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let manager = FileManager.default
    let folders = try manager.contentsOfDirectory(atPath: root.path).filter { $0.first?.isNumber == true }.sorted()
    #expect(folders == ExerciseChecks.all.map(\.folder))
    for exercise in ExerciseChecks.all {
        let folder = root.appendingPathComponent(exercise.folder)
        let readme = try String(contentsOf: folder.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.hasPrefix(String(format: "# %02d · ", exercise.number) + exercise.title + "\n"), "\(exercise.folder)/README.md title")
        let tutorials = readme.matches(of: /\.\.\/\.\.\/Tutorials\/([0-9a-z-]+\.md)/).map { String($0.output.1) }
        #expect(!tutorials.isEmpty, "\(exercise.folder)/README.md links no tutorial")
        for tutorial in tutorials {
            #expect(manager.fileExists(atPath: root.appendingPathComponent("../Tutorials/\(tutorial)").path),
                    "\(exercise.folder)/README.md links a missing tutorial \(tutorial)")
        }
        let hints = try String(contentsOf: folder.appendingPathComponent("hint.md"), encoding: .utf8)
        #expect(hints.components(separatedBy: "\n## Hint ").count >= 3, "\(exercise.folder)/hint.md needs at least two '## Hint N' sections")
        #expect(manager.fileExists(atPath: folder.appendingPathComponent(exercise.file).path))
        #expect(manager.fileExists(atPath: root.appendingPathComponent("Solutions/\(exercise.folder)/\(exercise.file)").path))
        #expect(manager.fileExists(atPath: root.appendingPathComponent(String(format: "Checkers/check-%02d/main.swift", exercise.number)).path))
    }
}
