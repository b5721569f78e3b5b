import Foundation

/// What the learner has done so far, kept in `$XDG_DATA_HOME/recipes/exercises.json`
/// (`~/.local/share/recipes/exercises.json` without it).
///
/// ```json
/// {"exercises": {"1": {"state": "passing", "checked": "2026-11-25T16:20:00Z", "hintsShown": 1,
///   "figures": [{"name": "transactions", "value": 4, "budget": 10}]}}}
/// ```
struct ExerciseProgress: Codable, Equatable {
    /// The result of the last check.
    enum State: String, Codable {
        /// The last check passed.
        case passing
        /// The last check failed, did not build or stopped.
        case failing
    }

    /// One measured figure of the last check.
    struct Figure: Codable, Equatable {
        /// What was counted.
        var name: String
        /// The count.
        var value: Int
        /// The most allowed.
        var budget: Int
    }

    /// One exercise's record.
    struct Entry: Codable, Equatable {
        /// The last check's result; `nil` when never checked.
        var state: State?
        /// When it was last checked.
        var checked: Date?
        /// How many hints were shown.
        var hintsShown = 0
        /// The last check's figures.
        var figures: [Figure] = []
        /// Why the last check failed when no figure says it: `did not build`, `stopped (signal 4)`
        /// or `incorrect: ` and the checker's first problem; `nil` otherwise.
        var reason: String?

        init() {}

        /// Reads a record; a field the file leaves out (an older or hand-edited file) takes
        /// its default, as synthesized decoding would not.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            state = try container.decodeIfPresent(State.self, forKey: .state)
            checked = try container.decodeIfPresent(Date.self, forKey: .checked)
            hintsShown = try container.decodeIfPresent(Int.self, forKey: .hintsShown) ?? 0
            figures = try container.decodeIfPresent([Figure].self, forKey: .figures) ?? []
            reason = try container.decodeIfPresent(String.self, forKey: .reason)
        }
    }

    /// The records by exercise number (as text: JSON keys are strings).
    var exercises: [String: Entry] = [:]

    init() {}

    /// Reads the file's object; without `exercises` it holds no records.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        exercises = try container.decodeIfPresent([String: Entry].self, forKey: .exercises) ?? [:]
    }

    /// The record of exercise `number`.
    subscript(number: Int) -> Entry {
        get { exercises[String(number)] ?? Entry() }
        set { exercises[String(number)] = newValue }
    }

    /// The progress file's location.
    static func fileURL(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (home + "/.local/share")
        return URL(fileURLWithPath: base).appendingPathComponent("recipes/exercises.json")
    }

    /// Reads the file; a missing file is no progress yet.
    /// - Throws: ``CommandError`` naming the file when it cannot be read as progress.
    static func load(from url: URL) throws(CommandError) -> ExerciseProgress {
        guard let data = FileManager.default.contents(atPath: url.path) else { return ExerciseProgress() }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(ExerciseProgress.self, from: data)
        } catch {
            throw CommandError("\(url.path) is not a progress file (\(describe(error, in: data))); remove it to start the record over")
        }
    }

    /// What is wrong with `data`, the file that `error` refused, in a few words: where (a
    /// JSON path such as `exercises.1.hintsShown`) and what was expected there.
    private static func describe(_ error: any Error, in data: Data) -> String {
        guard let error = error as? DecodingError else { return error.localizedDescription }
        func place(_ path: [any CodingKey]) -> String {
            path.isEmpty ? "at the top" : "at " + path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        /// `, found a string` from `Expected to decode Int but found a string instead.`
        func found(_ context: DecodingError.Context) -> String {
            guard let range = context.debugDescription.range(of: "but found ") else { return "" }
            let rest = context.debugDescription[range.upperBound...]
            return ", found " + (rest.range(of: " instead").map { rest[..<$0.lowerBound] } ?? rest)
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(place(context.codingPath)): expected \(expectation(type))\(found(context))"
        case .valueNotFound(let type, let context):
            return "\(place(context.codingPath)): expected \(expectation(type)), found null"
        case .keyNotFound(let key, let context):
            return "\(place(context.codingPath)): '\(key.stringValue)' is missing"
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            // Not JSON: the decoder does not say where, the parser does ("around character 21").
            do {
                _ = try JSONSerialization.jsonObject(with: data)
            } catch {
                if let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String { return "not JSON: \(detail)" }
            }
            return "not JSON"
        case .dataCorrupted(let context):
            return "\(place(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return String(describing: error)
        }
    }

    /// `an object`, `a whole number`, … for the type a decoder expected.
    private static func expectation(_ type: Any.Type) -> String {
        if type == Int.self { return "a whole number" }
        if type == String.self { return "a string" }
        if type == Date.self { return "a date such as \"2026-11-25T16:20:00Z\"" }
        if type == [Any].self { return "an array" }
        if type == [String: Any].self { return "an object" }
        return "\(type)"
    }

    /// Writes the file, creating its folder.
    /// - Throws: ``CommandError`` naming the file.
    func save(to url: URL) throws(CommandError) {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(self).write(to: url, options: .atomic)
        } catch {
            throw CommandError("cannot write \(url.path): \(error.localizedDescription)")
        }
    }
}
