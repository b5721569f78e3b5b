import Foundation
import ObjectGraphPostgres
import PostgresNIO

/// The PostgreSQL server the PostgreSQL engines run on, over loopback: a database of this
/// run's own (`og_bench_PID`, dropped at the end), and a new schema in it for every store
/// a run makes, dropped after the run.
///
/// The server is named by `--postgres URL` or `OBJECTGRAPH_POSTGRES_URL` (`make bench
/// POSTGRES=1` starts a local one with `Scripts/postgres.sh` and sets it), the password by
/// `PGPASSWORD`. Without either, or when an URL from the environment cannot be reached, the
/// PostgreSQL engines are left out and ``connect(_:)`` prints why.
@MainActor
final class PostgresServer {
    /// The run's database (schema `public`).
    let database: PostgresLocation
    /// A connection to the run's database, for fixtures, checks and dropping schemas.
    let connection: BlockingPostgresConnection
    /// The connection to the server's own database, which creates and drops the run's.
    private let admin: BlockingPostgresConnection
    /// How many schemas ``freshLocation(_:)`` has handed out.
    private var counter = 0

    /// The prefix of the databases benchmark runs make.
    private static let prefix = "og_bench_"

    /// Connects to the server the options or the environment name, or returns nil after
    /// printing why the PostgreSQL engines are skipped.
    /// - Throws: when `--postgres` names a server that cannot be used (the user asked for it).
    static func connect(_ options: BenchmarkOptions) throws -> PostgresServer? {
        let environment = ProcessInfo.processInfo.environment
        guard let url = options.postgresURL ?? environment["OBJECTGRAPH_POSTGRES_URL"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            Report.write("PostgreSQL engines skipped: no server named (OBJECTGRAPH_POSTGRES_URL is not set); `make bench POSTGRES=1` starts a local one with Scripts/postgres.sh, or pass --postgres postgres://USER@HOST:PORT/DB with PGPASSWORD set")
            return nil
        }
        do {
            let server = try PostgresServer(server: try PostgresLocation(url: url))
            Report.write("PostgreSQL engines on \(server.database) (a database of this run, dropped at the end)")
            return server
        } catch where options.postgresURL == nil {
            Report.write("PostgreSQL engines skipped: OBJECTGRAPH_POSTGRES_URL names \(url), which cannot be used: \(error)")
            return nil
        }
    }

    /// Creates this run's database on `server`, first dropping those of runs that are gone.
    private init(server: PostgresLocation) throws {
        admin = try BlockingPostgresConnection(server)
        let name = Self.prefix + String(getpid())
        let pattern = Self.prefix.replacingOccurrences(of: "_", with: "\\_") + "%"
        for row in try admin.query("SELECT datname FROM pg_database WHERE datname LIKE '\(pattern)'").rows {
            let old = try row.decode(String.self)
            guard let pid = Int32(old.dropFirst(Self.prefix.count)), pid != getpid(), kill(pid, 0) != 0 else { continue }
            try admin.query("DROP DATABASE IF EXISTS \(quoted(old)) WITH (FORCE)")
        }
        try admin.query("DROP DATABASE IF EXISTS \(quoted(name)) WITH (FORCE)")
        try admin.query("CREATE DATABASE \(quoted(name))")
        var database = server
        database.database = name
        self.database = database
        connection = try BlockingPostgresConnection(database)
    }

    /// A location in a schema no store has used yet: `s7_insert`. The store made there
    /// creates the schema.
    func freshLocation(_ label: String) -> PostgresLocation {
        counter += 1
        var location = database
        location.schema = "s\(counter)_" + label.lowercased().filter { $0.isLetter || $0.isNumber || $0 == "_" }
        return location
    }

    /// Drops the schema of `location` with everything in it.
    func discard(_ location: PostgresLocation) {
        precondition(location.schema != "public", "only a run's own schemas are dropped")
        do {
            try connection.query("DROP SCHEMA IF EXISTS \(quoted(location.schema)) CASCADE")
        } catch {
            Report.write("warning: could not drop schema \(location.schema): \(error)")
        }
    }

    /// Drops the run's database (closing connections still open in it).
    func remove() {
        connection.close()
        _ = try? admin.query("DROP DATABASE IF EXISTS \(quoted(database.database)) WITH (FORCE)")
        admin.close()
    }
}

/// `name` as a double-quoted SQL identifier.
func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

/// A PostgresNIO connection used synchronously: each call sends its queries and waits on
/// this thread for the answers (the main thread: never an event loop or a task's thread).
final class BlockingPostgresConnection {
    /// The connection.
    let connection: PostgresConnection
    /// PostgresNIO's logger, quiet.
    let logger: Logger

    /// Connects to `location`, with the search path set to its schema.
    init(_ location: PostgresLocation) throws {
        var logger = Logger(label: "ObjectGraphBenchmarks")
        logger.logLevel = .critical
        self.logger = logger
        let configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user,
            password: location.password, database: location.database, tls: .disable)
        do {
            connection = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: 1, logger: logger).wait()
        } catch {
            throw UsageError("cannot connect to \(location): \(Self.describe(error))")
        }
        if location.schema != "public" { try query("SET search_path TO \(quoted(location.schema))") }
    }

    /// Runs one statement and waits for its rows.
    /// - Throws: ``UsageError`` with the server's message and the statement.
    @discardableResult
    func query(_ sql: String, _ bindings: PostgresBindings = PostgresBindings()) throws -> PostgresQueryResult {
        try pipeline([PostgresQuery(unsafeSQL: sql, binds: bindings)])[0]
    }

    /// Sends every query at once and waits once for all of them (PostgresNIO sends each as
    /// soon as the one before is answered); throws the first failure.
    @discardableResult
    func pipeline(_ queries: [PostgresQuery]) throws -> [PostgresQueryResult] {
        guard !queries.isEmpty else { return [] }
        let futures = queries.map { connection.query($0, logger: logger) }
        do {
            return try EventLoopFuture.whenAllSucceed(futures, on: futures[0].eventLoop).wait()
        } catch {
            let sql = (error as? PSQLError)?.query?.sql ?? queries[0].sql
            throw UsageError("\(Self.describe(error)), running: \(sql.prefix(200))")
        }
    }

    /// PostgresNIO's error in words: the server's message, else the underlying error (its
    /// own description hides both).
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] { return message }
        if let underlying = error.underlying { return "\(underlying)" }
        return "\(error.code)"
    }

    /// The single integer a query such as `SELECT count(*) …` returns.
    func scalar(_ sql: String) throws -> Int {
        Int(try query(sql).rows.first!.decode(Int64.self))
    }

    /// Closes the connection and waits until it is closed.
    func close() { try? connection.close().wait() }

    deinit {
        // PostgresNIO requires a connection closed before it is released.
        let connection = self.connection
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }
}
