import ObjectGraph

/// The clauses after an entity in `fetch`, `count`, `show`, `update` and `delete`, as a
/// request and what the fetch returns.
///
/// ```
/// fetch Recipe where rating >= 4.5 sort name limit 5     objects, populated
/// fetch Recipe where rating >= 4.5 ids                    object IDs (fetchObjectIDs)
/// fetch Recipe keys cuisine.name distinct sort cuisine.name   dictionaries, distinct
/// fetch Recipe keys cuisine.name, @count, @avg.rating group cuisine.name   one per cuisine
/// fetch Recipe limit 3 faults                             objects as faults
/// count Recipe nosub                                      without sub-entities
/// ```
///
/// Clauses come in any order. `ids`, `keys`, `distinct`, `group` and `faults` belong to `fetch`
/// alone; combinations that cannot mean anything are errors that name the clauses.
struct FetchCommand {
    /// What a fetch returns.
    enum Result: Equatable {
        /// Managed objects (`fetch`).
        case objects
        /// Object IDs only (`ids`: `fetchObjectIDs`).
        case objectIDs
        /// The values of these key paths, as written (`keys`: `fetchDictionaries`).
        case dictionaries(keyPaths: [String])
    }

    /// The request, every clause applied.
    var request: FetchRequest
    /// What the fetch returns.
    var result: Result = .objects
    /// The clauses given, in order, by keyword.
    var keywords: [String] = []

    /// The clause keywords, matched case-insensitively outside quotes and parentheses.
    static let keywords = Set(orderedKeywords)
    /// The clause keywords in the order the help lists them.
    static let orderedKeywords = ["where", "sort", "limit", "offset", "prefetch", "batch", "faults", "nosub",
                                  "ids", "keys", "distinct", "group"]
    /// The clauses that only `fetch` takes: they choose what a fetch returns.
    static let fetchOnlyKeywords: Set<String> = ["ids", "keys", "distinct", "group", "faults"]
    /// The clauses that are a word alone.
    static let flagKeywords: Set<String> = ["ids", "distinct", "faults", "nosub"]
    /// The clauses that shape fetched objects, which `ids` and `keys` do not return.
    static let objectKeywords: Set<String> = ["faults", "prefetch", "batch"]

    /// The result type for ``MainContext/explain(_:resultType:)``.
    var resultType: FetchResultType {
        switch result {
        case .objects: .objects
        case .objectIDs: .objectIDs
        case .dictionaries: .dictionaries
        }
    }

    /// Applies `clauses` (from ``CommandWords/clauses(_:keywords:)`` with ``keywords``) to a
    /// request for `entity`, for the command `command`.
    ///
    /// A plain `fetch` returns populated objects: the shell prints every value at once, so
    /// it reads them with the rows. `faults` asks for faults instead (values wait in the row
    /// cache until printed). Other commands keep the framework's defaults.
    ///
    /// - Throws: ``CommandError`` naming the clause for a clause `command` does not take,
    ///   a malformed clause, or clauses that cannot go together; ``PredicateSyntaxError``
    ///   for a bad predicate.
    init(entity: EntityDescription, clauses: [(keyword: String, text: String)], command: String) throws {
        request = FetchRequest(entityName: entity.name)
        var keyPaths: [String]?, groupKeyPaths: [String]?
        var isDistinct = false, wantsIDs = false, wantsFaults = false
        for (keyword, clause) in clauses {
            if keywords.contains(keyword) {
                throw CommandError("'\(keyword)' is given twice; each clause comes once")
            }
            keywords.append(keyword)
            if Self.fetchOnlyKeywords.contains(keyword) && command != "fetch" {
                throw CommandError("'\(keyword)' works only with fetch, not \(command)")
            }
            if Self.flagKeywords.contains(keyword) && !clause.isEmpty {
                throw CommandError("'\(keyword)' takes nothing after it, found '\(clause)'")
            }
            switch keyword {
            case "where":
                guard !clause.isEmpty else { throw CommandError("'where' needs a predicate, such as: where rating >= 4") }
                request.predicate = try FetchPredicate(clause)
            case "sort":
                guard !clause.isEmpty else { throw CommandError("'sort' needs key paths, such as: sort rating desc, name") }
                request.sortKeys = try clause.split(separator: ",", omittingEmptySubsequences: false).map { try Self.sortKey(String($0)) }
            case "prefetch":
                guard !clause.isEmpty else { throw CommandError("'prefetch' needs relationship key paths, such as: prefetch chef, cuisine") }
                request.relationshipKeyPathsForPrefetching = clause.split(separator: ",").map { String($0).trimmed }
                    .filter { !$0.isEmpty }
            case "batch":
                guard let size = Int(clause), size > 0 else {
                    throw CommandError("'batch' needs a positive number, \(Self.found(clause)), such as: batch 50")
                }
                request.fetchBatchSize = size
            case "limit", "offset":
                guard let number = Int(clause), number >= 0 else {
                    throw CommandError("'\(keyword)' needs a whole number, \(Self.found(clause)), such as: \(keyword) 10")
                }
                if keyword == "limit" { request.fetchLimit = number } else { request.fetchOffset = number }
            case "keys": keyPaths = try Self.keyPaths(clause)
            case "group": groupKeyPaths = try Self.keyPaths(clause, clause: "group")
            case "ids": wantsIDs = true
            case "distinct": isDistinct = true
            case "faults": wantsFaults = true
            case "nosub": request.includesSubentities = false
            default: break
            }
        }
        if isDistinct && keyPaths == nil {
            throw CommandError("'distinct' works only with 'keys' (distinct rows of chosen properties), "
                               + "such as: fetch Recipe keys cuisine.name distinct")
        }
        if groupKeyPaths != nil && keyPaths == nil {
            throw CommandError("'group' works only with 'keys' (one row per group, with aggregates such as @count), "
                               + "such as: fetch Recipe keys cuisine.name, @count group cuisine.name")
        }
        if wantsIDs && keyPaths != nil {
            throw CommandError("'ids' and 'keys' cannot go together: 'ids' fetches object IDs, 'keys' property values")
        }
        if wantsIDs || keyPaths != nil, let keyword = keywords.first(where: Self.objectKeywords.contains) {
            throw CommandError("'\(keyword)' applies to fetched objects, and '\(wantsIDs ? "ids" : "keys")' fetches none")
        }
        if let keyPaths {
            result = .dictionaries(keyPaths: keyPaths)
            request.propertiesToFetch = keyPaths
            request.returnsDistinctResults = isDistinct
            request.propertiesToGroupBy = groupKeyPaths ?? []
        } else if wantsIDs {
            result = .objectIDs
        } else if command == "fetch" {
            request.returnsObjectsAsFaults = wantsFaults
        }
    }

    /// The error for words after the entity that start no clause (`fetch Recipe bogus`):
    /// names them and the clauses `command` takes, with a guess for a misspelled keyword.
    static func unexpected(_ words: String, after entity: String, command: String) -> CommandError {
        let ordered = orderedKeywords.filter { command == "fetch" || !fetchOnlyKeywords.contains($0) }
        var message = "unexpected '\(words)' after '\(entity)': \(command) takes the clauses \(ordered.joined(separator: ", "))"
        let first = String(words.prefix { !$0.isWhitespace }).lowercased()
        if let guess = first.closest(in: ordered) { message += "; did you mean '\(guess)'?" }
        return CommandError(message)
    }

    /// `found 'x'`, or `found nothing` for an empty clause.
    private static func found(_ clause: String) -> String { clause.isEmpty ? "found nothing" : "found '\(clause)'" }

    /// `name`, `rating desc`, `chef.name asc`.
    static func sortKey(_ item: String) throws -> SortKey {
        let words = item.split(separator: " ").map(String.init)
        guard let key = words.first, words.count <= 2 else {
            throw CommandError("bad sort key '\(item.trimmed)': write a key path, then asc or desc if you like, and a comma before the next")
        }
        let direction = words.count == 2 ? words[1].lowercased() : "asc"
        guard direction == "asc" || direction == "desc" else {
            throw CommandError("sort direction must be asc or desc, found '\(words[1])'")
        }
        return SortKey(key, ascending: direction == "asc")
    }

    /// `name, chef.name` (after `keys` or `group`) into its key paths; the framework checks
    /// that they exist.
    static func keyPaths(_ text: String, clause: String = "keys") throws -> [String] {
        guard !text.isEmpty else {
            throw CommandError("'\(clause)' needs key paths, such as: \(clause) \(clause == "keys" ? "name, chef.name" : "cuisine.name")")
        }
        return try text.split(separator: ",", omittingEmptySubsequences: false).map { item in
            let keyPath = String(item).trimmed
            guard !keyPath.isEmpty else { throw CommandError("'\(clause)' has an empty key path in '\(text)'") }
            guard !keyPath.contains(where: \.isWhitespace) else {
                throw CommandError("key paths in '\(clause)' are separated by commas, found '\(keyPath)'")
            }
            return keyPath
        }
    }
}
