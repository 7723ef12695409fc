import BiomaCore
import Foundation
import GRDB

/// Copies of the database in `backups/`: before destructive changes, and one a day.
extension Tracker {
    /// Copies the database (`VACUUM INTO`, a consistent snapshot) into `backups/`, keeping the newest
    /// `backupsKept` of this kind. Returns the file written.
    @discardableResult
    public func backup(reason: String, at now: Micros) throws -> URL {
        let directory = backupDirectory
        let stamp = IntervalCSV.formatInstant(now, rules: DayRules(timeZone: TimeZone(identifier: "UTC")!))
            .filter { $0.isNumber }
        let file = directory.appendingPathComponent("biomatimer-\(stamp)-\(reason).sqlite")
        let partial = directory.appendingPathComponent(".partial-\(reason).sqlite")
        do {
            try Tracker.makePrivateDirectory(directory)
            try? FileManager.default.removeItem(at: partial)
            try Tracker.createPrivateFileIfMissing(partial)
            // VACUUM INTO writes a consistent copy through the open connection. A second
            // DatabaseQueue would do too, but releasing its dispatch queue starts
            // libdispatch's worker pool, whose monitor then wakes the daemon every second.
            try database.writeWithoutTransaction { db in
                try db.execute(sql: "VACUUM INTO ?", arguments: [partial.path])
            }
            try? FileManager.default.removeItem(at: file)
            try FileManager.default.moveItem(at: partial, to: file)
        } catch {
            try? FileManager.default.removeItem(at: partial)
            throw TrackerError.storage(
                "Cannot back up the database at \(path.path) into \(directory.path): \(Tracker.cause(of: error)). Nothing was changed.")
        }
        let kind = "-\(reason).sqlite"
        let old = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasPrefix("biomatimer-") && $0.hasSuffix(kind) }
            .sorted()
            .dropLast(Tracker.backupsKept)
        for name in old { try? FileManager.default.removeItem(at: directory.appendingPathComponent(name)) }
        return file
    }

    /// Takes today's backup if it has not been taken (or tried) yet. Called at open, with the
    /// heartbeat and by the daemon at each day boundary — never inside a state change, so a key
    /// press never waits for a copy of the whole history. Returns the failure, if any; it is
    /// tried again the next day or the next start.
    @discardableResult
    public func takeDailyBackupIfDue(at now: Micros) -> TrackerError? {
        let today = rules.day(containing: now)
        guard lastDailyBackup != today, lastDailyBackupAttempt != today else { return nil }
        lastDailyBackupAttempt = today
        do {
            try backup(reason: "daily", at: now)
            try writeOrThrow { db in
                try db.execute(
                    sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('last_daily_backup', ?)",
                    arguments: [today.description])
            }
            lastDailyBackup = today
            return nil
        } catch {
            return error as? TrackerError ?? .storage("\(error)")
        }
    }
}
