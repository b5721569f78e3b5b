import Foundation
import ObjectGraph

/// `update … --batch` and `delete … --batch`: batch requests run straight in the store.
///
/// No objects are loaded or created; the store changes at once (there is nothing to save
/// or roll back), and the framework merges the change into the shell's context, so its
/// objects show the new values, and deleted ones leave it.
extension RecipeShell {
    /// `update ENTITY [where P] set k=v … --batch`: a ``BatchUpdateRequest``.
    func batchUpdate(_ head: String, _ pairs: [CommandWords.Assignment], _ context: CommandContext) throws {
        let request = try batchUpdateRequest(head, pairs)
        let result = try self.context.execute(request)
        if mode == .json {
            context.print("{\"updated\": \(result.updatedIDs.count)}")
        } else {
            context.print("updated \(Self.rows(result.updatedIDs.count, of: request.entityName)) \(Self.batchNote)")
        }
    }

    /// The ``BatchUpdateRequest`` of `update ENTITY [where P] set k=v … --batch`, its keys and
    /// values checked.
    private func batchUpdateRequest(_ head: String, _ pairs: [CommandWords.Assignment]) throws -> BatchUpdateRequest {
        let request = try batchRequest(head, command: "update")
        let entity = try entity(named: request.entityName)
        var values: [String: any Sendable] = [:]
        for pair in pairs {
            let key = pair.key, text = pair.value
            guard let attribute = entity.attribute(named: key) else {
                if let relationship = entity.relationship(named: key) {
                    throw CommandError("'\(key)' is a relationship; update --batch sets attributes only "
                                       + "(leave out --batch to set \(relationship.isToMany ? "the inverse" : "it"))")
                }
                try entity.value(parsing: text, forKey: key)  // names the unknown key, with a suggestion
                values[key] = text
                continue
            }
            if let derivation = attribute.derivation {
                throw CommandError("'\(key)' is derived (\(derivation)) and computed by the framework; change '\(derivation.source)' instead")
            }
            if Self.isLiteralText(pair, of: entity) {
                values[key] = text
                continue
            }
            let stored = try attribute.type.parse(text, key: key)
            // nil as the request takes it (the framework refuses it for a required attribute).
            values[key] = Self.sendableValue(stored, type: attribute.type) ?? (String?.none as any Sendable)
        }
        return BatchUpdateRequest(entityName: entity.name, predicate: request.predicate, propertiesToUpdate: values)
    }

    /// `delete ENTITY where P --batch`: a ``BatchDeleteRequest``; delete rules apply in SQL.
    func batchDelete(_ text: String, _ context: CommandContext) throws {
        let request = try batchDeleteRequest(text)
        let entity = try entity(named: request.entityName)
        let result = try self.context.execute(request)
        let model = self.context.model
        let deleted = result.deletedIDs.filter { model.entities[Int($0.entityIndex)].isKind(of: entity) }
        let cascaded = Dictionary(grouping: result.deletedIDs.filter { !model.entities[Int($0.entityIndex)].isKind(of: entity) },
                                  by: { model.entities[Int($0.entityIndex)].name })
        let nullified = Dictionary(grouping: result.nullifiedIDs, by: { model.entities[Int($0.entityIndex)].name })
        if mode == .json {
            context.print("{\"deleted\": \(deleted.count), \"cascaded\": \(result.deletedIDs.count - deleted.count), "
                          + "\"nullified\": \(result.nullifiedIDs.count)}")
            return
        }
        var message = "deleted \(Self.rows(deleted.count, of: entity.name))"
        if !cascaded.isEmpty {
            message += "; by cascade " + cascaded.sorted { $0.key < $1.key }.map { Self.rows($1.count, of: $0) }
                .joined(separator: ", ")
        }
        if !nullified.isEmpty {
            message += "; references cleared in " + nullified.sorted { $0.key < $1.key }.map { Self.rows($1.count, of: $0) }
                .joined(separator: ", ")
        }
        let recomputed = Dictionary(grouping: result.recomputedIDs, by: { model.entities[Int($0.entityIndex)].name })
        if !recomputed.isEmpty {
            message += "; derived values recomputed in " + recomputed.sorted { $0.key < $1.key }
                .map { Self.rows($1.count, of: $0) }.joined(separator: ", ")
        }
        context.print(message + " " + Self.batchNote)
    }

    /// The ``BatchDeleteRequest`` of `delete ENTITY where P --batch`.
    private func batchDeleteRequest(_ text: String) throws -> BatchDeleteRequest {
        let request = try batchRequest(text, command: "delete")
        guard let predicate = request.predicate else {
            throw CommandError("delete needs 'where': delete \(request.entityName) where … --batch "
                               + "(use 'where TRUEPREDICATE' to delete all)")
        }
        return BatchDeleteRequest(entityName: try entity(named: request.entityName).name, predicate: predicate)
    }

    /// `.explain update … --batch` and `.explain delete … where P --batch`: the statement that
    /// selects the rows the request would change (the one the store runs first, reading
    /// their keys), checked as the command checks it; nothing is changed.
    ///
    /// - Returns: the explanation, and a line saying what the request does with those rows.
    func explainBatch(_ command: String, _ text: String) throws -> (explanation: QueryExplanation, note: String) {
        let (text, isBatch) = CommandWords.removingFlag("--batch", from: text)
        guard isBatch else {
            throw CommandError(".explain \(command) needs --batch: a batch request runs in the store, while a plain "
                               + "\(command) fetches the objects first (.explain fetch … shows that fetch)")
        }
        let keys: FetchRequest, note: String
        if command == "update" {
            let parts = CommandWords.clauses(text, keywords: ["set"])
            guard let assignments = parts.clauses.first?.text, !assignments.isEmpty else {
                throw CommandError("update needs 'set key=value …': update Recipe where name == 'Phở Bò' set rating=5 --batch")
            }
            let request = try batchUpdateRequest(parts.head, try CommandWords.words(assignments).map(CommandWords.assignment))
            keys = FetchRequest(entityName: request.entityName, predicate: request.predicate)
            note = "then: the rows it selects get the new values, in one statement (nothing was changed)"
        } else {
            let request = try batchDeleteRequest(text)
            keys = FetchRequest(entityName: request.entityName, predicate: request.predicate)
            note = "then: the rows it selects are deleted, and the delete rules applied, in the store (nothing was changed)"
        }
        return (try self.context.explain(keys, resultType: .objectIDs), note)
    }

    /// The note after a batch request's count: why there is nothing to save.
    static let batchNote = "(batch: written to the store, no objects loaded)"

    /// `3 Recipe rows`, `1 Chef row`.
    static func rows(_ count: Int, of entityName: String) -> String {
        "\(count) \(entityName) row\(count == 1 ? "" : "s")"
    }

    /// The request of a batch form, which takes `where` and nothing else.
    private func batchRequest(_ text: String, command: String) throws -> FetchRequest {
        let parsed = try fetchCommand(from: text, command: command)
        if let keyword = parsed.keywords.first(where: { $0 != "where" }) {
            throw CommandError("'\(keyword)' does not apply to \(command) --batch, which takes only 'where'")
        }
        return parsed.request
    }

    /// A parsed value as the Swift value ``BatchUpdateRequest`` takes, or nil for null.
    static func sendableValue(_ stored: StoredValue, type: AttributeType) -> (any Sendable)? {
        switch (type, stored) {
        case (.integer16, .integer(let v)), (.integer32, .integer(let v)), (.integer64, .integer(let v)): Int(v)
        case (.boolean, .integer(let v)): v != 0
        case (.double, .real(let v)): v
        case (.date, .real(let v)): Date(timeIntervalSince1970: v)
        case (.string, .text(let v)): v
        case (.uuid, .text(let v)): UUID(uuidString: v)
        case (.url, .text(let v)): URL(string: v)
        case (.binary, .blob(let v)): v
        default: nil
        }
    }
}
