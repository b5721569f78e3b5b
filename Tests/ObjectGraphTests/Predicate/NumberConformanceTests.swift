import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphPostgres

/// Integers past 2^53 compared with doubles, the ends of the 64-bit range, infinities,
/// negative zero, dates to the microsecond and long text: the SQLite store, the memory store
/// (the in-memory evaluator) and the PostgreSQL store select the same objects, and read back
/// the same values.
@MainActor
struct NumberConformanceTests {
    /// The stores compared.
    nonisolated static let kinds = StoreKind.allCases.filter { [.sqlite, .memory, .postgres].contains($0) }

    nonisolated static let model: ObjectModel = try! ObjectModel(entities: [
        EntityDescription("Number", attributes: [
            AttributeDescription("name", .string),
            AttributeDescription("big", .integer64, isOptional: true),
            AttributeDescription("real", .double, isOptional: true),
            AttributeDescription("when", .date, isOptional: true),
        ]),
    ])

    /// Each row: name, big, real.
    nonisolated static let rows: [(String, Int64?, Double?)] = [
        ("a", 9_007_199_254_740_993, 9_007_199_254_740_992.0),  // 2^53 + 1 and 2^53
        ("b", 9_007_199_254_740_992, 0.5),
        ("c", -9_007_199_254_740_993, -9_007_199_254_740_992.0),
        ("d", .max, 9_223_372_036_854_775_808.0),  // 2^63 - 1 and 2^63
        ("e", .min, -9_223_372_036_854_775_808.0),  // -2^63 both
        ("f", 3, 2.5),
        ("g", nil, nil),
        ("h", 0, -0.0),
        ("i", 2, 2.0),
        ("j", 1, -.infinity),
    ]

    /// Predicates and the rows each selects: integers compare with doubles exactly, as in SQLite.
    nonisolated static let cases: [(String, String)] = [
        ("big == 9007199254740992.0", "b"),
        ("big != 9007199254740992.0", "acdefghij"),
        ("9007199254740992.0 == big", "b"),
        ("big >= 9223372036854775807.0", ""),  // the constant is 2^63, past every integer
        ("big < 9223372036854775807.0", "abcdefhij"),
        ("big > 2.5", "abdf"),
        ("big <= -9223372036854775809.0", "e"),  // the constant is -2^63
        ("big == real", "eghi"),
        ("big != real", "abcdfj"),
        ("NOT (big == real)", "abcdfj"),
        ("big > real", "abfj"),
        ("big < real", "cd"),
        ("NOT (big < real)", "abefghij"),
        ("big + 0 == real", "eghi"),
        ("big * 1.0 == real", "acdeghi"),  // double arithmetic: 2^53 + 1 becomes 2^53
        ("big - 1 < real - 0.5", "cdhi"),  // e: Int64.min - 1 overflows into a double, as in SQLite
        ("big IN {9007199254740992.0, 3}", "bf"),
        ("big IN {9007199254740992.0, 2.5, 3}", "bf"),
        ("NOT big IN {9007199254740992.0, 2.5, 3}", "acdeghij"),
        ("real == 9007199254740993", ""),
        ("real != 9007199254740993", "abcdefghij"),
        ("real < 9007199254740993", "abcefhij"),
        ("real <= 9223372036854775807", "abcefhij"),
        ("real > 9223372036854775807", "d"),
        ("real IN {9007199254740993, 2}", "i"),
        ("real == 0", "h"),
        ("real == -0.0", "h"),
        ("real < -1e308", "j"),
    ]

    nonisolated static let instant = Date(timeIntervalSince1970: 1_700_000_000.123_456)

    /// A new store of `kind` holding ``rows``, saved; a new context on it.
    func saved(_ kind: StoreKind) throws -> MainContext {
        let coordinator = PersistentStoreCoordinator(model: Self.model)
        try kind.addStore(to: coordinator)
        let writer = MainContext(coordinator: coordinator)
        for (name, big, real) in Self.rows {
            let object = try writer.insert("Number")
            object["name"] = name
            object["big"] = big
            object["real"] = real
        }
        // Two dates a microsecond apart, and a megabyte of text.
        let objects = try writer.fetch(FetchRequest(entityName: "Number", sortKeys: [SortKey("name")]))
        objects[0]["when"] = Self.instant
        objects[1]["when"] = Self.instant.addingTimeInterval(0.000_001)
        objects[2]["name"] = "c" + String(repeating: "é", count: 500_000)
        try writer.save()
        return MainContext(coordinator: coordinator)
    }

    func names(_ format: String, in context: MainContext) throws -> String {
        let request = FetchRequest(entityName: "Number", predicate: try FetchPredicate(format), sortKeys: [SortKey("name")])
        return try context.fetch(request).map { ($0["name"] as? String)?.prefix(1) ?? "?" }.joined()
    }

    @Test("Integers and doubles compare exactly, as in SQLite, past 2^53 and at the ends of the 64-bit range", arguments: kinds)
    func mixedComparisons(kind: StoreKind) throws {
        let context = try saved(kind)
        for (format, expected) in Self.cases {
            #expect(try names(format, in: context) == expected, "\(kind): \(format)")
        }
    }

    @Test("Values read back as SQLite reads them: 64-bit integers, infinities, and -0.0 as 0.0",
          arguments: kinds)
    func roundTrips(kind: StoreKind) throws {
        let context = try saved(kind)
        let objects = try context.fetch(FetchRequest(entityName: "Number", sortKeys: [SortKey("name")]))
        #expect(objects.map { $0["big"] as? Int } == Self.rows.map { $0.1.map(Int.init) }, "\(kind)")
        #expect(objects.map { $0["real"] as? Double } == Self.rows.map(\.2), "\(kind)")
        let zero = try #require(objects[7]["real"] as? Double)
        #expect(zero.sign == .plus, "\(kind) keeps -0.0")
        #expect(objects[0]["when"] as? Date == Self.instant && objects[1]["when"] as? Date != Self.instant, "\(kind)")
        #expect(objects[2]["name"] as? String == "c" + String(repeating: "é", count: 500_000), "\(kind)")
        func names(_ format: String, _ argument: any Sendable) throws -> [String] {
            let request = FetchRequest(entityName: "Number", predicate: try FetchPredicate(format, argument), sortKeys: [SortKey("name")])
            return try context.fetch(request).map { String(($0["name"] as? String)?.prefix(1) ?? "?") }
        }
        #expect(try names("when == %@", Self.instant) == ["a"], "\(kind)")
        #expect(try names("when > %@", Self.instant) == ["b"], "\(kind)")
        #expect(try names("name BEGINSWITH %@", "cé") == ["c"], "\(kind)")
    }

    @Test("A -0.0 saved, inserted or updated by a batch reads back as 0.0 from every store type, and compares as 0",
          arguments: StoreKind.allCases)
    func negativeZero(kind: StoreKind) throws {
        let coordinator = PersistentStoreCoordinator(model: Self.model)
        let store = try kind.addStore(to: coordinator)
        defer { StoreKind.removeFiles(of: coordinator) }
        let writer = MainContext(coordinator: coordinator)
        let minusZero = -0.0
        for name in ["inserted", "updated"] {
            let object = try writer.insert("Number")
            object["name"] = name
            object["real"] = name == "inserted" ? minusZero : 1.0
        }
        try writer.save()
        let updated = try #require(try writer.fetch(FetchRequest(entityName: "Number", predicate: try FetchPredicate("name == 'updated'"))).first)
        updated["real"] = minusZero
        try writer.save()
        try writer.execute(BatchInsertRequest(entityName: "Number", objects: [["name": "batch", "real": minusZero]]))
        try writer.execute(BatchInsertRequest(entityName: "Number", objects: [["name": "batch updated", "real": 2.0]]))
        try writer.execute(BatchUpdateRequest(entityName: "Number", predicate: try FetchPredicate("name == 'batch updated'"),
                                              propertiesToUpdate: ["real": minusZero]))
        // Read back by a new coordinator for a file, or a new context.
        let reader: MainContext
        if let file = store as? any AtomicStorePath {
            let reopened = PersistentStoreCoordinator(model: Self.model)
            try reopened.addStore(type: kind.type, at: file.path)
            reader = MainContext(coordinator: reopened)
        } else {
            reader = MainContext(coordinator: coordinator)
        }
        let objects = try reader.fetch(FetchRequest(entityName: "Number", sortKeys: [SortKey("name")]))
        #expect(objects.map { $0["name"] as? String } == ["batch", "batch updated", "inserted", "updated"], "\(kind)")
        for object in objects {
            let real = try #require(object["real"] as? Double)
            #expect(real == 0 && real.sign == .plus, "\(kind): \(object["name"] ?? "?") reads back \(real)")
        }
        var values = FetchRequest(entityName: "Number", sortKeys: [SortKey("name")])
        values.propertiesToFetch = ["real"]
        let rows = try reader.fetchDictionaries(values)
        #expect(rows.allSatisfy { (($0["real"] ?? nil) as? Double)?.sign == .plus }, "\(kind): \(rows)")
        for (format, count) in [("real == 0", 4), ("real == -0.0", 4), ("real < 0", 0), ("real >= 0", 4), ("real > -0.0", 0)] {
            #expect(try reader.count(for: FetchRequest(entityName: "Number", predicate: try FetchPredicate(format))) == count,
                    "\(kind): \(format)")
        }
    }
}
