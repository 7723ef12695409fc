import BiomaCore
import BiomaSystem
import Foundation
import GRDB

/// One copy of the database in `backups/`, as `list()` lists it.
public struct BackupFile: Sendable, Equatable {
    /// The file's name in `backups/` (`biomatimer-<stamp>-<reason>.sqlite`): what `restore` takes.
    public var name: String
    /// When it was taken, from the stamp in its name (UTC).
    public var taken: Micros
    /// Why: `daily`, `before-delete-project`, `before-reset-history`, `before-restore`.
    public var reason: String
    /// Its size in bytes.
    public var size: Int64

    public init(name: String, taken: Micros, reason: String, size: Int64) {
        (self.name, self.taken, self.reason, self.size) = (name, taken, reason, size)
    }

    /// The parts of a backup's file name: its instant and reason; nil for any other name (the
    /// partial copies, anything else put in the folder).
    static func parse(_ name: String) -> (taken: Micros, reason: String)? {
        guard name.hasPrefix("biomatimer-"), name.hasSuffix(".sqlite") else { return nil }
        let middle = name.dropFirst("biomatimer-".count).dropLast(".sqlite".count)
        let digits = middle.prefix { $0.isASCII && $0.isNumber }
        let reason = middle.dropFirst(digits.count)
        // The stamp is `formatInstant`'s text in UTC, its digits alone: the date and time, the
        // microseconds when there are any, then the offset, 0000.
        guard [18, 24].contains(digits.count), digits.hasSuffix("0000"), reason.hasPrefix("-"), reason.count > 1,
            reason.dropFirst().allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" })
        else { return nil }
        func number(_ from: Int, _ count: Int) -> Int {
            Int(digits.dropFirst(from).prefix(count))!
        }
        let (year, month, day) = (number(0, 4), number(4, 2), number(6, 2))
        let (hour, minute, second) = (number(8, 2), number(10, 2), number(12, 2))
        guard let date = Day(year: year, month: month, day: day), hour < 24, minute < 60, second < 60 else { return nil }
        var taken = ((Int64(date.ordinal) * 24 + Int64(hour)) * 60 + Int64(minute)) * 60 + Int64(second)
        taken *= microsPerSecond
        if digits.count == 24 { taken += Int64(number(14, 6)) }
        return (taken, String(reason.dropFirst()))
    }
}

/// Copies of the database in `backups/`: before destructive changes, and one a day.
public struct StoreBackups: StorePart {
    let tracker: Tracker

    /// Backups kept per kind (daily, before-delete-project, before-reset-history, before-restore).
    public static let kept = 7
}

extension StoreBackups {
    /// The backups in `backups/`, newest first (none when the folder is missing or unreadable).
    public func list() -> [BackupFile] {
        let directory = tracker.backupDirectory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.compactMap { name -> BackupFile? in
            guard let (taken, reason) = BackupFile.parse(name) else { return nil }
            var status = stat()
            // A regular file only, not followed through a link.
            guard lstat(directory.appendingPathComponent(name).path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
                return nil
            }
            return BackupFile(name: name, taken: taken, reason: reason, size: Int64(status.st_size))
        }.sorted { ($0.taken, $0.name) > ($1.taken, $1.name) }
    }

    /// Copies the database (`VACUUM INTO`, a consistent snapshot) into `backups/`, keeping the newest
    /// `kept` of this kind. Returns the file written.
    @discardableResult
    public func backup(reason: String, at now: Micros) throws -> URL {
        let directory = tracker.backupDirectory
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
            try tracker.database.writeWithoutTransaction { db in
                try db.execute(sql: "VACUUM INTO ?", arguments: [partial.path])
            }
            try AtomicFile.replace(file.path, with: partial.path)
        } catch {
            try? FileManager.default.removeItem(at: partial)
            throw TrackerError.storage(
                "Cannot back up the database at \(tracker.path.path) into \(directory.path): \(Tracker.cause(of: error)). Nothing was changed.")
        }
        let kind = "-\(reason).sqlite"
        let old = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasPrefix("biomatimer-") && $0.hasSuffix(kind) }
            .sorted()
            .dropLast(Self.kept)
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
        guard tracker.lastDailyBackup != today, tracker.lastDailyBackupAttempt != today else { return nil }
        tracker.lastDailyBackupAttempt = today
        do {
            try backup(reason: "daily", at: now)
            try writeOrThrow { db in
                try db.execute(
                    sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('last_daily_backup', ?)",
                    arguments: [today.description])
            }
            tracker.lastDailyBackup = today
            return nil
        } catch {
            return error as? TrackerError ?? .storage("\(error)")
        }
    }
}
