package import ObjectGraph
import ObjectGraphSQL

/// Reads: every fetch a context plans, and the loads of faults and prefetches, in SQL.
extension PostgresStore {
    package func forEachRow(_ plan: FetchPlan, _ body: (ObjectID, any StoreRow) throws -> Void) throws {
        let rows: PostgresSession.Rows? = try answering(plan, inSQL: { select in try read { try $0.rows(select.text, select.arguments) } },
                                                        inMemory: { memory in
                                                            try memory.forEachRow(plan, body)
                                                            return nil
                                                        })
        if let rows { try ValuesRow.handOn(rows, to: body) }
    }

    package func forEachRow(withKeys keys: [Int64], of entity: EntityDescription, _ body: (ObjectID, any StoreRow) throws -> Void) throws {
        try forEachRow(FetchSQL.selectRows(layout(for: entity), keys: keys, dialect: .postgreSQL), body)
    }

    package func forEachRow(
        destinationsOf relationship: RelationshipDescription, sourceKeys: [Int64], _ body: (ObjectID, any StoreRow) throws -> Void
    ) throws {
        let layout = layout(for: relationship.destination)
        try forEachRow(FetchSQL.selectDestinations(of: relationship, sourceKeys: sourceKeys, layout: layout, dialect: .postgreSQL), body)
    }

    private func forEachRow(_ select: SQLFragment, _ body: (ObjectID, any StoreRow) throws -> Void) throws {
        try ValuesRow.handOn(try read { try $0.rows(select.text, select.arguments) }, to: body)
    }

    package func fetchIDs(_ plan: FetchPlan) throws -> [ObjectID] {
        var ids: [ObjectID] = []
        try forEachRow(plan) { id, _ in ids.append(id) }
        return ids
    }

    package func fetchValues(_ plan: FetchPlan) throws -> [[StoredValue]] {
        try answering(plan, inSQL: { select in try read { try $0.run(select.text, select.arguments).rows } },
                      inMemory: { try $0.fetchValues(plan) })
    }

    package func count(_ plan: FetchPlan) throws -> Int {
        var countPlan = plan
        countPlan.output = .count
        return try answering(countPlan, inSQL: { select in
            let rows = try read { try $0.run(select.text, select.arguments).rows }
            guard case .integer(let count)? = rows.first?.first else { return 0 }
            return Int(count)
        }, inMemory: { try $0.count(plan) })
    }

    /// Answers `plan` with its statement, or on the in-memory evaluator when there is none
    /// (``statement(for:)``) or when the server's arithmetic overflows (SQLSTATE 22003: a
    /// double beyond its range, an integer beyond 64 bits), where SQLite and the evaluator
    /// answer (with infinity, or a double). The rows are read whole before any is handed on,
    /// so a statement that fails hands on none.
    private func answering<T>(
        _ plan: FetchPlan, inSQL: (SQLFragment) throws -> T, inMemory: (MemoryStore) throws -> T
    ) throws -> T {
        guard let select = statement(for: plan) else { return try evaluator(inMemory) }
        do {
            return try inSQL(select)
        } catch let error as ObjectGraphError where PostgresErrors.sqlState(of: error) == "22003" {
            return try evaluator(inMemory)
        }
    }

    /// The statement `plan` runs, its values and PostgreSQL's plan for it.
    package func explain(_ plan: FetchPlan) throws -> QueryExplanation {
        let select: SQLFragment
        switch answer(for: plan) {
        case .statement(let statement):
            select = statement
        case .evaluator(let reason):
            return QueryExplanation(sql: "read every table in one transaction; evaluate the predicate in memory", isSQL: false, arguments: [],
                                    plan: [reason.description])
        }
        let steps = try read { try $0.run("EXPLAIN " + select.text, select.arguments).rows }
        return QueryExplanation(sql: select.text, arguments: select.arguments, plan: steps.compactMap { row in
            if case .text(let line)? = row.first { return line }
            return nil
        })
    }

    package func fetchJoinPairs(of relationship: RelationshipDescription, sourceKeys: [Int64]) throws -> [(source: Int64, destination: Int64)] {
        let select = FetchSQL.selectJoinPairs(of: relationship, sourceKeys: sourceKeys, dialect: .postgreSQL)
        return try read { try $0.run(select.text, select.arguments).rows }.compactMap { row in
            guard case .integer(let source) = row[0], case .integer(let destination) = row[1] else { return nil }
            return (source, destination)
        }
    }

    package func fetchRow(_ id: ObjectID) throws -> [StoredValue]? {
        let sql = tableSQL(for: model.entities[Int(id.entityIndex)]).selectRow
        return try read { try $0.run(sql, [.integer(id.key)]).rows.first }
    }

    package func fetchDestinations(of relationship: RelationshipDescription, key: Int64) throws -> [ObjectID] {
        try read { try $0.run(FetchSQL.selectDestinations(of: relationship, dialect: .postgreSQL), [.integer(key)]).rows }.compactMap { row in
            guard case .integer(let key) = row[0], case .integer(let entity) = row[1] else { return nil }
            return ObjectID(entityIndex: Int(entity), key: key)
        }
    }

    /// The one statement that answers `plan` exactly, or nil when the in-memory evaluator
    /// must (``answer(for:)`` says why).
    func statement(for plan: FetchPlan) -> SQLFragment? {
        if case .statement(let select) = answer(for: plan) { return select }
        return nil
    }

    /// Who answers a plan: one statement, or the in-memory evaluator, and why.
    enum Answer {
        /// The statement that answers the plan exactly.
        case statement(SQLFragment)
        /// The in-memory evaluator answers, for this reason.
        case evaluator(EvaluatorReason)
    }

    /// Why the in-memory evaluator answers a plan rather than PostgreSQL.
    enum EvaluatorReason: CustomStringConvertible {
        /// The predicate needs Foundation's semantics, which the dialect cannot give.
        case predicate
        /// The statement would bind this many values, more than the server takes.
        case tooManyValues(Int)
        /// A bound value is text holding a NUL character.
        case nulInText

        /// The reason as `explain` prints it.
        var description: String {
            switch self {
            case .predicate:
                "the predicate folds a column, matches a string with [c]/[d], uses MATCHES or a function: PostgreSQL cannot answer it as Foundation does"
            case .tooManyValues(let count):
                "the statement would bind \(count) values (a long IN list), more than the 65,535 a PostgreSQL statement takes"
            case .nulInText:
                "the predicate compares with text holding a NUL character, which PostgreSQL text cannot hold"
            }
        }
    }

    /// Who answers `plan`: the statement that answers it exactly, or the in-memory evaluator
    /// when the dialect cannot answer the predicate, or the server would refuse the
    /// statement's values (more than the 65,535 a statement takes, as a long `IN` list binds,
    /// or text with a NUL character, which PostgreSQL's text cannot hold, so no row matches it).
    func answer(for plan: FetchPlan) -> Answer {
        guard let select = FetchSQL.exactStatement(for: plan, layout: layout(for: plan.entity), dialect: .postgreSQL) else {
            return .evaluator(.predicate)
        }
        guard select.arguments.count <= 65_535 else { return .evaluator(.tooManyValues(select.arguments.count)) }
        guard !select.arguments.contains(where: { if case .text(let text) = $0 { text.utf8.contains(0) } else { false } }) else {
            return .evaluator(.nulInText)
        }
        return .statement(select)
    }

    /// Runs `body` on a ``MemoryStore`` holding every row of this store, read in one
    /// transaction: for plans PostgreSQL cannot answer exactly as Foundation does (a folded
    /// column, `[c]`/`[d]` string matching, `MATCHES`, functions). The in-memory evaluator
    /// is the reference semantics the SQL translation is tested against, so answers agree;
    /// the cost is reading the whole store, so such predicates suit small catalogues (put
    /// `[cd]` searches of large ones on canonical shadow attributes, which run in SQL).
    ///
    /// - Complexity: one statement per table and per many-to-many join, sent together.
    private func evaluator<T>(_ body: (MemoryStore) throws -> T) throws -> T {
        let joinTables = layouts.flatMap(SchemaSQL.joinTables)
        let statements = layouts.map { (SchemaSQL.selectAll($0), [StoredValue]()) }
            + joinTables.map { (SchemaSQL.selectJoin(SchemaNaming.joinTable(for: $0).table), [StoredValue]()) }
        let results = try readingOneState { try read { try $0.runAll(statements) } }
        var tables: [Int: [[StoredValue]]] = [:]
        for (layout, result) in zip(layouts, results) { tables[layout.root.index] = result.rows }
        let joins = zip(joinTables, results.dropFirst(layouts.count)).map { relationship, result in
            (relationship: relationship, pairs: result.rows.compactMap { row -> (Int64, Int64)? in
                guard case .integer(let source) = row[0], case .integer(let destination) = row[1] else { return nil }
                return (source, destination)
            })
        }
        let answer = try body(MemoryStore(model: model, snapshotTables: tables, joins: joins))
        // The evaluator does not look for cancellation: a cancelled task's read is not
        // answered (a save's reads always are: a save runs to its end).
        if !isWritingOnThisThread, Task.isCancelled { throw CancellationError() }
        return answer
    }
}
