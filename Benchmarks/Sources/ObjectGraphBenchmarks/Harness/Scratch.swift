import Foundation

/// A temporary directory for the run's database files, removed at the end.
@MainActor
final class Scratch {
    /// The directory.
    let directory: URL
    /// How many paths ``freshPath(_:)`` has handed out.
    private var counter = 0

    /// Creates a directory named after the process.
    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("og-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// A path no file has used yet in this run: `db7-insert.sqlite`.
    func freshPath(_ label: String) -> String {
        counter += 1
        return directory.appendingPathComponent("db\(counter)-\(label).sqlite").path
    }

    /// Removes a database file with its WAL and shared-memory files.
    func discard(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// Copies a closed database file to a fresh path.
    func copy(_ path: String, _ label: String) throws -> String {
        let copy = freshPath(label)
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        return copy
    }

    /// Removes the directory and everything in it.
    func remove() { try? FileManager.default.removeItem(at: directory) }
}
