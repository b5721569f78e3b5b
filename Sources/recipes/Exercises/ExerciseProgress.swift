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
    }

    /// The records by exercise number (as text: JSON keys are strings).
    var exercises: [String: Entry] = [:]

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
            throw CommandError("\(url.path) is not a progress file (\(error)); remove it to start the record over")
        }
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
