import Foundation
import ObjectGraph
import RecipeCatalog

extension RecipeShell {
    func runObjectCommand(_ word: String, _ rest: String, _ context: CommandContext) async throws {
        switch word {
        case "fetch": try fetch(rest, context)
        case "count": try count(rest, context)
        case "show": try show(rest, context)
        case "insert": try insert(rest, context)
        case "update": try update(rest, context)
        case "delete": try delete(rest, context)
        case "save": try save(context)
        case "rollback": context.print(discardUnsavedChanges())
        case "search": try search(rest, context)
        case "import": try await importFile(rest, context)
        case "demo": try await demo(rest, context)
        default:
            let known = Self.commands + ShellHelp.dotCommands
            var message = "unknown command '\(word)'"
            if let guess = word.closest(in: known) { message += "; did you mean '\(guess)'?" }
            throw CommandError(message + " (.help lists the commands)")
        }
    }

    /// Parses `ENTITY [where P] [sort K [asc|desc], …] [limit N] [offset N] [prefetch K, …]
    /// [batch N]` into a request.
    func request(from text: String, allowsWindow: Bool = true) throws -> FetchRequest {
        let parts = CommandWords.clauses(text, keywords: ["where", "sort", "limit", "offset", "prefetch", "batch"])
        let entity = try entity(named: parts.head)
        var request = FetchRequest(entityName: entity.name)
        for (keyword, clause) in parts.clauses {
            switch keyword {
            case "where":
                guard !clause.isEmpty else { throw CommandError("'where' needs a predicate, such as: where rating >= 4") }
                request.predicate = try FetchPredicate(clause)
            case "sort":
                request.sortKeys = try clause.split(separator: ",").map { try Self.sortKey(String($0)) }
            case "prefetch":
                request.relationshipKeyPathsForPrefetching = clause.split(separator: ",").map { String($0).trimmed }
                    .filter { !$0.isEmpty }
            case "batch":
                guard let size = Int(clause), size > 0 else { throw CommandError("'batch' needs a positive number, found '\(clause)'") }
                request.fetchBatchSize = size
            case "limit", "offset":
                guard allowsWindow else { throw CommandError("'\(keyword)' does not apply here") }
                guard let number = Int(clause), number >= 0 else {
                    throw CommandError("'\(keyword)' needs a whole number, found '\(clause)'")
                }
                if keyword == "limit" { request.fetchLimit = number } else { request.fetchOffset = number }
            default: break
            }
        }
        return request
    }

    /// `name`, `rating desc`, `chef.name asc`.
    static func sortKey(_ item: String) throws -> SortKey {
        let words = item.split(separator: " ").map(String.init)
        guard let key = words.first, words.count <= 2 else { throw CommandError("bad sort key '\(item.trimmed)'") }
        let direction = words.count == 2 ? words[1].lowercased() : "asc"
        guard direction == "asc" || direction == "desc" else {
            throw CommandError("sort direction must be asc or desc, found '\(words[1])'")
        }
        return SortKey(key, ascending: direction == "asc")
    }

    private func fetch(_ text: String, _ context: CommandContext) throws {
        let request = try request(from: text)
        let objects = try self.context.fetch(request)
        let entity = try entity(named: request.entityName)
        print(objects, keys: ObjectPrinter.keys(for: entity, mode: mode), context)
    }

    func print(_ objects: [ManagedObject], keys: [String], _ context: CommandContext) {
        for line in printer(context).render(objects, keys: keys) { context.print(line) }
        if mode == .table || mode == .line {
            context.print("(\(objects.count) object\(objects.count == 1 ? "" : "s"))")
        }
    }

    /// A printer for the current `.mode` and `.width`, fitting tables to the terminal's
    /// width as it is now.
    func printer(_ context: CommandContext) -> ObjectPrinter {
        ObjectPrinter(mode: mode, maximumCellWidth: tableWidth == .off ? nil : 32,
                      fittingWidth: tableWidth.fittingWidth(terminalColumns: context.output.standardOutputColumns))
    }

    private func count(_ text: String, _ context: CommandContext) throws {
        let number = try self.context.count(for: try request(from: text))
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

    /// `show Recipe/p42`, or `show ENTITY [where P]` for the first match.
    private func show(_ text: String, _ context: CommandContext) throws {
        let object: ManagedObject
        if let slash = text.firstIndex(of: "/"), !text.contains(" ") {
            let entity = try entity(named: String(text[..<slash]))
            guard let id = self.context.model.objectID(describedAs: text) else {
                throw CommandError("expected an object ID such as \(entity.name)/p1, found '\(text)'")
            }
            object = try self.context.existingObject(with: id)
        } else {
            var request = try request(from: text)
            request.fetchLimit = 1
            guard let first = try self.context.fetch(request).first else {
                throw CommandError("no \(request.entityName) matches")
            }
            object = first
        }
        // One object reads best vertically: table mode shows it as lines.
        let printer = ObjectPrinter(mode: mode == .table ? .line : mode)
        for line in printer.render([object], keys: ObjectPrinter.keys(for: object.entity, mode: mode)) { context.print(line) }
        guard mode != .json else { return }
        for relationship in object.entity.relationships where relationship.isToMany {
            let objects = try object.objects(forKey: relationship.name)
            let shown = objects.prefix(10).map { ObjectPrinter.label(of: $0, excluding: relationship.inverseName) }
                .joined(separator: ", ")
            context.print("\(relationship.name): \(objects.count) \(relationship.destination.name)"
                          + (objects.isEmpty ? "" : ": " + shown + (objects.count > 10 ? ", …" : "")))
        }
    }

    private func insert(_ text: String, _ context: CommandContext) throws {
        let words = try CommandWords.split(text)
        guard let name = words.first else { throw CommandError("insert needs an entity: insert Chef name=\"Ana\"") }
        let entity = try entity(named: name)
        guard !entity.isAbstract else {
            throw CommandError("'\(entity.name)' is abstract; insert one of: \(entity.subentities.map(\.name).joined(separator: ", "))")
        }
        let object = self.context.insert(entity)
        do {
            for word in words.dropFirst() {
                let (key, value) = try CommandWords.assignment(word)
                try assign(value, to: key, of: object)
            }
        } catch {
            self.context.delete(object)
            throw error
        }
        context.print("inserted \(context.isDeterministic ? entity.name : self.context.model.describe(object.objectID)) (unsaved; save to keep it)")
    }

    private func update(_ text: String, _ context: CommandContext) throws {
        let parts = CommandWords.clauses(text, keywords: ["set"])
        guard let assignments = parts.clauses.first?.text, !assignments.isEmpty else {
            throw CommandError("update needs 'set key=value …': update Recipe where name == 'Phở Bò' set rating=5")
        }
        let request = try request(from: parts.head)
        let pairs = try CommandWords.split(assignments).map(CommandWords.assignment)
        let objects = try self.context.fetch(request)
        for object in objects {
            for (key, value) in pairs { try assign(value, to: key, of: object) }
        }
        context.print("updated \(objects.count) \(request.entityName) object\(objects.count == 1 ? "" : "s") (unsaved)")
    }

    private func delete(_ text: String, _ context: CommandContext) throws {
        let request = try request(from: text)
        guard request.predicate != nil else {
            throw CommandError("delete needs 'where': delete \(request.entityName) where … (use 'where TRUEPREDICATE' to delete all)")
        }
        let objects = try self.context.fetch(request)
        for object in objects { self.context.delete(object) }
        context.print("deleted \(objects.count) \(request.entityName) object\(objects.count == 1 ? "" : "s") (unsaved)")
    }

    private func save(_ context: CommandContext) throws {
        let count = changeCount
        try self.context.save()
        context.print("saved \(count) change\(count == 1 ? "" : "s")")
    }

    /// Sets a property from text: attributes parse by type; a to-one takes a name or an ID.
    private func assign(_ text: String, to key: String, of object: ManagedObject) throws {
        guard let relationship = object.entity.relationship(named: key) else {
            try object.setValue(parsing: text, forKey: key)
            return
        }
        guard !relationship.isToMany else {
            throw CommandError("'\(key)' is a to-many relationship; set the inverse '\(relationship.inverseName)' on the \(relationship.destination.name) objects instead")
        }
        if text.lowercased() == "nil" || text.lowercased() == "null" {
            try object.setValue(nil, forKey: key)
            return
        }
        let destination = relationship.destination!
        guard destination.attribute(named: "name") != nil else {
            throw CommandError("'\(key)' points to \(destination.name), which has no name to look it up by")
        }
        let matches = try context.fetch(FetchRequest(entityName: destination.name,
                                                     predicate: try FetchPredicate("name == %@", text)))
        guard let match = matches.first else { throw CommandError("no \(destination.name) named '\(text)'") }
        try object.setValue(match, forKey: key)
    }
}
