@testable import ObjectGraph
@testable import ObjectGraphSQLite
import ObjectGraphSQL
import Foundation
import Testing

@Suite("Predicate SQL: arguments, identity, plans and exact SQL")
struct PredicateSQLTests {
    let graph = RecipeDataset.make()

    func recipe(_ name: String) -> TestObject { graph.objects(of: "Recipe").first { $0.name == name }! }

    func names(_ predicate: FetchPredicate, _ entity: String = "Recipe") throws -> (memory: [String], sql: [String]) {
        let result = try BothBackEnds(graph).run(predicate, on: entity)
        func names(_ keys: Set<Int64>) -> [String] { graph.objects(of: entity).filter { keys.contains($0.key) }.map(\.name).sorted() }
        return (names(result.memory), names(result.sql))
    }

    @Test("SELF == and SELF IN with ObjectIDs")
    func selfIdentity() throws {
        let toast = recipe("Toast"), pie = recipe("Apple pie")
        var result = try names(FetchPredicate("SELF == %@", toast.evaluationObjectID))
        #expect(result.memory == ["Toast"] && result.sql == ["Toast"])
        result = try names(FetchPredicate("SELF IN %@", [toast.evaluationObjectID, pie.evaluationObjectID]))
        #expect(result.memory == ["Apple pie", "Toast"] && result.sql == result.memory)
        result = try names(FetchPredicate("NOT SELF IN %@", [toast.evaluationObjectID]))
        #expect(result.memory.count == 11 && result.sql == result.memory)
        // A chef's key with the Recipe entity never matches a recipe.
        let wrongEntity = ObjectID(entityIndex: 0, key: toast.key)
        result = try names(FetchPredicate("SELF == %@", wrongEntity))
        #expect(result.memory.isEmpty && result.sql.isEmpty)
        // A temporary ID never matches in SQL.
        let temporary = ObjectID(entityIndex: toast.entity.index, key: toast.key, temporaryTag: 1)
        result = try names(FetchPredicate("SELF == %@", temporary))
        #expect(result.sql.isEmpty && result.memory.isEmpty)
    }

    @Test("A string literal spells an ID as the model describes it (Recipe/p42)")
    func identityFromText() throws {
        let toast = recipe("Toast"), pie = recipe("Apple pie")
        let ana = graph.objects(of: "Chef").first { $0.name == "Ana" }!
        let dessert = graph.objects(of: "Tag").first { $0.name == "dessert" }!
        func spelled(_ object: TestObject) -> String { graph.model.describe(object.evaluationObjectID) }
        #expect(spelled(toast) == "Recipe/p\(toast.key)")
        var result = try names(FetchPredicate("SELF == '\(spelled(toast))'"))
        #expect(result.memory == ["Toast"] && result.sql == result.memory)
        result = try names(FetchPredicate("SELF IN {'\(spelled(toast))', '\(spelled(pie))'}"))
        #expect(result.memory == ["Apple pie", "Toast"] && result.sql == result.memory)
        result = try names(FetchPredicate("chef == '\(spelled(ana))' AND NOT SELF IN {'\(spelled(pie))'}"))
        #expect(result.memory == ["CREME brulee", "Crème Brûlée", "O'Brien's Hash"] && result.sql == result.memory)
        result = try names(FetchPredicate("ANY tags == '\(spelled(dessert))'"))
        #expect(result.memory == ["Apple pie", "CREME brulee", "Crème Brûlée"] && result.sql == result.memory)
        // The text prints back as written and parses to the same predicate.
        let predicate = try FetchPredicate("SELF == '\(spelled(toast))'")
        #expect(try FetchPredicate(predicate.description) == predicate)
    }

    @Test("To-one and to-many relationships compared with ObjectIDs")
    func relationshipIdentity() throws {
        let ana = graph.objects(of: "Chef").first { $0.name == "Ana" }!
        let dessert = graph.objects(of: "Tag").first { $0.name == "dessert" }!
        var result = try names(FetchPredicate("chef == %@", ana.evaluationObjectID))
        #expect(result.memory == ["Apple pie", "CREME brulee", "Crème Brûlée", "O'Brien's Hash"] && result.sql == result.memory)
        result = try names(FetchPredicate("chef != %@", ana.evaluationObjectID))
        #expect(result.memory.count == 8 && result.sql == result.memory)
        result = try names(FetchPredicate("chef IN %@", [ana.evaluationObjectID, nil] as [ObjectID?]))
        #expect(result.memory.count == 6 && result.sql == result.memory)
        result = try names(FetchPredicate("tags CONTAINS %@", dessert.evaluationObjectID))
        #expect(result.memory == ["Apple pie", "CREME brulee", "Crème Brûlée"] && result.sql == result.memory)
        result = try names(FetchPredicate("%@ IN tags", dessert.evaluationObjectID))
        #expect(result.memory.count == 3 && result.sql == result.memory)
        result = try names(FetchPredicate("ANY tags == %@", dessert.evaluationObjectID))
        #expect(result.memory.count == 3 && result.sql == result.memory)
        result = try names(FetchPredicate("ANY recipe.tags == %@", dessert.evaluationObjectID), "Line")
        #expect(result.memory.count == 7 && result.sql == result.memory)
    }

    @Test("Swift values as arguments: dates, UUIDs, URLs, data, nil, arrays")
    func swiftArguments() throws {
        let date = RecipeDataset.date("2024-01-10")
        var result = try names(FetchPredicate("published == %@", date))
        #expect(result.memory == ["50% Off Soup", "Crème Brûlée"] && result.sql == result.memory)
        result = try names(FetchPredicate("published BETWEEN %@", [RecipeDataset.date("2023-01-01"), date]))
        #expect(result.memory == ["50% Off Soup", "Crème Brûlée", "Σίσυφος Stew"] && result.sql == result.memory)
        result = try names(FetchPredicate("code == %@", UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!))
        #expect(result.memory == ["Crème Brûlée"] && result.sql == result.memory)
        result = try names(FetchPredicate("link == %@", URL(string: "https://example.com/creme")!))
        #expect(result.memory == ["Crème Brûlée"] && result.sql == result.memory)
        result = try names(FetchPredicate("photo == %@", Data([1, 2, 3])))
        #expect(result.memory == ["Crème Brûlée"] && result.sql == result.memory)
        result = try names(FetchPredicate("rating == %@", Optional<Double>.none as any Sendable))
        #expect(result.memory.count == 3 && result.sql == result.memory)
        result = try names(FetchPredicate("name == %@", "O'Brien's Hash"))
        #expect(result.memory == ["O'Brien's Hash"] && result.sql == result.memory)
        result = try names(FetchPredicate("name == %@", "x' OR 1=1 --"))
        #expect(result.memory.isEmpty && result.sql.isEmpty)
        result = try names(FetchPredicate("%K > %f", "chef.recipes.@avg.rating", 3.95))
        #expect(result.memory.count == 7 && result.sql == result.memory)
    }

    func plan(_ format: String, entity: String = "Recipe") throws -> [String] {
        let connection = try graph.makeDatabase()
        let checked = try FetchPredicate(format).checked(for: graph.model.entity(named: entity)!)
        let fragment = PredicateSQLCompiler.compile(checked, alias: "t0", dialect: .sqlite)
        let statement = try connection.makeStatement("SELECT t0._pk FROM \"\(entity)\" AS t0 WHERE \(fragment.sql)")
        return try statement.queryPlan(arguments: fragment.arguments)
    }

    @Test("Simple comparisons on a column use its index", arguments: [
        #"name == "Toast""#, #"name < "B""#, #"name >= "T""#, #"name BEGINSWITH "Cr""#, #"name BEGINSWITH[n] "Cr""#,
        #"name IN {"Toast", "Apple pie"}"#,
    ])
    func indexUse(format: String) throws {
        let lines = try plan(format)
        #expect(lines.contains { $0.contains("USING INDEX idx_Recipe_name") || $0.contains("USING COVERING INDEX idx_Recipe_name") },
                "\(format): \(lines)")
    }

    @Test("SELF IN uses the primary key")
    func primaryKeyUse() throws {
        let connection = try graph.makeDatabase()
        let ids = [recipe("Toast").evaluationObjectID, recipe("Apple pie").evaluationObjectID]
        let checked = try FetchPredicate("SELF IN %@", ids).checked(for: graph.model.entity(named: "Recipe")!)
        let fragment = PredicateSQLCompiler.compile(checked, alias: "t0", dialect: .sqlite)
        // Recipe's table holds no other entity, so the keys alone name the rows.
        #expect(fragment.sql == "(t0._pk IN (?, ?))")
        #expect(fragment.arguments == [.integer(recipe("Toast").key), .integer(recipe("Apple pie").key)])
        let lines = try connection.makeStatement("SELECT t0._pk FROM \"Recipe\" AS t0 WHERE \(fragment.sql)")
            .queryPlan(arguments: fragment.arguments)
        #expect(lines.contains { $0.contains("INTEGER PRIMARY KEY") }, "\(lines)")
    }

    @Test("Exact SQL and arguments", arguments: [
        (#"name BEGINSWITH "Cr""#, #"(t0."name" >= ? AND t0."name" < ?)"#,
         [StoredValue.text("Cr"), .text("Cs")]),
        ("rating != 3", #"(t0."rating" IS NOT ?)"#, [.integer(3)]),
        ("rating > 3", #"(t0."rating" > ?)"#, [.integer(3)]),
        (#"name ==[cd] "Crème""#, #"(og_fold(t0."name", 3) IS ?)"#, [.text("creme")]),
        (#"name CONTAINS "x""#, #"(instr(t0."name", ?) > 0)"#, [.text("x")]),
        (#"name LIKE[c] "x*""#, #"og_match(4, 1, t0."name", ?)"#, [.text("x*")]),
        (#"chef.name == "Ana""#, #"((SELECT h1."name" FROM "Chef" AS h1 WHERE h1._pk = t0."chef") IS ?)"#, [.text("Ana")]),
        ("ingredients.@count > 2",
         #"((SELECT count(*) FROM "Line" AS p1 WHERE p1."recipe" = t0._pk) > ?)"#, [.integer(2)]),
        // Under NOT, NULL and false differ: there the conditions are made two-valued.
        ("NOT rating > 3", #"NOT ((t0."rating" > ? AND t0."rating" IS NOT NULL))"#, [.integer(3)]),
        (#"NOT name CONTAINS "x""#, #"NOT (IFNULL(instr(t0."name", ?) > 0, 0))"#, [.text("x")]),
        (#"NOT (name BEGINSWITH "Cr" OR rating IN {1, 2})"#,
         #"NOT (((t0."name" >= ? AND t0."name" < ? AND t0."name" IS NOT NULL) OR (t0."rating" IN (?, ?) AND t0."rating" IS NOT NULL)))"#,
         [.text("Cr"), .text("Cs"), .integer(1), .integer(2)]),
        (#"ANY tags.name == "soup""#,
         #"EXISTS (SELECT 1 FROM "_join_Recipe_tags" AS j2 JOIN "Tag" AS p1 ON p1._pk = j2."_destination" WHERE j2."_source" = t0._pk AND (p1."name" IS ?))"#,
         [.text("soup")]),
        ("ALL ingredients.quantity > 1",
         #"NOT EXISTS (SELECT 1 FROM "Line" AS p1 WHERE p1."recipe" = t0._pk AND NOT ((p1."quantity" > ? AND p1."quantity" IS NOT NULL)))"#,
         [.integer(1)]),
        ("prepMinutes / 0 == nil", #"((CAST(t0."prepMinutes" AS REAL) / ?) IS NULL)"#, [.integer(0)]),
        // A chain of + and - keeps its grouping without parentheses inside: SQL reads it left to right.
        ("rating + rating - rating > 3", #"((t0."rating" + t0."rating" - t0."rating") > ?)"#, [.integer(3)]),
        ("rating + (rating - rating) * 2 > 3", #"((t0."rating" + ((t0."rating" - t0."rating") * ?)) > ?)"#,
         [.integer(2), .integer(3)]),
        // Up to eight terms an OR is flat; a longer one is a balanced tree of flat runs.
        ("rating == 1 OR rating == 2 OR rating == 3", #"((t0."rating" IS ?) OR (t0."rating" IS ?) OR (t0."rating" IS ?))"#,
         [.integer(1), .integer(2), .integer(3)]),
    ])
    func exactSQL(format: String, sql: String, arguments: [StoredValue]) throws {
        let checked = try FetchPredicate(format).checked(for: graph.model.entity(named: "Recipe")!)
        let fragment = PredicateSQLCompiler.compile(checked, alias: "t0", dialect: .sqlite)
        #expect(fragment.sql == sql)
        #expect(fragment.arguments == arguments)
    }

    @Test("An AND or OR chain longer than eight terms is a balanced tree of flat runs, its terms in order")
    func longChainSQL() throws {
        let entity = graph.model.entity(named: "Recipe")!
        let term = #"(t0."rating" IS ?)"#
        func runs(_ counts: [Int], _ separator: String) -> [String] {
            counts.map { "(" + Array(repeating: term, count: $0).joined(separator: separator) + ")" }
        }
        for separator in [" OR ", " AND "] {
            let nine = try FetchPredicate((1...9).map { "rating == \($0)" }.joined(separator: separator)).checked(for: entity)
            var fragment = PredicateSQLCompiler.compile(nine, alias: "t0", dialect: .sqlite)
            #expect(fragment.sql == "(" + runs([4, 5], separator).joined(separator: separator) + ")")
            #expect(fragment.arguments == (1...9).map { StoredValue.integer(Int64($0)) })
            let twenty = try FetchPredicate((1...20).map { "rating == \($0)" }.joined(separator: separator)).checked(for: entity)
            fragment = PredicateSQLCompiler.compile(twenty, alias: "t0", dialect: .sqlite)
            let halves = runs([5, 5, 5, 5], separator)
            #expect(fragment.sql == "((" + halves[0] + separator + halves[1] + ")" + separator + "(" + halves[2] + separator + halves[3] + "))")
            #expect(fragment.arguments == (1...20).map { StoredValue.integer(Int64($0)) })
        }
    }

    @Test("2,000 ORed or ANDed comparisons and 90-term sums run in SQLite and match the in-memory evaluator")
    func longChainsMatchTheEvaluator() throws {
        let backEnds = try BothBackEnds(graph)
        func run(_ format: String) throws -> (memory: Set<Int64>, sql: Set<Int64>) {
            let result = try backEnds.run(FetchPredicate(format), on: "Recipe")
            return (result.memory, result.sql)
        }
        let misses = (0..<2_000).map { "name == 'x\($0)'" }
        var result = try run((misses + ["name == 'Toast'", "rating > 4.6"]).joined(separator: " OR "))
        #expect(RecipeDataset.letters(result.memory, in: graph) == "DGJ" && result.sql == result.memory)
        result = try run((0..<2_000).map { "name != 'x\($0)'" }.joined(separator: " AND ") + " AND rating >= 4")
        #expect(RecipeDataset.letters(result.memory, in: graph) == "ADFG" && result.sql == result.memory)
        result = try run(Array(repeating: "rating", count: 90).joined(separator: " + ") + " > 315")
        #expect(RecipeDataset.letters(result.memory, in: graph) == "ADFG" && result.sql == result.memory)
        // Summed left to right in both, as written: 0.1 added 90 times is not 9, and a
        // regrouped sum would miss the one value the evaluator's order gives.
        let sum = (0..<90).reduce(0.0) { total, _ in total + 0.1 }
        #expect(sum != 9)
        result = try run(Array(repeating: "prepMinutes * 0.1", count: 90).joined(separator: " + ") + " == \(sum)")
        #expect(RecipeDataset.letters(result.memory, in: graph) == "J" && result.sql == result.memory)
        result = try run(Array(repeating: "rating", count: 90).joined(separator: " - ") + " < -308")
        #expect(RecipeDataset.letters(result.memory, in: graph) == "ADFG" && result.sql == result.memory)
    }

    @Test("Key paths for sorting compile to scalar SQL and read in memory")
    func keyPaths() throws {
        let recipeEntity = graph.model.entity(named: "Recipe")!
        let fragment = try PredicateSQLCompiler.compileKeyPath(["chef", "name"], entity: recipeEntity, alias: "t0", dialect: .sqlite)
        #expect(fragment.sql == #"(SELECT h1."name" FROM "Chef" AS h1 WHERE h1._pk = t0."chef")"#)
        #expect(try PredicateSQLCompiler.compileKeyPath(["rating"], entity: recipeEntity, alias: "t0", dialect: .sqlite).sql == #"t0."rating""#)
        #expect(throws: ObjectGraphError.self) { try PredicateSQLCompiler.compileKeyPath(["chef"], entity: recipeEntity, alias: "t0", dialect: .sqlite) }
        let toMany = try #require(throws: ObjectGraphError.self) {
            try PredicateSQLCompiler.compileKeyPath(["tags", "name"], entity: recipeEntity, alias: "t0", dialect: .sqlite)
        }
        #expect(toMany.message.hasPrefix("'tags.name' goes through 'tags', a to-many relationship of 'Recipe'"), "\(toMany.message)")
        #expect(throws: PredicateSyntaxError.self) { try PredicateSQLCompiler.compileKeyPath(["chef", "nmae"], entity: recipeEntity, alias: "t0", dialect: .sqlite) }
        #expect(recipe("Toast").value(atKeyPath: ["chef", "name"]) == .null)
        #expect(recipe("Apple pie").value(atKeyPath: ["chef", "name"]) == .text("Ana"))
        #expect(recipe("Apple pie").value(atKeyPath: ["prepMinutes"]) == .integer(15))
        // Sorting by chef.name in SQL orders like sorting in memory.
        let connection = try graph.makeDatabase()
        let rows = try connection.rows("SELECT t0._pk FROM \"Recipe\" AS t0 ORDER BY \(fragment.sql), t0._pk")
        let sqlOrder = rows.map { row -> Int64 in if case .integer(let key) = row[0] { return key }; return -1 }
        let memoryOrder = graph.objects(of: "Recipe").sorted {
            let order = StoredOrdering.compare($0.value(atKeyPath: ["chef", "name"]), $1.value(atKeyPath: ["chef", "name"]))
            return order != 0 ? order < 0 : $0.key < $1.key
        }.map(\.key)
        #expect(sqlOrder == memoryOrder)
    }

    @Test("Registered functions fold like Swift")
    func functions() throws {
        let connection = try graph.makeDatabase()
        let rows = try connection.rows("SELECT og_canonical(?), og_fold(?, 1), og_fold(?, 2), og_fold(NULL, 3), og_match(5, 1, ?, ?)",
                                       [.text("Crème Brûlée"), .text("Straße"), .text("Ǆemal"), .text("Toast"), .text("t.*")])
        #expect(rows == [[.text("creme brulee"), .text("strasse"), .text("DZemal"), .null, .integer(1)]])
    }

    @Test("Folding follows Foundation", arguments: [
        ("Crème Brûlée", "creme brulee"), ("ǅemal", "dzemal"), ("Straße", "strasse"), ("Σίσυφος", "σισυφοσ"),
        ("İstanbul", "istanbul"), ("ışık", "ısık"), ("ﬁne", "fine"), ("ℌello", "hello"), ("TOAST", "toast"),
        ("e\u{301}", "e"),
    ])
    func folding(text: String, expected: String) {
        #expect(text.canonicalFolded() == expected)
        #expect(text.canonicalFolded().canonicalFolded() == expected)
    }

    @Test("The successor of a prefix bounds exactly the strings that start with it")
    func successor() {
        typealias C = PredicateSQLCompiler.Compiler
        #expect(C.successor(of: "Cr") == "Cs")
        #expect(C.successor(of: "a\u{D7FF}") == "a\u{E000}")
        #expect(C.successor(of: "a\u{10FFFF}") == "b")
        #expect(C.successor(of: "\u{10FFFF}") == nil)
    }
}

@Suite("Predicate edge values")
struct PredicateEdgeValueTests {
    @Test("NaN, infinity and huge integers agree in both back ends")
    func edgeValues() throws {
        let graph = RecipeDataset.make()
        let backEnds = try BothBackEnds(graph)
        for (format, argument) in [("rating == %@", Double.nan), ("rating != %@", Double.nan), ("rating < %@", Double.infinity),
                                   ("rating > %@", -Double.infinity), ("prepMinutes * %@ > 0", Double.greatestFiniteMagnitude)]
            as [(String, Double)] {
            let result = try backEnds.run(FetchPredicate(format, argument), on: "Recipe")
            #expect(result.memory == result.sql, "\(format) with \(argument)")
        }
        for format in ["prepMinutes * 9223372036854775807 > 0", "prepMinutes + 9223372036854775807 > 0",
                       "-(prepMinutes - 9223372036854775807 - 2) > 0", "prepMinutes < 9223372036854775808",
                       "rating * 1e308 * 10 > 0", "rating * 1e308 * 10 - rating * 1e308 * 10 == nil"] {
            let result = try backEnds.run(FetchPredicate(format), on: "Recipe")
            #expect(result.memory == result.sql, "\(format)")
        }
    }
}
