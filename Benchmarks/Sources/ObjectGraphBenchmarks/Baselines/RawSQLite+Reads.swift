import CSQLiteBaseline

/// The read workloads over the word fixture: fetch, words three ways, faults and count.
extension RawSQLite {
    /// Every word row: key, word, length.
    static let selectWords = #"SELECT "_pk", "word", "length" FROM "Word""#

    /// Fetches every word into objects; checks the count and the length checksum afterwards.
    static func fetchWords(_ fixture: WordFixture) -> Sample {
        let db = open(fixture.path)
        defer { close(db) }
        let statement = prepare(db, selectWords)
        defer { sqlite3_finalize(statement) }
        var words: [Word] = []
        let sample = Sample.measure {
            while sqlite3_step(statement) == SQLITE_ROW {
                words.append(Word(id: sqlite3_column_int64(statement, 0), word: text(statement, 1),
                                  length: sqlite3_column_int64(statement, 2)))
            }
        }
        precondition(words.count == fixture.count && words.reduce(0) { $0 + Int($1.length) } == fixture.totalLength)
        return sample
    }

    /// Fetches every word as one `[String: Any]` per row and reads every word and length
    /// back (timed); checks the count and both checksums afterwards.
    static func readWordsAsDictionaries(_ fixture: WordFixture) -> Sample {
        let db = open(fixture.path)
        defer { close(db) }
        let statement = prepare(db, selectWords)
        defer { sqlite3_finalize(statement) }
        var rows: [[String: Any]] = [], total = 0, consistent = 0
        let sample = Sample.measure {
            while sqlite3_step(statement) == SQLITE_ROW {
                rows.append(["id": sqlite3_column_int64(statement, 0), "word": text(statement, 1),
                             "length": sqlite3_column_int64(statement, 2)])
            }
            for row in rows {
                let word = row["word"] as! String, length = Int(row["length"] as! Int64)
                total += length
                if word.utf8.count == length { consistent += 1 }
            }
        }
        precondition(rows.count == fixture.count && total == fixture.totalLength && consistent == rows.count)
        return sample
    }

    /// Fetches every word as one object per row and reads every word and length back (timed);
    /// checks the count and both checksums afterwards.
    static func readWordsAsObjects(_ fixture: WordFixture) -> Sample {
        let db = open(fixture.path)
        defer { close(db) }
        let statement = prepare(db, selectWords)
        defer { sqlite3_finalize(statement) }
        var words: [Word] = [], total = 0, consistent = 0
        let sample = Sample.measure {
            while sqlite3_step(statement) == SQLITE_ROW {
                words.append(Word(id: sqlite3_column_int64(statement, 0), word: text(statement, 1),
                                  length: sqlite3_column_int64(statement, 2)))
            }
            for word in words {
                total += Int(word.length)
                if word.word.utf8.count == Int(word.length) { consistent += 1 }
            }
        }
        precondition(words.count == fixture.count && total == fixture.totalLength && consistent == words.count)
        return sample
    }

    /// Fetches every word's key, then every `stride`-th row by key into an object (both timed);
    /// checks the key count and each touched word afterwards.
    static func fetchKeysThenTouch(_ fixture: WordFixture, stride step: Int) -> Sample {
        let db = open(fixture.path)
        defer { close(db) }
        let keys = prepare(db, #"SELECT "_pk" FROM "Word""#)
        let byKey = prepare(db, #"SELECT "_pk", "word", "length" FROM "Word" WHERE "_pk" = ?"#)
        defer {
            sqlite3_finalize(keys)
            sqlite3_finalize(byKey)
        }
        var ids: [Int64] = [], touched: [Word] = []
        let sample = Sample.measure {
            while sqlite3_step(keys) == SQLITE_ROW { ids.append(sqlite3_column_int64(keys, 0)) }
            for index in Swift.stride(from: 0, to: ids.count, by: step) {
                sqlite3_bind_int64(byKey, 1, ids[index])
                precondition(sqlite3_step(byKey) == SQLITE_ROW)
                touched.append(Word(id: sqlite3_column_int64(byKey, 0), word: text(byKey, 1),
                                    length: sqlite3_column_int64(byKey, 2)))
                sqlite3_reset(byKey)
            }
        }
        precondition(ids.count == fixture.count && touched.count == (fixture.count + step - 1) / step)
        precondition(touched.allSatisfy { $0.word == BenchmarkData.word(Int($0.id)) })
        return sample
    }

    /// Counts the words longer than ``WordFixture/minimumLength`` `repetitions` times; checks every count.
    static func countLonger(_ fixture: WordFixture, repetitions: Int) -> Sample {
        let db = open(fixture.path)
        defer { close(db) }
        let count = prepare(db, #"SELECT count(*) FROM "Word" WHERE "length" > ?"#)
        defer { sqlite3_finalize(count) }
        var results: [Int64] = []
        let sample = Sample.measure {
            for _ in 0..<repetitions {
                sqlite3_bind_int64(count, 1, Int64(WordFixture.minimumLength))
                precondition(sqlite3_step(count) == SQLITE_ROW)
                results.append(sqlite3_column_int64(count, 0))
                sqlite3_reset(count)
            }
        }
        precondition(results.count == repetitions && results.allSatisfy { $0 == Int64(fixture.longerCount) })
        return sample
    }
}
