import ObjectGraph
import ObjectGraphSQL
/// The SQL that creates and describes a SQLite store's bookkeeping tables, and writes its rows.
extension SchemaSQL {
    /// The key/value metadata table: model version hashes, the store's UUID, caller keys.
    static let createMetadata = """
        CREATE TABLE IF NOT EXISTS "_metadata" ("key" TEXT PRIMARY KEY NOT NULL, "value" TEXT) WITHOUT ROWID
        """
    /// The highest primary key handed out per table (so reserved keys are never reused).
    static let createPrimaryKeys = """
        CREATE TABLE IF NOT EXISTS "_primarykeys" ("name" TEXT PRIMARY KEY NOT NULL, "max" INTEGER NOT NULL) WITHOUT ROWID
        """
    /// The settings every connection gets: WAL for files (readers never wait for the writer),
    /// commits without fsync in WAL, a 32 MiB page cache and memory-mapped reads (large
    /// imports update indexes all over the file, and the 2 MiB default turns that into a
    /// read system call per page). A read-only reader gets only the cache and the map:
    /// the journal mode and syncing are the writer's.
    ///
    /// The writer checkpoints when the log reaches 65,536 pages (256 MiB of 4 KiB pages), not
    /// SQLite's 1,000: a batch of a large import changes thousands of index pages, so the
    /// default copied them all into the file after every batch, and a page changed again by
    /// the next batches was copied again each time. The shell's import of 300,000 recipes
    /// wrote 10.2 GB at the default and 5.8 GB with this, and took about a third less time.
    static func connectionSettings(isFile: Bool, isReader: Bool = false) -> [String] {
        var settings = isFile && !isReader ? ["PRAGMA journal_mode = WAL", "PRAGMA wal_autocheckpoint = 65536"] : []
        if !isReader { settings.append("PRAGMA synchronous = NORMAL") }
        settings.append("PRAGMA cache_size = -32768")
        if isFile { settings.append("PRAGMA mmap_size = 268435456") }
        return settings
    }

    /// Moves every transaction of the write-ahead log into the file and empties the log;
    /// its one row starts with 1 when another connection kept it from finishing.
    static let checkpoint = "PRAGMA wal_checkpoint(TRUNCATE)"

    /// Caps the file at `pages` pages: writes past it fail with `SQLITE_FULL`.
    static func maximumPageCount(_ pages: Int) -> String { "PRAGMA max_page_count = \(max(1, pages))" }

    static let selectMetadata = #"SELECT "key", "value" FROM "_metadata""#
    static let upsertMetadata = #"INSERT INTO "_metadata" ("key", "value") VALUES (?, ?) ON CONFLICT("key") DO UPDATE SET "value" = excluded."value""#
    static let deleteMetadata = #"DELETE FROM "_metadata" WHERE "key" = ?"#
    static let userTables = #"SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"#

    /// Reserves `count` keys in `table`, past both the recorded maximum and the largest key present.
    static func reserveKeys(table: String) -> String {
        let quoted = SQLIdentifier(table).quoted
        return """
            INSERT INTO "_primarykeys" ("name", "max")
            VALUES (?1, (SELECT coalesce(max("_pk"), 0) FROM \(quoted)) + ?2)
            ON CONFLICT("name") DO UPDATE SET "max" =
                max("max", (SELECT coalesce(max("_pk"), 0) FROM \(quoted))) + ?2
            RETURNING "max"
            """
    }

    /// The largest key `table` has used: its recorded maximum (keys reserved, or held by rows
    /// deleted since) or its largest key present, whichever is larger. Only reads, so a save
    /// that inserts writes no page for its keys.
    static func highestKey(table: String) -> String {
        let quoted = SQLIdentifier(table).quoted
        return """
            SELECT max(coalesce((SELECT "max" FROM "_primarykeys" WHERE "name" = ?1), 0), \
            coalesce((SELECT max("_pk") FROM \(quoted)), 0))
            """
    }

    /// Records the largest key present in `table` as used, before rows of it are deleted, so
    /// that deleting the rows with the largest keys never hands their keys out again.
    static func recordHighestKey(table: String) -> String {
        let quoted = SQLIdentifier(table).quoted
        return """
            INSERT INTO "_primarykeys" ("name", "max") VALUES (?1, (SELECT coalesce(max("_pk"), 0) FROM \(quoted))) \
            ON CONFLICT("name") DO UPDATE SET "max" = max("max", excluded."max")
            """
    }

    /// `INSERT INTO t (_pk, _ent, c1, …) VALUES (?, 3, ?, …)` over every column of the
    /// layout, for the entity with model index `entityIndex`: its number is part of the text
    /// (one statement per entity), so a row binds one value fewer.
    ///
    /// With `rows` above 1, `INSERT OR FAIL INTO t … VALUES (?, 3, ?, …), (?, 3, ?, …), …`
    /// inserts that many rows. `OR FAIL`: a failed constraint stops the statement but keeps
    /// the rows it inserted before (the save rolls back anyway), so SQLite keeps no statement
    /// journal to undo it with; with one, every page the statement changes is first copied
    /// into a temporary file, which cost more than the statement saved.
    static func insert(table: String, columns: [String], entityIndex: Int, rows: Int = 1) -> String {
        let names = (["_pk", "_ent"] + columns).map { SQLIdentifier($0).quoted }
        let marks = (["?", String(entityIndex)] + Array(repeating: "?", count: columns.count)).joined(separator: ", ")
        let tuples = Array(repeating: "(\(marks))", count: rows).joined(separator: ", ")
        return "INSERT \(rows > 1 ? "OR FAIL " : "")INTO \(SQLIdentifier(table).quoted) (\(names.joined(separator: ", "))) VALUES \(tuples)"
    }

    /// How many rows one multi-row INSERT of a table `width` values wide (key and entity
    /// columns included) carries: 50, or fewer so that it binds at most 999 values, SQLite's
    /// oldest limit. Past about 50 rows a statement saves no more time.
    static func rowsPerInsert(width: Int) -> Int { max(1, min(50, 999 / max(1, width - 1))) }

    /// `UPDATE t SET c1 = ?, …, _opt = _opt + 1 WHERE _pk = ?`, and, when `checksVersion`,
    /// `AND _opt = ?`: the update of a row loaded at a known version, which changes nothing
    /// when another save changed the row since.
    static func update(_ layout: TableLayout, columns: [String], checksVersion: Bool) -> String {
        let assignments = columns.map { "\(SQLIdentifier($0).quoted) = ?" }.joined(separator: ", ")
        return "UPDATE \(SQLIdentifier(layout.table).quoted) SET \(assignments), \"_opt\" = \"_opt\" + 1 WHERE \"_pk\" = ?"
            + (checksVersion ? " AND \"_opt\" = ?" : "")
    }

    /// Adds the version column to a table made before stores had one.
    static func addVersionColumn(table: String) -> String {
        "ALTER TABLE \(SQLIdentifier(table).quoted) ADD COLUMN \(versionColumnDefinition(.sqlite))"
    }

    /// The names of a table's columns.
    static let tableColumns = #"SELECT name FROM pragma_table_info(?)"#

    /// The version of one row.
    static func selectVersion(table: String) -> String {
        "SELECT \"_opt\" FROM \(SQLIdentifier(table).quoted) WHERE \"_pk\" = ?"
    }

    /// `SELECT _pk FROM t WHERE _pk IN (json_each(?))`: which of a list of keys have rows.
    static func selectKeys(table: String) -> String {
        "SELECT \"_pk\" FROM \(SQLIdentifier(table).quoted) WHERE \"_pk\" IN (SELECT value FROM json_each(?))"
    }

    /// How many of a list of (distinct) keys have rows: each key looked up by rowid as the list
    /// is read, without the temporary index that `_pk IN (SELECT …)` builds (2.5 times as fast
    /// for 3,000 keys).
    static func countKeys(table: String) -> String {
        "SELECT count(*) FROM json_each(?) AS \"k\" JOIN \(SQLIdentifier(table).quoted) AS \"t\" ON \"t\".\"_pk\" = \"k\".value"
    }

    static func delete(table: String) -> String {
        "DELETE FROM \(SQLIdentifier(table).quoted) WHERE \"_pk\" = ?"
    }

    /// `UPDATE t SET c1 = ?, … WHERE _pk IN (json_each(?))`.
    static func updateRows(table: String, columns: [String]) -> String {
        let assignments = columns.map { "\(SQLIdentifier($0).quoted) = ?" }.joined(separator: ", ")
        return "UPDATE \(SQLIdentifier(table).quoted) SET \(assignments), \"_opt\" = \"_opt\" + 1 WHERE \"_pk\" IN (SELECT value FROM json_each(?))"
    }

    /// `DELETE FROM t WHERE _pk BETWEEN ? AND ?`: a run of consecutive keys.
    static func deleteKeyRange(table: String) -> String {
        "DELETE FROM \(SQLIdentifier(table).quoted) WHERE \"_pk\" BETWEEN ? AND ?"
    }

    /// `DELETE FROM t WHERE _pk IN (json_each(?))`.
    static func deleteRows(table: String) -> String {
        "DELETE FROM \(SQLIdentifier(table).quoted) WHERE \"_pk\" IN (SELECT value FROM json_each(?))"
    }

    static func insertJoin(_ table: String) -> String {
        "INSERT OR IGNORE INTO \(SQLIdentifier(table).quoted) (\"_source\", \"_destination\") VALUES (?, ?)"
    }

    static func deleteJoin(_ table: String) -> String {
        "DELETE FROM \(SQLIdentifier(table).quoted) WHERE \"_source\" = ? AND \"_destination\" = ?"
    }

    /// Deletes every join row of a deleted object, on either side.
    static func deleteJoinRows(_ table: String, column: String, keyList: Bool = false) -> String {
        let condition = keyList ? "IN (SELECT value FROM json_each(?))" : "= ?"
        return "DELETE FROM \(SQLIdentifier(table).quoted) WHERE \(SQLIdentifier(column).quoted) \(condition)"
    }
}

/// The statements that delete and read rows of one table, built once per store.
struct TableSQL: Sendable {
    let delete: String
    let deleteKeyList: String
    let deleteKeyRange: String
    let selectRow: String
    /// Reserves keys for objects that get permanent IDs before they are saved.
    let reserveKeys: String
    /// The largest key used so far (every save that inserts into the table runs it).
    let highestKey: String
    /// Records the largest key present as used (before deleting rows).
    let recordHighestKey: String

    init(_ layout: TableLayout) {
        delete = SchemaSQL.delete(table: layout.table)
        deleteKeyList = SchemaSQL.deleteRows(table: layout.table)
        deleteKeyRange = SchemaSQL.deleteKeyRange(table: layout.table)
        selectRow = FetchSQL.selectRow(layout, dialect: .sqlite)
        reserveKeys = SchemaSQL.reserveKeys(table: layout.table)
        highestKey = SchemaSQL.highestKey(table: layout.table)
        recordHighestKey = SchemaSQL.recordHighestKey(table: layout.table)
    }
}

/// The statements that load one object's to-many relationship, built once per store.
struct ToManySQL: Sendable {
    /// The destinations' keys, in order (one placeholder: the source's key).
    let destinationKeys: String
    /// The destinations' full rows (one placeholder: the source's key); nil for a
    /// many-to-many relationship.
    let destinationRows: String?
    /// The connection's cache numbers of the two statements
    /// (``SQLiteConnection/cachedStatement(_:number:)``): every relationship fault runs one,
    /// and finding it by its text hashed the whole SQL each time.
    let destinationKeysNumber: Int, destinationRowsNumber: Int

    /// The statements of `relationship`, numbered `number` and `number + 1`.
    init(_ relationship: RelationshipDescription, layout: TableLayout, number: Int) {
        destinationKeys = FetchSQL.selectDestinations(of: relationship, dialect: .sqlite)
        destinationRows = relationship.isManyToMany
            ? nil : FetchSQL.selectDestinationRows(of: relationship, layout: layout, dialect: .sqlite)
        destinationKeysNumber = number
        destinationRowsNumber = number + 1
    }
}
