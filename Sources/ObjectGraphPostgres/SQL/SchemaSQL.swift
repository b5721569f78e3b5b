import ObjectGraph
import ObjectGraphSQL
/// The statements of a PostgreSQL store's bookkeeping tables, sessions and notifications, and
/// those that write its rows.
extension SchemaSQL {
    static let createMetadata = """
        CREATE TABLE IF NOT EXISTS "_metadata" ("key" text COLLATE "C" PRIMARY KEY, "value" text)
        """
    static let createPrimaryKeys = """
        CREATE TABLE IF NOT EXISTS "_primarykeys" ("name" text COLLATE "C" PRIMARY KEY, "max" bigint NOT NULL)
        """
    static let selectMetadata = #"SELECT "key", "value" FROM "_metadata""#
    static let upsertMetadata = #"INSERT INTO "_metadata" ("key", "value") VALUES ($1, $2) ON CONFLICT ("key") DO UPDATE SET "value" = excluded."value""#
    static let deleteMetadata = #"DELETE FROM "_metadata" WHERE "key" = $1"#
    /// The tables of the current schema.
    static let userTables = #"SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"#

    /// The indexes of table `$1` of the current schema that can be dropped (not those of its
    /// key and uniqueness constraints, which go with the table).
    static let droppableIndexes = """
        SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 \
        AND indexname NOT IN (SELECT c.conname FROM pg_constraint AS c JOIN pg_namespace AS n ON n.oid = c.connamespace WHERE n.nspname = current_schema())
        """

    /// A row when schema `$1` exists.
    static let schemaExists = "SELECT 1 FROM pg_namespace WHERE nspname = $1"
    /// `CREATE SCHEMA IF NOT EXISTS` for a store kept in a schema of its own.
    static func createSchema(_ name: String) -> String { "CREATE SCHEMA IF NOT EXISTS \(SQLIdentifier(name).quoted)" }
    /// `DROP SCHEMA`: with `cascade`, with everything in it; without, only when it is empty.
    static func dropSchema(_ name: String, cascade: Bool) -> String {
        "DROP SCHEMA \(SQLIdentifier(name).quoted)" + (cascade ? " CASCADE" : "")
    }
    /// Makes `name` the schema unqualified table names resolve in.
    static func useSchema(_ name: String) -> String { "SET search_path TO \(SQLIdentifier(name).quoted)" }

    /// Sends notification `$2` on channel `$1` when the transaction commits.
    static let notify = "SELECT pg_notify($1, $2)"

    /// Takes the store's advisory lock (named by `$1`, the store's channel) until the
    /// transaction ends: shared by saves, alone by a save that resolves conflicts.
    static func lockStore(exclusive: Bool) -> String {
        exclusive ? "SELECT pg_advisory_xact_lock(hashtext($1))" : "SELECT pg_advisory_xact_lock_shared(hashtext($1))"
    }

    /// Reserves `$2` keys of table `$1` at once and returns the largest: keys are never
    /// reused, even after the rows holding them are deleted. The row lock on `_primarykeys`
    /// serializes concurrent reservations across processes.
    static func reserveKeys(table: String) -> String {
        let quoted = SQLIdentifier(table).quoted
        return """
            INSERT INTO "_primarykeys" AS k ("name", "max")
            VALUES ($1, (SELECT coalesce(max("_pk"), 0) FROM \(quoted)) + $2)
            ON CONFLICT ("name") DO UPDATE SET "max" =
                greatest(k."max", (SELECT coalesce(max("_pk"), 0) FROM \(quoted))) + $2
            RETURNING "max"
            """
    }

    /// The PostgreSQL type of an attribute's column.
    static func columnType(_ type: AttributeType) -> String {
        switch type.storageClass {
        case "INTEGER": "bigint"
        case "REAL": "double precision"
        case "TEXT": #"text COLLATE "C""#
        default: "bytea"
        }
    }

    /// `INSERT INTO t (_pk, _ent, c1, …) VALUES ($1, …), ($n+1, …), …` with `rows` rows.
    static func insert(table: String, columns: [String], rows: Int = 1) -> String {
        let names = (["_pk", "_ent"] + columns).map { SQLIdentifier($0).quoted }
        let tuples = (0..<rows).map { row in
            "(" + (1...names.count).map { "$\(row * names.count + $0)" }.joined(separator: ", ") + ")"
        }
        return "INSERT INTO \(SQLIdentifier(table).quoted) (\(names.joined(separator: ", "))) VALUES \(tuples.joined(separator: ", "))"
    }

    /// Updates `columns` of the row `$n+1` (and, checking the version, only at version `$n+2`).
    static func update(_ layout: TableLayout, columns: [String], checksVersion: Bool) -> String {
        let assignments = columns.enumerated().map { "\(SQLIdentifier($1).quoted) = $\($0 + 1)" }.joined(separator: ", ")
        return "UPDATE \(SQLIdentifier(layout.table).quoted) SET \(assignments), \"_opt\" = \"_opt\" + 1 WHERE \"_pk\" = $\(columns.count + 1)"
            + (checksVersion ? " AND \"_opt\" = $\(columns.count + 2)" : "")
    }

    static func selectVersion(table: String) -> String {
        "SELECT \"_opt\" FROM \(SQLIdentifier(table).quoted) WHERE \"_pk\" = $1"
    }

    /// `SELECT _pk FROM t WHERE _pk = ANY($1)`: which of a list of keys have rows.
    static func selectKeys(table: String) -> String {
        "SELECT \"_pk\" FROM \(SQLIdentifier(table).quoted) WHERE \"_pk\" = ANY(CAST($1 AS bigint[]))"
    }

    static func delete(table: String) -> String {
        "DELETE FROM \(SQLIdentifier(table).quoted) WHERE \"_pk\" = $1"
    }

    static func updateRows(table: String, columns: [String]) -> String {
        let assignments = columns.enumerated().map { "\(SQLIdentifier($1).quoted) = $\($0 + 1)" }.joined(separator: ", ")
        return "UPDATE \(SQLIdentifier(table).quoted) SET \(assignments), \"_opt\" = \"_opt\" + 1 WHERE \"_pk\" = ANY(CAST($\(columns.count + 1) AS bigint[]))"
    }

    static func insertJoin(_ table: String) -> String {
        "INSERT INTO \(SQLIdentifier(table).quoted) (\"_source\", \"_destination\") VALUES ($1, $2) ON CONFLICT DO NOTHING"
    }

    static func deleteJoin(_ table: String) -> String {
        "DELETE FROM \(SQLIdentifier(table).quoted) WHERE \"_source\" = $1 AND \"_destination\" = $2"
    }

    /// Deletes every join row of a deleted object, on either side.
    static func deleteJoinRows(_ table: String, column: String) -> String {
        "DELETE FROM \(SQLIdentifier(table).quoted) WHERE \(SQLIdentifier(column).quoted) = $1"
    }

    /// Every pair of a join table (for a snapshot the in-memory evaluator reads).
    static func selectJoin(_ table: String) -> String {
        "SELECT \"_source\", \"_destination\" FROM \(SQLIdentifier(table).quoted)"
    }

    /// Every full row of a table (for a snapshot the in-memory evaluator reads).
    static func selectAll(_ layout: TableLayout) -> String {
        "SELECT \(FetchSQL.fullRow(layout, dialect: .postgreSQL)) FROM \(SQLIdentifier(layout.table).quoted) AS \(FetchSQL.alias)"
    }
}

/// The statements every row of one table uses.
struct TableSQL: Sendable {
    let insert: String
    let delete: String
    let selectRow: String
    /// How many rows one `INSERT` writes at most: a thousand, or fewer for wide tables
    /// (a statement takes at most 65,535 parameters). One statement per row cost 25 times
    /// more on loopback, every row a message the server parses and answers.
    let rowsPerInsert: Int
    private let fullInsert: String
    private let layout: TableLayout

    init(_ layout: TableLayout) {
        self.layout = layout
        insert = SchemaSQL.insert(table: layout.table, columns: layout.columns)
        delete = SchemaSQL.delete(table: layout.table)
        selectRow = FetchSQL.selectRow(layout, dialect: .postgreSQL)
        rowsPerInsert = max(1, min(1_000, 65_535 / layout.width))
        fullInsert = SchemaSQL.insert(table: layout.table, columns: layout.columns, rows: rowsPerInsert)
    }

    /// The `INSERT` of `rows` rows (at most ``rowsPerInsert``).
    func insert(rows: Int) -> String {
        switch rows {
        case 1: insert
        case rowsPerInsert: fullInsert
        default: SchemaSQL.insert(table: layout.table, columns: layout.columns, rows: rows)
        }
    }
}
