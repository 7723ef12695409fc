@testable import BiomaCore
import Foundation
import Testing

@testable import BiomaStore
import StoreTestSupport

@Suite struct TrackerTests {
    @Test func createsPrivateFilesAndDefaultsToXDG() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: boot)
            let dirMode = try FileManager.default.attributesOfItem(atPath: dir.path)[.posixPermissions] as? Int
            let fileMode = try FileManager.default.attributesOfItem(atPath: tracker.path.path)[.posixPermissions] as? Int
            #expect(dirMode == 0o700)
            #expect(fileMode == 0o600)
            #expect(tracker.path.lastPathComponent == "biomatimer.sqlite")
        }
        #expect(Tracker.defaultDataDirectory(environment: ["XDG_DATA_HOME": "/x/data", "HOME": "/home/u"]).path == "/x/data/biomatimer")
        #expect(Tracker.defaultDataDirectory(environment: ["HOME": "/home/u"]).path == "/home/u/.local/share/biomatimer")
        #expect(Tracker.defaultDataDirectory(environment: ["XDG_DATA_HOME": "", "HOME": "/home/u"]).path == "/home/u/.local/share/biomatimer")
    }

    /// Projects made without a colour (by `project add` or an import) get distinct ones.
    @Test func projectsWithoutAColourGetThePalettesNext() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: boot)
            for name in ["A", "B", "C"] { _ = try tracker.catalog.addProject(name: name, color: "", at: 0) }
            _ = try tracker.catalog.addProject(name: "D", color: "#f28e2b", at: 0)
            _ = try tracker.catalog.addProject(name: "E", color: "", at: 0)
            #expect(tracker.projects.map(\.color) == ["#007AFF", "#F28E2B", "#59A14F", "#F28E2B", "#E15759"])
        }
    }

    @Test func timersAndTotalsThroughTheStore() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: berlin, now: 0, bootID: boot)
            let t0 = t("2024-01-15T23:00:00+01:00")
            let a = try tracker.catalog.addProject(name: "  Alpha ", color: "#00ff7f", at: t0)
            let b = try tracker.catalog.addProject(name: "Beta", color: "", at: t0)
            #expect(tracker.projects.map(\.name) == ["Alpha", "Beta"])
            #expect(tracker.projects.map(\.color) == ["#00FF7F", "#007AFF"])
            try tracker.timers.startProject("alpha", at: t0)
            // A switch exactly at midnight.
            let midnight = t("2024-01-16T00:00:00+01:00")
            try tracker.timers.startProject(b, at: midnight)
            var snap = try tracker.history.snapshot(at: midnight + 30 * minute)
            #expect(snap.day == Day("2024-01-16"))
            #expect(snap.dailyTotal == 30 * minute)
            #expect(snap.sessionTime == 90 * minute)
            #expect(snap.activeProject?.id == b)
            #expect(snap.projectTimes[a] == ProjectTimes(session: hour, dailyTotal: 0, running: false))
            #expect(snap.projectTimes[b] == ProjectTimes(session: 30 * minute, dailyTotal: 30 * minute, running: true))
            #expect(snap.nextDayBoundary == t("2024-01-17T00:00:00+01:00"))
            #expect(try tracker.timers.toggle(at: midnight + hour) == false)
            #expect(try tracker.timers.toggle(at: midnight + 2 * hour) == true)  // resumes Beta
            #expect(try tracker.history.snapshot(at: midnight + 2 * hour).activeProject?.id == b)
            #expect(try tracker.timers.toggleProject(b, at: midnight + 3 * hour) == false)
            #expect(try tracker.timers.cycleProject(step: -1, at: midnight + 3 * hour) == b)
            #expect(try tracker.timers.cycleProject(step: 1, at: midnight + 4 * hour) == a)
            try tracker.timers.resetProject("ALPHA", at: midnight + 4 * hour)
            try tracker.timers.reset(at: midnight + 5 * hour)
            snap = try tracker.history.snapshot(at: midnight + 6 * hour)
            #expect(!snap.running && snap.sessionTime == 0)
            #expect(snap.dailyTotal == 4 * hour)  // reset does not change the daily total
            let report = try tracker.history.report(.week, containing: Day("2024-01-16"), at: midnight + 6 * hour)
            #expect(report.from == Day("2024-01-15") && report.to == Day("2024-01-21"))
            #expect(report.days.map(\.workTotal).prefix(2) == [hour, 4 * hour])
            #expect(report.workTotal == 5 * hour)
            #expect(report.noProjectTotal == 0)
            #expect(report.projects.map(\.id) == [b, a])
            #expect(report.projects.map(\.total) == [3 * hour, 2 * hour])
        }
    }

    @Test func projectValidationAndUpdates() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: boot)
            let a = try tracker.catalog.addProject(name: "A", color: "", at: 0)
            let b = try tracker.catalog.addProject(name: "B", color: "", at: 0)
            let c = try tracker.catalog.addProject(name: "C", color: "", at: 0)
            #expect(throws: TrackerError.nameTaken("a")) { try tracker.catalog.addProject(name: "a", color: "", at: 0) }
            #expect(throws: TrackerError.invalidName("   ")) { try tracker.catalog.addProject(name: "   ", color: "", at: 0) }
            #expect(throws: TrackerError.invalidName("x\ty")) { try tracker.catalog.addProject(name: "x\ty", color: "", at: 0) }
            let long = String(repeating: "é", count: 65)
            #expect(throws: TrackerError.invalidName(long)) { try tracker.catalog.addProject(name: long, color: "", at: 0) }
            #expect(try tracker.catalog.addProject(name: String(repeating: "é", count: 64), color: "", at: 0) == "p4")
            #expect(throws: TrackerError.invalidColor("red")) { try tracker.catalog.addProject(name: "D", color: "red", at: 0) }
            #expect(throws: TrackerError.noSuchProject("zzz")) { try tracker.timers.startProject("zzz", at: 0) }
            try tracker.catalog.updateProject(c, name: "c renamed", color: "#abcdef", position: 0, at: 0)
            #expect(tracker.projects.map(\.id) == [c, a, b, "p4"])
            #expect(tracker.projects.map(\.position) == [0, 1, 2, 3])
            #expect(tracker.projects[0].color == "#ABCDEF")
            // Swapping case of one's own name is fine; taking another's is not.
            try tracker.catalog.updateProject(a, name: "a", color: nil, position: nil, at: 0)
            #expect(throws: TrackerError.nameTaken("B")) { try tracker.catalog.updateProject(a, name: "B", color: nil, position: nil, at: 0) }
            try tracker.catalog.updateProject(a, name: nil, color: nil, position: 99, at: 0)
            #expect(tracker.projects.map(\.id) == [c, b, "p4", a])
            #expect(TrackerError.noSuchProject("foo").message == "No project named or with id 'foo'.")
            // A name of an id's form, added or given: refused; `p1` stays the first project.
            #expect(throws: TrackerError.self) { try tracker.catalog.addProject(name: "p1", color: "", at: 0) }
            #expect(throws: TrackerError.self) { try tracker.catalog.updateProject(a, name: "C1", color: nil, position: nil, at: 0) }
            #expect(tracker.projects.map(\.name) == ["c renamed", "B", String(repeating: "é", count: 64), "a"])
            #expect(try tracker.catalog.addProject(name: "p1 redesign", color: "", at: 0) == "p5")
        }
    }

    /// A client's name of an id's form, added or given: refused, and nothing changes.
    @Test func clientNamesCannotLookLikeIds() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: boot)
            let acme = try tracker.catalog.addClient(name: "ACME", rate: nil, currency: nil, at: 0)
            let before = try tracker.dumpForTesting()
            #expect(throws: TrackerError.self) { try tracker.catalog.addClient(name: "c2", rate: nil, currency: nil, at: 0) }
            #expect(throws: TrackerError.self) { try tracker.catalog.updateClient(acme, StoreCatalog.ClientChanges(name: "P1"), at: 0) }
            #expect(try tracker.dumpForTesting() == before)
        }
    }

    /// Names already stored or brought by an import keep working: a CSV line of a project
    /// named `p1` (written before such names were refused) is read back as it was.
    @Test func anImportKeepsANameOfAnIdsForm() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: boot)
            let now = t("2024-05-01T12:00:00Z")
            let a = try tracker.catalog.addProject(name: "A", color: "", at: now)
            let csv = IntervalCSV.headerWithoutNote + "\np1,#112233,2024-04-01T09:00:00Z,2024-04-01T10:00:00Z,1:00:00\n"
            #expect(try tracker.imports.importCSV(csv, at: now) == 1)
            #expect(tracker.projects.map(\.name) == ["A", "p1"])
            // The id is found first, as ever; the imported project is reached by its own id.
            #expect(try tracker.projects.resolve("p1").id == a)
            #expect(try tracker.projects.resolve("p2").name == "p1")
        }
    }

    @Test func everyFailingCallChangesNothing() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: boot)
            let now = t("2024-05-01T10:00:00Z")
            let a = try tracker.catalog.addProject(name: "A", color: "", at: now)
            _ = try tracker.catalog.addProject(name: "B", color: "", at: now)
            try tracker.timers.startProject(a, at: now)
            try tracker.timers.stop(at: now + hour)
            try tracker.timers.start(at: now + 2 * hour)
            let later = now + 3 * hour
            let before = try fingerprint(tracker, at: later)
            let failing: [(String, () throws -> Void)] = [
                ("startProject", { try tracker.timers.startProject("nope", at: later) }),
                ("toggleProject", { _ = try tracker.timers.toggleProject("nope", at: later) }),
                ("resetProject", { try tracker.timers.resetProject("nope", at: later) }),
                ("cycle 0", { _ = try tracker.timers.cycleProject(step: 0, at: later) }),
                ("add bad name", { _ = try tracker.catalog.addProject(name: "", color: "", at: later) }),
                ("add taken", { _ = try tracker.catalog.addProject(name: "b", color: "", at: later) }),
                ("add bad colour", { _ = try tracker.catalog.addProject(name: "C", color: "#12345", at: later) }),
                ("add id-like", { _ = try tracker.catalog.addProject(name: "p1", color: "", at: later) }),
                ("rename id-like", { try tracker.catalog.updateProject(a, name: "t2", color: nil, position: nil, at: later) }),
                ("update taken", { try tracker.catalog.updateProject(a, name: "B", color: nil, position: 1, at: later) }),
                ("update colour", { try tracker.catalog.updateProject(a, name: "Z", color: "#GGGGGG", position: 1, at: later) }),
                ("delete unknown", { try tracker.catalog.deleteProject("nope", at: later) }),
                ("report range", { _ = try tracker.history.report(from: Day("2024-05-02")!, to: Day("2024-05-01")!, at: later) }),
                ("import bad row", {
                    _ = try tracker.imports.importCSV(
                        IntervalCSV.headerWithoutNote + "\nNew,#112233,2024-04-01T09:00:00Z,2024-04-01T10:00:00Z,1:00:00\nX,#1,a,b,c\n",
                        at: later)
                }),
                ("import overlap", {
                    _ = try tracker.imports.importCSV(
                        IntervalCSV.headerWithoutNote + "\nNew,#112233,2024-05-01T10:30:00Z,2024-05-01T10:45:00Z,0:15:00\n", at: later)
                }),
            ]
            for (label, call) in failing {
                #expect(throws: TrackerError.self, "\(label)") { try call() }
                #expect(try fingerprint(tracker, at: later) == before, "\(label)")
            }
        }
    }

    @Test func restartContinuesExactlyOnTheSameBoot() throws {
        try withTemporaryDirectory { dir in
            let t0 = t("2024-05-01T09:00:00Z")
            var id = ""
            do {
                let tracker = try Tracker(dataDirectory: dir, rules: utc, now: t0, bootID: boot)
                id = try tracker.catalog.addProject(name: "A", color: "", at: t0)
                try tracker.timers.start(at: t0)
                try tracker.timers.startProject(id, at: t0 + 10 * minute)
                try tracker.timers.resetProject(id, at: t0 + 20 * minute)
            }
            let later = t0 + 3 * hour
            let reopened = try Tracker(dataDirectory: dir, rules: utc, now: later, bootID: boot)
            let snap = try reopened.history.snapshot(at: later)
            #expect(snap.running && snap.activeProject?.id == id)
            #expect(snap.sessionTime == 3 * hour)
            #expect(snap.projectSessionTime == 3 * hour - 20 * minute)
            #expect(snap.projectDailyTotal == 3 * hour - 10 * minute)
            #expect(snap.dailyTotal == 3 * hour)
        }
    }

    @Test func rebootClosesAtTheLastHeartbeat() throws {
        try withTemporaryDirectory { dir in
            let t0 = t("2024-05-01T09:00:00Z")
            do {
                let tracker = try Tracker(dataDirectory: dir, rules: utc, now: t0, bootID: boot)
                try tracker.timers.startProject(try tracker.catalog.addProject(name: "A", color: "", at: t0), at: t0)
                try tracker.heartbeat(at: t0 + 2 * Tracker.heartbeatInterval)
            }
            let reopened = try Tracker(dataDirectory: dir, rules: utc, now: t0 + 5 * hour, bootID: "boot-2")
            let snap = try reopened.history.snapshot(at: t0 + 5 * hour)
            #expect(!snap.running)
            #expect(snap.dailyTotal == 2 * Tracker.heartbeatInterval)
            #expect(snap.sessionTime == 2 * Tracker.heartbeatInterval)
            // Work started again in the same day resumes the project that was running.
            try reopened.timers.start(at: t0 + 6 * hour)
            #expect(try reopened.history.snapshot(at: t0 + 6 * hour).activeProject?.name == "A")
            // With no heartbeat since, a later state change is the last sign of life.
            try reopened.timers.stopProject(at: t0 + 6 * hour + 30 * minute)
            let third = try Tracker(dataDirectory: dir, rules: utc, now: t0 + 9 * hour, bootID: "boot-3")
            #expect(try third.history.snapshot(at: t0 + 9 * hour).dailyTotal == 2 * Tracker.heartbeatInterval + 30 * minute)
        }
    }

    @Test func deleteProjectAndResetHistoryKeepBackups() throws {
        try withTemporaryDirectory { dir in
            let t0 = t("2024-05-01T09:00:00Z")
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: t0, bootID: boot)
            let a = try tracker.catalog.addProject(name: "A", color: "", at: t0)
            let b = try tracker.catalog.addProject(name: "B", color: "", at: t0)
            try tracker.timers.startProject(a, at: t0)
            try tracker.timers.startProject(b, at: t0 + hour)
            try tracker.timers.startProject(a, at: t0 + 2 * hour)
            try tracker.catalog.deleteProject("a", at: t0 + 3 * hour)  // running: its time goes, work goes on
            var snap = try tracker.history.snapshot(at: t0 + 4 * hour)
            #expect(snap.projects.map(\.id) == [b])
            #expect(snap.projects[0].position == 0)
            #expect(snap.running && snap.activeProject == nil)
            #expect(snap.dailyTotal == 2 * hour)  // B's hour and an hour of no project
            let backups = try FileManager.default.contentsOfDirectory(atPath: tracker.backupDirectory.path)
            #expect(backups.contains { $0.hasSuffix("-before-delete-project.sqlite") })
            #expect(backups.contains { $0.hasSuffix("-daily.sqlite") })
            // The backup is a database holding the deleted project.
            let copy = dir.appendingPathComponent("restore")
            try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
            let name = backups.first { $0.hasSuffix("-before-delete-project.sqlite") }!
            try FileManager.default.copyItem(
                at: tracker.backupDirectory.appendingPathComponent(name), to: copy.appendingPathComponent("biomatimer.sqlite"))
            let restored = try Tracker(dataDirectory: copy, rules: utc, now: t0 + 3 * hour, bootID: boot)
            #expect(restored.projects.map(\.name) == ["A", "B"])
            try tracker.history.reset(at: t0 + 4 * hour)
            snap = try tracker.history.snapshot(at: t0 + 5 * hour)
            #expect(snap.dailyTotal == hour && snap.running)
            #expect(try tracker.history.report(.day, containing: nil, at: t0 + 5 * hour).workTotal == hour)
            // Only the newest few of each kind are kept.
            for index in 0..<(StoreBackups.kept + 3) {
                try tracker.backups.backup(reason: "test", at: t0 + Micros(index) * microsPerSecond)
            }
            let tests = try FileManager.default.contentsOfDirectory(atPath: tracker.backupDirectory.path)
                .filter { $0.hasSuffix("-test.sqlite") }
            #expect(tests.count == StoreBackups.kept)
        }
    }

    @Test func csvRoundTripsBetweenStores() throws {
        try withTemporaryDirectory { dir in
            let t0 = t("2024-03-30T22:00:00+01:00")  // across the Berlin spring change
            let source = try Tracker(dataDirectory: dir.appendingPathComponent("a"), rules: berlin, now: t0, bootID: boot)
            let weird = try source.catalog.addProject(name: "=cmd|' /C calc'!A0", color: "#FF0000", at: t0)
            let comma = try source.catalog.addProject(name: "R&D, \"internal\"", color: "#00FF00", at: t0)
            try source.timers.startProject(weird, at: t0)
            try source.timers.startProject(comma, at: t0 + 3 * hour)
            try source.timers.stopProject(at: t0 + 4 * hour + 17)
            try source.timers.stop(at: t0 + 5 * hour)
            try source.timers.start(at: t0 + 6 * hour)  // running: not exported
            let csv = try source.history.exportCSV(from: nil, to: nil, at: t0 + 7 * hour)
            #expect(csv.split(separator: "\r\n").count == 4)
            #expect(csv.contains("'=cmd"))
            let target = try Tracker(dataDirectory: dir.appendingPathComponent("b"), rules: berlin, now: t0, bootID: boot)
            #expect(try target.imports.importCSV(csv, at: t0 + 7 * hour) == 3)
            #expect(try target.history.exportCSV(from: nil, to: nil, at: t0 + 7 * hour) == csv)
            #expect(target.projects.map(\.name) == ["=cmd|' /C calc'!A0", "R&D, \"internal\""])
            // Importing the same file again adds nothing; the range filter works by day.
            #expect(try target.imports.importCSV(csv, at: t0 + 7 * hour) == 0)
            let day31 = try target.history.exportCSV(from: Day("2024-03-31"), to: Day("2024-03-31"), at: t0 + 7 * hour)
            #expect(day31.split(separator: "\r\n").count == 4)
            let day29 = try target.history.exportCSV(from: Day("2024-03-29"), to: Day("2024-03-29"), at: t0 + 7 * hour)
            #expect(day29 == IntervalCSV.header + "\r\n")
            let report = try target.history.report(from: Day("2024-03-30")!, to: Day("2024-03-31")!, at: t0 + 7 * hour)
            #expect(report.days.map(\.workTotal) == [2 * hour, 3 * hour])
        }
    }

    /// Reads between changes leave the connection's compiled statements as they are: a read
    /// that turned `PRAGMA query_only` on and off (GRDB's `read`) expired every one of them,
    /// and each toggle after it compiled its statements again. (The day's backup, taken at
    /// the first change of a day, expires them once: `VACUUM INTO`.)
    @Test func readsLeaveTheCompiledStatementsCompiled() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: boot)
            let t0 = t("2024-03-30T09:00:00Z")
            let project = try tracker.catalog.addProject(name: "Alpha", color: "", at: t0)
            try tracker.timers.startProject(project, at: t0)
            var afterTheBackup = 0
            for step in 1...7 {
                let now = t0 + Micros(step) * minute
                _ = try tracker.timers.toggle(at: now)
                _ = try tracker.history.snapshot(at: now)
                _ = try tracker.focus.completed(on: Day("2024-03-30")!)
                _ = try tracker.history.report(.week, containing: Day("2024-03-30")!, at: now)
                if step == 1 { afterTheBackup = tracker.statementsCompiledAgainForTesting() }
            }
            #expect(afterTheBackup <= 2, "the statements compiled before the day's backup: a read's BEGIN and COMMIT")
            #expect(tracker.statementsCompiledAgainForTesting() == afterTheBackup)
        }
    }
}
