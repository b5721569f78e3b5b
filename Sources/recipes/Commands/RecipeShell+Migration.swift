import Dispatch
import Foundation
import Glibc
import ObjectGraph
import ObjectGraphSQLite
import RecipeCatalog

extension RecipeShell {
    /// `.open STORE` and `.open --migrate STORE [--copy-to NEW]`: opens another catalogue;
    /// one written with an older version of the catalogue model is migrated only when asked.
    func open(_ text: String, _ context: CommandContext) async throws {
        var words = try CommandWords.split(text)
        let migrates = words.contains("--migrate")
        words.removeAll { $0 == "--migrate" }
        var copy: String?
        if let flag = words.firstIndex(of: "--copy-to") {
            guard migrates, flag + 1 < words.count else {
                throw CommandError("--copy-to needs --migrate and a path: .open --migrate STORE --copy-to NEW")
            }
            copy = words[flag + 1]
            words.removeSubrange(flag...(flag + 1))
        }
        if let option = words.first(where: { $0.hasPrefix("--") }) {
            throw CommandError("unknown option '\(option)' for .open: .open [--migrate] STORE [--copy-to NEW]")
        }
        guard words.count == 1 else {
            throw CommandError(words.isEmpty ? ".open needs a store path (or :memory:): .open [--migrate] STORE [--copy-to NEW]"
                : ".open takes one store path, found \(words.count): \(words.map { "'\($0)'" }.joined(separator: " ")); quote a path that has spaces")
        }
        guard !hasUnsavedChanges else {
            throw CommandError("there are unsaved changes: save or rollback before .open")
        }
        try requireNoRunningJob(before: ".open")
        let path = words[0]
        if path == ":memory:" {
            guard !migrates else { throw CommandError("there is nothing to migrate in :memory:") }
            reopen(try Catalog.inMemory(), location: path)
            context.print("opened \(path)")
            return
        }
        let version = FileManager.default.fileExists(atPath: path) ? try? CatalogMigration.version(ofStoreAt: path) : nil
        if migrates {
            guard let version else { throw CommandError("\(path) is not a catalogue that can be migrated") }
            var target = path
            if let copy {
                try Self.checkCopyTarget(copy, source: path, openNow: location)
                // The write-ahead log holds the latest saves until a checkpoint (those of the
                // catalogue open now, say): the copy needs it as much as the file.
                for suffix in ["", "-wal"] where suffix.isEmpty || Self.exists(path + suffix) {
                    do {
                        try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix)
                    } catch {
                        for made in ["", "-wal"] { try? FileManager.default.removeItem(atPath: copy + made) }
                        throw CommandError("cannot copy '\(path + suffix)' to '\(copy + suffix)': \(FileErrorReason.of(error))")
                    }
                }
                target = copy
            }
            let progress = context.makeProgressBar(label: "migrate", total: 100)
            let catalog: Catalog
            do {
                catalog = try await Self.openMigrating(target, progress: progress)
            } catch {
                // The copy (checked above not to exist before) is of no use unmigrated, and would block a retry.
                if copy != nil { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: target + suffix) } }
                throw error
            }
            if version < CatalogModel.versionCount {
                context.print("migrated \(target) from version \(version) of the catalogue model to version \(CatalogModel.versionCount)")
            } else {
                context.print("\(target) is already at version \(version) of the catalogue model")
            }
            reopen(catalog, location: target)
            context.print("opened \(target)")
            return
        }
        if let version, version < CatalogModel.versionCount {
            throw CommandError("""
                \(path) was made with version \(version) of the catalogue model (chefs and cuisines were text); \
                .open --migrate \(path) migrates it to version \(CatalogModel.versionCount) (the file is replaced only \
                when the migration succeeds), or add --copy-to NEW to migrate a copy and keep the original
                """)
        }
        let catalog = try Catalog.open(at: path)
        let wasWatching = watch != nil
        reopen(catalog, location: path)
        context.print("opened \(path)" + (catalog.storeType == .sqlite ? "" : " (\(Self.describe(catalog.storeType)))")
                      + (wasWatching ? "; the watch of the previous catalogue stopped" : ""))
    }

    /// Refuses a `--copy-to` path whose use would lose data or fail halfway: the store being
    /// migrated itself (by any spelling: `./x`, an absolute path, a symlink, a hard link), the
    /// catalogue open now, any existing file or folder, a leftover `-wal` or `-shm` beside it
    /// (SQLite would read another store's journal into the copy), or a folder that does not exist.
    static func checkCopyTarget(_ copy: String, source: String, openNow location: String) throws(CommandError) {
        if isSameFile(copy, source) {
            throw CommandError("--copy-to \(copy) is the store being migrated (\(source)); choose a new path for the copy")
        }
        if isSameFile(copy, location) { throw CommandError("\(copy) is the catalogue open now; choose another path") }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: copy, isDirectory: &isDirectory), isDirectory.boolValue {
            throw CommandError("cannot copy to '\(copy)': it is a directory; choose a new path for the copy, such as \(copy)/catalog.sqlite")
        }
        for file in [copy, copy + "-wal", copy + "-shm"] where exists(file) {
            throw CommandError("cannot copy to '\(copy)': " + (file == copy ? "the file exists"
                : "'\(file)' exists, left from another store, and would corrupt the copy")
                + "; choose a new path or remove it first")
        }
        let parent = (copy as NSString).deletingLastPathComponent
        let folder = parent.isEmpty ? "." : parent
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) else {
            throw CommandError("cannot copy to '\(copy)': the folder '\(folder)' does not exist; create it or choose another path")
        }
        guard isDirectory.boolValue else {
            throw CommandError("cannot copy to '\(copy)': '\(folder)' is not a folder; choose another path")
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
    private static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// Opens the catalogue at `path`, migrating it from an older model version first, on a
    /// thread of its own (a migration blocks while it copies rows).
    static func openMigrating(_ path: String, progress: ProgressBar) async throws -> Catalog {
        defer { progress.finish() }
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    try Catalog.open(at: path, migrating: true) { progress.update(done: Int($0 * 100)) }
                })
            }
        }
    }
}
