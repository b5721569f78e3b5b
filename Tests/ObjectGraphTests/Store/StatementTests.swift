import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// The exact statements whole operations run, captured through the store's trace: a fetch
/// runs the statement `explain` shows, and faults, prefetches, saves and batch deletes run
/// the statements pinned here, no more.
@MainActor
struct StatementTests {
    let context: MainContext
    let store: SQLiteStore
    let log = StatementLog()

    init() throws {
        context = MainContext(coordinator: try TestModel.coordinator())
        store = context.coordinator.sqliteStore
        let chef = try context.insert("Chef")
        chef["name"] = "Ada"
        for (index, name) in ["Soup", "Stew"].enumerated() {
            let recipe = try context.insert("Recipe")
            recipe["name"] = name
            recipe["rating"] = Double(index + 3)
            recipe["chef"] = chef
        }
        try context.save()
        context.reset()
    }

    /// The SQL of every statement `body` runs, in order.
    func statements(_ body: () throws -> Void) rethrows -> [String] {
        log.lines.withLock { $0.removeAll() }
        store.setSQLDebugLevel(.statements, includesTimings: false) { [log] line in
            if line.hasPrefix("sql: ") { log.lines.withLock { $0.append(String(line.dropFirst(5))) } }
        }
        defer { store.setSQLDebugLevel(.off) { _ in } }
        try body()
        return log.lines.withLock { $0 }
    }

    @Test("Each fetch method runs exactly the statement explain shows for it")
    func fetchesRunWhatExplainShows() throws {
        var request = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("rating >= 3 AND chef.name ==[c] 'ada'"),
                                   sortKeys: [SortKey("chef.name"), SortKey("name", ascending: false)])
        request.fetchLimit = 10
        request.returnsObjectsAsFaults = false
        for type in [FetchResultType.objects, .objectIDs, .count, .dictionaries] {
            let explained = try context.explain(request, resultType: type).sql
            let ran = try statements {
                switch type {
                case .objects: _ = try context.fetch(request)
                case .objectIDs: _ = try context.fetchObjectIDs(request)
                case .count: _ = try context.count(for: request)
                case .dictionaries: _ = try context.fetchDictionaries(request)
                }
            }
            #expect(ran == [explained], "\(type)")
        }
    }

    @Test("A fault fires one statement by key; a prefetch one statement per level")
    func faultsAndPrefetches() throws {
        let ids = try context.fetchObjectIDs(FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")]))
        let fault = context.object(with: ids[0])
        #expect(statements { _ = fault["name"] } == [
            #"SELECT t0."_pk", t0."name", t0."servings", t0."rating", t0."published", t0."vegetarian", t0."chef", t0."_opt" FROM "Recipe" AS t0 WHERE t0."_pk" = ?"#,
        ])
        context.reset()
        var request = FetchRequest(entityName: "Recipe")
        request.relationshipKeyPathsForPrefetching = ["chef"]
        request.returnsObjectsAsFaults = false
        #expect(try statements { _ = try context.fetch(request) } == [
            #"SELECT t0."_pk", t0."name", t0."servings", t0."rating", t0."published", t0."vegetarian", t0."chef", t0."_opt" FROM "Recipe" AS t0"#,
            #"SELECT t0."_pk", t0."name", t0."_opt" FROM "Chef" AS t0 WHERE t0."_pk" IN (SELECT value FROM json_each(?)) ORDER BY t0."_pk""#,
        ])
    }

    @Test("A save runs one transaction, one statement per row; the keys follow the writer's last save, read from nowhere")
    func saveStatements() throws {
        let chef = try context.insert("Chef")
        chef["name"] = "Bo"
        let recipe = try context.insert("Recipe")
        recipe["name"] = "Pie"
        recipe["chef"] = chef
        let ran = try statements { try context.save() }.map(oneLine)
        #expect(ran == [
            "BEGIN IMMEDIATE",
            // The entity's number is part of each entity's INSERT: one value fewer to bind.
            #"INSERT INTO "Chef" ("_pk", "_ent", "name") VALUES (?, 0, ?)"#,
            #"INSERT INTO "Recipe" ("_pk", "_ent", "name", "servings", "rating", "published", "vegetarian", "chef") VALUES (?, 1, ?, ?, ?, ?, ?, ?)"#,
            "COMMIT",
        ])
    }

    @Test("The statement cache keeps at most its capacity; numbered statements and fetches still work past it")
    func statementCacheIsBounded() throws {
        let capacity = SQLiteConnection.statementCacheCapacity
        let count = try store.pool.write { connection in
            for length in 1...(capacity + 100) {
                let statement = try connection.cachedStatement("SELECT " + Array(repeating: "1", count: length).joined(separator: ", "))
                var last: Int64 = 0
                try statement.forEachRow { last = $0.int64(at: length - 1) }
                #expect(last == 1)
            }
            return connection.cachedStatementCount
        }
        #expect(count == capacity)
        // The writer's numbered statements (BEGIN, COMMIT, each table's INSERT) outlive eviction.
        let chef = try context.insert("Chef")
        chef["name"] = "After the cache filled"
        try context.save()
        let names = try context.fetch(FetchRequest(entityName: "Chef", predicate: try FetchPredicate("name IN %@", ["After the cache filled", "x"])))
        #expect(names.count == 1)
    }

    @Test("Saves whose rows alternate tables write each row into its table, and later saves prepare nothing new")
    func alternatingRowsReuseTheirStatements() throws {
        func insertPair(_ index: Int) throws {
            let chef = try context.insert("Chef")
            chef["name"] = "Chef \(index)"
            let recipe = try context.insert("Recipe")
            recipe["name"] = "Dish \(index)"
            recipe["chef"] = chef
        }
        try insertPair(1)
        try insertPair(2)
        try context.save()
        let prepared = store.pool.write { $0.cachedStatementCount }
        let ran = try statements {
            try insertPair(3)
            try insertPair(4)
            try context.save()
        }.map(oneLine)
        #expect(store.pool.write { $0.cachedStatementCount } == prepared)
        #expect(ran.first == "BEGIN IMMEDIATE" && ran.last == "COMMIT" && ran.count == 6)
        #expect(ran.filter { $0.hasPrefix(#"INSERT INTO "Chef""#) }.count == 2)
        #expect(ran.filter { $0.hasPrefix(#"INSERT INTO "Recipe""#) }.count == 2)
        context.reset()
        let dishes = try context.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name BEGINSWITH 'Dish'")))
        let pairs = dishes.map { "\($0["name"] as! String) by \(($0["chef"] as! ManagedObject)["name"] as! String)" }
        #expect(Set(pairs) == Set((1...4).map { "Dish \($0) by Chef \($0)" }))
    }

    @Test("A large save inserts each table's rows fifty to a statement, and what is left a row at a time")
    func largeSavesInsertManyRowsPerStatement() throws {
        for index in 0..<120 {
            let chef = try context.insert("Chef")
            chef["name"] = "Chef \(index)"
            let recipe = try context.insert("Recipe")
            recipe["name"] = "Dish \(index)"
            recipe["rating"] = Double(index)
            recipe["chef"] = chef
        }
        let ran = try statements { try context.save() }.map(oneLine)
        let chefRow = "(?, 0, ?)", recipeRow = "(?, 1, ?, ?, ?, ?, ?, ?)"
        let manyChefs = #"INSERT OR FAIL INTO "Chef" ("_pk", "_ent", "name") VALUES "#
            + Array(repeating: chefRow, count: 50).joined(separator: ", ")
        let manyRecipes = #"INSERT OR FAIL INTO "Recipe" ("_pk", "_ent", "name", "servings", "rating", "published", "vegetarian", "chef") VALUES "#
            + Array(repeating: recipeRow, count: 50).joined(separator: ", ")
        #expect(ran.first == "BEGIN IMMEDIATE" && ran.last == "COMMIT" && ran.count == 2 + 4 + 40)
        #expect(ran.filter { $0 == manyChefs }.count == 2 && ran.filter { $0 == manyRecipes }.count == 2)
        #expect(ran.filter { $0.hasSuffix("VALUES \(chefRow)") }.count == 20)
        #expect(ran.filter { $0.hasSuffix("VALUES \(recipeRow)") }.count == 20)

        context.reset()
        let dishes = try context.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("name BEGINSWITH 'Dish'")))
        let rows = dishes.map { "\($0["name"] as! String) by \(($0["chef"] as! ManagedObject)["name"] as! String) at \($0["rating"] as! Double)" }
        #expect(Set(rows) == Set((0..<120).map { "Dish \($0) by Chef \($0) at \(Double($0))" }))
        #expect(Set(dishes.map(\.objectID.key)).count == 120)
    }

    @Test("Sub-entities that share a table go in fifty to a statement each, under their own entity, with blobs intact")
    func largeSavesOfSubentities() throws {
        let recipe = try #require(try context.fetch(FetchRequest(entityName: "Recipe")).first)
        for index in 0..<60 {
            let photo = try context.insert("Photo")
            photo["caption"] = "photo \(index)"
            photo["bytes"] = Data(repeating: UInt8(index), count: 200 + index)  // past the statement's scratch space
            photo["recipe"] = recipe
            let video = try context.insert("Video")
            video["caption"] = "video \(index)"
            video["seconds"] = Double(index)
            video["recipe"] = recipe
        }
        let ran = try statements { try context.save() }.map(oneLine)
        #expect(ran.filter { $0.hasPrefix(#"INSERT OR FAIL INTO "Media""#) }.count == 2)
        #expect(ran.filter { $0.hasPrefix(#"INSERT INTO "Media""#) }.count == 20)
        context.reset()
        let media = try context.fetch(FetchRequest(entityName: "Media"))
        let photos = media.filter { $0.entity.name == "Photo" }, videos = media.filter { $0.entity.name == "Video" }
        #expect(photos.count == 60 && videos.count == 60)
        #expect(Set(photos.map { "\($0["caption"] as! String) \(($0["bytes"] as! Data).count) \(($0["bytes"] as! Data).first!)" })
                == Set((0..<60).map { "photo \($0) \(200 + $0) \($0)" }))
        #expect(Set(videos.map { "\($0["caption"] as! String) \($0["seconds"] as! Double)" }) == Set((0..<60).map { "video \($0) \(Double($0))" }))
        #expect(media.allSatisfy { ($0["recipe"] as? ManagedObject)?.objectID == recipe.objectID })
    }

    @Test("An update writes the changed columns only if the row is still at the version it was loaded at")
    func updateStatement() throws {
        let recipe = try #require(try context.fetch(FetchRequest(entityName: "Recipe", sortKeys: [SortKey("name")])).first)
        recipe["rating"] = 4.5
        #expect(try statements { try context.save() } == [
            "BEGIN IMMEDIATE",
            #"UPDATE "Recipe" SET "rating" = ?, "_opt" = "_opt" + 1 WHERE "_pk" = ? AND "_opt" = ?"#,
            "COMMIT",
        ])
    }

    @Test("A save deletes each run of four or more consecutive keys by range, the rest by one key list, and keeps the rows between")
    func saveDeletesRunsOfKeysByRange() throws {
        for index in 0..<20 { try context.insert("Chef")["name"] = "Chef \(index)" }
        try context.save()
        let chefs = try context.fetch(FetchRequest(entityName: "Chef", predicate: try FetchPredicate("name BEGINSWITH 'Chef '")))
            .sorted { $0.objectID.key < $1.objectID.key }
        let keys = chefs.map(\.objectID.key)
        try #require(keys == Array(keys[0]...keys[0] + 19), "the new chefs' keys are consecutive")
        // Runs of 5 and 8 go by range; 1 and 2 consecutive keys join the key list.
        let doomed = [1, 2, 3, 4, 5, 7, 9, 10] + Array(12...19)
        for position in doomed.reversed() { context.delete(chefs[position]) }
        let ran = try statements { try context.save() }.map(oneLine)
        #expect(ran == [
            // The deny rule on the chefs' recipes, checked for all of them at once.
            #"SELECT t0."_pk", t0."name", t0."servings", t0."rating", t0."published", t0."vegetarian", t0."chef", t0."_opt" FROM "Recipe" AS t0 WHERE t0."chef" IN (SELECT value FROM json_each(?)) ORDER BY t0."chef", t0."_pk""#,
            "BEGIN IMMEDIATE",
            recordHighestKey("Chef"),
            #"DELETE FROM "Chef" WHERE "_pk" BETWEEN ? AND ?"#,
            #"DELETE FROM "Chef" WHERE "_pk" BETWEEN ? AND ?"#,
            #"DELETE FROM "Chef" WHERE "_pk" IN (SELECT value FROM json_each(?))"#,
            "COMMIT",
        ])
        context.reset()
        let left = try context.fetch(FetchRequest(entityName: "Chef", predicate: try FetchPredicate("name BEGINSWITH 'Chef '")))
        #expect(Set(left.map { $0["name"] as! String }) == Set([0, 6, 8, 11].map { "Chef \($0)" }))
        #expect(try context.count(for: FetchRequest(entityName: "Chef")) == 5)
    }

    @Test("A save checks the deny rules of many deleted objects with one statement, and still refuses when one holds objects")
    func denyRulesCheckedTogether() throws {
        for index in 0..<5 { try context.insert("Chef")["name"] = "Chef \(index)" }
        try context.save()
        let chefs = try context.fetch(FetchRequest(entityName: "Chef"))
        #expect(chefs.count == 6)
        for chef in chefs { context.delete(chef) }
        var error: ObjectGraphError?
        let ran = statements {
            do { try context.save() } catch let thrown as ObjectGraphError { error = thrown } catch {}
        }
        #expect(ran.count == 1 && ran[0].contains(#"WHERE t0."chef" IN (SELECT value FROM json_each(?))"#), "\(ran)")
        // Ada (the fixture's chef) still has her two recipes.
        #expect(error?.message.contains("cannot delete Chef 'Ada': 'recipes' denies deletion while it holds 2 Recipe objects") == true,
                "\(String(describing: error))")
    }

    @Test("A batch delete selects the keys once and deletes by key, following the delete rules, after recording the largest key")
    func batchDeleteStatements() throws {
        let ran = try statements {
            try context.execute(BatchDeleteRequest(entityName: "Recipe", predicate: try FetchPredicate("rating > 3")))
        }
        #expect(ran == [
            "BEGIN IMMEDIATE",
            #"SELECT t0."_pk" FROM "Recipe" AS t0 WHERE ((t0."rating" > ?))"#,
            // Lines have no rules of their own to apply: they go by their reference to the
            // recipes, and SQLite's update hook tells their keys as the statement runs.
            recordHighestKey("Line"),
            #"DELETE FROM "Line" AS t0 WHERE t0."recipe" IN (SELECT value FROM json_each(?))"#,
            #"DELETE FROM "_join_Recipe_tags" WHERE "_source" IN (SELECT value FROM json_each(?))"#,
            // Media's table holds Photo and Video, whose entities the hook does not tell.
            #"SELECT t0."_pk", t0."_ent" FROM "Media" AS t0 WHERE t0."recipe" IN (SELECT value FROM json_each(?))"#,
            recordHighestKey("Recipe"),
            #"DELETE FROM "Recipe" WHERE "_pk" IN (SELECT value FROM json_each(?))"#,
            "COMMIT",
        ])
    }

    @Test("Rows a batch delete finds by a condition go by that condition: cascaded rows by their reference, all rows of a table at once, and the rules find them by a subquery")
    func batchDeleteByCondition() throws {
        let recipes = try context.fetch(FetchRequest(entityName: "Recipe"))
        for (index, recipe) in recipes.enumerated() {
            for position in 0..<3 {
                let line = try context.insert("Line")
                line["text"] = "step \(position)"
                line["position"] = Int64(position)
                line["recipe"] = recipe
            }
            let media = try context.insert(index == 0 ? "Photo" : "Video")
            media["recipe"] = recipe
        }
        try context.save()
        context.reset()
        var result = BatchResult()
        let lines = Set(try context.fetch(FetchRequest(entityName: "Line")).map(\.objectID))
        #expect(lines.count == 6)
        context.reset()
        let ran = try statements { result = try context.execute(BatchDeleteRequest(entityName: "Recipe")) }
        #expect(ran == [
            "BEGIN IMMEDIATE",
            #"SELECT t0."_pk" FROM "Recipe" AS t0"#,
            // Every recipe goes, and no rule changes which: the rules find them by a subquery.
            // The lines go by it, their keys collected as they go; the media's keys are read
            // first, by a join, as their table holds two entities.
            recordHighestKey("Line"),
            #"DELETE FROM "Line" AS t0 WHERE t0."recipe" IN (SELECT d."_pk" FROM "Recipe" AS d)"#,
            #"DELETE FROM "_join_Recipe_tags" WHERE "_source" IN (SELECT d."_pk" FROM "Recipe" AS d)"#,
            #"SELECT t0."_pk", t0."_ent" FROM "Media" AS t0 JOIN "Recipe" AS d ON d."_pk" = t0."recipe""#,
            recordHighestKey("Media"),
            #"DELETE FROM "Media" AS t0 WHERE t0."recipe" IN (SELECT d."_pk" FROM "Recipe" AS d)"#,
            recordHighestKey("Recipe"),
            #"DELETE FROM "Recipe" AS t0"#,
            "COMMIT",
        ])
        let deleted = Dictionary(grouping: result.deletedIDs) { context.coordinator.model.entities[Int($0.entityIndex)].name }
            .mapValues(\.count)
        #expect(deleted == ["Recipe": 2, "Line": 6, "Photo": 1, "Video": 1])
        #expect(Set(result.deletedIDs.filter { lines.contains($0) }).count == 6, "every line's own ID, listed")
        for entity in ["Recipe", "Line", "Media"] {
            #expect(try context.count(for: FetchRequest(entityName: entity)) == 0, "\(entity)")
        }
        #expect(try context.count(for: FetchRequest(entityName: "Chef")) == 1)
    }

    /// The statement that records a table's largest key before rows are deleted from it.
    func recordHighestKey(_ table: String) -> String {
        #"INSERT INTO "_primarykeys" ("name", "max") VALUES (?1, (SELECT coalesce(max("_pk"), 0) FROM "\#(table)")) "#
            + #"ON CONFLICT("name") DO UPDATE SET "max" = max("max", excluded."max")"#
    }

    /// A statement with its line breaks and indentation folded to single spaces.
    func oneLine(_ sql: String) -> String {
        sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}

/// The statements a trace reported, shared with the trace's handler.
final class StatementLog: Sendable {
    let lines = Locked<[String]>([])
}
