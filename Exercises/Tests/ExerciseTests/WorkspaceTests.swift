import Foundation
import Testing
import ExerciseKit

/// A check stopped by the learner's code leaves its workspace behind; the next one removes it.
@Test("A new workspace removes the folders of checks whose process is gone, and keeps the others")
func workspaceRemovesAbandonedFolders() throws {
    let manager = FileManager.default
    let temporary = manager.temporaryDirectory
    // No process has this ID: it is above Linux's largest (2^22) and macOS's (99,998).
    let abandoned = temporary.appendingPathComponent("recipes-exercise-99999999-ABANDONED")
    let running = temporary.appendingPathComponent("recipes-exercise-\(ProcessInfo.processInfo.processIdentifier)-RUNNING")
    for folder in [abandoned, running] {
        try manager.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("store".utf8).write(to: folder.appendingPathComponent("catalog.sqlite"))
    }
    defer { for folder in [abandoned, running] { try? manager.removeItem(at: folder) } }

    let workspace = try Workspace()
    #expect(!manager.fileExists(atPath: abandoned.path), "the folder of a process that is gone is removed")
    #expect(manager.fileExists(atPath: running.path), "the folder of a running process is kept")
    #expect(workspace.directory.lastPathComponent.hasPrefix("recipes-exercise-\(ProcessInfo.processInfo.processIdentifier)-"))
}
