import Dispatch
import Foundation
import ObjectGraph
import ObjectGraphSQLite
import RecipeCatalog

extension RecipeShell {
    /// `.open STORE` and `.open --migrate STORE [--copy-to NEW]`: opens another catalogue (a
    /// file, `:memory:` or a `postgres://` URL); one written with an older version of the
    /// catalogue model is migrated only when asked.
    func open(_ text: String, _ context: CommandContext) async throws {
        var words = try CommandWords.split(text).map { CommandWords.filePath($0) }
        // Refused before any message below quotes the words (as the store refuses it), so that
        // no error repeats the password.
        if words.contains(where: EditLineEditor.holdsURLPassword) {
            throw CommandError("the URL holds a password: leave it out and set PGPASSWORD in the environment instead")
        }
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
        // SQLite takes an empty path for a temporary database that vanishes on close.
        guard !words[0].isEmpty, copy?.isEmpty != true else {
            throw CommandError(".open needs a store path, not an empty one (:memory: for a scratch catalogue): "
                               + ".open [--migrate] STORE [--copy-to NEW]")
        }
        guard !hasUnsavedChanges else {
            throw CommandError("there are unsaved changes: save or rollback before .open")
        }
        try requireNoRunningJob(before: ".open")
        let path = words[0]
        if path == ":memory:" {
            guard !migrates else { throw CommandError("there is nothing to migrate in :memory:") }
            let stopped = reopen(try Catalog.inMemory(), location: path)
            context.print("opened \(path)" + stopped)
            return
        }
        if Self.isPostgresURL(path) {
            // A URL, not a file: opening it as a path would make a SQLite file under `postgres:/`.
            guard !migrates else {
                throw CommandError(".open --migrate migrates catalogue files; open a PostgreSQL catalogue without it: .open \(path)")
            }
            let (catalog, location) = try await Self.openPostgres(path, output: context.output)
            let stopped = reopen(catalog, location: location)
            context.print("opened \(location)" + stopped)
            return
        }
        try Self.refuseMisspelledURL(path)
        let version = FileManager.default.fileExists(atPath: path) ? try? CatalogMigration.version(ofStoreAt: path) : nil
        if migrates {
            guard let version else { throw Self.cannotMigrate(path) }
            if let copy {
                // The store layer refuses a copy that would replace or mix with anything, and
                // takes the saves still in the write-ahead log along.
                try await Self.onThread { try SQLiteStore.copyStore(at: path, to: copy) }
            }
            let target = copy ?? path
            let progress = context.makeProgressBar(label: "migrate", total: 100)
            let catalog: Catalog
            do {
                catalog = try await Self.openMigrating(target, progress: progress)
            } catch {
                // The copy, new, is of no use unmigrated, and would block a retry.
                if copy != nil { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: target + suffix) } }
                throw error
            }
            if version < CatalogModel.versionCount {
                context.print("migrated \(target) from version \(version) of the catalogue model to version \(CatalogModel.versionCount)")
            } else {
                context.print("\(target) is already at version \(version) of the catalogue model")
            }
            let stopped = reopen(catalog, location: target)
            context.print("opened \(target)" + stopped)
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
        let stopped = reopen(catalog, location: path)
        context.print("opened \(path)" + (catalog.storeType == .sqlite ? "" : " (\(Self.describe(catalog.storeType)))")
                      + stopped)
    }

    /// Why `.open --migrate` cannot migrate `path`: no file there, a store of a type that
    /// is not migrated (an XML, binary or HTML file opens as it is), or not a catalogue.
    private static func cannotMigrate(_ path: String) -> CommandError {
        guard FileManager.default.fileExists(atPath: path) else {
            return CommandError("there is no catalogue at \(path) to migrate; .open \(path) creates a new one")
        }
        if let type = try? PersistentStoreType.recognize(fileAt: path, among: PersistentStoreType.atomicTypes) {
            return CommandError("""
                \(path) is \(describe(type)); --migrate migrates SQLite catalogues only: open it with .open \(path) \
                (it says so if it was made with another version of the catalogue model)
                """)
        }
        return CommandError("\(path) is not a catalogue that can be migrated")
    }

    /// Opens the catalogue at `path`, migrating it from an older model version first, on a
    /// thread of its own (a migration blocks while it copies rows).
    static func openMigrating(_ path: String, progress: ProgressBar) async throws -> Catalog {
        defer { progress.finish() }
        return try await onThread { try Catalog.open(at: path, migrating: true) { progress.update(done: Int($0 * 100)) } }
    }

    /// Runs `body`, which blocks on files, on a Dispatch thread: neither the shell's main
    /// thread nor Swift's cooperative pool waits on it.
    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }
}
