import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphPostgres
import ObjectGraphSQLite

/// What only a database server shows: connection errors, several coordinators (processes)
/// on one store, notifications between them, and a connection lost during a save. The
/// store's behaviour as a store is proven by the tests parameterized by ``StoreKind``.
@MainActor
struct PostgresStoreTests {
    @Test("URLs: user, host, port and database are read; a password in the URL is refused")
    func urls() throws {
        let location = try PostgresLocation(url: "postgres://og@db.example:6543/kitchen", environment: ["PGPASSWORD": "secret"])
        #expect(location.user == "og" && location.host == "db.example" && location.port == 6543 && location.database == "kitchen")
        #expect(location.password == "secret" && !location.description.contains("secret"))
        #expect(try PostgresLocation(url: "postgresql://og@db/kitchen", environment: [:]).port == 5432)
        #expect(try PostgresLocation(url: "PostgreSQL://og@db/kitchen", environment: [:]).database == "kitchen")  // schemes ignore case
        for (url, problem) in [("postgres://og:secret@db/kitchen", "holds a password"), ("postgres://db/kitchen", "no user"),
                               ("postgres://og@db", "no database"), ("mysql://og@db/kitchen", "not a PostgreSQL URL")] {
            let error = try #require(throws: ObjectGraphError.self) { try PostgresLocation(url: url, environment: [:]) }
            #expect(error.message.contains(problem), "\(url): \(error.message)")
            #expect(!error.message.contains("secret"))
        }
    }

    @Test("A URL with a typo says which part is wrong, and never repeats a password written in it")
    func urlTypos() throws {
        for (url, problem) in [
            ("postgres://og:secret@db:54x29/kitchen", "holds a password"),  // once quoted whole, password and all
            ("postgres://og@db:54x29/kitchen", "port '54x29' is not a number"),
            ("postgres://og@db:99999/kitchen", "port 99999 is not a TCP port"),
            ("postgres://og@db/kitchen/extra", "path '/kitchen/extra' is not one database name"),
            ("postgres://og@db/kitchen?sslmode=require", "options (?sslmode=require) are not supported"),
        ] {
            let error = try #require(throws: ObjectGraphError.self) { try PostgresLocation(url: url, environment: [:]) }
            #expect(error.message.contains(problem), "\(url): \(error.message)")
            #expect(!error.message.contains("secret"))
        }
    }

    @Test("The SQLite and PostgreSQL stores take one MigrationOptions: SQLiteStore.Options holds it, PostgresStore.Options is it")
    func sharedMigrationOptions() throws {
        var migration = MigrationOptions()
        migration.shouldMigrateStoreAutomatically = true
        migration.sourceModels = [try TestModel.make()]
        var sqlite = SQLiteStore.Options()
        sqlite.migration = migration
        #expect(sqlite.shouldMigrateStoreAutomatically && sqlite.sourceModels.count == 1 && sqlite.shouldInferMappingModelAutomatically)
        sqlite.shouldInferMappingModelAutomatically = false  // each field by its own name, as before
        #expect(!sqlite.migration.shouldInferMappingModelAutomatically)
        let postgres: PostgresStore.Options = migration
        #expect(postgres.shouldMigrateStoreAutomatically && postgres.sourceModels.count == 1)
    }

    @Test("An unreachable server, a wrong password and a missing database each get a clear error",
          .enabled(if: PostgresTestServer.isAvailable))
    func connectionErrors() throws {
        let model = try TestModel.make()
        var location = PostgresTestServer.newLocation()
        location.password = "wrong"
        var error = try #require(throws: ObjectGraphError.self) { try PostgresStore(location: location, model: model) }
        #expect(error.message.contains("refused user 'og': wrong password"), "\(error.message)")
        #expect(!error.message.contains("wrong\""))
        location = PostgresTestServer.newLocation()
        location.database = "no_such_catalogue"
        error = try #require(throws: ObjectGraphError.self) { try PostgresStore(location: location, model: model) }
        #expect(error.message.contains("has no database 'no_such_catalogue'"), "\(error.message)")
        location = PostgresTestServer.newLocation()
        location.port = 1  // nothing listens there
        error = try #require(throws: ObjectGraphError.self) { try PostgresStore(location: location, model: model) }
        #expect(error.message.contains("cannot reach the PostgreSQL server at \(location.host):1"), "\(error.message)")
    }

    @Test("An open that made a schema and then failed before its tables existed drops the schema; one made beforehand stays",
          .enabled(if: PostgresTestServer.isAvailable))
    func failedOpenDropsItsSchema() throws {
        let location = PostgresTestServer.newLocation()
        let admin = try PostgresSession(PostgresTestServer.database!)
        func schemas() throws -> Int {
            try admin.run("SELECT 1 FROM pg_namespace WHERE nspname = $1", [.text(location.schema)]).rows.count
        }
        // The server refuses every CREATE TABLE in this store's schema (and only there).
        let refuse = "og_refuse_" + location.schema
        try admin.run("""
            CREATE FUNCTION "\(refuse)"() RETURNS event_trigger LANGUAGE plpgsql AS $$ BEGIN
            IF current_schema() = '\(location.schema)' THEN RAISE EXCEPTION 'no tables here'; END IF; END $$
            """)
        try admin.run("CREATE EVENT TRIGGER \"\(refuse)\" ON ddl_command_start WHEN TAG IN ('CREATE TABLE') EXECUTE FUNCTION \"\(refuse)\"()")
        defer {
            _ = try? admin.run("DROP EVENT TRIGGER \"\(refuse)\"")
            _ = try? admin.run("DROP FUNCTION \"\(refuse)\"()")
        }
        let model = try TestModel.make()
        let error = try #require(throws: ObjectGraphError.self) {
            try PersistentStoreCoordinator(model: model).addPostgresStore(at: location)
        }
        #expect(error.code == .storeFailure && error.message.contains("no tables here"), "\(error.message)")
        #expect(try schemas() == 0, "the schema the failed open made is left behind")

        try admin.run("CREATE SCHEMA \"\(location.schema)\"")
        #expect(throws: ObjectGraphError.self) { try PersistentStoreCoordinator(model: model).addPostgresStore(at: location) }
        #expect(try schemas() == 1, "the schema made beforehand is dropped")
    }

    @Test("A model with a name PostgreSQL would cut to 63 bytes is refused before connecting, naming it and the identifier; SQLite takes it")
    func longIdentifiers() throws {
        // Two entity names that agree in their first 63 bytes: PostgreSQL would make them one table.
        let long = "Long" + String(repeating: "x", count: 70)
        let entities = try ObjectModel(entities: [EntityDescription(long + "A", attributes: [AttributeDescription("name", .string)]),
                                                  EntityDescription(long + "B", attributes: [AttributeDescription("name", .string)])])
        // Nothing listens on port 1: an error about connecting would mean the model was not checked first.
        let nowhere = try PostgresLocation(url: "postgres://og@127.0.0.1:1/catalogue", environment: [:])
        var error = try #require(throws: ObjectGraphError.self) { try PostgresStore(location: nowhere, model: entities) }
        #expect(error.code == .invalidModel, "\(error.message)")
        #expect(error.message.contains("entity '\(long)A' makes the table name '\(long)A' (75 bytes)")
                && error.message.contains("entity '\(long)B'") && error.message.contains("63 bytes"), "\(error.message)")

        // A name under the limit whose index name is over it.
        let attribute = "a" + String(repeating: "b", count: 55)
        let indexed = try ObjectModel(entities: [EntityDescription("Chef", attributes: [AttributeDescription(attribute, .string, isIndexed: true)])])
        error = try #require(throws: ObjectGraphError.self) { try PostgresStore(location: nowhere, model: indexed) }
        #expect(error.message.contains("attribute 'Chef.\(attribute)' makes the index name '_index_Chef_\(attribute)' (68 bytes)"),
                "\(error.message)")
        #expect(!error.message.contains("column name"), "\(error.message)")
        let moving = PersistentStoreCoordinator(model: indexed)
        let sqlite = try moving.addStore(at: ":memory:")
        error = try #require(throws: ObjectGraphError.self) { try moving.migrateStore(sqlite, to: nowhere) }
        #expect(error.code == .invalidModel && moving.stores[0] === sqlite, "\(error.message)")

        // Two parts of the model that make one index name are refused before connecting, too.
        let colliding = try ObjectModel(entities: [EntityDescription("Recipe", attributes: [
            AttributeDescription("chef", .string), AttributeDescription("name", .string),
            AttributeDescription("chef_name", .string, isIndexed: true),
        ], indexes: [["chef", "name"]])])
        error = try #require(throws: ObjectGraphError.self) { try PostgresStore(location: nowhere, model: colliding) }
        #expect(error.code == .invalidModel && error.message.contains("both make the index name '_index_Recipe_chef_name'"),
                "\(error.message)")

        // SQLite has no such limit.
        let coordinator = PersistentStoreCoordinator(model: entities)
        try coordinator.addStore(at: ":memory:")
        let context = MainContext(coordinator: coordinator)
        try context.insert(long + "A")["name"] = "a"
        try context.insert(long + "B")["name"] = "b"
        try context.save()
        #expect(try MainContext(coordinator: coordinator).count(for: FetchRequest(entityName: long + "B")) == 1)
    }

    @Test("An open whose listening connection the server refuses drops the tables, or the schema, it made",
          .enabled(if: PostgresTestServer.isAvailable))
    func failedListeningDropsWhatOpeningMade() throws {
        let database = PostgresTestServer.database!
        let admin = try PostgresSession(database)
        // A role with two connections: the store's writer and reader; its listener is refused.
        let role = "og_two_" + UUID().uuidString.prefix(8).lowercased()
        try admin.run("CREATE ROLE \"\(role)\" LOGIN PASSWORD 'two' CONNECTION LIMIT 2")
        try admin.run("GRANT CREATE ON DATABASE \"\(database.database)\" TO \"\(role)\"")
        defer {
            _ = try? admin.run("DROP OWNED BY \"\(role)\" CASCADE")
            _ = try? admin.run("DROP ROLE \"\(role)\"")
        }
        var location = PostgresTestServer.newLocation()
        location.user = role
        location.password = "two"
        let schema = [StoredValue.text(location.schema)]
        func schemas() throws -> Int { try admin.run("SELECT 1 FROM pg_namespace WHERE nspname = $1", schema).rows.count }
        func tables() throws -> Int { try admin.run("SELECT 1 FROM pg_tables WHERE schemaname = $1", schema).rows.count }
        /// Waits until the role's connections of the last try have closed (they close as the store is released).
        func awaitNoConnections() throws {
            var tries = 0
            while try !admin.run("SELECT 1 FROM pg_stat_activity WHERE usename = $1", [.text(role)]).rows.isEmpty, tries < 600 {
                usleep(50_000)
                tries += 1
            }
        }
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())

        var error = try #require(throws: ObjectGraphError.self) { try coordinator.addPostgresStore(at: location) }
        #expect(error.message.contains("too many connections"), "\(error.message)")
        #expect(try schemas() == 0, "the schema the failed open made is left behind")
        #expect(coordinator.stores.isEmpty)

        try admin.run("CREATE SCHEMA \"\(location.schema)\" AUTHORIZATION \"\(role)\"")
        try awaitNoConnections()
        error = try #require(throws: ObjectGraphError.self) { try coordinator.addPostgresStore(at: location) }
        #expect(error.message.contains("too many connections"), "\(error.message)")
        #expect(try schemas() == 1 && tables() == 0, "the schema made beforehand stays, without the tables the open made")

        // Once the role may listen, the same location opens.
        try admin.run("ALTER ROLE \"\(role)\" CONNECTION LIMIT 3")
        try awaitNoConnections()
        let store = try coordinator.addPostgresStore(at: location)
        #expect(store.createdTables && store.listeners.withLock { $0.count } == 1)
    }

    /// Two coordinators on one store, as two processes would have.
    private func twoCoordinators() throws -> (PersistentStoreCoordinator, PersistentStoreCoordinator) {
        let location = PostgresTestServer.newLocation()
        let model = try TestModel.make()
        let first = PersistentStoreCoordinator(model: model), second = PersistentStoreCoordinator(model: model)
        try first.addPostgresStore(at: location)
        try second.addPostgresStore(at: location)
        return (first, second)
    }

    @Test("A save in one coordinator reaches the other's did-save subscribers; a stale save there conflicts",
          .enabled(if: PostgresTestServer.isAvailable))
    func notificationsAndConflicts() async throws {
        let (first, second) = try twoCoordinators()
        let (stream, continuation) = AsyncStream.makeStream(of: DidSave.self)
        let observation = second.addDidSaveObserver { continuation.yield($0) }
        defer { observation.cancel() }
        let writer = MainContext(coordinator: first)
        let chef = try writer.insert("Chef")
        chef["name"] = "Ana"
        try writer.save()
        var notes = stream.makeAsyncIterator()
        let inserted = try #require(await notes.next())
        #expect(inserted.insertedIDs == [chef.objectID] && inserted.origin == nil)

        let reader = MainContext(coordinator: second)
        reader.automaticallyMergesChanges = true
        let theirs = try #require(try reader.fetch(FetchRequest(entityName: "Chef")).first)
        #expect(theirs["name"] as? String == "Ana")
        let stale = MainContext(coordinator: second)
        let mine = try #require(try stale.fetch(FetchRequest(entityName: "Chef")).first)
        _ = mine["name"]
        chef["name"] = "Ana María"
        try writer.save()
        let updated = try #require(await notes.next())
        #expect(updated.updatedIDs == [chef.objectID])
        await Task.yield()  // the automatic merge runs on the main actor after the callback
        #expect(theirs["name"] as? String == "Ana María", "the merge did not refresh the other process's object")
        mine["name"] = "Anita"
        let error = try #require(throws: ObjectGraphError.self) { try stale.save() }
        #expect(error.code == .mergeConflict)
        stale.mergePolicy = .storeWins
        try stale.save()
        #expect(mine["name"] as? String == "Ana María")
    }

    @Test("A save's inserts go in multi-row INSERTs; a duplicate among them is named by its values, and nothing is saved",
          .enabled(if: PostgresTestServer.isAvailable))
    func multiRowInserts() throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let store = try coordinator.addPostgresStore(at: PostgresTestServer.newLocation())
        let context = MainContext(coordinator: coordinator)
        for index in 0..<2_500 { try context.insert("Chef")["name"] = "Chef \(index)" }
        let before = store.statistics.statements
        try context.save()
        let spent = store.statistics.statements - before
        #expect(spent < 20, "\(spent) statements to save 2,500 chefs")
        for index in 0..<5 { try context.insert("Chef")["name"] = "New \(index)" }
        try context.insert("Chef")["name"] = "Chef 1234"  // saved already: the unique name is taken
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.code == .constraintViolation && error.message.contains("name = Chef 1234"), "\(error.message)")
        #expect(try MainContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Chef")) == 2_500)
    }

    @Test("A connection lost during a save loses nothing: the save fails, the context keeps its changes, the next save lands",
          .enabled(if: PostgresTestServer.isAvailable))
    func lostConnection() throws {
        let location = PostgresTestServer.newLocation()
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let store = try coordinator.addPostgresStore(at: location)
        let context = MainContext(coordinator: coordinator)
        try context.insert("Chef")["name"] = "Ana"
        try context.save()
        // The server ends the writer's connection inside the next save's transaction, as a
        // restarted server or a cut cable would.
        store.losesConnectionBeforeNextCommit.withLock { $0 = true }
        try context.insert("Chef")["name"] = "Bea"
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.message.contains("lost the connection") && error.message.contains("nothing was saved"), "\(error.message)")
        #expect(context.hasChanges)
        try context.save()
        let reader = MainContext(coordinator: coordinator)
        let names = try reader.fetch(FetchRequest(entityName: "Chef", sortKeys: [SortKey("name")])).map { $0["name"] as? String }
        #expect(names == ["Ana", "Bea"])
        #expect(store.statistics.transactions >= 2)
    }

    /// Ends `session`'s connection from the server's side, as an administrator's
    /// `pg_terminate_backend` or a restarted server would, and (`waiting`) waits until the
    /// client has seen it close.
    private func terminate(_ session: PostgresSession, waiting: Bool = true) throws {
        let pid = try #require(try session.run("SELECT pg_backend_pid()").rows.first?.first)
        let admin = try PostgresSession(PostgresTestServer.database!)
        try admin.run("SELECT pg_terminate_backend(CAST($1 AS integer))", [pid])
        while waiting && !session.isClosed { Thread.sleep(forTimeInterval: 0.01) }  // the main thread, not the pool
    }

    @Test("A store's listening session goes with the store: what it hands its connection does not keep it alive",
          .enabled(if: PostgresTestServer.isAvailable))
    func listenerGoesWithTheStore() throws {
        weak var store: PostgresStore?
        weak var listener: PostgresSession?
        do {
            let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
            let added = try coordinator.addPostgresStore(at: PostgresTestServer.newLocation())
            store = added
            listener = added.listeners.withLock { $0.first }
            #expect(listener != nil)
        }
        #expect(store == nil, "the store outlived its coordinator")
        // Kept alive, its connection stayed open for the life of the process: a test run
        // that opened a few hundred stores ran out of the server's connections.
        #expect(listener == nil, "the listening session outlived its store")
    }

    @Test("A fetch or save on a connection the server ended fails saying so; the next one connects again",
          .enabled(if: PostgresTestServer.isAvailable))
    func terminatedConnections() throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let store = try coordinator.addPostgresStore(at: PostgresTestServer.newLocation())
        let context = MainContext(coordinator: coordinator)
        try context.insert("Chef")["name"] = "Ana"
        try context.save()
        func chefs() throws -> Int { try MainContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Chef")) }

        // Ended between statements: the next one connects again, in the store's schema.
        try terminate(store.reader)
        #expect(try chefs() == 1)
        try terminate(store.writer)
        try context.insert("Chef")["name"] = "Bea"
        try context.save()
        #expect(try chefs() == 2)

        // Ended inside a transaction: the statement that finds out fails, naming the cause.
        let error = try #require(throws: ObjectGraphError.self) {
            try store.readingOneState {
                try terminate(store.reader)
                return try chefs()
            }
        }
        #expect(error.code == .storeFailure)
        #expect(error.message.contains("lost the connection to the PostgreSQL server at \(store.location.host):\(store.location.port)")
                && error.message.contains("the next statement connects again"), "\(error.message)")
        #expect(try chefs() == 2)
    }

    @Test("A listening connection the server ended listens again, and tells its coordinator that anything may have changed",
          .enabled(if: PostgresTestServer.isAvailable), .timeLimit(.minutes(20)))
    func listenerReconnects() async throws {
        let (first, second) = try twoCoordinators()
        let store = try #require(second.stores.first as? PostgresStore)
        let (stream, continuation) = AsyncStream.makeStream(of: DidSave.self)
        let observation = second.addDidSaveObserver { continuation.yield($0) }
        defer { observation.cancel() }
        // No deadline of its own: the waits resume on the main actor, which the parallel run's
        // other tests can hold for minutes, so a timer here would fail a working reconnect.
        // The time limit, longer than the whole run, turns a listener that never comes back
        // into a failure.
        var notes = stream.makeAsyncIterator()

        let writer = MainContext(coordinator: first)
        let chef = try writer.insert("Chef")
        chef["name"] = "Ana"
        try writer.save()
        #expect(try #require(await notes.next()).insertedIDs == [chef.objectID])
        let reader = MainContext(coordinator: second)
        let theirs = try #require(try reader.fetch(FetchRequest(entityName: "Chef")).first)
        #expect(theirs["name"] as? String == "Ana")

        // While nobody listens, a change whose notification is lost (here: one never sent).
        let listener = try #require(store.listeners.withLock { $0.first })
        try terminate(listener, waiting: false)  // it may be listening again at once
        try store.writer.run(#"UPDATE "Chef" SET "name" = 'Bea', "_opt" = "_opt" + 1"#)
        let note = try #require(await notes.next())
        #expect(note.changesUnknown && !note.isEmpty && note.origin == nil, "\(note)")
        reader.mergeChanges(fromContextDidSave: note)
        #expect(theirs["name"] as? String == "Bea", "the merge did not refresh the object")

        // Listening again: the next save is heard as before.
        let other = try writer.insert("Chef")
        other["name"] = "Cleo"
        try writer.save()
        let inserted = try #require(await notes.next())
        #expect(inserted.insertedIDs == [other.objectID] && !inserted.changesUnknown)
    }

    /// A new store of `kind` holding one chef and a recipe of hers for each name and rating,
    /// saved; a new context on it to read them back.
    private func savedRecipes(_ kind: StoreKind, ratings: [(String, Double)]) throws -> MainContext {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        try kind.addStore(to: coordinator)
        let context = MainContext(coordinator: coordinator)
        let chef = try context.insert("Chef")
        chef["name"] = "Ana"
        for (name, rating) in ratings {
            let recipe = try context.insert("Recipe")
            recipe["name"] = name
            recipe["rating"] = rating
            recipe["chef"] = chef
        }
        try context.save()
        return MainContext(coordinator: coordinator)
    }

    @Test("A NaN is saved as nil, as SQLite saves it: nil tests, sorts and reads agree", arguments: StoreKind.allCases.filter { $0 == .sqlite || $0 == .postgres })
    func nanIsNil(kind: StoreKind) throws {
        let reader = try savedRecipes(kind, ratings: [("a", 1.0), ("b", Double.nan), ("c", Double.infinity)])
        let sorted = try reader.fetch(FetchRequest(entityName: "Recipe", sortKeys: [SortKey("rating", ascending: false)]))
        #expect(sorted.map { $0["name"] as? String } == ["c", "a", "b"])
        #expect(sorted.last?["rating"] as? Double == nil)
        #expect(try reader.count(for: FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("rating == nil"))) == 1)
        #expect(try reader.count(for: FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("rating > 2"))) == 1)
    }

    @Test("Values PostgreSQL cannot bind (70,000 names in an IN list, a NUL in text) are answered as SQLite answers them",
          arguments: StoreKind.allCases.filter { $0 == .sqlite || $0 == .postgres })
    func unbindableValues(kind: StoreKind) throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        try kind.addStore(to: coordinator)
        let context = MainContext(coordinator: coordinator)
        for index in 0..<10 { try context.insert("Chef")["name"] = "n\(index)" }
        try context.save()
        let names: [String] = (0..<70_000).map { "n\($0)" }
        func count(_ format: String, _ argument: any Sendable) throws -> Int {
            try context.count(for: FetchRequest(entityName: "Chef", predicate: try FetchPredicate(format, argument)))
        }
        #expect(try count("name IN %@", names) == 10)
        #expect(try count("name == %@", "n1\u{0}") == 0)
        #expect(try count("name != %@", "n1\u{0}") == 10)
        #expect(try count("name BEGINSWITH %@", "n\u{0}") == 0)
    }

    @Test("Arithmetic that overflows (a double past its range, an integer past 64 bits) is answered as SQLite answers it",
          arguments: StoreKind.allCases.filter { $0 == .sqlite || $0 == .postgres })
    func overflowingArithmetic(kind: StoreKind) throws {
        let reader = try savedRecipes(kind, ratings: [("huge", Double.greatestFiniteMagnitude), ("one", 1.0)])
        func names(_ format: String) throws -> [String] {
            try reader.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate(format), sortKeys: [SortKey("name")]))
                .map { $0["name"] as? String ?? "?" }
        }
        #expect(try names("rating * 2 > 1") == ["huge", "one"])
        #expect(try names("servings * 9223372036854775807 > 0") == ["huge", "one"])
        #expect(try reader.count(for: FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("rating + 1e308 > 0"))) == 2)
        var values = FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("rating * 2 > 1e308"))
        values.propertiesToFetch = ["name"]
        #expect(try reader.fetchDictionaries(values).map { $0["name"] as? String } == ["huge"])
    }

    @Test("A batch insert or update that breaks a uniqueness constraint names the entity, the attribute and the value",
          .enabled(if: PostgresTestServer.isAvailable))
    func batchUniqueness() throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        try StoreKind.postgres.addStore(to: coordinator)
        let context = MainContext(coordinator: coordinator)
        try context.execute(BatchInsertRequest(entityName: "Chef", objects: [["name": "c0"], ["name": "c1"]]))
        let inserted = try #require(throws: ObjectGraphError.self) {
            try context.execute(BatchInsertRequest(entityName: "Chef", objects: [["name": "c2"], ["name": "c1"]]))
        }
        #expect(inserted.code == .constraintViolation)
        #expect(inserted.message == "cannot insert Chef: another Chef already has name = c1; nothing was inserted", "\(inserted.message)")
        let updated = try #require(throws: ObjectGraphError.self) {
            try context.execute(BatchUpdateRequest(entityName: "Chef", propertiesToUpdate: ["name": "same"]))
        }
        #expect(updated.code == .constraintViolation)
        #expect(updated.message == "cannot update Chef: another Chef would have name = same too, and it is unique; nothing was updated",
                "\(updated.message)")
        #expect(try context.fetch(FetchRequest(entityName: "Chef", sortKeys: [SortKey("name")])).map { $0["name"] as? String }
                == ["c0", "c1"])
    }

    @Test("Text with a NUL, or a value too large for an index, is refused naming the object, the attribute and why",
          .enabled(if: PostgresTestServer.isAvailable))
    func unstorableValues() throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        try StoreKind.postgres.addStore(to: coordinator)
        let context = MainContext(coordinator: coordinator)
        let model = coordinator.model
        // A NUL, inserted and then updated.
        let chef = try context.insert("Chef")
        chef["name"] = "a\u{0}b"
        var error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.code == .invalidValue)
        #expect(error.message == "cannot save \(model.describe(chef.objectID)): its name holds a NUL character (U+0000), which "
                + "PostgreSQL text cannot hold; remove it, or store the value as binary data; nothing was saved", "\(error.message)")
        chef["name"] = "ab"
        try context.save()
        chef["name"] = "\u{0}"
        error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.message.hasPrefix("cannot save \(model.describe(chef.objectID)): its name holds a NUL character"), "\(error.message)")
        chef["name"] = "ab"
        // A megabyte of hexadecimal digits in the unique name: in a multi-row insert, and as an update.
        let huge = String((0..<30_000).map { _ in UUID().uuidString }.joined().prefix(1_000_000))
        let others = try (0..<3).map { index in
            let other = try context.insert("Chef")
            other["name"] = "c\(index)"
            return other
        }
        others[1]["name"] = huge
        error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.code == .invalidValue)
        #expect(error.message == "cannot save \(model.describe(others[1].objectID)): its name (1000000 bytes) is too large for PostgreSQL "
                + "to index: an indexed or unique value is limited to about 2,700 bytes; nothing was saved", "\(error.message)")
        others[1]["name"] = "c1"
        try context.save()
        chef["name"] = huge
        error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error.message.hasPrefix("cannot save \(model.describe(chef.objectID)): its name (1000000 bytes) is too large"), "\(error.message)")
    }

    @Test("explain says why the in-memory evaluator answers: the predicate, too many values, or text with a NUL",
          .enabled(if: PostgresTestServer.isAvailable))
    func explainedFallbacks() throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        try StoreKind.postgres.addStore(to: coordinator)
        let context = MainContext(coordinator: coordinator)
        func reason(_ format: String, _ argument: any Sendable) throws -> String {
            let explanation = try context.explain(FetchRequest(entityName: "Chef", predicate: try FetchPredicate(format, argument)))
            #expect(!explanation.isSQL)
            return explanation.plan.joined(separator: "\n")
        }
        #expect(try reason("name ==[c] %@", "ana").contains("matches a string with [c]/[d]"))
        let many = try reason("name IN %@", (0..<70_000).map { "n\($0)" })
        #expect(many == "the statement would bind 70000 values (a long IN list), more than the 65,535 a PostgreSQL statement takes", "\(many)")
        let nul = try reason("name == %@", "a\u{0}")
        #expect(nul == "the predicate compares with text holding a NUL character, which PostgreSQL text cannot hold", "\(nul)")
        #expect(try context.explain(FetchRequest(entityName: "Chef", predicate: try FetchPredicate("name == %@", "a"))).isSQL)
    }

    @Test("attr == value is written with =, which the column's index answers (IS NOT DISTINCT FROM reads every row)",
          .enabled(if: PostgresTestServer.isAvailable))
    func equalityUsesTheIndex() throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let store = try #require(try StoreKind.postgres.addStore(to: coordinator) as? PostgresStore)
        let context = MainContext(coordinator: coordinator)
        for index in 0..<2_000 { try context.insert("Chef")["name"] = "Chef \(index)" }
        for (index, rating) in [1.0, 2.0, nil].enumerated() {
            let recipe = try context.insert("Recipe")
            recipe["name"] = "R\(index)"
            recipe["rating"] = rating
        }
        try context.save()
        try store.writer.run(#"ANALYZE "Chef""#)
        let explanation = try context.explain(FetchRequest(entityName: "Chef", predicate: try FetchPredicate("name == %@", "Chef 7")))
        #expect(explanation.sql.contains(#"(t0."name" = $1)"#), "\(explanation.sql)")
        #expect(explanation.plan.contains { $0.contains("Index") }, "\(explanation.plan)")
        #expect(try context.fetch(FetchRequest(entityName: "Chef", predicate: try FetchPredicate("%@ == name", "Chef 7"))).count == 1)
        // Under NOT, a nil rating is not 1, as in Foundation: the `=` is made two-valued.
        func count(_ format: String) throws -> Int {
            try context.count(for: FetchRequest(entityName: "Recipe", predicate: try FetchPredicate(format)))
        }
        #expect(try count("rating == 1") == 1 && count("NOT (rating == 1)") == 2 && count("NOT (1 == rating)") == 2)
        // An integer attribute and a double that is a whole number: compared as integers, with `=`.
        let servings = try context.explain(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate("servings == 4.0")))
        #expect(servings.sql.contains(#"(t0."servings" = $1)"#), "\(servings.sql)")
        #expect(try count("servings == 4.0") == 3 && count("servings == 4.5") == 0)
    }

    @Test("A SQLite store moves into PostgreSQL and back whole, objects keeping their IDs; a location holding objects is refused",
          .enabled(if: PostgresTestServer.isAvailable))
    func migrationThroughPostgres() throws {
        let model = try TestModel.make()
        let coordinator = PersistentStoreCoordinator(model: model)
        let sqlite = try coordinator.addStore(at: ":memory:")
        let context = MainContext(coordinator: coordinator)
        try AtomicStoreTests.fill(context)  // every attribute type, -0.0, infinity, microseconds
        context.setMetadata("line 42", forKey: "position")
        try context.save()
        let expected = try graphSnapshot(coordinator)

        let location = PostgresTestServer.newLocation()
        let postgres = try coordinator.migrateStore(sqlite, to: location)
        #expect(coordinator.stores.count == 1 && coordinator.stores[0] === postgres)
        #expect(try graphSnapshot(coordinator) == expected)
        #expect(postgres.metadata["position"] == "line 42" && postgres.identifier != sqlite.identifier)
        let elsewhere = PersistentStoreCoordinator(model: model)
        try elsewhere.addPostgresStore(at: location)
        #expect(try graphSnapshot(elsewhere) == expected)
        let writer = MainContext(coordinator: coordinator)
        let tag = try writer.insert("Tag")
        tag["label"] = "new"
        try writer.save()
        #expect(tag.objectID.key == 4, "new keys follow the copied ones")

        let other = PersistentStoreCoordinator(model: model)
        let source = try other.addStore(at: ":memory:")
        let refused = try #require(throws: ObjectGraphError.self) { try other.migrateStore(source, to: location) }
        #expect(refused.code == .storeFailure)
        #expect(refused.message == "cannot migrate the store to \(location), schema \(location.schema): a store there holds Chef "
                + "objects already; name an empty database or schema; the coordinator keeps the old store", "\(refused.message)")
        #expect(other.stores[0] === source)

        let scratch = try ScratchDirectory("og-postgres-migration")
        let path = scratch.url.appendingPathComponent("back.sqlite").path
        let back = try coordinator.migrateStore(postgres, to: path, type: .sqlite)
        #expect(coordinator.stores[0] === back)
        let after = try graphSnapshot(coordinator)
        #expect(after.count == expected.count + 1)
        #expect(try graphSnapshot(TestModel.coordinator(path: path)) == after)
    }

    @Test("A migration into PostgreSQL that fails half-way leaves the location as it was (no schema, or an empty one); a retry works",
          .enabled(if: PostgresTestServer.isAvailable))
    func failedMigrationIntoPostgres() throws {
        let model = try TestModel.make()
        let coordinator = PersistentStoreCoordinator(model: model)
        let sqlite = try coordinator.addStore(at: ":memory:")
        let context = MainContext(coordinator: coordinator)
        let chef = try context.insert("Chef")
        chef["name"] = "Ana\u{0}Bel"  // SQLite keeps it; PostgreSQL's text holds no NUL, so the copy fails
        try context.save()
        let location = PostgresTestServer.newLocation()
        let admin = try PostgresSession(location)  // in the database's own schema
        let schema = [StoredValue.text(location.schema)]
        func schemas() throws -> Int { try admin.run("SELECT 1 FROM pg_namespace WHERE nspname = $1", schema).rows.count }
        func tables() throws -> Int { try admin.run("SELECT 1 FROM pg_tables WHERE schemaname = $1", schema).rows.count }

        var error = try #require(throws: ObjectGraphError.self) { try coordinator.migrateStore(sqlite, to: location) }
        #expect(error.message.contains("the coordinator keeps the old store"), "\(error.message)")
        #expect(coordinator.stores[0] === sqlite)
        #expect(try schemas() == 0, "the schema the migration made is gone")

        try admin.run("CREATE SCHEMA \"\(location.schema)\"")
        error = try #require(throws: ObjectGraphError.self) { try coordinator.migrateStore(sqlite, to: location) }
        #expect(error.message.contains("the coordinator keeps the old store"), "\(error.message)")
        #expect(try schemas() == 1 && tables() == 0, "the schema made beforehand stays, without tables")

        chef["name"] = "Ana Bel"
        try context.save()
        let postgres = try coordinator.migrateStore(sqlite, to: location)
        #expect(coordinator.stores[0] === postgres)
        #expect(try MainContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Chef")) == 1)
    }

    @Test("A store migrated out of PostgreSQL stops listening: the old store object, still held, keeps no LISTEN connection",
          .enabled(if: PostgresTestServer.isAvailable))
    func migratedOutStopsListening() throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModel.make())
        let postgres = try coordinator.addPostgresStore(at: PostgresTestServer.newLocation())
        #expect(postgres.listeners.withLock { $0.count } == 1)
        let memory = try coordinator.migrateStore(postgres, to: "", type: .memory)
        #expect(coordinator.stores[0] === memory)
        #expect(postgres.listeners.withLock { $0.isEmpty })
    }
}
