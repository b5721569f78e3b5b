import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// The SQL trace shows a transaction's COMMIT before the commit runs, so a trace that ends
/// before its COMMIT line belongs to a transaction that has not committed: the SIGKILL trials
/// decide which states a killed process may have left from exactly that.
@Suite struct TransactionTraceTests {
    @Test("COMMIT is traced before it commits")
    func commitIsTracedBeforeItRuns() throws {
        let path = try StoreKind.newFile(extension: "sqlite")
        defer { StoreKind.removeFolder(of: path) }
        let writer = try SQLiteConnection(path: path)
        try writer.execute("CREATE TABLE t (x INTEGER)")
        /// The rows another connection sees when each COMMIT line is written.
        let seenAtCommit = Locked<[Int64]>([])
        writer.trace = { event in
            guard event.sql == "COMMIT" else { return }
            let rows = (try? Self.rowCount(path)) ?? -1
            seenAtCommit.withLock { $0.append(rows) }
        }
        for _ in 0..<2 {
            try writer.inTransaction { try writer.execute("INSERT INTO t VALUES (1)") }
        }
        writer.trace = nil
        #expect(seenAtCommit.withLock { $0 } == [0, 1], "each COMMIT line comes before its rows are visible")
        #expect(try Self.rowCount(path) == 2)
    }

    private static func rowCount(_ path: String) throws -> Int64 {
        let reader = try SQLiteConnection(path: path, readOnly: true)
        var count: Int64 = -1
        try reader.cachedStatement("SELECT count(*) FROM t").forEachRow { count = $0.int64(at: 0) }
        return count
    }
}
