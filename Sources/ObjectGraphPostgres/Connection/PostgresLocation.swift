public import Foundation
import ObjectGraph

/// Where a PostgreSQL store lives: a server, a user, a database and, optionally, a schema.
///
/// Parsed from a URL, `postgres://USER@HOST:PORT/DATABASE`; the password comes from the
/// environment (`PGPASSWORD`), never from the URL's text shown anywhere.
///
/// ```swift
/// let location = try PostgresLocation(url: "postgres://og@127.0.0.1:5432/catalogue")
/// ```
public struct PostgresLocation: Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var database: String
    /// The password (never part of ``description``).
    public var password: String?
    /// The schema holding the store's tables (`public` by default): several stores can
    /// share one database, one schema each.
    public var schema: String

    /// A location from its parts.
    public init(host: String, port: Int = 5432, user: String, database: String, password: String? = nil, schema: String = "public") {
        self.host = host
        self.port = port
        self.user = user
        self.database = database
        self.password = password
        self.schema = schema
    }

    /// Parses `postgres://USER@HOST:PORT/DATABASE` (or `postgresql://`; port 5432 when left
    /// out), taking the password from `environment["PGPASSWORD"]`. A password written in the
    /// URL is refused, so it cannot end up in a shell's history.
    /// - Throws: ``ObjectGraphError`` (`storeFailure`) naming the part that is missing or wrong.
    public init(url text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme ?? "") else {
            throw ObjectGraphError(.storeFailure, "'\(text)' is not a PostgreSQL URL: write postgres://USER@HOST:PORT/DATABASE")
        }
        guard components.password == nil else {
            throw ObjectGraphError(.storeFailure,
                "the URL holds a password: leave it out and set PGPASSWORD in the environment instead")
        }
        guard let user = components.user, !user.isEmpty else {
            throw ObjectGraphError(.storeFailure, "the URL names no user: write postgres://USER@HOST:PORT/DATABASE")
        }
        guard let host = components.host, !host.isEmpty else {
            throw ObjectGraphError(.storeFailure, "the URL names no host: write postgres://USER@HOST:PORT/DATABASE")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw ObjectGraphError(.storeFailure, "the URL names no database: write postgres://USER@HOST:PORT/DATABASE")
        }
        self.init(host: host, port: components.port ?? 5432, user: user, database: database,
                  password: environment["PGPASSWORD"])
    }

    /// `postgres://USER@HOST:PORT/DATABASE` (no password).
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }
}
