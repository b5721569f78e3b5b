import Foundation
import Glibc
import ObjectGraphSQLite
import RecipeCatalog
import Testing

/// Two processes saving one atomic store (XML) file: a save holds the file's lock from its
/// last check to its rename, so another process's save cannot come in between and be
/// silently undone by the rename. The other process is `ReliabilityProbe save-one`.
@Suite("Two processes saving one atomic store")
struct AtomicMultiProcessTests {
    @Test("A save made while another holds the lock between its check and its rename waits, then fails naming the lock; later saves go through")
    @MainActor func lockCoversCheckAndRename() async throws {
        let home = try TemporaryDirectory()
        let path = home.url.appendingPathComponent("shared.xml").path
        let probe = RecipesBinary.path(of: "ReliabilityProbe")
        let log = home.url.appendingPathComponent("probe.log").path, folder = home.url.path
        /// Runs the probe's `save-one` to the end (blocking: on a thread of its own) and
        /// returns its exit code and what it printed.
        @Sendable func saveOne(timeoutMilliseconds: Int) throws -> (status: Int32, output: String) {
            try? FileManager.default.removeItem(atPath: log)
            let pid = try ChildProcess.spawn(probe, arguments: ["save-one", path, String(timeoutMilliseconds)],
                                             environment: ProcessInfo.processInfo.environment, directory: folder,
                                             input: .file("/dev/null"), output: .file(log), error: nil)
            let status = ChildProcess.waitForExit(of: pid)
            return ((status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f),
                    (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
        }

        let coordinator = PersistentStoreCoordinator(model: try CatalogModel.make())
        let store = try coordinator.addStore(XMLStore.self, at: path)
        // While this process holds the lock, after its check: the probe reads the file this
        // process is about to replace and saves on it. Without the lock the probe's save went
        // through and this process's rename undid it, both reporting success.
        let during = Locked<(status: Int32, output: String)?>(nil)
        store.whileLockedBeforeReplacing {
            during.withLock { $0 = try? saveOne(timeoutMilliseconds: 300) }
        }
        try await ChildProcess.offPool { try store.setMetadata("this process", forKey: "writer") }
        store.whileLockedBeforeReplacing(nil)

        let refused = try #require(during.withLock { $0 })
        #expect(refused.status == 1, "\(refused.output)")
        #expect(refused.output.contains("""
            the store at '\(path)' is being saved by another process: waited 0.3 s for its lock \
            ('\(home.url.path)/.shared.xml.lock'); nothing was written
            """), "\(refused.output)")

        // Once the lock is released, the probe saves on the file this process wrote.
        let later = try await ChildProcess.offPool { try saveOne(timeoutMilliseconds: 300) }
        #expect(later.status == 0 && later.output == "saved\n", "\(later.output)")
        let reopened = PersistentStoreCoordinator(model: try CatalogModel.make())
        let reread = try reopened.addStore(XMLStore.self, at: path)
        #expect(reread.metadata["writer"] == "this process")
        let chefs = try MainContext(coordinator: reopened).count(for: FetchRequest(entityName: CatalogModel.chef))
        #expect(chefs == 1)
        // The lock file goes when its lock is released.
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.url.path).sorted() == ["probe.log", "shared.xml"])
    }
}
