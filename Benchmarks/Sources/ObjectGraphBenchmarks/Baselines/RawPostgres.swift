import ObjectGraphPostgres
import PostgresNIO

/// Hand-written PostgresNIO queries filling plain Swift final classes: the limit on
/// PostgreSQL, over the same loopback connection kind as ObjectGraph's PostgreSQL store.
///
/// Like the store, a batch of statements is handed to PostgresNIO at once and waited for
/// once (one INSERT per row, in one transaction per batch), so the comparison measures what
/// the framework adds, not a different protocol pattern such as COPY.
@MainActor
enum RawPostgres {
    /// Fills the `Word` table of the ObjectGraph store at `location` with `count` rows, keys
    /// 1…count, 20,000 rows per statement, then vacuums and analyzes it (untimed fixture).
    static func fillWords(_ server: PostgresServer, _ location: PostgresLocation, count: Int, entityIndex: Int) throws {
        let table = "\(quoted(location.schema)).\"Word\""
        var start = 1
        while start <= count {
            let keys = Array(start...min(count, start + 19_999))
            let words = keys.map(BenchmarkData.word)
            var bindings = PostgresBindings()
            bindings.append(keys.map(Int64.init))
            bindings.append(Int64(entityIndex))
            bindings.append(words)
            bindings.append(words.map { Int64($0.utf8.count) })
            try server.connection.query("""
                INSERT INTO \(table) ("_pk", "_ent", "word", "length")
                SELECT k, $2, w, l FROM unnest($1::bigint[], $3::text[], $4::bigint[]) AS t(k, w, l)
                """, bindings)
            start += keys.count
        }
        try server.connection.query("VACUUM ANALYZE \(table)")
    }

    /// Fetches every word into objects over a new connection; checks the count and the
    /// length checksum afterwards.
    static func fetchWords(_ fixture: WordFixture) throws -> Sample {
        let connection = try BlockingPostgresConnection(fixture.postgres!)
        defer { connection.close() }
        var words: [RawSQLite.Word] = []
        let sample = try Sample.measure {
            for row in try connection.query(#"SELECT "_pk", "word", "length" FROM "Word""#) {
                let (id, word, length) = try row.decode((Int64, String, Int64).self)
                words.append(RawSQLite.Word(id: id, word: word, length: length))
            }
        }
        precondition(words.count == fixture.count && words.reduce(0) { $0 + Int($1.length) } == fixture.totalLength)
        return sample
    }

    /// The user table, laid out as ObjectGraph's PostgreSQL store lays out its `User` entity.
    static let createUsers = """
        CREATE TABLE "User" ("_pk" bigint PRIMARY KEY, "_ent" bigint NOT NULL, "_opt" bigint NOT NULL DEFAULT 0, \
        "name" text COLLATE "C", "city" text COLLATE "C")
        """

    /// Inserts `count` users with two strings into a new schema, one INSERT per row,
    /// committing every `batch` rows (each batch's BEGIN, INSERTs and COMMIT sent at once; a
    /// batch of 1 sends each INSERT alone, in its own autocommit transaction), then checks
    /// the rows.
    static func insertUsers(_ server: PostgresServer, count: Int, batch: Int) throws -> Sample {
        let location = server.freshLocation("users_raw")
        defer { server.discard(location) }
        try server.connection.query("CREATE SCHEMA \(quoted(location.schema))")
        let connection = try BlockingPostgresConnection(location)
        defer { connection.close() }
        try connection.query(createUsers)
        let insert = #"INSERT INTO "User" ("_pk", "_ent", "name", "city") VALUES ($1, $2, $3, $4)"#
        let sample = try Sample.measure {
            var queries: [PostgresQuery] = []
            for index in 0..<count {
                var bindings = PostgresBindings()
                bindings.append(Int64(index + 1))
                bindings.append(Int64(0))
                bindings.append("User \(index)")
                bindings.append(BenchmarkData.city(index))
                queries.append(PostgresQuery(unsafeSQL: insert, binds: bindings))
                if queries.count == batch || index == count - 1 {
                    if batch > 1 { queries = ["BEGIN"] + queries + ["COMMIT"] }
                    try connection.pipeline(queries)
                    queries.removeAll(keepingCapacity: true)
                }
            }
        }
        try checkUsers(server, location, count: count)
        return sample
    }

    /// Inserts `count` users into a new schema with one multi-row INSERT per batch of `batch`
    /// (the batch's keys, names and cities bound as three arrays and unnested), committing
    /// every batch, then checks the rows: what a store could send instead of a statement per row.
    static func insertUsersMultiRow(_ server: PostgresServer, count: Int, batch: Int) throws -> Sample {
        let location = server.freshLocation("users_rows")
        defer { server.discard(location) }
        try server.connection.query("CREATE SCHEMA \(quoted(location.schema))")
        let connection = try BlockingPostgresConnection(location)
        defer { connection.close() }
        try connection.query(createUsers)
        let insert = """
            INSERT INTO "User" ("_pk", "_ent", "name", "city")
            SELECT k, 0, n, c FROM unnest($1::bigint[], $2::text[], $3::text[]) AS t(k, n, c)
            """
        let sample = try Sample.measure {
            var start = 0
            while start < count {
                let indexes = start..<min(count, start + batch)
                var bindings = PostgresBindings()
                bindings.append(indexes.map { Int64($0 + 1) })
                bindings.append(indexes.map { "User \($0)" })
                bindings.append(indexes.map(BenchmarkData.city))
                try connection.pipeline(["BEGIN", PostgresQuery(unsafeSQL: insert, binds: bindings), "COMMIT"])
                start = indexes.upperBound
            }
        }
        try checkUsers(server, location, count: count)
        return sample
    }

    /// Traps unless the store at `location` holds users 0…`count` − 1: the row count and the
    /// sum of the names' lengths, as ``RawSQLite/checkUsers(path:count:)`` checks a file.
    static func checkUsers(_ server: PostgresServer, _ location: PostgresLocation, count: Int) throws {
        let table = "\(quoted(location.schema)).\"User\""
        let rows = try server.connection.scalar("SELECT count(*) FROM \(table)")
        let nameBytes = try server.connection.scalar(#"SELECT coalesce(sum(length("name")), 0)::bigint FROM "# + table)
        precondition(rows == count, "\(location.schema): \(rows) users, not \(count)")
        precondition(nameBytes == BenchmarkData.userNameBytes(count), "\(location.schema): wrong user names")
    }

    /// Reads ``RawSQLite/CatalogueTotals`` from the catalogue at `location`, with the
    /// queries ``RawSQLite/catalogueTotals(path:)`` runs on a file.
    static func catalogueTotals(_ server: PostgresServer, _ location: PostgresLocation) throws -> RawSQLite.CatalogueTotals {
        let schema = quoted(location.schema)
        func value(_ sql: String) throws -> Int { try server.connection.scalar(sql.replacingOccurrences(of: "@.", with: schema + ".")) }
        func sum(_ expression: String, _ from: String) throws -> Int {
            try value("SELECT coalesce(sum(\(expression)), 0)::bigint FROM \(from)")
        }
        return RawSQLite.CatalogueTotals(
            recipes: try value(#"SELECT count(*) FROM @."Recipe""#), lines: try value(#"SELECT count(*) FROM @."RecipeIngredient""#),
            ingredients: try value(#"SELECT count(*) FROM @."Ingredient""#), chefs: try value(#"SELECT count(*) FROM @."Chef""#),
            cuisines: try value(#"SELECT count(*) FROM @."Cuisine""#), photos: try value(#"SELECT count(*) FROM @."RecipePhoto""#),
            nameLength: try sum(#"length("name")"#, #"@."Recipe""#),
            canonicalLength: try sum(#"length("nameCanonical")"#, #"@."Recipe""#),
            linkedIngredientLength: try sum(#"length(i."name")"#, #"@."RecipeIngredient" l JOIN @."Ingredient" i ON i."_pk" = l."ingredient""#),
            storedLineCount: try sum(#""ingredientCount""#, #"@."Recipe""#))
    }
}
