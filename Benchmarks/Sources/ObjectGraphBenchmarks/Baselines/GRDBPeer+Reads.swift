import GRDB

/// The read workloads over the word fixture: fetch, faults and count.
extension GRDBPeer {
    /// Fetches every word into records; checks the count and the length checksum afterwards.
    static func fetchWords(_ fixture: WordFixture) throws -> Sample {
        let queue = try open(fixture.path)
        defer { try? queue.close() }
        var words: [Word] = []
        let sample = try Sample.measure {
            words = try queue.read { db in try Word.fetchAll(db, sql: RawSQLite.selectWords) }
        }
        precondition(words.count == fixture.count && words.reduce(0) { $0 + Int($1.length) } == fixture.totalLength)
        return sample
    }

    /// Fetches every word's key in one read, then every `stride`-th row by key into a record
    /// in another (both timed); checks the key count and each touched word afterwards.
    static func fetchKeysThenTouch(_ fixture: WordFixture, stride step: Int) throws -> Sample {
        let queue = try open(fixture.path)
        defer { try? queue.close() }
        var ids: [Int64] = [], touched: [Word] = []
        let sample = try Sample.measure {
            ids = try queue.read { db in try Int64.fetchAll(db, sql: #"SELECT "_pk" FROM "Word""#) }
            touched = try queue.read { db in
                let byKey = try db.cachedStatement(sql: #"SELECT "_pk", "word", "length" FROM "Word" WHERE "_pk" = ?"#)
                return try stride(from: 0, to: ids.count, by: step).map { index in
                    try Word.fetchOne(byKey, arguments: [ids[index]])!
                }
            }
        }
        precondition(ids.count == fixture.count && touched.count == (fixture.count + step - 1) / step)
        precondition(touched.allSatisfy { $0.word == BenchmarkData.word(Int($0.id)) })
        return sample
    }

    /// Counts the words longer than ``WordFixture/minimumLength`` `repetitions` times, each
    /// count a query-interface request in its own read; checks every count.
    static func countLonger(_ fixture: WordFixture, repetitions: Int) throws -> Sample {
        let queue = try open(fixture.path)
        defer { try? queue.close() }
        var results: [Int] = []
        let sample = try Sample.measure {
            for _ in 0..<repetitions {
                results.append(try queue.read { db in
                    try Word.filter(Column("length") > WordFixture.minimumLength).fetchCount(db)
                })
            }
        }
        precondition(results.count == repetitions && results.allSatisfy { $0 == fixture.longerCount })
        return sample
    }
}
