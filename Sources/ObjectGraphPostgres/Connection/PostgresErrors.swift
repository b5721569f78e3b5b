import ObjectGraph
import PostgresNIO

/// Turns PostgresNIO's errors into framework errors that name the server, the user or the
/// database at fault and what to do.
enum PostgresErrors {
    /// The SQLSTATE the server gave for the error `error` translates, if it came from the server.
    static func sqlState(of error: ObjectGraphError) -> String? {
        (error.underlying as? PSQLError)?.serverInfo?[.sqlState]
    }

    /// The error of a statement whose connection the server closed: its transaction is gone.
    static func lostConnection(_ location: PostgresLocation, underlying: (any Error & Sendable)? = nil) -> ObjectGraphError {
        ObjectGraphError(.storeFailure,
            "lost the connection to the PostgreSQL server at \(location.host):\(location.port) (it ended the session, or restarted); "
            + "the transaction was rolled back, nothing was saved; the next statement connects again", underlying: underlying)
    }

    /// The framework error for `error`, raised while connecting or running `sql`.
    static func translate(_ error: any Error, location: PostgresLocation, connecting: Bool = false, sql: String? = nil) -> ObjectGraphError {
        if let error = error as? ObjectGraphError { return error }
        let server = "\(location.host):\(location.port)"
        guard let psql = error as? PSQLError else {
            if connecting {
                return ObjectGraphError(.storeFailure,
                    "cannot reach the PostgreSQL server at \(server): \(error); check that it runs and listens there")
            }
            return ObjectGraphError(.storeFailure, "PostgreSQL at \(server): \(error)")
        }
        let state = psql.serverInfo?[.sqlState] ?? ""
        let message = psql.serverInfo?[.message] ?? ""
        switch (psql.code, state) {
        case (_, "28P01"), (_, "28000"):
            return ObjectGraphError(.storeFailure,
                "the PostgreSQL server at \(server) refused user '\(location.user)': wrong password or no such user (set PGPASSWORD)")
        case (.authMechanismRequiresPassword, _):
            return ObjectGraphError(.storeFailure,
                "the PostgreSQL server at \(server) asks user '\(location.user)' for a password: set PGPASSWORD")
        case (_, "23505"):
            // The save names the entity and the values; the detail names the columns.
            return ObjectGraphError(.constraintViolation, psql.serverInfo?[.detail] ?? message, underlying: psql)
        case (.tooManyParameters, _), (_, "54001"), (_, "54023"):
            // More bound values than a statement takes (65,535), or an expression deeper than
            // the server's stack (statement_too_complex), or a function with too many arguments.
            let detail = message.isEmpty ? "\(psql.code)" : message
            return ObjectGraphError(.predicateTooComplex,
                "the predicate is too complex for PostgreSQL at \(server) (\(detail)); nest it less deeply, or split the fetch into smaller ones",
                underlying: psql)
        case (_, "3D000"):
            return ObjectGraphError(.storeFailure,
                "the PostgreSQL server at \(server) has no database '\(location.database)'; create it (createdb \(location.database)) or name another")
        case (_, "40001"), (_, "40P01"), (_, "55P03"):
            return ObjectGraphError(.storeLocked,
                "PostgreSQL at \(server) could not serialize this transaction with another one (\(message)); try again")
        case (.connectionError, _), (.serverClosedConnection, _), (.clientClosedConnection, _), (.uncleanShutdown, _),
             (_, "57P01"), (_, "57P02"), (_, "57P03"):
            if connecting {
                return ObjectGraphError(.storeFailure,
                    "cannot reach the PostgreSQL server at \(server): check that it runs and listens there", underlying: psql)
            }
            return lostConnection(location, underlying: psql)
        default:
            let detail = message.isEmpty ? "\(psql.code)" : message
            return ObjectGraphError(.storeFailure, "PostgreSQL at \(server): \(detail)" + (sql.map { " (running: \($0.prefix(200)))" } ?? ""),
                                    underlying: psql)
        }
    }
}
