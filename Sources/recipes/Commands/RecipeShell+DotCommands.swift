import Foundation
import ObjectGraphSQLite
import RecipeCatalog

extension RecipeShell {
    func runDotCommand(_ typed: String, _ rest: String, _ context: CommandContext) async throws -> CommandResult {
        let word = typed.lowercased()
        switch word {
        case ".quit", ".exit": return .quit
        case ".help": try help(rest, context)
        case ".schema": try schema(rest, context)
        case ".mode":
            guard let newMode = OutputMode(rawValue: rest.lowercased()) else {
                throw CommandError(".mode takes one of: \(OutputMode.allCases.map(\.rawValue).joined(separator: ", ")) (it is \(mode.rawValue))")
            }
            mode = newMode
        case ".width":
            if rest.isEmpty {
                context.print("width: " + tableWidth.describe(terminalColumns: context.output.standardOutputColumns))
            } else {
                tableWidth = try TableWidth(parsing: rest)
            }
        case ".timer":
            switch rest.lowercased() {
            case "on": showsTimer = true
            case "off": showsTimer = false
            default: throw CommandError(".timer takes on or off")
            }
        case ".echo":
            switch rest.lowercased() {
            case "on": echoesCommands = true
            case "off": echoesCommands = false
            default: throw CommandError(".echo takes on or off")
            }
        case ".stats": try stats(rest, context)
        case ".jobs":
            guard rest.isEmpty else { throw CommandError(".jobs takes no arguments") }
            listJobs(context)
        case ".cancel": try await cancelJob(rest, context)
        case ".watch": try watch(rest, context)
        case ".sqldebug": try sqlDebug(rest, context)
        case ".explain": try explain(rest, context)
        case ".read":
            let words = try CommandWords.split(rest)
            guard words.count == 1 else { throw CommandError(".read needs one file: .read FILE") }
            let path = CommandWords.filePath(words[0])
            if context.mode != .batch && StandardStreams.isStandardInput(path) {
                throw CommandError("cannot read '\(words[0])': it is standard input, where the shell reads its commands already")
            }
            return try await context.runScript(at: path)
        case ".open": try await open(rest, context)
        case ".migrate": try migrate(rest, context)
        default:
            var message = "unknown command '\(typed)'"
            if let guess = word.closest(in: ShellHelp.dotCommands) { message += "; did you mean '\(guess)'?" }
            throw CommandError(message + " (.help lists the commands)")
        }
        return .ok
    }

    /// `.help [COMMAND]`: the overview, or one command's help (`.help mode` finds `.mode`);
    /// a topic that names no command is an error, with the nearest command suggested.
    private func help(_ topic: String, _ context: CommandContext) throws {
        if topic.isEmpty {
            for line in ShellHelp.overview { context.print(line) }
        } else if let text = ShellHelp.detail(for: topic) ?? ShellHelp.detail(for: "." + topic) {
            for line in text { context.print(line) }
        } else {
            var message = "no help for '\(topic)'"
            if let guess = topic.lowercased().closest(in: Self.commands + ShellHelp.dotCommands) {
                message += "; did you mean '\(guess)'?"
            }
            throw CommandError(message + " (.help lists the commands)")
        }
    }

    private func schema(_ names: String, _ context: CommandContext) throws {
        let entities = names.isEmpty ? self.context.model.entities
            : try names.split(whereSeparator: \.isWhitespace).map { try entity(named: String($0)) }
        for (index, entity) in entities.enumerated() {
            if index > 0 { context.print("") }
            var title = entity.name
            if let parent = entity.parent { title += " : \(parent.name)" }
            if entity.isAbstract { title += " (abstract)" }
            context.print(title)
            for attribute in entity.attributes { context.print("  \(attribute)") }
            for relationship in entity.relationships { context.print("  \(relationship)") }
            for keys in entity.uniquenessConstraints { context.print("  unique (\(keys.joined(separator: ", ")))") }
            for keys in entity.indexes { context.print("  index (\(keys.joined(separator: ", ")))") }
        }
    }

    /// `.stats`: the context's counters, peak memory and the main-actor lateness probe;
    /// `.stats reset` clears the probe (the counters are cumulative).
    private func stats(_ argument: String, _ context: CommandContext) throws {
        switch argument.lowercased() {
        case "": break
        case "reset":
            probe.reset()
            return
        default: throw CommandError(".stats takes nothing, or reset")
        }
        let statistics = self.context.statistics
        let rows: [(String, String)] = [
            ("SQL statements", String(statistics.statements)),
            ("rows read", String(statistics.rows)),
            ("transactions", String(statistics.transactions)),
            ("faults fired", String(statistics.faultsFired)),
            ("relationship faults fired", String(statistics.relationshipFaultsFired)),
            ("objects created", String(statistics.objectsCreated)),
            ("objects realized", String(statistics.objectsRealized)),
            ("registered objects", String(statistics.registeredObjects)),
            ("live objects", String(statistics.liveObjects)),
            ("peak memory", isDeterministic ? "(not shown with --deterministic)" : Self.peakMemory()),
            ("main-actor lateness", isDeterministic ? "(not shown with --deterministic)" : probe.summary.description),
        ]
        let width = rows.map(\.0.count).max() ?? 0
        for (label, value) in rows { context.print(label + String(repeating: " ", count: width - label.count) + "  " + value) }
    }

    /// The process's peak resident memory, from /proc/self/status.
    static func peakMemory() -> String {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") else { return "unknown" }
        return String(format: "%.1f MiB", kilobytes / 1024)
    }

    private func sqlDebug(_ text: String, _ context: CommandContext) throws {
        guard let number = Int(text), let level = SQLDebugLevel(rawValue: number) else {
            throw CommandError(".sqldebug takes 0 (off), 1 (statements), 2 (+ values) or 3 (+ query plans)")
        }
        guard let store = catalog.sqliteStore else {
            var message = ".sqldebug works on SQLite stores; this catalogue is \(Self.describe(catalog.storeType))"
            #if PostgreSQL
            if catalog.storeType == .postgres { message += ": .explain COMMAND shows the SQL a command runs and PostgreSQL's plan" }
            #endif
            throw CommandError(message)
        }
        sqlDebugLevel = level
        let output = context.output
        // Timings vary from run to run; --deterministic leaves them out.
        store.setSQLDebugLevel(level, includesTimings: !isDeterministic) { output.printLine($0) }
    }

    private func explain(_ text: String, _ context: CommandContext) throws {
        let (word, rest) = Self.firstWord(of: text)
        let explanation: QueryExplanation
        var note: String?
        switch word.lowercased() {
        case "fetch":
            let command = try fetchCommand(from: rest, command: "fetch")
            explanation = try self.context.explain(command.request, resultType: command.resultType)
        case "show":
            if let id = try shownID(rest), let store = catalog.sqliteStore {
                // `show ENTITY/pN` loads one row by its key (when the object is not loaded yet).
                explanation = try store.explainRow(id)
            } else if let id = try shownID(rest) {
                // Other stores explain the fetch of that one object.
                var request = FetchRequest(entityName: self.context.model.entities[Int(id.entityIndex)].name,
                                           predicate: try FetchPredicate("SELF == %@", id))
                request.fetchLimit = 1
                explanation = try self.context.explain(request, resultType: .objects)
            } else {
                explanation = try self.context.explain(try showRequest(rest), resultType: .objects)
            }
        case "count": explanation = try self.context.explain(try request(from: rest, command: "count"), resultType: .count)
        case "search":
            explanation = try self.context.explain(Catalog.searchRequest(try CommandWords.split(rest).joined(separator: " ")))
        case "update", "delete":
            let batch = try explainBatch(word.lowercased(), rest)
            explanation = batch.explanation
            note = batch.note
        default:
            throw CommandError(".explain works on fetch, count, show and search commands, and on update … --batch "
                               + "and delete … --batch")
        }
        context.print("\(explanation.isSQL ? "SQL" : "query"): \(explanation.sql)")
        if !explanation.arguments.isEmpty {
            context.print("values: " + explanation.arguments.map(\.description).joined(separator: ", "))
        }
        context.print("plan:")
        for line in explanation.plan { context.print("  " + line) }
        if let note { context.print(note) }
    }

    /// "an XML store", "a SQLite store", …
    static func describe(_ type: PersistentStoreType) -> String {
        switch type {
        case .xml: "an XML store"
        case .html: "an HTML store"
        case .sqlite: "a SQLite store"
        #if PostgreSQL
        case .postgres: "a PostgreSQL store"
        #endif
        default: "a \(type) store"
        }
    }

    /// `.migrate TYPE PATH`: copies the catalogue into a new store of another type, written at
    /// exactly PATH, and goes on working on it.
    private func migrate(_ text: String, _ context: CommandContext) throws {
        let words = try CommandWords.split(text)
        let names = PersistentStoreType.all.map(\.name).joined(separator: ", ")
        guard let name = words.first else {
            throw CommandError(".migrate needs a store type (\(names)) and a path: .migrate xml catalog.xml")
        }
        guard let type = PersistentStoreType(named: name) else {
            throw CommandError("unknown store type '\(name)' for .migrate; the types are \(names): .migrate xml catalog.xml")
        }
        if type == .memory {
            guard words.count == 1 else {
                throw CommandError(".migrate memory takes no path (the new store is in memory), found '\(words[1])': .migrate memory")
            }
        } else if words.count > 2 {
            throw CommandError(".migrate \(type) takes one path for the new store, found \(words.count - 1): "
                               + words.dropFirst().map { "'\($0)'" }.joined(separator: " ")
                               + "; quote a path that has spaces: .migrate \(type) \"my catalog\"")
        } else if words.count < 2 || words[1].isEmpty {
            throw CommandError(".migrate \(type) needs one path for the new store: .migrate \(type) PATH")
        }
        guard !hasUnsavedChanges else { throw CommandError("there are unsaved changes: save or rollback before .migrate") }
        try requireNoRunningJob(before: ".migrate")
        let path = type == .memory ? ":memory:" : words[1]
        let start = ContinuousClock.now
        let migrated = try catalog.migrate(to: path, type: type)
        let elapsed = ContinuousClock.now - start
        let stopped = reopen(migrated, location: path)
        let objects = try self.context.model.entities.filter { $0.parent == nil }
            .reduce(0) { $0 + (try self.context.count(for: FetchRequest(entityName: $1.name))) }
        var message = "migrated \(objects) object\(objects == 1 ? "" : "s") to \(Self.describe(type)) at \(path)"
        // A SQLite store's rows may still be in its write-ahead log.
        let size = [path, path + "-wal"].compactMap { try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int }.reduce(0, +)
        if type != .memory, !isDeterministic {
            message += String(format: " (%.1f MB in %.2f s)", Double(size) / 1e6,
                              Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        context.print(message + stopped)
    }
}
