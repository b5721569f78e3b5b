/// What differs between the model a store was made with and the model opening it, told
/// entity by entity from their storage descriptions (``ObjectModel/storageDescriptions``).
///
/// ```swift
/// ModelDifferences(stored: storedDescriptions, current: model.storageDescriptions).summary
/// // "Chef changed (attribute 'born' added); Kitchen is new in the model"
/// ```
package struct ModelDifferences {
    /// Entities only in the model, only in the store, and changed (with what changed).
    private(set) var added: [String] = []
    private(set) var removed: [String] = []
    private(set) var changed: [(entity: String, changes: [String])] = []

    /// Compares descriptions; for a store made before descriptions were kept, `stored`
    /// holds version hashes and a changed entity is named without detail.
    package init(stored: [String: String], current: [String: String]) {
        for name in Set(stored.keys).union(current.keys).sorted() {
            switch (stored[name], current[name]) {
            case (nil, _): added.append(name)
            case (_, nil): removed.append(name)
            case let (old?, new?) where old != new:
                changed.append((name, Self.changes(from: old, to: new)))
            default: break
            }
        }
    }

    /// Whether the models describe the same storage.
    var isEmpty: Bool { added.isEmpty && removed.isEmpty && changed.isEmpty }

    /// One line: each changed entity with its changes, then the new and the removed ones.
    package var summary: String {
        var parts = changed.map { entry in
            entry.changes.isEmpty ? "\(entry.entity) changed" : "\(entry.entity) changed (\(entry.changes.joined(separator: "; ")))"
        }
        parts += added.map { "\($0) is new in the model" }
        if !removed.isEmpty { parts.append("only in the store: \(removed.joined(separator: ", "))") }
        return parts.joined(separator: "; ")
    }

    /// The changes between two storage descriptions of one entity.
    private static func changes(from old: String, to new: String) -> [String] {
        let before = Parts(old), after = Parts(new)
        guard before.isDescription, after.isDescription else { return [] }  // version hashes only
        var result: [String] = []
        if before.parent != after.parent {
            result.append("parent \(before.parent.isEmpty ? "none" : "'\(before.parent)'") → \(after.parent.isEmpty ? "none" : "'\(after.parent)'")")
        }
        if before.isAbstract != after.isAbstract { result.append(after.isAbstract == "true" ? "now abstract" : "no longer abstract") }
        result += compare(before.attributes, after.attributes, kind: "attribute", detail: attributeChange)
        result += compare(before.relationships, after.relationships, kind: "relationship", detail: relationshipChange)
        if before.indexes != after.indexes { result.append("indexes changed") }
        if before.constraints != after.constraints { result.append("uniqueness constraints changed") }
        return result
    }

    /// Added, removed and changed items of one kind, keyed by name (field 0).
    private static func compare(
        _ old: [String: [String]], _ new: [String: [String]], kind: String, detail: ([String], [String]) -> String
    ) -> [String] {
        var result: [String] = []
        for name in Set(old.keys).union(new.keys).sorted() {
            switch (old[name], new[name]) {
            case (nil, _): result.append("\(kind) '\(name)' added")
            case (_, nil): result.append("\(kind) '\(name)' removed")
            case let (a?, b?) where a != b: result.append("\(kind) '\(name)' \(detail(a, b))")
            default: break
            }
        }
        return result
    }

    /// `a:name:type:optional:transient[:derivation]`, fields after the prefix (a derivation
    /// such as `canonical:(name)` may itself hold colons).
    private static func attributeChange(_ old: [String], _ new: [String]) -> String {
        func typeName(_ raw: String) -> String { AttributeType(rawValue: raw)?.displayName ?? raw }
        if old[1] != new[1] { return "changed from \(typeName(old[1])) to \(typeName(new[1]))" }
        if old[2] != new[2] { return new[2] == "true" ? "is now optional" : "is now required" }
        if old[3] != new[3] { return new[3] == "true" ? "is now transient" : "is no longer transient" }
        let before = old.dropFirst(4).joined(separator: ":"), after = new.dropFirst(4).joined(separator: ":")
        if before.isEmpty { return "is now derived (\(after))" }
        if after.isEmpty { return "is no longer derived (was \(before))" }
        return "changed its derivation from \(before) to \(after)"
    }

    /// `r:name:destination:inverse:toMany`, fields after the prefix.
    private static func relationshipChange(_ old: [String], _ new: [String]) -> String {
        if old[1] != new[1] { return "now leads to \(new[1])" }
        if old[3] != new[3] { return new[3] == "true" ? "is now to-many" : "is now to-one" }
        return "now has the inverse '\(new[2])'"
    }

    /// A storage description split into its fields.
    private struct Parts {
        var isDescription = false
        var parent = "", isAbstract = ""
        var attributes: [String: [String]] = [:], relationships: [String: [String]] = [:]
        var indexes: [String] = [], constraints: [String] = []

        init(_ text: String) {
            let fields = text.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 3 else { return }
            isDescription = true
            parent = fields[1]
            isAbstract = fields[2]
            for field in fields.dropFirst(3) {
                let items = field.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
                let rest = Array(items.dropFirst())
                switch items.first {
                case "a" where !rest.isEmpty: attributes[rest[0]] = rest + Array(repeating: "", count: max(0, 4 - rest.count))
                case "r" where !rest.isEmpty: relationships[rest[0]] = rest + Array(repeating: "", count: max(0, 4 - rest.count))
                case "i": indexes.append(field)
                case "u": constraints.append(field)
                default: break
                }
            }
        }
    }
}
