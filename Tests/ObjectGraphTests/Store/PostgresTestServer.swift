import Foundation
@testable import ObjectGraph
@testable import ObjectGraphPostgres

/// The PostgreSQL server the tests use, when there is one: `OBJECTGRAPH_POSTGRES_URL`
/// (`make test` starts a local server with `Scripts/postgres.sh` and sets it, with
/// `PGPASSWORD`). Without it, or when the server cannot be reached, the PostgreSQL cases
/// are left out of ``StoreKind/allCases`` and the reason is printed once.
enum PostgresTestServer {
    /// The database this test process makes its stores in, one schema per store; nil when
    /// the PostgreSQL tests are skipped.
    static let database: PostgresLocation? = {
        guard let url = ProcessInfo.processInfo.environment["OBJECTGRAPH_POSTGRES_URL"], !url.isEmpty else {
            return skip("OBJECTGRAPH_POSTGRES_URL is not set (make test starts a local server with Scripts/postgres.sh)")
        }
        do {
            let server = try PostgresLocation(url: url)
            let admin = try PostgresSession(server)
            let name = "objectgraph_tests_\(getpid())"
            // Databases left by test processes that are gone.
            for row in try admin.run("SELECT datname FROM pg_database WHERE datname LIKE 'objectgraph\\_tests\\_%'").rows {
                guard case .text(let old) = row[0], let pid = Int32(old.dropFirst("objectgraph_tests_".count)),
                      pid != getpid(), kill(pid, 0) != 0 else { continue }
                _ = try? admin.run("DROP DATABASE IF EXISTS \"\(old)\" WITH (FORCE)")
            }
            try admin.run("DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)")
            try admin.run("CREATE DATABASE \"\(name)\"")
            var location = server
            location.database = name
            return location
        } catch {
            return skip("\(error)")
        }
    }()

    private static func skip(_ reason: String) -> PostgresLocation? {
        print("PostgreSQL tests skipped: \(reason)")
        return nil
    }

    /// Whether the PostgreSQL cases run.
    static var isAvailable: Bool { database != nil }

    /// A location for a new, empty store: a schema of its own in the test database.
    static func newLocation() -> PostgresLocation {
        var location = database!
        location.schema = "s_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        return location
    }
}

import Testing

@Suite struct PostgresTestServerTests {
    @Test("CI (OBJECTGRAPH_POSTGRES_REQUIRED=1) runs the PostgreSQL cases rather than skipping them")
    func requiredServerIsReachable() {
        guard ProcessInfo.processInfo.environment["OBJECTGRAPH_POSTGRES_REQUIRED"] == "1" else { return }
        #expect(PostgresTestServer.isAvailable, "the PostgreSQL tests would be skipped; see the line 'PostgreSQL tests skipped: …'")
    }
}
