import BiomaCore
import Foundation
import GRDB
import GRDBSQLite

/// Restoring one of the backups (`list()`) in place of the store, the daemon running.
///
/// The backup is copied to a scratch file beside it and checked there (a SQLite database whose
/// integrity check passes, with the store's tables and only migrations this version knows),
/// brought to the store's page size; only then is the store backed up (`before-restore`), and
/// the scratch copied into the live database with SQLite's online backup, page by page in one
/// write, and migrated with the store's migrator when it is of an older version. What belongs
/// to this machine and this moment rather than to the history is carried over from the store
/// it replaces (`carriedTables`); undo's journal is emptied (the way back is the backup taken
/// before). Everything the tracker keeps in memory is then read again, and the restored store
/// recovered as an open does: what ran when the backup was taken runs on, unless the machine
/// has started since (it ends at the backup's last heartbeat).
///
/// The scratch and its checks use SQLite's own connection calls rather than a second GRDB
/// connection, whose dispatch queue, once let go, would start libdispatch's worker pool and its
/// once-a-second wake-up for the daemon's life (`WorkerConnections`).
extension StoreBackups {
    /// What a restore did: the backup brought back, and the one taken of the history it replaced.
    public struct Restored: Sendable, Equatable {
        public var restored: BackupFile
        public var kept: BackupFile
    }

    /// Why a restore is refused while sync is on.
    public static let restoreWithSyncOn =
        "Sync is on: the other machines' newer changes would be merged over the restored history and undo it, and what this machine wrote since the backup is in the sync folder already. Turn sync off first (biomatimer sync disable; and remove sync_dir from the settings, if it is there), then restore."

    /// The tables every store has had since its first version: a file without them is no store.
    static let storeTables: Set<String> = ["grdb_migrations", "project", "interval", "timer_state", "meta"]

    /// What a restore keeps from the store it replaces, as it is: this device's sync identity,
    /// sequence and clock (sync off; its operations not yet in the folder too), the absence in
    /// progress and the notifications on screen, the day whose reached target was announced,
    /// and when the settings file's targets were first read. (The away time `KeepAway` could
    /// give back was taken from the history replaced: it goes.)
    static let carriedTables: [(table: String, rows: String)] = [
        ("sync_self", ""), ("sync_outbox", ""), ("away_state", " WHERE slot = 'current'"), ("shown_notification", ""),
        ("target_announced", ""), ("config_target_seen", ""),
    ]

    /// What a restore empties: changes recorded for sync under the history replaced, and undo's
    /// journal (its entries are of the history before the backup; the way back from a restore
    /// is the backup taken before it).
    static let emptiedTables = ["sync_change", "edit_journal_row", "edit_journal"]

    /// Brings the backup named `name` (one of `list()`) back in place of the store, after
    /// backing the store up (`before-restore`). A name that is not one of them, or a file that
    /// is not a store this version can read, is refused with `invalidArgument` and nothing
    /// changes; so is a restore while sync is on (`restoreWithSyncOn`).
    @discardableResult
    public func restore(named name: String, at now: Micros) throws -> Restored {
        guard !tracker.syncJournal.recording else { throw TrackerError.invalidArgument(Self.restoreWithSyncOn) }
        guard let chosen = list().first(where: { $0.name == name }) else {
            throw TrackerError.invalidArgument("There is no backup of that name: `biomatimer backups` lists them.")
        }
        let directory = tracker.backupDirectory
        let scratch = directory.appendingPathComponent(".restoring.sqlite")
        defer { Self.removeDatabaseFiles(scratch) }
        try prepareScratch(from: directory.appendingPathComponent(name), named: name, into: scratch)
        let carried = try readOrThrow { db in
            try Self.carriedTables.map { try Row.fetchAll(db, sql: "SELECT * FROM \($0.table)\($0.rows)") }
        }
        let kept = try backup(reason: "before-restore", at: now)
        do {
            try replaceStore(with: scratch)
            try tracker.database.write { db in
                for (index, entry) in Self.carriedTables.enumerated() {
                    try db.execute(sql: "DELETE FROM \(entry.table)")
                    for row in carried[index] {
                        let columns = Array(row.columnNames)
                        try db.execute(
                            sql: "INSERT INTO \(entry.table) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
                            arguments: StatementArguments(Array(row.databaseValues)))
                    }
                }
                for table in Self.emptiedTables { try db.execute(sql: "DELETE FROM \(table)") }
            }
            try tracker.reloadFromStore(at: now)
        } catch {
            let cause = Tracker.cause(of: error)
            do {
                try replaceStore(with: kept)
                try tracker.reloadFromStore(at: now)
            } catch {
                throw TrackerError.storage(
                    "Cannot restore \(name): \(cause); nor put back the history as it was (\(Tracker.cause(of: error))). It is kept in \(kept.path): restore \(kept.lastPathComponent) once the cause is fixed.")
            }
            throw TrackerError.storage("Cannot restore \(name): \(cause). Nothing was changed.")
        }
        let keptFile =
            list().first { $0.name == kept.lastPathComponent }
            ?? BackupFile(name: kept.lastPathComponent, taken: now, reason: "before-restore", size: 0)
        return Restored(restored: chosen, kept: keptFile)
    }

    /// Copies `source` to `scratch` and makes sure it is a store this version can take: a
    /// SQLite database, whole, with the store's tables and no migration this version does not
    /// know, in rollback-journal mode and at the store's page size (SQLite copies a database
    /// into one in WAL mode only between equal page sizes). Refused with `invalidArgument`
    /// otherwise.
    private func prepareScratch(from source: URL, named name: String, into scratch: URL) throws {
        Self.removeDatabaseFiles(scratch)
        do {
            try FileManager.default.copyItem(at: source, to: scratch)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: scratch.path)
        } catch {
            throw TrackerError.storage("Cannot copy the backup \(name) to restore it: \(Tracker.cause(of: error)). Nothing was changed.")
        }
        let pageSize = try readOrThrow { try Int.fetchOne($0, sql: "PRAGMA page_size") ?? 4096 }
        let known = Set(Schema.migrator.migrations)
        let refused = { (why: String) in
            TrackerError.invalidArgument("The backup \(name) is not a biomatimer store this version can restore: \(why). Nothing was changed.")
        }
        let connection: RawConnection
        do {
            connection = try RawConnection(path: scratch.path, readOnly: false)
        } catch {
            throw refused(error.message)
        }
        defer { connection.close() }
        do {
            if try connection.strings("PRAGMA journal_mode").first?.lowercased() == "wal" {
                _ = try connection.strings("PRAGMA journal_mode = DELETE")
            }
            let check = try connection.strings("PRAGMA integrity_check")
            guard check == ["ok"] else { throw refused("it is damaged (\(check.prefix(3).joined(separator: "; ")))") }
            let tables = Set(try connection.strings("SELECT name FROM sqlite_master WHERE type = 'table'"))
            let missing = Self.storeTables.subtracting(tables).sorted()
            guard missing.isEmpty else { throw refused("it has no table \(missing.joined(separator: ", "))") }
            let applied = try connection.strings("SELECT identifier FROM grdb_migrations")
            guard applied.contains("v1") else { throw refused("its tables were never made") }
            let unknown = applied.filter { !known.contains($0) }
            guard unknown.isEmpty else {
                throw refused("a newer version made it (its schema has \(unknown.joined(separator: ", ")))")
            }
            if try connection.strings("PRAGMA page_size").first != String(pageSize) {
                _ = try connection.strings("PRAGMA page_size = \(pageSize)")
                _ = try connection.strings("VACUUM")
            }
        } catch let error as TrackerError {
            throw error
        } catch let error as RawConnection.Failure {
            throw refused(error.message)
        }
    }

    /// Copies the database `file` into the store's, in one write (SQLite's online backup), and
    /// migrates it to this version. On the loop's connection, which nothing else writes meanwhile.
    private func replaceStore(with file: URL) throws {
        let source: RawConnection
        do {
            source = try RawConnection(path: file.path, readOnly: true)
        } catch {
            throw TrackerError.storage(error.message)
        }
        defer { source.close() }
        try tracker.database.writeWithoutTransaction { db in
            guard let destination = db.sqliteConnection, let backup = sqlite3_backup_init(destination, "main", source.handle, "main")
            else {
                throw DatabaseError(resultCode: db.lastErrorCode, message: db.lastErrorMessage)
            }
            let step = sqlite3_backup_step(backup, -1)
            let finish = sqlite3_backup_finish(backup)
            db.clearSchemaCache()
            guard step == SQLITE_DONE, finish == SQLITE_OK else {
                throw DatabaseError(resultCode: ResultCode(rawValue: step == SQLITE_DONE ? finish : step), message: db.lastErrorMessage)
            }
        }
        try Schema.migrator.migrate(tracker.database)
    }

    /// Removes a database file and what SQLite may have left beside it.
    static func removeDatabaseFiles(_ file: URL) {
        for suffix in ["", "-journal", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: file.path + suffix)
        }
    }
}

/// A SQLite connection of its own, without GRDB (`StoreBackups+Restore` says why), for a restore's
/// scratch copy: statements run one at a time, their first column read as text.
final class RawConnection {
    struct Failure: Error {
        var message: String
    }

    let handle: OpaquePointer

    init(path: String, readOnly: Bool) throws(Failure) {
        var handle: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close(handle)
            throw Failure(message: message)
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
    }

    func close() { sqlite3_close(handle) }

    /// Runs `sql` (one statement) to its end; the first column of each row, as text.
    func strings(_ sql: String) throws(Failure) -> [String] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw Failure(message: Self.described(String(cString: sqlite3_errmsg(handle))))
        }
        defer { sqlite3_finalize(statement) }
        var rows: [String] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { return rows }
            guard code == SQLITE_ROW else { throw Failure(message: Self.described(String(cString: sqlite3_errmsg(handle)))) }
            rows.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
        }
    }

    /// SQLite's message, in the words the store uses for the same causes.
    private static func described(_ message: String) -> String {
        message == "file is not a database" ? "the file is not a SQLite database" : message
    }
}
