import BiomaCore
@testable import BiomaStore
import Foundation
import GRDB
import GRDBSQLite

/// Test hooks on the store, for the store's and the daemon's tests: they read and write
/// past the tracker's own calls, so they are kept out of the daemon.
extension Tracker {
    /// Runs SQL outside any transaction (e.g. `PRAGMA max_page_count` to fill the "disk").
    public func executeForTesting(_ sql: String) throws {
        try database.writeWithoutTransaction { try $0.execute(sql: sql) }
    }

    /// How many times SQLite compiled again the statements the connection holds prepared (a
    /// statement expired by a schema change or a pragma is compiled again at its next step).
    public func statementsCompiledAgainForTesting() -> Int {
        database.unsafeRead { db in
            var total: Int32 = 0
            var statement = sqlite3_next_stmt(db.sqliteConnection, nil)
            while let current = statement {
                total += sqlite3_stmt_status(current, SQLITE_STMTSTATUS_REPREPARE, 0)
                statement = sqlite3_next_stmt(db.sqliteConnection, current)
            }
            return Int(total)
        }
    }

    /// Whether the connection's triggers and foreign-key checks are on (`ConnectionSwitch`).
    public func connectionChecksForTesting() throws -> (triggers: Bool, foreignKeys: Bool) {
        try database.writeWithoutTransaction { db in
            (try ConnectionSwitch.triggers.set(nil, db), try ConnectionSwitch.foreignKeys.set(nil, db))
        }
    }

    /// The digests the newest journal entry keeps of the intervals an import added, and the
    /// digests of those rows read back as they are now, in id order.
    public func addedDigestsForTesting() throws -> (kept: [UInt8], readBack: [UInt8]) {
        try database.writeWithoutTransaction { db in
            guard let entry = try Row.fetchOne(db, sql: "SELECT added_first, added_digests FROM edit_journal ORDER BY seq DESC LIMIT 1"),
                let first: Int64 = entry[0], let kept: Data = entry[1]
            else { return ([], []) }
            return (Array(kept), try EditJournal.addedRows(from: first, before: first + Int64(kept.count / 8), db).digests)
        }
    }

    /// The first column of every row `sql` gives, as text.
    public func queryStringsForTesting(_ sql: String) throws -> [String] {
        try Self.read(database) { db in try Row.fetchAll(db, sql: sql).map { $0[0] as DatabaseValue }.map { "\($0.storage.value ?? "NULL")" } }
    }

    /// SQLite's plans for the queries behind today's totals and reports, the first recorded
    /// day, the interval starting at an instant, and a budget's use (the last).
    public func queryPlansForTesting() throws -> [String] {
        try Self.read(database) { db in
            let queries: [(String, StatementArguments)] = [
                (Tracker.overlapSQL, [0, 1]), (Tracker.afterSQL, [0]), (Tracker.firstStartSQL, []), (StoreSync.nextEndingSQL, [0]),
                (StoreTargets.budgetUseSQL, [1, 0, "p1", 0, 1]),
            ]
            return try queries.map { query in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + query.0, arguments: query.1).map { $0["detail"] as String }
                    .joined(separator: "; ")
            }
        }
    }

    /// Every row of every table, as text, to compare the store before and after a call. The
    /// tables are read from the schema, so a table a migration adds is in the dump too.
    public func dumpForTesting() throws -> String {
        try Self.read(database) { db in
            var text = ""
            for table in try Self.tablesForTesting(db) {
                // Sorted as text: the same rows give the same dump whatever their order.
                for line in try Row.fetchAll(db, sql: "SELECT * FROM \(table)").map({ "\(table) \($0)" }).sorted() {
                    text += line + "\n"
                }
            }
            return text
        }
    }

    /// The names of every table of the store (SQLite's own and GRDB's bookkeeping aside).
    public func tableNamesForTesting() throws -> [String] {
        try Self.read(database) { try Self.tablesForTesting($0) }
    }

    private static func tablesForTesting(_ db: Database) throws -> [String] {
        try String.fetchAll(
            db,
            sql: """
                SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                    AND name NOT LIKE 'grdb_%' ORDER BY name
                """)
    }

    /// Every interval row by id, and the stopwatch's running part: what an undo restores.
    public func historyForTesting() throws -> (rows: [IntervalRow], open: OpenSegment?, runs: [Micros?]) {
        let rows = try Self.read(database) { try Row.fetchAll($0, sql: IntervalRows.rowSQL + " ORDER BY id").map(IntervalRows.intervalRow) }
        return (rows, model.state.open, [model.state.workRunStart, model.state.projectRunStart])
    }

    /// SQLite's plans for the queries behind edits and undo (rows around an instant, by id,
    /// the running one, a journal entry's rows).
    public func editQueryPlansForTesting() throws -> [String] {
        try Self.read(database) { db in
            let queries: [(String, StatementArguments)] = [
                (IntervalRows.rowSQL + " WHERE end_us > ? AND end_us <= ? ORDER BY end_us", [0, 1]),
                (IntervalRows.rowSQL + " WHERE end_us > ? ORDER BY end_us LIMIT 1", [0]),
                (IntervalRows.rowSQL + " WHERE end_us IS NULL", []), (IntervalRows.rowSQL + " WHERE id = ?", [1]),
                ("SELECT id FROM edit_journal_row WHERE seq = ?", [1]),
            ]
            return try queries.map { query in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + query.0, arguments: query.1).map { $0["detail"] as String }
                    .joined(separator: "; ")
            }
        }
    }

    /// A database at `path` migrated only up to `version`, then `sql` run on it.
    public static func makeDatabaseForTesting(at path: String, upTo version: String, then sql: String) throws {
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: version)
        try queue.write { try $0.execute(sql: sql) }
        try queue.close()
    }
}
