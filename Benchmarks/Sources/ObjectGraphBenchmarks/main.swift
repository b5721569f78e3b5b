import Foundation
import ObjectGraphSQLite

// Release-mode benchmarks of ObjectGraph against hand-written sqlite3 C calls (the limit) and
// GRDB records (the peer), and, when a PostgreSQL server is named, of ObjectGraph on PostgreSQL
// against hand-written PostgresNIO queries, in one process, engines interleaved round by round.
// Every run checks its own result with `precondition`, so a fast wrong answer stops the program. Usage:
//   ObjectGraphBenchmarks [--only NAME[,NAME…]] [--rounds N] [--scale F] [--catalogue N] [--insert N] [--fetch N] [--json FILE]
//                         [--postgres postgres://USER@HOST:PORT/DB]
//   NAME: catalogue, insert, fetch, words, faults, count, search, delete, saveeach (default: all, in that order)
//   --rounds N   rounds per workload (default 5); each engine runs once per round, medians are reported
//   --scale F    multiplies every workload size (default 1); `--scale 0.02 --rounds 1` is a quick check
//   --catalogue N  recipes the catalogue workload generates and imports (default 300,000, before scaling)
//   --insert N   users the insert workload writes (default 300,000, before scaling)
//   --fetch N    words the fetch, words, faults and count workloads read (default 500,000, before scaling)
//   --json FILE  also writes every sample, median, min–max, ratio and memory figure as JSON
//   --postgres URL  the server for the PostgreSQL engines (password in PGPASSWORD); default
//                $OBJECTGRAPH_POSTGRES_URL; without either they are skipped, saying so

let options: BenchmarkOptions
do {
    options = try BenchmarkOptions(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n\(BenchmarkOptions.usage)\n".utf8))
    exit(2)
}
if options.wantsHelp {
    Report.write(BenchmarkOptions.usage)
    exit(0)
}
#if DEBUG
Report.write("warning: a debug build; numbers are meaningless. Use `make bench` (swift run -c release).")
#endif

/// The 1-, 5- and 15-minute load averages, from /proc/loadavg.
func loadAverage() -> [Double] {
    let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
    return text.split(separator: " ").prefix(3).compactMap { Double($0) }
}

let scratch = try Scratch()
defer { scratch.remove() }
let postgres: PostgresServer?
do {
    postgres = try PostgresServer.connect(options)
} catch {
    FileHandle.standardError.write(Data("error: --postgres: \(error)\n".utf8))
    exit(2)
}
defer { postgres?.remove() }
var results = RunResults(rounds: options.rounds, scale: options.scale, started: Date().ISO8601Format(),
                         loadAverageBefore: loadAverage(), peakResetWorks: ProcessMemory.resetPeak())
let environment = try BenchmarkEnvironment(options: options, scratch: scratch, postgres: postgres)
let setupStart = ContinuousClock.now
let workloads = try WorkloadName.allCases.filter(options.includes).map { try Workload.make($0, environment) }
Report.write("fixtures ready in \(Report.seconds(Runner.seconds(since: setupStart))); \(options.rounds) rounds of \(workloads.map(\.name.rawValue).joined(separator: ", "))")
results.workloads = try Runner(workloads: workloads, rounds: options.rounds).run()
results.loadAverageAfter = loadAverage()
Report.write(Report.text(results))

if let jsonPath = options.jsonPath {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(results).write(to: URL(fileURLWithPath: jsonPath))
    Report.write("JSON written to \(jsonPath)")
}
