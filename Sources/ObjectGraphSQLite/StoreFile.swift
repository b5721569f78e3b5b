import ObjectGraph
import Foundation
import Glibc

/// Checks made on a store's path before SQLite opens it, so that a file SQLite would
/// silently open read-only, a journal it would replay into a new empty database, or a
/// folder it cannot write its journal files in, is an error naming the problem, and
/// nothing on disk is created or changed.
enum StoreFile {
    /// Throws ``ObjectGraph/ObjectGraphError`` (`storeFailure`) when the store at `path`
    /// cannot be opened for writing, naming the reason:
    /// - the folder does not exist, or a new store cannot be created in it;
    /// - a write-ahead log (`path-wal`) or rollback journal (`path-journal`) is there but its
    ///   database is missing or empty: opening would start a new store and lose what it holds;
    /// - the file, or the folder its journal files go in, is read-only for this user.
    static func checkBeforeOpening(_ path: String) throws {
        let files = FileManager.default
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        try StorePath.checkFolder(of: path)  // worded as the atomic stores word it
        let size = (try? files.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        let journal = path + "-wal"
        // A log or rollback journal without its database: SQLite would start a new store and
        // drop the log, or roll another store's pages into the new one.
        for (file, kind) in [(journal, "write-ahead log"), (path + "-journal", "rollback journal")] where (size ?? 0) == 0 {
            guard let fileSize = (try? files.attributesOfItem(atPath: file)[.size] as? Int) ?? nil, fileSize > 0 else { continue }
            throw ObjectGraphError(.storeFailure,
                "cannot open the store at '\(path)': its \(kind) '\(file)' is there but the database "
                + "\(size == nil ? "is missing" : "is empty"); restore the database next to it, or move the \(kind) away "
                + "to start a new store (opening now would lose what the \(kind) holds)")
        }
        guard size != nil else {
            if !files.isWritableFile(atPath: folder) {
                throw ObjectGraphError(.storeFailure,
                    "cannot create the store at '\(path)': the folder '\(folder)' is not writable by this user")
            }
            return
        }
        if !files.isWritableFile(atPath: path) {
            throw ObjectGraphError(.storeFailure,
                "the store at '\(path)' is read-only for this user (file permissions); it was not changed. "
                + "Open a writable copy, or change the file's permissions")
        }
        // SQLite creates the write-ahead log and its index next to the file on first use.
        let missing = [journal, path + "-shm"].filter { !files.fileExists(atPath: $0) }
        if !missing.isEmpty && !files.isWritableFile(atPath: folder) {
            throw ObjectGraphError(.storeFailure,
                "cannot open the store at '\(path)': the folder '\(folder)' is not writable by this user, and the "
                + "store needs to create its journal files there (\(missing.map { "'\($0)'" }.joined(separator: ", "))); "
                + "it was not changed")
        }
    }

    /// Throws ``ObjectGraph/ObjectGraphError`` (`storeFailure`) when a copy of the store at
    /// `source` cannot be made at `destination` without losing or mixing data: the two are
    /// one file; something is already at `destination`; a `-wal`, `-shm` or `-journal` left
    /// from another store is beside it (SQLite would read it into the copy); its folder is
    /// missing, not a folder, or not writable.
    static func checkCopyDestination(_ destination: String, source: String) throws {
        func refuse(_ reason: String) -> ObjectGraphError {
            ObjectGraphError(.storeFailure, "cannot copy to '\(destination)': \(reason)")
        }
        if isSameFile(destination, source) {
            throw refuse("it is the store being copied ('\(source)'); choose a new path for the copy")
        }
        if exists(destination) {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: destination, isDirectory: &isFolder), isFolder.boolValue {
                let name = URL(fileURLWithPath: source).lastPathComponent
                throw refuse("it is a directory; choose a new path for the copy, such as \(destination)/\(name)")
            }
            throw refuse("the file exists; choose a new path or remove it first")
        }
        for file in ["-wal", "-shm", "-journal"].map({ destination + $0 }) where exists(file) {
            throw refuse("'\(file)' exists, left from another store, and would corrupt the copy; choose a new path or remove it first")
        }
        let folder = StorePath.folder(of: destination)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
            throw refuse("the folder '\(folder)' does not exist; create it or choose another path")
        }
        guard isFolder.boolValue else { throw refuse("'\(folder)' is not a folder; choose another path") }
        guard FileManager.default.isWritableFile(atPath: folder) else {
            throw refuse("the folder '\(folder)' is not writable by this user; choose another path")
        }
    }

    /// Whether `a` and `b` name the same file: the same path once `.`, `..` and symlinks are
    /// resolved, or, when both exist, the same device and inode (a hard link).
    static func isSameFile(_ a: String, _ b: String) -> Bool {
        func resolved(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path }
        if resolved(a) == resolved(b) { return true }
        var first = stat(), second = stat()
        return stat(a, &first) == 0 && stat(b, &second) == 0 && first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }

    /// Whether anything is at `path`, a dangling symlink included.
    static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }
}
