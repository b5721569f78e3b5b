import ObjectGraph
import ObjectGraphSQL

extension SQLiteStore {
    /// Checks the store file and the object graph it holds, and returns one line per problem
    /// found (empty when the store is sound).
    ///
    /// Three kinds of check, on the last committed state: SQLite's `PRAGMA integrity_check`
    /// (pages, indexes, uniqueness); every to-one reference names a row that exists and is of
    /// the destination entity; both sides of every one-to-one relationship name each other,
    /// and every pair of a many-to-many join table names two rows that exist. The reliability
    /// tests run it after killing a process in the middle of a save.
    ///
    /// ```swift
    /// let problems = try store.checkIntegrity()
    /// if !problems.isEmpty { print(problems.joined(separator: "\n")) }
    /// ```
    ///
    /// - Parameter limit: the most rows reported per rule.
    /// - Returns: problems such as `Recipe/p12: 'chef' names Chef/p99, which is not in the store`.
    /// - Throws: ``ObjectGraph/ObjectGraphError`` when the store cannot be read (a damaged
    ///   file may also throw `notADatabase` rather than return problems).
    /// - Complexity: reads the whole file once, then one indexed query per relationship.
    public func checkIntegrity(limit: Int = 10) throws -> [String] {
        try performRead { connection in
            var problems: [String] = []
            let lines = try connection.rows(IntegritySQL.integrityCheck).compactMap { row -> String? in
                if case .text(let line) = row[0] { return line }
                return nil
            }
            if lines != ["ok"] { problems += lines.map { "integrity check: \($0)" } }
            for entity in model.entities {
                for relationship in entity.declaredRelationships where !relationship.isToMany {
                    for row in try connection.rows(IntegritySQL.danglingToOne(relationship, limit: limit)) {
                        problems.append("\(describe(row)): '\(relationship.name)' names "
                            + "\(relationship.destination.name) key \(row[2]), which is not in the store")
                    }
                    guard !relationship.inverse.isToMany else { continue }
                    for row in try connection.rows(IntegritySQL.unmatchedOneToOne(relationship, limit: limit)) {
                        problems.append("\(describe(row)): '\(relationship.name)' names \(relationship.destination.name) "
                            + "key \(row[2]), whose '\(relationship.inverse.name)' does not name it back")
                    }
                }
                for relationship in entity.declaredRelationships where relationship.isManyToMany {
                    let join = SchemaNaming.joinTable(for: relationship)
                    guard join.sourceColumn == "_source" else { continue }  // one side checks the table
                    for (column, side) in [(join.sourceColumn, relationship.entity!),
                                           (join.destinationColumn, relationship.destination!)] {
                        let sql = IntegritySQL.danglingJoinRows(join: join.table, column: column,
                                                                table: SchemaNaming.table(for: side), limit: limit)
                        for row in try connection.rows(sql) {
                            problems.append("\(join.table): a pair names \(side.name) key \(row[0]), "
                                + "which is not in the store")
                        }
                    }
                }
            }
            return problems
        }
    }

    /// `Recipe/p12` for a row whose first two columns are its key and entity index.
    private func describe(_ row: [StoredValue]) -> String {
        guard case .integer(let key) = row[0], case .integer(let entity) = row[1],
              model.entities.indices.contains(Int(entity)) else { return "a row" }
        return model.describe(ObjectID(entityIndex: Int(entity), key: key))
    }
}
