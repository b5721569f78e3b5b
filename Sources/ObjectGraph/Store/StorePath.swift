import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Checks a store file's path before a store opens or creates it, so that every file store
/// (SQLite and the atomic stores) words the same mistake the same way, and nothing is created.
///
/// ```swift
/// try StorePath.checkOpenable("nodir/catalog.xml")
/// // cannot open the store at 'nodir/catalog.xml': the folder 'nodir' does not exist; create it or choose another path
/// ```
package enum StorePath {
    /// The folder of `path` as written (`.` for a bare file name), for messages.
    package static func folder(of path: String) -> String {
        let parent = (path as NSString).deletingLastPathComponent
        return parent.isEmpty ? "." : parent
    }

    /// Throws ``ObjectGraphError`` (`storeFailure`) when `path` is a directory, or names a
    /// file that does not exist in a folder that does not exist either.
    package static func checkOpenable(_ path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return try checkFolder(of: path)
        }
        if isDirectory.boolValue {
            throw ObjectGraphError(.storeFailure, "cannot open the store at '\(path)': \(FileErrorReason.reason(errno: EISDIR))")
        }
    }

    /// Throws ``ObjectGraphError`` (`storeFailure`) when the folder `path` would be created
    /// in does not exist (or is not a folder).
    package static func checkFolder(of path: String) throws {
        let folder = folder(of: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ObjectGraphError(.storeFailure,
                "cannot open the store at '\(path)': the folder '\(folder)' does not exist; create it or choose another path")
        }
    }
}
