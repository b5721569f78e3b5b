import Foundation
import Testing

/// The files of a suite of kill trials, in a temporary folder: the import file, base stores
/// to copy, scripts.
@MainActor
final class TrialWorkspace {
    let home: TemporaryDirectory
    var url: URL { home.url }

    init() throws { home = try TemporaryDirectory() }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// The name of the import file every workload uses.
    static let importFileName = "kill.jsonl"
    /// Recipes in it.
    static let importCount = 200

    /// 200 generated recipes, every fourth with a small photo (the catalogue's one-to-one).
    func makeImportFile() async throws -> String {
        let file = path(Self.importFileName)
        if FileManager.default.fileExists(atPath: file) { return file }
        let generated = try await RecipesBinary.run(["generate", "--count", String(Self.importCount), "--seed", "11",
                                                     "--output", file])
        #expect(generated.status == 0, "\(generated.standardError)")
        let photo = #", "photo": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="}"#
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").enumerated().map { index, line in
            index % 4 == 3 ? String(line.dropLast()) + photo : String(line)
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// A SQLite store with the first `count` recipes of the import file, closed (its log
    /// checkpointed into it); with `type`, a copy of it in that store type (`xml`, `binary`,
    /// `html`).
    func makeBaseStore(type: String? = nil, count: Int = importCount) async throws -> String {
        var file = try await makeImportFile()
        if count < Self.importCount {
            let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").prefix(count)
            file = try home.write(lines.joined(separator: "\n") + "\n", to: "first-\(count).jsonl")
        }
        let store = path("base-\(count).sqlite")
        if !FileManager.default.fileExists(atPath: store) {
            let run = try await RecipesBinary.run([store, "-c", "import \(file) --batch 50"])
            #expect(run.status == 0, "\(run.standardError)")
        }
        guard let type else { return store }
        let typed = path("base-\(count).\(type)")
        try? removeStore(typed)
        let run = try await RecipesBinary.run([store, "-c", ".migrate \(type) \(typed)"])
        #expect(run.status == 0, "\(run.standardError)")
        return typed
    }

    /// The `id` of each line of a JSON Lines file, in order.
    static func sourceIDs(in file: String) throws -> [String] {
        try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["id"] as? String ?? ""
        }
    }

    /// Writes a script of `steps`' lines and returns its path.
    func script(_ steps: [[String]], name: String) throws -> String {
        try home.write(steps.joined().joined(separator: "\n") + "\n", to: "\(name).recipes")
    }

    /// Copies a store file (and its log, if any) to `name` in the folder.
    func copy(_ store: String, to name: String) throws -> String {
        let destination = path(name)
        try? removeStore(destination)
        try FileManager.default.copyItem(atPath: store, toPath: destination)
        if FileManager.default.fileExists(atPath: store + "-wal") {
            try FileManager.default.copyItem(atPath: store + "-wal", toPath: destination + "-wal")
        }
        return destination
    }

    func removeStore(_ store: String) throws {
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: store + suffix) {
            try FileManager.default.removeItem(atPath: store + suffix)
        }
    }

    /// Files a killed save may leave beside `store`: an atomic store's hidden temporary
    /// files, a migration's copies.
    func leftovers(of store: String) throws -> [String] {
        let name = URL(fileURLWithPath: store).lastPathComponent
        return try FileManager.default.contentsOfDirectory(atPath: url.path).filter {
            ($0.hasPrefix(".\(name).") && $0.hasSuffix(".tmp")) || $0.hasPrefix(name + "-migra")
        }
    }

    /// Removes the ``leftovers(of:)`` of `store` and returns how many there were.
    func removeLeftovers(of store: String) throws -> Int {
        let leftovers = try leftovers(of: store)
        for file in leftovers { try FileManager.default.removeItem(atPath: path(file)) }
        return leftovers.count
    }
}

/// The counts a workload's trials print: where the kills landed and how the stores came out.
struct KillTally {
    let name: String
    var trials = 0, killed = 0, inTransaction = 0, atCommit = 0, between = 0
    var sound = 0, beforeOrAfter = 0, resumed = 0, leftovers = 0
    /// How many trials ended in the state after each number of steps (time moments only).
    var statesSeen: [Int: Int] = [:]

    init(_ name: String) { self.name = name }

    mutating func record(_ outcome: TracedProcess.Outcome, matched: Bool, sound isSound: Bool, tracesStatements: Bool = true) {
        trials += 1
        if outcome.wasKilled {
            killed += 1
            if tracesStatements {
                switch outcome.trace.moment {
                case "transaction": inTransaction += 1
                case "commit": atCommit += 1
                default: between += 1
                }
            }
        }
        sound += isSound ? 1 : 0
        beforeOrAfter += matched ? 1 : 0
    }

    func report() {
        let moments = inTransaction + atCommit + between > 0
            ? " (\(inTransaction) inside a transaction, \(atCommit) at a commit, \(between) between transactions)" : ""
        print("""
            kill trials, \(name): \(trials) trials (seed \(ReliabilitySettings.seed)), \(killed) killed\(moments); \
            \(sound) stores sound, \(beforeOrAfter) in the state before or after\
            \(resumed > 0 ? ", \(resumed) resumed to every recipe exactly once" : "")\
            \(leftovers > 0 ? "; \(leftovers) temporary files left beside the store" : "")\
            \(statesSeen.isEmpty ? "" : "; states after n steps seen: " + statesSeen.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " "))
            """)
    }
}

extension String {
    /// A hash that is the same in every run (Swift's `hashValue` is seeded per process).
    var hashValueStable: UInt64 {
        utf8.reduce(14_695_981_039_346_656_037) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
    }
}
