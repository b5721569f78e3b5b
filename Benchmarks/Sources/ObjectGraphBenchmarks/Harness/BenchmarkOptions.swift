import Foundation

/// The command line: which workloads, how many rounds, how large, and where the JSON goes.
///
/// Sizes are the defaults (or `--insert`, `--fetch`) times `--scale`, so `--scale 0.05`
/// shrinks every workload alike for a quick run.
struct BenchmarkOptions: Sendable {
    /// The one-line usage, printed for `--help` and after a bad argument.
    static let usage = """
        usage: ObjectGraphBenchmarks [--only NAME[,NAME…]] [--rounds N] [--scale F] [--catalogue N] [--insert N] [--fetch N] [--json FILE]
                                     [--postgres postgres://USER@HOST:PORT/DB]
          NAME: \(WorkloadName.allCases.map(\.rawValue).joined(separator: ", "))
        """

    /// Rounds per workload; each round runs every engine once, in a rotated order.
    var rounds = 5
    /// The factor every workload size is multiplied by.
    var scale = 1.0
    /// Users the insert workload writes (before scaling).
    var insertCount = 300_000
    /// Recipes the catalogue workload imports (before scaling).
    var catalogueCount = 300_000
    /// Words in the fixture the fetch, words, faults and count workloads read (before scaling).
    var fetchCount = 500_000
    /// The workloads to run, in the harness's order; all when empty.
    var only: Set<WorkloadName> = []
    /// Where to write the results as JSON, if anywhere.
    var jsonPath: String?
    /// Whether `--help` was asked for.
    var wantsHelp = false
    /// The PostgreSQL server for the PostgreSQL engines, from `--postgres` (the password from
    /// `PGPASSWORD`); nil to take `OBJECTGRAPH_POSTGRES_URL` from the environment.
    var postgresURL: String?

    /// Reads the arguments that follow the program name.
    /// - Throws: ``UsageError`` naming the argument that does not parse.
    init(arguments: [String]) throws(UsageError) {
        var iterator = arguments.makeIterator()
        /// The argument after `flag`.
        func value(for flag: String) throws(UsageError) -> String {
            guard let value = iterator.next() else { throw UsageError("\(flag) needs a value") }
            return value
        }
        /// The argument after `flag` as a positive integer (`300_000` is accepted).
        func positive(_ flag: String) throws(UsageError) -> Int {
            let text = try value(for: flag)
            guard let number = Int(text.replacingOccurrences(of: "_", with: "")), number > 0 else {
                throw UsageError("\(flag) needs a positive whole number, not '\(text)'")
            }
            return number
        }
        while let argument = iterator.next() {
            switch argument {
            case "--rounds": rounds = try positive(argument)
            case "--insert": insertCount = try positive(argument)
            case "--fetch": fetchCount = try positive(argument)
            case "--catalogue": catalogueCount = try positive(argument)
            case "--scale":
                let text = try value(for: argument)
                guard let factor = Double(text), factor > 0, factor.isFinite else {
                    throw UsageError("--scale needs a positive number such as 0.05, not '\(text)'")
                }
                scale = factor
            case "--only":
                for name in try value(for: argument).split(separator: ",") {
                    guard let workload = WorkloadName(rawValue: String(name)) else {
                        throw UsageError("unknown workload '\(name)'")
                    }
                    only.insert(workload)
                }
            case "--json": jsonPath = try value(for: argument)
            case "--postgres": postgresURL = try value(for: argument)
            case "--help", "-h": wantsHelp = true
            default: throw UsageError("unknown argument '\(argument)'")
            }
        }
    }

    /// Whether the workload called `name` is to run.
    func includes(_ name: WorkloadName) -> Bool { only.isEmpty || only.contains(name) }

    /// `count` times the scale, rounded, and at least 1.
    func scaled(_ count: Int) -> Int { max(1, Int((Double(count) * scale).rounded())) }
}

/// The short names `--only` accepts, in the order the harness runs them.
enum WorkloadName: String, CaseIterable, Sendable, Codable {
    case catalogue, insert, fetch, words, faults, count, search, delete, saveeach
}

/// A command line the harness cannot read, and why.
struct UsageError: Error, CustomStringConvertible {
    /// What is wrong, in a few words.
    let description: String

    /// Makes an error with `description`.
    init(_ description: String) { self.description = description }
}
