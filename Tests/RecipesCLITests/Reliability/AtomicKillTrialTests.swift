import Foundation
import Testing

/// `recipes` killed with SIGKILL at random moments while it saves an atomic store (XML,
/// binary, HTML), each save writing the whole file to a temporary file and renaming it over
/// the store. After each kill the store must open, be whole, and hold exactly the state
/// after some number of the script's saves: never a mix, never a torn file. Moments are
/// times (an atomic store runs no SQL), drawn within an uninterrupted run.
@Suite("SIGKILL during atomic-store saves", .serialized)
@MainActor
struct AtomicKillTrialTests {
    let workspace: TrialWorkspace

    init() throws { workspace = try TrialWorkspace() }

    @Test("Saves of an atomic store: each changes every recipe, deletes one with its lines, inserts a chef and a recipe",
          arguments: ["xml", "binary", "html"])
    func atomicSaves(type: String) async throws {
        // 40 recipes: an atomic store reads and writes its whole file each time.
        let base = try await workspace.makeBaseStore(type: type, count: 40)
        let before = try CatalogSnapshot.read(base)
        let ids = before.recipes.keys.sorted()
        let steps = (1...6).map { k in [
            "update Recipe where sourceID BEGINSWITH 'g-' set servings=\(k * 10 + 2)",
            "delete Recipe where sourceID == '\(ids[k * 5])'",
            "insert Chef name=\"Atomic Chef \(k)\"",
            "insert Recipe name=\"Atomic \(k)\" sourceID=atomic-\(k) servings=\(k) chef=\"Atomic Chef \(k)\"",
            "save",
        ] }
        try await workspace.runScriptTrials("\(type) save", steps: steps, base: base, moment: .time)
    }
}
