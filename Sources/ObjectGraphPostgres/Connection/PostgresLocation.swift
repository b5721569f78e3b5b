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
    /// The server's host name or address.
    public var host: String
    /// The server's TCP port (5432 unless the URL names another).
    public var port: Int
    /// The user to log in as.
    public var user: String
    /// The database holding the store.
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
    /// URL is refused, so it cannot end up in a shell's history, and no error repeats it.
    /// - Throws: ``ObjectGraphError`` (`storeFailure`) naming the part that is missing or wrong.
    public init(url text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let usage = "write postgres://USER@HOST:PORT/DATABASE"
        // Looked for in the text first: a URL that does not parse (a typo in its port) may
        // still hold one, and the errors below quote the text.
        let afterScheme = text.range(of: "://").map { text[$0.upperBound...] } ?? ""
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@"), authority[..<at].contains(":") {
            throw ObjectGraphError(.storeFailure,
                "the URL holds a password: leave it out and set PGPASSWORD in the environment instead")
        }
        guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme?.lowercased() ?? "") else {
            let hostAndPort = authority.split(separator: "@").last ?? ""
            let port = hostAndPort.lastIndex(of: ":").map { hostAndPort[$0...].dropFirst() } ?? ""
            if text.lowercased().hasPrefix("postgres"), !port.isEmpty, !port.contains("]"), Int(port) == nil {
                throw ObjectGraphError(.storeFailure, "the URL's port '\(port)' is not a number: \(usage)")
            }
            throw ObjectGraphError(.storeFailure, "'\(text)' is not a PostgreSQL URL: \(usage)")
        }
        guard let user = components.user, !user.isEmpty else {
            throw ObjectGraphError(.storeFailure, "the URL names no user: \(usage)")
        }
        guard let host = components.host, !host.isEmpty else {
            throw ObjectGraphError(.storeFailure, "the URL names no host: \(usage)")
        }
        if let port = components.port, !(1...65_535).contains(port) {
            throw ObjectGraphError(.storeFailure, "the URL's port \(port) is not a TCP port (1 to 65535): \(usage)")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty else {
            throw ObjectGraphError(.storeFailure, "the URL names no database: \(usage)")
        }
        guard !database.contains("/") else {
            throw ObjectGraphError(.storeFailure, "the URL's path '\(components.path)' is not one database name: \(usage)")
        }
        // Options such as ?sslmode=require are not read: connecting without them would
        // quietly do something else than asked (no TLS).
        if let query = components.query {
            throw ObjectGraphError(.storeFailure,
                "the URL's options (?\(query)) are not supported: the store connects without TLS and takes no options; \(usage)")
        }
        self.init(host: host, port: components.port ?? 5432, user: user, database: database,
                  password: environment["PGPASSWORD"])
    }

    /// `postgres://USER@HOST:PORT/DATABASE` (no password).
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }
}
