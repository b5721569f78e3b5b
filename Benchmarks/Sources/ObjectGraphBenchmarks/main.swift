import Foundation
import ObjectGraphSQLite

// Release-mode benchmarks of the core against hand-written sqlite3 C calls (the limit) and GRDB
// records (the peer), in one process, interleaved round by round. Every run checks its own
// result. Usage:
//   ObjectGraphBenchmarks [--rounds N] [--insert N] [--fetch N]

var rounds = 5, insertCount = 300_000, fetchCount = 500_000
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--rounds": rounds = Int(arguments.next() ?? "") ?? rounds
    case "--insert": insertCount = Int(arguments.next() ?? "") ?? insertCount
    case "--fetch": fetchCount = Int(arguments.next() ?? "") ?? fetchCount
    default: print("usage: ObjectGraphBenchmarks [--rounds N] [--insert N] [--fetch N]"); exit(2)
    }
}
#if DEBUG
print("warning: a debug build; numbers are meaningless. Use `make bench` (swift run -c release).")
#endif

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("og-bench-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
var fileCounter = 0
@MainActor func freshPath() -> String {
    fileCounter += 1
    return directory.appendingPathComponent("db\(fileCounter).sqlite").path
}

let model = try ObjectModel(entities: [
    EntityDescription("User", attributes: [AttributeDescription("name", .string), AttributeDescription("city", .string)]),
    EntityDescription("Word", attributes: [AttributeDescription("word", .string), AttributeDescription("length", .integer64)]),
])

// Fixture for the fetches: an ObjectGraph store whose Word table the C API fills.
let fetchPath = freshPath()
do {
    let coordinator = PersistentStoreCoordinator(model: model)
    try coordinator.addStore(at: fetchPath)
}
RawSQLite.fillWords(path: fetchPath, count: fetchCount, entityIndex: model.entity(named: "Word")!.index)
let expectedLength = (1...fetchCount).reduce(0) { $0 + BenchmarkData.word($1).utf8.count }

func measure(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

@MainActor func objectGraphInsert() throws -> Double {
    let coordinator = PersistentStoreCoordinator(model: model)
    try coordinator.addStore(at: freshPath())
    let context = MainContext(coordinator: coordinator)
    let user = model.entity(named: "User")!
    let name = user.attribute(named: "name")!, city = user.attribute(named: "city")!
    let seconds = try measure {
        for index in 0..<insertCount {
            let object = context.insert(user)
            object[name] = "User \(index)"
            object[city] = BenchmarkData.city(index)
            if (index + 1) % 1_000 == 0 {
                try context.save()
                context.reset()
            }
        }
        try context.save()
        context.reset()
    }
    let saved = try context.count(for: FetchRequest(entityName: "User"))
    precondition(saved == insertCount)
    return seconds
}

@MainActor func rawInsert() -> Double {
    let path = freshPath()
    return measure { RawSQLite.insertUsers(path: path, count: insertCount, batch: 1_000) }
}

@MainActor func grdbInsert() throws -> Double {
    let path = freshPath()
    return try measure { try GRDBPeer.insertUsers(path: path, count: insertCount, batch: 1_000) }
}

@MainActor func objectGraphFetch() throws -> Double {
    let coordinator = PersistentStoreCoordinator(model: model)
    try coordinator.addStore(at: fetchPath)
    let context = MainContext(coordinator: coordinator)
    var request = FetchRequest(entityName: "Word")
    request.returnsObjectsAsFaults = false
    _ = try context.count(for: request)  // warms the connection, as the raw side prepares first
    var objects: [ManagedObject] = []
    let seconds = try measure { objects = try context.fetch(request) }
    let length = objects.reduce(0) { $0 + ($1[attribute: "length"] as Int) }
    precondition(objects.count == fetchCount && length == expectedLength && !objects[0].isFault)
    return seconds
}

@MainActor func rawFetch() -> Double {
    let (_, run, close) = RawSQLite.fetchWords(path: fetchPath)
    defer { close() }
    var words: [RawSQLite.Word] = []
    let seconds = measure { words = run() }
    precondition(words.count == fetchCount && words.reduce(0) { $0 + Int($1.length) } == expectedLength)
    return seconds
}

@MainActor func grdbFetch() throws -> Double {
    let (run, close) = try GRDBPeer.fetchWords(path: fetchPath)
    defer { try? close() }
    var words: [GRDBPeer.Word] = []
    let seconds = try measure { words = try run() }
    precondition(words.count == fetchCount && words.reduce(0) { $0 + Int($1.length) } == expectedLength)
    return seconds
}

var samples: [String: [Double]] = [:]
let workloads: [(String, @MainActor () throws -> Double)] = [
    ("insert raw", rawInsert), ("insert ObjectGraph", objectGraphInsert), ("insert GRDB", grdbInsert),
    ("fetch raw", rawFetch), ("fetch ObjectGraph", objectGraphFetch), ("fetch GRDB", grdbFetch),
]
for round in 0..<rounds {
    // Rotate the order each round so no engine always runs first.
    for offset in 0..<workloads.count {
        let (name, body) = workloads[(offset + round) % workloads.count]
        samples[name, default: []].append(try MainActor.assumeIsolated { try body() })
    }
    print("round \(round + 1)/\(rounds) done")
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
print("")
print("workload                                     raw          ObjectGraph  GRDB         ObjectGraph ÷ raw  GRDB ÷ raw")
for (label, key) in [("insert \(insertCount) × 2 strings, save per 1,000", "insert"),
                     ("fetch \(fetchCount) populated objects", "fetch")] {
    let raw = median(samples["\(key) raw"]!), graph = median(samples["\(key) ObjectGraph"]!)
    let grdb = median(samples["\(key) GRDB"]!)
    let padded = label.padding(toLength: 44, withPad: " ", startingAt: 0)
    print(String(format: "%@ %7.3f s    %7.3f s    %7.3f s    %5.2f×             %5.2f×",
                 padded, raw, graph, grdb, graph / raw, grdb / raw))
}
