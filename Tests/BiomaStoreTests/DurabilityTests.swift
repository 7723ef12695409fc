import BiomaCore
import Foundation
import Testing
import TestSupport

@testable import BiomaStore
import StoreTestSupport

@Suite(.ownThread, .timeLimit(.minutes(1))) struct DurabilityTests {
    @Test func sigkillMidSessionThenReopen() throws {
        guard let executable = benchStoreExecutable() else {
            Issue.record("BenchStore is not built next to the tests (\(CommandLine.arguments[0]))")
            return
        }
        try withTemporaryDirectory { dir in
            let t0 = t("2024-05-01T09:00:00Z")
            let child = try ChildProcess(executable.path, ["crash-child", dir.path, boot, String(t0)])
            #expect(child.readLine() == "ready")
            kill(child.pid, SIGKILL)
            #expect(child.wait() == 128 + SIGKILL)
            // Same boot: the session goes on as if nothing happened.
            let later = t0 + 2 * hour
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: later, bootID: boot)
            let snap = try tracker.history.snapshot(at: later)
            #expect(snap.running && snap.activeProject?.name == "Crash")
            #expect(snap.sessionTime == 2 * hour && snap.projectSessionTime == 2 * hour)
            #expect(snap.dailyTotal == 2 * hour)
            try tracker.timers.stop(at: later)
            #expect(try tracker.history.exportCSV(from: nil, to: nil, at: later).contains("Crash,#FF0000,2024-05-01T09:00:00+00:00,2024-05-01T11:00:00+00:00,2:00:00"))
        }
    }

    @Test func garbageFileIsReportedWithItsPathAndLeftUntouched() throws {
        try withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let file = dir.appendingPathComponent(Tracker.databaseFileName)
            let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
            try garbage.write(to: file)
            let message = storageMessage { _ = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: boot) }
            #expect(message?.contains(file.path) == true)
            #expect(message?.contains("not a SQLite database") == true)
            #expect(try Data(contentsOf: file) == garbage)
        }
    }

    @Test func unopenableFileIsReportedWithItsPath() throws {
        try withTemporaryDirectory { dir in
            // A directory where the database should be: cannot be opened, even by root.
            let file = dir.appendingPathComponent(Tracker.databaseFileName)
            try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
            let message = storageMessage { _ = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: boot) }
            #expect(message?.contains(file.path) == true)
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) && isDirectory.boolValue)
        }
    }

    /// A database file its user may not read. Root reads files whatever their mode, so as
    /// root the open is made by BenchStore's `open-child` running as `nobody`.
    @Test func unreadableFileIsReportedWithItsPath() throws {
        try withTemporaryDirectory { dir in
            let t0 = t("2024-05-01T09:00:00Z")
            _ = try Tracker(dataDirectory: dir, rules: utc, now: t0, bootID: boot)
            let file = dir.appendingPathComponent(Tracker.databaseFileName)
            let bytes = try Data(contentsOf: file)
            chmod(file.path, 0)
            defer { chmod(file.path, 0o600) }
            let message: String?
            if getuid() == 0 {
                guard let executable = benchStoreExecutable() else {
                    Issue.record("BenchStore is not built next to the tests")
                    return
                }
                chmod(dir.path, 0o755)  // nobody may reach the file, not read it
                for name in (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [] where name != Tracker.databaseFileName {
                    chmod(dir.appendingPathComponent(name).path, 0o777)
                }
                let child = try ChildProcess(
                    "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", executable.path, "open-child", dir.path])
                let text = String(decoding: try #require(child.stderr).readDataToEndOfFile(), as: UTF8.self)
                #expect(child.wait() == 1, "\(text)")
                message = text
            } else {
                message = storageMessage { _ = try Tracker(dataDirectory: dir, rules: utc, now: t0, bootID: boot) }
            }
            #expect(message?.contains(file.path) == true, "\(message ?? "no error")")
            chmod(file.path, 0o600)
            #expect(try Data(contentsOf: file) == bytes)
        }
    }

    @Test func fullDiskFailsCleanlyAndLeavesStateAsItWas() throws {
        try withTemporaryDirectory { dir in
            let t0 = t("2024-05-01T09:00:00Z")
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: t0, bootID: boot)
            let a = try tracker.catalog.addProject(name: "A", color: "", at: t0)
            let b = try tracker.catalog.addProject(name: "B", color: "", at: t0)
            // The "disk" holds no page more than the database has now.
            try tracker.executeForTesting("PRAGMA max_page_count = 1; PRAGMA wal_checkpoint(TRUNCATE)")
            var now = t0
            var failure: String?
            for index in 0..<2000 {
                now += minute
                let before = try fingerprint(tracker, at: now)
                do {
                    try tracker.timers.startProject(index % 2 == 0 ? a : b, at: now)
                } catch let error as TrackerError {
                    failure = error.message
                    #expect(try fingerprint(tracker, at: now) == before)
                    break
                }
            }
            #expect(failure?.contains("disk is full") == true)
            #expect(failure?.contains(tracker.path.path) == true)
            // Space again: the same call now works.
            try tracker.executeForTesting("PRAGMA max_page_count = 1000000")
            try tracker.timers.startProject(a, at: now + minute)
            #expect(try tracker.history.snapshot(at: now + minute).activeProject?.id == a)
        }
    }

    @Test func opensAVersion1Database() throws {
        try withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let file = dir.appendingPathComponent(Tracker.databaseFileName)
            let t0 = t("2024-05-01T09:00:00Z")
            try Tracker.makeDatabaseForTesting(
                at: file.path, upTo: "v1",
                then: """
                    INSERT INTO project (id, name, name_key, color, position, session_us)
                        VALUES ('p1', 'Old', 'old', '#123456', 0, 600000000);
                    INSERT INTO meta (key, value) VALUES ('next_project_number', '2');
                    INSERT INTO interval (start_us, end_us, project_id) VALUES (\(t0), \(t0 + hour), 'p1');
                    INSERT INTO interval (start_us, end_us, project_id) VALUES (\(t0 + 2 * hour), NULL, NULL);
                    UPDATE timer_state SET work_session_us = \(hour), work_run_start_us = \(t0 + 2 * hour),
                        session_last_active_us = \(t0 + 2 * hour), last_change_us = \(t0 + 2 * hour);
                    """)
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: t0 + 5 * hour, bootID: boot)
            // A v1 store knew no boot id: its open interval is closed at the last change.
            let snap = try tracker.history.snapshot(at: t0 + 5 * hour)
            #expect(!snap.running)
            #expect(snap.projects == [Project(id: "p1", name: "Old", color: "#123456", position: 0)])
            #expect(snap.projectTimes["p1"]?.session == 10 * minute)
            #expect(snap.dailyTotal == hour)
            #expect(try tracker.catalog.addProject(name: "New", color: "", at: t0 + 5 * hour) == "p2")
            try tracker.timers.start(at: t0 + 6 * hour)
            try tracker.heartbeat(at: t0 + 6 * hour + minute)
            #expect(try tracker.dumpForTesting().contains("boot_id:\"boot-1\""))
        }
    }
}

@Suite struct ScalingTests {
    /// Today's totals and reports, the first recorded day and the interval starting where a
    /// cut ends another read a bounded index range of the ends, never the whole history (there
    /// is no index on the starts: v13 drops it).
    @Test func overlapQueriesUseTheEndIndex() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: boot)
            var plans = try tracker.queryPlansForTesting()
            #expect(plans.count == 5)
            #expect(try tracker.queryStringsForTesting("SELECT name FROM sqlite_master WHERE name = 'interval_start'") == [])
            // A budget's use: the project's intervals in one range of their ends, not all its years.
            let budget = plans.removeLast()
            #expect(budget.contains("SEARCH interval USING INDEX interval_project_end (project_id=? AND end_us>?)"), "\(budget)")
            for plan in plans {
                #expect(plan.contains("SEARCH interval USING INDEX interval_end"), "\(plan)")
                #expect(!plan.contains("SCAN"), "\(plan)")
            }
        }
    }
}
