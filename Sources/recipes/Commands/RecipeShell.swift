import Foundation
import Glibc
import ObjectGraph
import ObjectGraphSQLite
import RecipeCatalog

/// The `recipes` shell's commands: object commands over a catalogue, and dot-commands.
///
/// It parses each line, runs it through the framework's public API on a ``MainContext``
/// (imports on a ``PrivateContext``) and prints the results; the session around it does
/// input, errors, scripts and Ctrl-C.
@MainActor final class RecipeShell: CommandHandler {
    private(set) var catalog: Catalog
    private(set) var context: MainContext
    /// Where the catalogue is (`:memory:` for an in-memory one).
    private(set) var location: String
    var mode: OutputMode = .table
    /// How wide tables print (`.width`).
    var tableWidth: TableWidth = .auto
    var showsTimer = false
    /// Whether each command is printed before its output (`.echo on`), as a transcript.
    var echoesCommands = false
    var sqlDebugLevel: SQLDebugLevel = .off
    let isDeterministic: Bool
    /// The background imports of this session, oldest first; at most one runs at a time.
    var jobs: [ImportJob] = []
    /// How late main-actor work runs (`.stats`), measured while there is work to be late:
    /// see ``updateProbe()``.
    let probe = LatenessProbe()
    /// The live view of `.watch`, if one runs.
    var watch: ResultsWatch?
    /// How many commands are running now (more than one inside `.read`).
    private(set) var runningCommands = 0

    /// The object commands; dot-commands are listed by ``ShellHelp``.
    static let commands = ["fetch", "count", "show", "insert", "update", "delete", "save", "rollback",
                           "import", "search", "demo", "refresh", "undo", "redo"]

    init(catalog: Catalog, location: String, isDeterministic: Bool) {
        self.catalog = catalog
        self.location = location
        self.context = Self.makeContext(catalog)
        self.isDeterministic = isDeterministic
    }

    /// Runs the lateness probe while a command, a background job or a watch can keep the
    /// main actor busy, and stops it otherwise: a shell idle at its prompt wakes for
    /// nothing (the probe's 5 ms timer once cost an idle shell 1.5% of a core).
    func updateProbe() {
        if runningCommands > 0 || runningJob != nil || watch != nil { probe.start() } else { probe.stop() }
    }

    /// The shell's context on `catalog`: it merges what other contexts save (a background
    /// import's batches) as they are saved, so counts and fetches see them at once, and it
    /// records undo, each command one step.
    private static func makeContext(_ catalog: Catalog) -> MainContext {
        let context = MainContext(coordinator: catalog.coordinator)
        context.automaticallyMergesChanges = true
        context.isUndoEnabled = true
        return context
    }

    /// Opens the catalogue the invocation names, creating the sample catalogue on first use.
    static func open(_ invocation: Invocation, output: any ShellOutput) async throws -> RecipeShell {
        if invocation.isInMemory {
            return RecipeShell(catalog: try Catalog.inMemory(), location: ":memory:",
                               isDeterministic: invocation.isDeterministic)
        }
        if let url = invocation.storePath, isPostgresURL(url) {
            let (catalog, location) = try await openPostgres(url, output: output)
            return RecipeShell(catalog: catalog, location: location, isDeterministic: invocation.isDeterministic)
        }
        if let path = invocation.storePath {
            try refuseMisspelledURL(path)
            return RecipeShell(catalog: try await openNamed(path, invocation: invocation, output: output), location: path,
                               isDeterministic: invocation.isDeterministic)
        }
        let path = Catalog.defaultPath
        let isNew = !FileManager.default.fileExists(atPath: path)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            let failed = FileErrorReason.path(of: error).flatMap { $0 == folder ? nil : " (creating \($0))" } ?? ""
            throw CommandError("cannot create the default catalogue folder \(folder): \(FileErrorReason.of(error))\(failed); "
                               + "set HOME or XDG_DATA_HOME to a writable folder, or name a store: recipes STORE")
        }
        let catalog = try Catalog.open(at: path)
        if isNew {
            guard let sample = Catalog.sampleDataDirectory else {
                throw CommandError("the sample data was not found; set RECIPES_SAMPLE_DATA to the SampleData folder")
            }
            let report = try await catalog.loadSampleData(from: sample)
            output.printErrorLine("Created the sample catalogue at \(path): \(report.imported) recipes.")
        }
        return RecipeShell(catalog: catalog, location: path, isDeterministic: invocation.isDeterministic)
    }

    /// Opens the catalogue named on the command line; one made with an older version of the
    /// catalogue model is migrated first, and the shell says so.
    private static func openNamed(_ path: String, invocation: Invocation, output: any ShellOutput) async throws -> Catalog {
        guard FileManager.default.fileExists(atPath: path), let version = try? CatalogMigration.version(ofStoreAt: path),
              version < CatalogModel.versionCount else { return try Catalog.open(at: path) }
        let current = CatalogModel.versionCount
        let bar = ProgressBar(label: "migrate", total: 100,
                              isEnabled: !invocation.isDeterministic && StandardStreams.isTerminal(STDERR_FILENO))
        let catalog = try await openMigrating(path, progress: bar)
        output.printErrorLine("Migrated \(path) from version \(version) of the catalogue model to version \(current).")
        return catalog
    }

    // MARK: CommandHandler

    /// `recipes> `, `recipes*> ` with unsaved changes, and `recipes [import 42%]> ` while a
    /// background import runs.
    var prompt: String {
        let name = context.hasChanges ? "recipes*" : "recipes"
        guard let job = runningJob else { return name + "> " }
        return "\(name) [\(job.promptTag)]> "
    }

    var hasUnsavedChanges: Bool { context.hasChanges }

    var completionVocabulary: CompletionWords.Vocabulary {
        let commands = Self.commands + ShellHelp.dotCommands
        var vocabulary = CompletionWords.Vocabulary(
            commands: commands, arguments: commands + FetchCommand.keywords + ["set", "asc", "desc"],
            fileCommands: ["import", ".read", ".open"])
        let model = context.model
        for entity in model.entities {
            vocabulary.arguments.append(entity.name)
            vocabulary.keysOfEntity[entity.name] = entity.propertyNames
            for relationship in entity.relationships {
                vocabulary.keysAfterRelationship[relationship.name, default: []]
                    += model.entity(named: relationship.destinationName)?.propertyNames ?? []
            }
        }
        return vocabulary
    }

    func discardUnsavedChanges() -> String {
        let count = changeCount
        context.rollback()
        return "Rolled back \(count) unsaved change\(count == 1 ? "" : "s")."
    }

    var changeCount: Int {
        context.insertedObjects.count + context.updatedObjects.count + context.deletedObjects.count
    }

    func execute(_ line: String, context commandContext: CommandContext) async throws -> CommandResult {
        let start = ContinuousClock.now
        runningCommands += 1
        updateProbe()
        defer {
            runningCommands -= 1
            watch?.flush()  // the watch's lines print after the command's own output
            updateProbe()
        }
        if echoesCommands { commandContext.print("recipes> " + line) }
        let (word, rest) = Self.firstWord(of: line)
        let result: CommandResult
        if word.hasPrefix(".") {
            result = try await runDotCommand(word, rest, commandContext)
        } else if ["undo", "redo"].contains(word.lowercased()) {
            try undoOrRedo(word.lowercased(), rest, commandContext)
            result = .ok
        } else {
            // Each command is one undo group, named by what was typed. A command that fails
            // changes nothing: what it changed before failing is put back, and it is no step.
            let editing = context
            editing.beginUndoGroup(named: line.trimmed)
            do {
                try await runObjectCommand(word, rest, commandContext)
            } catch {
                editing.discardUndoGroup()
                throw error
            }
            editing.endUndoGroup()
            result = .ok
        }
        if showsTimer && !isDeterministic {
            let elapsed = ContinuousClock.now - start
            commandContext.print(String(format: "Run Time: %.3f s", Double(elapsed.components.attoseconds) / 1e18
                                        + Double(elapsed.components.seconds)))
        }
        return result
    }

    /// `undo` and `redo`: one command's changes at a time.
    private func undoOrRedo(_ word: String, _ rest: String, _ commandContext: CommandContext) throws {
        guard rest.trimmed.isEmpty else { throw CommandError("\(word) takes no arguments") }
        let name = word == "undo" ? context.undo() : context.redo()
        guard let name else {
            commandContext.print("nothing to \(word)")
            return
        }
        commandContext.print("\(word == "undo" ? "undid" : "redid"): \(name)")
    }

    static func firstWord(of line: String) -> (String, String) {
        let trimmed = line.trimmed
        guard let space = trimmed.firstIndex(where: \.isWhitespace) else { return (trimmed, "") }
        return (String(trimmed[..<space]), String(trimmed[space...]).trimmed)
    }

    /// Replaces the catalogue (`.open`, `.migrate`). Returns what to add to the message that
    /// says so: that the watch of the previous catalogue stopped, when one ran.
    func reopen(_ catalog: Catalog, location: String) -> String {
        if sqlDebugLevel != .off { self.catalog.sqliteStore?.setSQLDebugLevel(.off) { _ in } }
        self.catalog = catalog
        self.location = location
        self.context = Self.makeContext(catalog)
        sqlDebugLevel = .off
        let wasWatching = watch != nil
        watch = nil
        return wasWatching ? "; the watch of the previous catalogue stopped" : ""
    }

    /// The entity called `name`, or an error suggesting the nearest name.
    func entity(named name: String) throws -> EntityDescription {
        guard !name.isEmpty else { throw CommandError("expected an entity name (\(entityList))") }
        return try context.model.requireEntity(named: name)
    }

    var entityList: String { context.model.entities.map(\.name).joined(separator: ", ") }
}
