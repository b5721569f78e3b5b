import ObjectGraph
import Foundation

extension SQLiteStore {
    /// Copies the store file at `source` into a new file at `destination`, as one moment of
    /// the store: the saves still in its write-ahead log are in the copy, and a save another
    /// connection or program makes meanwhile is in it entirely or not at all (SQLite's online
    /// backup, like GRDB's `backup(to:)`).
    ///
    /// Nothing that exists is replaced. The copy is refused, before anything is written, when
    /// `destination` is the source by another spelling (`./`, a symlink, a hard link), when
    /// anything is already there (a file, a folder, a dangling link), when a leftover
    /// `-wal`, `-shm` or `-journal` beside it would be read into the copy, or when its folder
    /// is missing or not writable. A copy that fails halfway is removed.
    /// ```swift
    /// try SQLiteStore.copyStore(at: "notes.sqlite", to: "backups/notes-monday.sqlite")
    /// ```
    /// It blocks the calling thread while it copies: call it from a thread of your own, not
    /// from Swift's cooperative pool.
    /// - Throws: ``ObjectGraph/ObjectGraphError``: `storeFailure` naming the path and the
    ///   reason, `notADatabase` when `source` is not a store made by this framework.
    public static func copyStore(at source: String, to destination: String) throws {
        guard isFile(source), FileManager.default.fileExists(atPath: source) else {
            throw ObjectGraphError(.storeFailure, "cannot copy '\(source)': there is no store file there")
        }
        try StoreFile.checkCopyDestination(destination, source: source)
        _ = try metadata(ofStoreAt: source)  // an ObjectGraph store, readable: else a message naming why
        do {
            // Without a log beside it, nothing has the store open: read the file as it is,
            // leaving no `-wal` or `-shm` behind (a read-only connection would make both).
            let hasLog = FileManager.default.fileExists(atPath: source + "-wal")
            let reader = try SQLiteConnection(path: source, readOnly: true, immutable: !hasLog)
            do {
                let writer = try SQLiteConnection(path: destination)
                try reader.backup(into: writer)
            } catch {  // the writer is closed by now
                for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: destination + suffix) }
                throw ObjectGraphError(.storeFailure, "cannot copy '\(source)' to '\(destination)': \(error.message); nothing was kept",
                                       underlying: error)
            }
        } catch let error as SQLiteError {
            throw translate(error, path: source)
        }
    }
}
