import CSQLite
import GRDB

/// What one SQLite connection does besides the statements it runs, switched with
/// `sqlite3_db_config` (through `CSQLite`): its triggers, and its enforcement of foreign keys.
/// Both can be switched inside a transaction. A switch that changes something makes SQLite
/// prepare each statement of the connection again before its next run.
enum ConnectionSwitch {
    case triggers, foreignKeys

    /// Turns it on or off (nil: leaves it); returns whether it was on before.
    @discardableResult
    func set(_ on: Bool?, _ db: Database) throws -> Bool {
        let was = try call(-1, db)
        if let on, on != was { _ = try call(on ? 1 : 0, db) }
        return was
    }

    /// `sqlite3_db_config` with `value` (1 on, 0 off, -1 as it is): whether it is on after.
    private func call(_ value: Int32, _ db: Database) throws -> Bool {
        let connection = UnsafeMutableRawPointer(db.sqliteConnection)
        var now: Int32 = 0
        let code =
            switch self {
            case .triggers: csqlite_enable_triggers(connection, value, &now)
            case .foreignKeys: csqlite_enable_foreign_keys(connection, value, &now)
            }
        let result = ResultCode(rawValue: code)
        guard result == .SQLITE_OK else {
            throw DatabaseError(resultCode: result, message: "cannot turn the \(self) \(value == 1 ? "on" : "off")")
        }
        return now != 0
    }

    /// Runs `body` (bulk statements inside the caller's transaction) with the connection's
    /// triggers and foreign-key checks off, and puts both back as they were after, whatever
    /// `body` does. The caller makes sure of what they would check: every row it writes names
    /// a project that exists, and records for sync what a trigger would have. SQLite can then
    /// run a statement that may fail part way (a multi-row `INSERT OR FAIL`) without keeping
    /// a journal of the statement's own to take it back: a failure fails the transaction,
    /// which its caller rolls back.
    static func withChecksOff<R>(_ db: Database, _ body: () throws -> R) throws -> R {
        let triggers = try ConnectionSwitch.triggers.set(false, db)
        let foreignKeys: Bool
        do {
            foreignKeys = try ConnectionSwitch.foreignKeys.set(false, db)
        } catch {
            _ = try? ConnectionSwitch.triggers.set(triggers, db)
            throw error
        }
        func restore() throws {
            try ConnectionSwitch.foreignKeys.set(foreignKeys, db)
            try ConnectionSwitch.triggers.set(triggers, db)
        }
        let result: R
        do {
            result = try body()
        } catch {
            try? restore()
            throw error
        }
        // Setting a flag back does not fail in practice; were it to, the error fails the
        // transaction like any other.
        try restore()
        return result
    }
}

extension Tracker {
    /// SQLite set up for a process that is about to use it, before it does, while it has one
    /// thread (the daemon's first step): it stops counting the memory it allocates, which it
    /// does under a global lock at each allocation and free, a lock every thread's connection
    /// then takes (thousands of times per bulk statement). Nothing here reads those counts. A
    /// process that has used SQLite already is left as it is.
    public static func prepareSQLiteForThisProcess() {
        _ = csqlite_stop_counting_memory()
    }
}
