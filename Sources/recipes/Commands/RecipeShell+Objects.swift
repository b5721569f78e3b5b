import Foundation
import ObjectGraph
import RecipeCatalog

extension RecipeShell {
    func runObjectCommand(_ typed: String, _ rest: String, _ context: CommandContext) async throws {
        let word = typed.lowercased()
        switch word {
        case "fetch": try fetch(rest, context)
        case "count": try count(rest, context)
        case "show": try show(rest, context)
        case "insert": try insert(rest, context)
        case "update": try update(rest, context)
        case "delete": try delete(rest, context)
        case "save", "rollback":
            // Like refresh, undo and redo: a word after them is a mistake, not something to ignore.
            guard rest.trimmed.isEmpty else { throw CommandError("\(word) takes no arguments") }
            if word == "save" { try save(context) } else { context.print(discardUnsavedChanges()) }
        case "search": try search(rest, context)
        case "import": try await importFile(rest, context)
        case "demo": try await demo(rest, context)
        case "refresh": try refresh(rest, context)
        default:
            let known = Self.commands + ShellHelp.dotCommands
            var message = "unknown command '\(typed)'"
            if let guess = word.closest(in: known) { message += "; did you mean '\(guess)'?" }
            throw CommandError(message + " (.help lists the commands)")
        }
    }

    /// `refresh`: turns every registered object back into a fault (changed ones keep their
    /// changes), releasing what their relationships held, and says what is left alive.
    private func refresh(_ text: String, _ context: CommandContext) throws {
        guard text.isEmpty else { throw CommandError("refresh takes no arguments") }
        let before = self.context.statistics
        self.context.refreshAllObjects()
        let after = self.context.statistics
        context.print("registered objects \(before.registeredObjects) → \(after.registeredObjects), "
                      + "live objects \(before.liveObjects) → \(after.liveObjects)")
    }

    /// Parses `ENTITY [where P] [sort K [asc|desc], …] [limit N] [offset N] [prefetch K, …]
    /// [batch N] [nosub]`, and for `fetch` also `[ids] [keys K, …] [distinct] [faults]`.
    ///
    /// - Parameter command: the command the text follows, which decides the clauses it takes.
    func fetchCommand(from text: String, command: String) throws -> FetchCommand {
        let parts = CommandWords.clauses(text, keywords: FetchCommand.keywords)
        guard !parts.head.isEmpty else {
            throw CommandError("\(command) needs an entity first, one of: \(entityList) (.help \(command) shows the rest)")
        }
        let head = parts.head.split(maxSplits: 1, whereSeparator: \.isWhitespace).map(String.init)
        if head.count == 2, context.model.entity(named: head[0]) != nil {
            throw FetchCommand.unexpected(head[1], after: head[0], command: command)
        }
        return try FetchCommand(entity: try entity(named: parts.head), clauses: parts.clauses, command: command)
    }

    /// The request of ``fetchCommand(from:command:)``.
    func request(from text: String, command: String) throws -> FetchRequest {
        try fetchCommand(from: text, command: command).request
    }

    private func fetch(_ text: String, _ context: CommandContext) throws {
        let command = try fetchCommand(from: text, command: "fetch")
        let entity = try entity(named: command.request.entityName)
        switch command.result {
        case .objects:
            let objects = try self.context.fetch(command.request)
            print(objects, keys: ObjectPrinter.keys(for: entity, mode: mode), context)
        case .objectIDs:
            let ids = try self.context.fetchObjectIDs(command.request)
            let rows = ids.map { [ObjectPrinter.Value.text(self.context.model.describe($0))] }
            print(rows: rows, keys: ["objectID"], counting: "object ID", context)
        case .dictionaries(let keyPaths):
            let columns = try command.request.dictionaryValueTypes(in: self.context.model)
            let dictionaries = try self.context.fetchDictionaries(command.request)
            let rows = dictionaries.map { dictionary in
                columns.map { ObjectPrinter.value(dictionary[$0.key] ?? nil, type: $0.type) }
            }
            print(rows: rows, keys: keyPaths, counting: "row", context)
            // Like Core Data's dictionary results, the rows come from the store alone, where
            // `ids` and objects merge unsaved changes in: a learner is told, scripts are not.
            if self.context.hasChanges && (mode == .table || mode == .line) {
                context.print("(saved values only: 'keys' reads the store, without this context's unsaved changes; save to include them)")
            }
        }
    }

    func print(_ objects: [ManagedObject], keys: [String], _ context: CommandContext) {
        for line in printer(context).render(objects, keys: keys) { context.print(line) }
        printCount(objects.count, of: "object", context)
    }

    /// Prints `rows` under the column names `keys`, then how many there were, as `noun`s.
    func print(rows: [[ObjectPrinter.Value]], keys: [String], counting noun: String, _ context: CommandContext) {
        for line in printer(context).render(rows: rows, keys: keys) { context.print(line) }
        printCount(rows.count, of: noun, context)
    }

    /// `(3 objects)` after a table or lines; nothing after JSON or CSV, which scripts read.
    private func printCount(_ count: Int, of noun: String, _ context: CommandContext) {
        if mode == .table || mode == .line {
            context.print("(\(count) \(noun)\(count == 1 ? "" : "s"))")
        }
    }

    /// A printer for the current `.mode` and `.width`, fitting tables to the terminal's
    /// width as it is now.
    func printer(_ context: CommandContext) -> ObjectPrinter {
        ObjectPrinter(mode: mode, maximumCellWidth: tableWidth == .off ? nil : 32,
                      fittingWidth: tableWidth.fittingWidth(terminalColumns: context.output.standardOutputColumns))
    }

    private func count(_ text: String, _ context: CommandContext) throws {
        let number = try self.context.count(for: try request(from: text, command: "count"))
        context.print(mode == .json ? "{\"count\": \(number)}" : String(number))
    }

    private func search(_ text: String, _ context: CommandContext) throws {
        let words = try CommandWords.split(text)
        guard !words.isEmpty else { throw CommandError("search needs some text, such as: search creme brulee") }
        let objects = try self.context.fetch(Catalog.searchRequest(words.joined(separator: " ")))
        let entity = try entity(named: CatalogModel.recipe)
        let keys = mode == .json ? ObjectPrinter.keys(for: entity) : ["objectID", "name", "chef", "cuisine", "course", "rating"]
        print(objects, keys: keys, context)
    }

    /// The ID that `show ENTITY/pN` names, or nil for `show ENTITY [where P]`.
    func shownID(_ text: String) throws -> ObjectID? {
        let words = text.split(maxSplits: 1, whereSeparator: \.isWhitespace).map(String.init)
        guard let first = words.first, let slash = first.firstIndex(of: "/") else { return nil }
        let entity = try entity(named: String(first[..<slash]))
        guard words.count == 1 else {
            throw CommandError("unexpected '\(words[1])' after '\(first)': show takes one object ID, such as: show \(entity.name)/p1")
        }
        guard let id = context.model.objectID(describedAs: first) else {
            throw CommandError("expected an object ID such as \(entity.name)/p1, found '\(first)'")
        }
        return id
    }

    /// The fetch that `show ENTITY [where P]` runs (and `.explain show` explains): two
    /// matches at most, the second saying whether the shown one was the only match.
    func showRequest(_ text: String) throws -> FetchRequest {
        var request = try request(from: text, command: "show")
        request.fetchLimit = 2
        return request
    }

    /// `show Recipe/p42`, or `show ENTITY [where P]` for the first match.
    private func show(_ text: String, _ context: CommandContext) throws {
        let object: ManagedObject
        var others = false
        if let id = try shownID(text) {
            object = try self.context.existingObject(with: id)
        } else {
            let request = try showRequest(text)
            let matches = try self.context.fetch(request)
            guard let first = matches.first else {
                throw CommandError("no \(request.entityName) matches")
            }
            object = first
            others = matches.count > 1
        }
        // JSON and CSV, which scripts read, get the object alone (as printCount leaves them).
        let isForScripts = mode == .json || mode == .csv
        defer {
            if others && !isForScripts {
                context.print("(the first of several matches; 'fetch' lists them all, 'show \(object.entity.name)/pN' shows one)")
            }
        }
        // One object reads best vertically: table mode shows it as lines.
        let printer = ObjectPrinter(mode: mode == .table ? .line : mode)
        for line in printer.render([object], keys: ObjectPrinter.keys(for: object.entity, mode: mode)) { context.print(line) }
        guard !isForScripts else { return }
        for relationship in object.entity.relationships where relationship.isToMany {
            let objects = try object.objects(forKey: relationship.name)
            let shown = objects.prefix(10).map { ObjectPrinter.label(of: $0, excluding: relationship.inverseName) }
                .joined(separator: ", ")
            context.print("\(relationship.name): \(objects.count) \(relationship.destination.name)"
                          + (objects.isEmpty ? "" : ": " + shown + (objects.count > 10 ? ", …" : "")))
        }
    }

    private func insert(_ text: String, _ context: CommandContext) throws {
        let words = try CommandWords.words(text)
        guard let name = words.first?.text else { throw CommandError("insert needs an entity: insert Chef name=\"Ana\"") }
        let entity = try entity(named: name)
        guard !entity.isAbstract else {
            throw CommandError("'\(entity.name)' is abstract; insert one of: \(entity.subentities.map(\.name).joined(separator: ", "))")
        }
        let assignments = try self.assignments(try words.dropFirst().map(CommandWords.assignment), for: entity)
        let object = self.context.insert(entity)
        for assignment in assignments { try assign(assignment, to: object) }
        context.print("inserted \(context.isDeterministic ? entity.name : self.context.model.describe(object.objectID)) (unsaved; save to keep it)")
    }

    private func update(_ text: String, _ context: CommandContext) throws {
        let (text, isBatch) = CommandWords.removingFlag("--batch", from: text)
        let parts = CommandWords.clauses(text, keywords: ["set"])
        guard let assignments = parts.clauses.first?.text, !assignments.isEmpty else {
            throw CommandError("update needs 'set key=value …': update Recipe where name == 'Phở Bò' set rating=5")
        }
        let pairs = try CommandWords.words(assignments).map(CommandWords.assignment)
        if isBatch { return try batchUpdate(parts.head, pairs, context) }
        let request = try request(from: parts.head, command: "update")
        // Every key and value is checked before the fetch, so a mistake says the same with or
        // without matches, and changes nothing.
        let checked = try self.assignments(pairs, for: try entity(named: request.entityName))
        let objects = try self.context.fetch(request)
        for object in objects {
            for assignment in checked { try assign(assignment, to: object) }
        }
        try context.interrupt.check()  // see delete
        // JSON as `update … --batch` prints it, so a script reads either the same way.
        context.print(mode == .json ? "{\"updated\": \(objects.count)}"
                      : "updated \(objects.count) \(request.entityName) object\(objects.count == 1 ? "" : "s") (unsaved)")
    }

    private func delete(_ text: String, _ context: CommandContext) throws {
        let (text, isBatch) = CommandWords.removingFlag("--batch", from: text)
        if isBatch { return try batchDelete(text, context) }
        let request = try request(from: text, command: "delete")
        guard request.predicate != nil else {
            throw CommandError("delete needs 'where': delete \(request.entityName) where … (use 'where TRUEPREDICATE' to delete all)")
        }
        let objects = try self.context.fetch(request)
        // A thousand at a time, so Ctrl-C stops a large delete within one chunk. Ctrl-C while
        // the delete rules read relationships stops those reads, so the delete may have
        // missed some: the command fails, and what it changed is put back.
        for start in stride(from: 0, to: objects.count, by: 1_000) {
            try context.interrupt.check()
            self.context.delete(objects[start..<min(start + 1_000, objects.count)])
        }
        try context.interrupt.check()
        context.print(mode == .json ? "{\"deleted\": \(objects.count)}"
                      : "deleted \(objects.count) \(request.entityName) object\(objects.count == 1 ? "" : "s") (unsaved)")
    }

    private func save(_ context: CommandContext) throws {
        let count = changeCount
        try self.context.save()
        context.print("saved \(count) change\(count == 1 ? "" : "s")")
    }

    /// One `key=value` of `insert` or `update`, checked against the entity before any object
    /// changes.
    enum Assignment {
        /// An attribute and text that parses as its type.
        case attribute(key: String, text: String)
        /// A string attribute and its text exactly as quoted (`name="nil"`).
        case literal(key: String, text: String)
        /// A to-one relationship and the object it is to point to, nil to clear it.
        case relationship(key: String, object: ManagedObject?)
    }

    /// Checks every `key=value` against `entity` and looks up the objects that relationships
    /// name, once for all the objects a command changes, so a mistake fails before anything
    /// changes: attributes parse by type; a to-one takes a name, an ID, or nil.
    ///
    /// - Throws: the framework's error for an unknown key, a derived attribute or text that
    ///   does not parse; ``CommandError`` for a to-many relationship or an object not found.
    func assignments(_ pairs: [CommandWords.Assignment], for entity: EntityDescription) throws -> [Assignment] {
        var keys = Set<String>()
        for pair in pairs where !keys.insert(pair.key).inserted {
            throw CommandError("'\(pair.key)' is set twice; give each key once")
        }
        return try pairs.map { pair in
            let key = pair.key, text = pair.value
            guard let relationship = entity.relationship(named: key) else {
                try entity.value(parsing: text, forKey: key)
                if Self.isLiteralText(pair, of: entity) { return .literal(key: key, text: text) }
                return .attribute(key: key, text: text)
            }
            return .relationship(key: key, object: try destination(named: text, isNil: pair.isNil, for: relationship))
        }
    }

    /// Whether `pair` sets a string attribute of `entity` to the quoted text `nil` or `null`,
    /// which parsing would take for no value.
    static func isLiteralText(_ pair: CommandWords.Assignment, of entity: EntityDescription) -> Bool {
        pair.isQuoted && !pair.isNil && entity.attribute(named: pair.key)?.type == .string
            && ["nil", "null"].contains(pair.value.lowercased())
    }

    /// The object a to-one `relationship` is to point to, from a name or an ID; nil for an
    /// unquoted `nil` or `null` (`isNil`).
    private func destination(named text: String, isNil: Bool, for relationship: RelationshipDescription) throws -> ManagedObject? {
        let key = relationship.name
        guard !relationship.isToMany else {
            throw CommandError("'\(key)' is a to-many relationship; set the inverse '\(relationship.inverseName)' on the \(relationship.destination.name) objects instead")
        }
        if isNil { return nil }
        let destination = relationship.destination!
        if let id = context.model.objectID(describedAs: text) {
            guard context.model.entities[Int(id.entityIndex)].isKind(of: destination) else {
                throw CommandError("'\(key)' holds a \(destination.name), not \(text)")
            }
            return try context.existingObject(with: id)
        }
        guard destination.attribute(named: "name") != nil else {
            throw CommandError("'\(key)' points to \(destination.name), which has no name to look it up by; give an ID such as \(destination.name)/p1")
        }
        let matches = try context.fetch(FetchRequest(entityName: destination.name,
                                                     predicate: try FetchPredicate("name == %@", text)))
        guard let match = matches.first else { throw CommandError("no \(destination.name) named '\(text)'") }
        return match
    }

    /// Sets one checked assignment on `object`.
    private func assign(_ assignment: Assignment, to object: ManagedObject) throws {
        switch assignment {
        case .attribute(let key, let text): try object.setValue(parsing: text, forKey: key)
        case .literal(let key, let text): try object.setValue(text, forKey: key)
        case .relationship(let key, let destination): try object.setValue(destination, forKey: key)
        }
    }
}
