import BiomaCore
import Foundation
import GRDB
import Testing

@testable import BiomaStore
import StoreTestSupport

/// `backups.list()` and `backups.restore(named:)`: a backup brought back into the live store, and every
/// refusal leaving the store as it was.
@Suite struct RestoreStoreTests {
    static let (hour, minute) = (3_600 * microsPerSecond, 60 * microsPerSecond)

    /// The projects and intervals as rows of text (ids, names, instants).
    static func history(_ tracker: Tracker) throws -> [String] {
        try tracker.queryStringsForTesting("SELECT id || ' ' || name FROM project ORDER BY id")
            + tracker.queryStringsForTesting(
                "SELECT id || ' ' || start_us || ' ' || ifnull(end_us, 'open') || ' ' || ifnull(project_id, '-') FROM interval ORDER BY id")
    }

    @Test func aBackupIsRestoredIntoTheLiveStoreAndTheRestoreIsUndoneTheSameWay() throws {
        try withTemporaryDirectory { dir in
            let t0 = t("2024-05-01T09:00:00Z")
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: t0, bootID: boot)
            let device = try tracker.sync.device()
            let a = try tracker.catalog.addProject(name: "Client A", color: "", at: t0)
            let b = try tracker.catalog.addProject(name: "Client B", color: "", at: t0)
            try tracker.timers.startProject(a, at: t0)
            try tracker.timers.startProject(b, at: t0 + Self.hour)
            _ = try tracker.edits.addInterval(
                start: t0 - 3 * Self.hour, end: t0 - 2 * Self.hour, project: a, replace: false, at: t0 + Self.hour)
            let beforeDelete = try Self.history(tracker)
            // B runs while A goes: the backup holds A, its two hours and B running.
            try tracker.catalog.deleteProject(a, at: t0 + 2 * Self.hour)
            let afterDelete = try Self.history(tracker)
            #expect(tracker.projects.map(\.name) == ["Client B"])

            let listed = tracker.backups.list()
            #expect(listed.map(\.reason) == ["before-delete-project", "daily"])
            #expect(listed[0].taken == t0 + 2 * Self.hour && listed[1].taken == t0)
            #expect(listed.allSatisfy { $0.size > 0 && $0.name.hasPrefix("biomatimer-") && $0.name.hasSuffix("-\($0.reason).sqlite") })

            let now = t0 + 2 * Self.hour + 5 * Self.minute
            let done = try tracker.backups.restore(named: listed[0].name, at: now)
            #expect(done.restored == listed[0])
            #expect(done.kept.reason == "before-restore" && done.kept.taken == now && done.kept.size > 0)
            #expect(tracker.backups.list().map(\.name) == [done.kept.name] + listed.map(\.name))
            // The rows are those of the backup; in memory too: A is back with its time, and B
            // runs on (same boot), counted up to now.
            #expect(try Self.history(tracker) == beforeDelete)
            #expect(tracker.projects.map(\.name) == ["Client A", "Client B"])
            let snapshot = try tracker.history.snapshot(at: now)
            #expect(snapshot.activeProject?.id == b)
            #expect(snapshot.projectTimes[a]?.dailyTotal == 2 * Self.hour)
            #expect(snapshot.dailyTotal == 3 * Self.hour + 5 * Self.minute)
            #expect(try tracker.history.report(.day, containing: Day("2024-05-01"), at: now).workTotal == 3 * Self.hour + 5 * Self.minute)
            // What belongs to this machine stays; undo's journal is of the history replaced.
            #expect(try tracker.sync.device() == device)
            #expect(throws: TrackerError.nothingToUndo("Nothing to undo: no edit of recorded time is left in the journal.")) {
                try tracker.edits.undo(at: now)
            }
            // A new open reads the same.
            let reopened = try Tracker(dataDirectory: dir, rules: utc, now: now, bootID: boot)
            #expect(try Self.history(reopened) == beforeDelete)
            #expect(try reopened.history.snapshot(at: now).activeProject?.id == b)

            // The restore's own backup takes it back.
            let back = try tracker.backups.restore(named: done.kept.name, at: now + Self.minute)
            #expect(back.restored == done.kept && back.kept.reason == "before-restore")
            #expect(try Self.history(tracker) == afterDelete)
            #expect(tracker.projects.map(\.name) == ["Client B"])
            #expect(try tracker.history.snapshot(at: now + Self.minute).projectTimes[a] == nil)
            #expect(tracker.backups.list().map(\.reason) == ["before-restore", "before-restore", "before-delete-project", "daily"])
        }
    }

    @Test func aRestoreAfterARebootEndsWhatRanAtTheBackupsLastHeartbeat() throws {
        try withTemporaryDirectory { dir in
            let t0 = t("2024-05-01T09:00:00Z")
            let first = try Tracker(dataDirectory: dir, rules: utc, now: t0, bootID: "boot-1")
            let a = try first.catalog.addProject(name: "A", color: "", at: t0)
            try first.timers.startProject(a, at: t0)
            try first.heartbeat(at: t0 + 10 * Self.minute)
            try first.backups.backup(reason: "daily", at: t0 + 11 * Self.minute)
            let name = try #require(first.backups.list().first { $0.taken == t0 + 11 * Self.minute }).name
            let second = try Tracker(dataDirectory: dir, rules: utc, now: t0 + Self.hour, bootID: "boot-2")
            try second.history.reset(at: t0 + Self.hour)
            #expect(try second.history.snapshot(at: t0 + Self.hour).dailyTotal == 0)
            // The backup says A runs, under the boot before: it ends at that boot's last heartbeat.
            try second.backups.restore(named: name, at: t0 + Self.hour)
            let snapshot = try second.history.snapshot(at: t0 + Self.hour)
            #expect(!snapshot.running && snapshot.dailyTotal == 10 * Self.minute)
        }
    }

    @Test func aNameThatIsNoBackupOrAFileThatIsNoStoreChangesNothing() throws {
        try withTemporaryDirectory { dir in
            let t0 = t("2024-05-01T09:00:00Z")
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: t0, bootID: boot)
            let a = try tracker.catalog.addProject(name: "A", color: "", at: t0)
            try tracker.timers.startProject(a, at: t0)
            let now = t0 + Self.hour
            let backupsFolder = tracker.backupDirectory
            // Files that carry a backup's name but hold no store this version can take.
            let garbage = "biomatimer-202405010100000000-daily.sqlite"
            try Data("not a database at all\n".utf8).write(to: backupsFolder.appendingPathComponent(garbage))
            let empty = "biomatimer-202405010200000000-daily.sqlite"
            try Self.database(at: backupsFolder.appendingPathComponent(empty), "CREATE TABLE other (x)")
            let newer = "biomatimer-202405010300000000-daily.sqlite"
            try Tracker.makeDatabaseForTesting(
                at: backupsFolder.appendingPathComponent(newer).path, upTo: "v14-target-histories",
                then: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
            try Data().write(to: backupsFolder.appendingPathComponent(".partial-daily.sqlite"))
            let listed = tracker.backups.list()
            #expect(listed.count == 4)
            let before = try fingerprint(tracker, at: now)
            let refused: [(String, String)] = [
                ("", "There is no backup"), ("..", "There is no backup"), ("../biomatimer.sqlite", "There is no backup"),
                (backupsFolder.appendingPathComponent(listed.last!.name).path, "There is no backup"),
                ("backups/" + listed.last!.name, "There is no backup"), (".partial-daily.sqlite", "There is no backup"),
                ("biomatimer.sqlite", "There is no backup"), (garbage, "the file is not a SQLite database"),
                (empty, "it has no table grdb_migrations, interval, meta, project, timer_state"),
                (newer, "a newer version made it (its schema has v99-from-the-future)"),
            ]
            for (name, words) in refused {
                do {
                    try tracker.backups.restore(named: name, at: now)
                    Issue.record("\(name) was restored")
                } catch let error as TrackerError {
                    guard case .invalidArgument(let message) = error else {
                        Issue.record("\(name): \(error)")
                        continue
                    }
                    #expect(message.contains(words), "\(name): \(message)")
                }
                #expect(try fingerprint(tracker, at: now) == before, "\(name)")
                #expect(tracker.backups.list() == listed, "\(name): no backup taken")
            }
            // With sync on, a restore would be undone by the other machines: refused.
            try tracker.sync.enable(folder: dir.appendingPathComponent("sync").path, name: "here")
            let syncing = try fingerprint(tracker, at: now)
            #expect(throws: TrackerError.invalidArgument(StoreBackups.restoreWithSyncOn)) {
                try tracker.backups.restore(named: listed.first { $0.reason == "daily" && $0.size > 8192 }?.name ?? "", at: now)
            }
            #expect(try fingerprint(tracker, at: now) == syncing)
        }
    }

    @Test func aBackupOfAnOlderVersionIsMigrated() throws {
        try withTemporaryDirectory { dir in
            let t0 = t("2024-05-01T09:00:00Z")
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: t0, bootID: boot)
            try Tracker.makePrivateDirectory(tracker.backupDirectory)
            // A store as version 4 left it, with 4 KiB pages (the store's are 8 KiB).
            let old = "biomatimer-202301020304050000-before-reset-history.sqlite"
            try Tracker.makeDatabaseForTesting(
                at: tracker.backupDirectory.appendingPathComponent(old).path, upTo: "v4-focus",
                then: """
                    INSERT INTO project (id, name, name_key, color, position) VALUES ('p1', 'Old', 'old', '#FF0000', 0);
                    INSERT INTO interval (start_us, end_us, project_id) VALUES (\(t0 - 2 * Self.hour), \(t0 - Self.hour), 'p1');
                    """)
            let listed = try #require(tracker.backups.list().first { $0.name == old })
            #expect(listed.taken == t("2023-01-02T03:04:05Z") && listed.reason == "before-reset-history")
            try tracker.backups.restore(named: old, at: t0)
            #expect(tracker.projects.map(\.name) == ["Old"])
            #expect(try tracker.history.snapshot(at: t0).projectTimes["p1"]?.dailyTotal == Self.hour)
            #expect(try tracker.queryStringsForTesting("SELECT identifier FROM grdb_migrations") == Schema.migrator.migrations)
            // Every table the store has now, with the rows of the old one.
            let reopened = try Tracker(dataDirectory: dir, rules: utc, now: t0, bootID: boot)
            #expect(reopened.projects.map(\.name) == ["Old"])
        }
    }

    static func database(at url: URL, _ sql: String) throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { try $0.execute(sql: sql) }
        try queue.close()
    }
}
