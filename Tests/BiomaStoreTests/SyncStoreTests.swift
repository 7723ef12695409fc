import BiomaCore
import Foundation
import Testing

@testable import BiomaStore
import StoreTestSupport

/// Two stores that share their operations as two machines would through a sync folder (here
/// handed over in memory: the merge does not care how they arrive).
final class SyncPair {
    let a: Tracker
    let b: Tracker
    /// Each device's log, in the order it wrote it.
    var logs: [String: [SyncOperation]] = [:]
    /// How much of each log each device has merged.
    var read: [String: [String: Int]] = [:]

    init(_ dir: URL, now: Micros, enabled: Bool = true) throws {
        a = try Tracker(dataDirectory: dir.appendingPathComponent("a"), rules: berlin, now: now, bootID: boot)
        b = try Tracker(dataDirectory: dir.appendingPathComponent("b"), rules: berlin, now: now, bootID: boot)
        for tracker in [a, b] {
            let device = try tracker.sync.device().id
            tracker.onSyncOperations = { [unowned self] operations in logs[device, default: []] += operations }
        }
        if enabled { try enable(a, "A").enable(b, "B") }
    }

    @discardableResult
    func enable(_ tracker: Tracker, _ name: String) throws -> SyncPair {
        try tracker.sync.enable(folder: "/sync", name: name)
        return self
    }

    func id(_ tracker: Tracker) throws -> String { try tracker.sync.device().id }

    /// `to` merges what the other device wrote since it last looked; returns what it did.
    @discardableResult
    func deliver(to tracker: Tracker, at now: Micros) throws -> SyncMerged {
        let me = try id(tracker)
        var total = SyncMerged()
        for (device, log) in logs.sorted(by: { $0.key < $1.key }) where device != me {
            let start = read[me]?[device] ?? 0
            let merged = try tracker.sync.merge(
                Array(log[start...]), peer: SyncPeerState(device: device, sequence: log.last?.sequence ?? 0), at: now)
            read[me, default: [:]][device] = log.count
            total.operations += merged.operations
            total.overlaps += merged.overlaps
            total.runChanged = total.runChanged || merged.runChanged
        }
        return total
    }

    func exchange(at now: Micros) throws {
        try deliver(to: a, at: now)
        try deliver(to: b, at: now)
        // Cuts made while merging are operations too: one more round settles them.
        try deliver(to: a, at: now)
        try deliver(to: b, at: now)
    }

    /// The history as CSV (names and times, no local ids): equal on both devices once merged.
    func export(_ tracker: Tracker, at now: Micros) throws -> String {
        try tracker.history.exportCSV(from: nil, to: nil, at: now)
    }
}

@Suite struct SyncStoreTests {
    static let day = t("2026-11-20T00:00:00+01:00")
    static func at(_ h: Double) -> Micros { day + Micros(h * Double(hour)) }

    @Test func projectsStartsAndStopsTravelBothWays() throws {
        try withTemporaryDirectory { dir in
            let pair = try SyncPair(dir, now: Self.at(8))
            _ = try pair.a.catalog.addProject(name: "Client A", color: "#ff8800", at: Self.at(8))
            try pair.a.timers.startProject("Client A", at: Self.at(9))
            let merged = try pair.deliver(to: pair.b, at: Self.at(9.01))
            #expect(merged.runChanged)
            #expect(pair.b.projects.map(\.name) == ["Client A"])
            #expect(pair.b.projects.first?.color == pair.a.projects.first?.color)
            // B runs what A started, from A's start, under the same project.
            #expect(pair.b.workTimer.open?.start == Self.at(9))
            #expect(pair.b.workTimer.open?.projectID == pair.b.projects.first?.id)
            // B stops; A follows.
            try pair.b.timers.stop(at: Self.at(10))
            try pair.deliver(to: pair.a, at: Self.at(10.01))
            #expect(pair.a.workTimer.open == nil)
            #expect(try pair.a.history.snapshot(at: Self.at(11)).dailyTotal == hour)
            #expect(try pair.export(pair.a, at: Self.at(11)) == pair.export(pair.b, at: Self.at(11)))
            // Reading the same operations again adds nothing.
            pair.read = [:]
            #expect(try pair.deliver(to: pair.a, at: Self.at(11)).operations == 0)
            #expect(try pair.deliver(to: pair.b, at: Self.at(11)).operations == 0)
        }
    }

    @Test func editsDeletesUndoTasksAndResetTravel() throws {
        try withTemporaryDirectory { dir in
            let pair = try SyncPair(dir, now: Self.at(8))
            _ = try pair.a.catalog.addProject(name: "Client A", color: "", at: Self.at(8))
            let first = try pair.a.edits.addInterval(
                start: Self.at(9), end: Self.at(10), project: "Client A", note: "draft", replace: false, at: Self.at(18))
            _ = try pair.a.edits.addInterval(start: Self.at(11), end: Self.at(12), project: nil, note: nil, replace: false, at: Self.at(18))
            let task = try pair.a.tasks.add(title: "Invoice", due: nil, remind: nil, project: "Client A", at: Self.at(8))
            try pair.exchange(at: Self.at(18))
            #expect(try pair.export(pair.b, at: Self.at(18)) == pair.export(pair.a, at: Self.at(18)))
            #expect(pair.b.tasks.items.map(\.title) == ["Invoice"])
            // B edits the note and deletes the second interval; A completes the task.
            let rowsB = try pair.b.edits.intervals(from: Day("2026-11-20")!, to: Day("2026-11-20")!)
            try pair.b.edits.updateInterval(String(rowsB[0].id), .init(note: "final"), at: Self.at(18))
            try pair.b.edits.deleteInterval(String(rowsB[1].id), at: Self.at(18))
            try pair.a.tasks.complete(task, at: Self.at(18))
            try pair.exchange(at: Self.at(18.1))
            let rowsA = try pair.a.edits.intervals(from: Day("2026-11-20")!, to: Day("2026-11-20")!)
            #expect(rowsA.map(\.note) == ["final"])
            #expect(pair.b.tasks.items.first?.done == true)
            // A takes B's edit back with its own undo of the note: a change like any other.
            try pair.a.edits.updateInterval(first, .init(note: "undone"), at: Self.at(18.2))
            _ = try pair.a.edits.undo(at: Self.at(18.2))
            try pair.exchange(at: Self.at(18.3))
            #expect(try pair.b.edits.intervals(from: Day("2026-11-20")!, to: Day("2026-11-20")!).map(\.note) == ["final"])
            #expect(try pair.export(pair.b, at: Self.at(19)) == pair.export(pair.a, at: Self.at(19)))
            // History reset on A empties B's history too.
            try pair.a.history.reset(at: Self.at(19))
            try pair.exchange(at: Self.at(19))
            #expect(try pair.b.edits.intervals(from: Day("2026-11-20")!, to: Day("2026-11-20")!).isEmpty)
            // Deleting the project on B deletes it on A.
            try pair.b.catalog.deleteProject("Client A", at: Self.at(19))
            try pair.exchange(at: Self.at(19))
            #expect(pair.a.projects.isEmpty)
        }
    }

    @Test func concurrentStartsLeaveOneRunningAndNoOverlap() throws {
        try withTemporaryDirectory { dir in
            let pair = try SyncPair(dir, now: Self.at(8))
            try pair.a.timers.start(at: Self.at(9))
            try pair.b.timers.start(at: Self.at(9.5))
            try pair.exchange(at: Self.at(10))
            // The later start runs on both; A's run was stopped at it.
            #expect(pair.a.workTimer.open?.start == Self.at(9.5))
            #expect(pair.b.workTimer.open?.start == Self.at(9.5))
            #expect(try pair.a.history.snapshot(at: Self.at(10)).dailyTotal == hour)
            #expect(try pair.b.history.snapshot(at: Self.at(10)).dailyTotal == hour)
            try pair.a.timers.stop(at: Self.at(11))
            try pair.exchange(at: Self.at(11))
            #expect(pair.b.workTimer.open == nil)
            #expect(try pair.export(pair.a, at: Self.at(12)) == pair.export(pair.b, at: Self.at(12)))
        }
    }

    @Test func offlineHistoriesJoinedGiveTheSameHistoryWithTheLaterStartKeepingOverlaps() throws {
        try withTemporaryDirectory { dir in
            let pair = try SyncPair(dir, now: Self.at(8), enabled: false)
            // Each machine has a history of its own before sync is turned on.
            _ = try pair.a.catalog.addProject(name: "Client A", color: "#112233", at: Self.at(8))
            _ = try pair.a.edits.addInterval(start: Self.at(9), end: Self.at(10.5), project: "Client A", note: nil, replace: false, at: Self.at(18))
            _ = try pair.b.catalog.addProject(name: "client a", color: "#445566", at: Self.at(8))
            _ = try pair.b.catalog.addProject(name: "Errands", color: "", at: Self.at(8))
            _ = try pair.b.edits.addInterval(start: Self.at(10), end: Self.at(11), project: "Errands", note: "post", replace: false, at: Self.at(18))
            try pair.enable(pair.a, "A").enable(pair.b, "B")
            let merged = try pair.deliver(to: pair.a, at: Self.at(18))
            try pair.exchange(at: Self.at(18))
            // B's interval started later: it keeps 10:00–10:30, A's is cut at 10:00 — said once.
            #expect(merged.overlaps.count == 1)
            #expect(merged.overlaps.first.map { [$0.from, $0.to] } == [Self.at(10), Self.at(10.5)])
            #expect(try pair.a.history.snapshot(at: Self.at(18)).dailyTotal == 2 * hour)
            #expect(try pair.b.history.snapshot(at: Self.at(18)).dailyTotal == 2 * hour)
            // One name each: the same on both machines, whichever way it went.
            #expect(Set(pair.a.projects.map(\.name)) == Set(pair.b.projects.map(\.name)))
            #expect(pair.a.projects.count == 3)
            #expect(try pair.export(pair.a, at: Self.at(18)) == pair.export(pair.b, at: Self.at(18)))
        }
    }

    /// B reads A's creation and A's own cut of it in one read (A merged B's log first): B
    /// still says both timed the overlap, as A did; an end A simply moved earlier, or a run
    /// A stopped, is not news.
    @Test func aPeersCutReadWithItsCreationIsStillSaid() throws {
        try withTemporaryDirectory { dir in
            let pair = try SyncPair(dir, now: Self.at(8), enabled: false)
            _ = try pair.a.catalog.addProject(name: "Client A", color: "#112233", at: Self.at(8))
            _ = try pair.a.edits.addInterval(start: Self.at(9), end: Self.at(10.5), project: "Client A", note: nil, replace: false, at: Self.at(18))
            _ = try pair.b.catalog.addProject(name: "Errands", color: "", at: Self.at(8))
            _ = try pair.b.edits.addInterval(start: Self.at(10), end: Self.at(11), project: "Errands", note: nil, replace: false, at: Self.at(18))
            try pair.enable(pair.a, "A").enable(pair.b, "B")
            let onA = try pair.deliver(to: pair.a, at: Self.at(18))
            let onB = try pair.deliver(to: pair.b, at: Self.at(18))
            let (a, b) = (try pair.id(pair.a), try pair.id(pair.b))
            for merged in [onA, onB] {
                #expect(merged.overlaps.map { "\($0.kept) \($0.cut) \($0.from) \($0.to)" } == ["\(b) \(a) \(Self.at(10)) \(Self.at(10.5))"])
            }
            // Later, A adds an interval and moves its end earlier (no one starts there), and
            // starts and stops a run: B reads each in one read, and says nothing.
            let id = try pair.a.edits.addInterval(start: Self.at(12), end: Self.at(13), project: nil, note: nil, replace: false, at: Self.at(18))
            try pair.a.edits.updateInterval(id, StoreEdits.IntervalChanges(end: Self.at(12.5)), at: Self.at(18))
            try pair.a.timers.start(at: Self.at(14))
            try pair.a.timers.stop(at: Self.at(15))
            #expect(try pair.deliver(to: pair.b, at: Self.at(18)).overlaps.isEmpty)
            #expect(try pair.export(pair.a, at: Self.at(18)) == pair.export(pair.b, at: Self.at(18)))
        }
    }

    /// The same when the interval starting at A's cut is the one running on B.
    @Test func aPeersCutAtTheRunHereReadWithItsCreationIsStillSaid() throws {
        try withTemporaryDirectory { dir in
            let pair = try SyncPair(dir, now: Self.at(8), enabled: false)
            _ = try pair.a.edits.addInterval(start: Self.at(9), end: Self.at(10.5), project: nil, note: nil, replace: false, at: Self.at(11))
            try pair.b.timers.start(at: Self.at(10))
            try pair.enable(pair.a, "A").enable(pair.b, "B")
            let onA = try pair.deliver(to: pair.a, at: Self.at(11))
            let onB = try pair.deliver(to: pair.b, at: Self.at(11))
            let (a, b) = (try pair.id(pair.a), try pair.id(pair.b))
            for merged in [onA, onB] {
                #expect(merged.overlaps.map { "\($0.kept) \($0.cut) \($0.from) \($0.to)" } == ["\(b) \(a) \(Self.at(10)) \(Self.at(10.5))"])
            }
            #expect(try pair.export(pair.a, at: Self.at(11)) == pair.export(pair.b, at: Self.at(11)))
        }
    }

    @Test func anyOrderOfArrivalGivesTheSameHistory() throws {
        try withTemporaryDirectory { dir in
            let pair = try SyncPair(dir, now: Self.at(8))
            _ = try pair.a.catalog.addProject(name: "P", color: "", at: Self.at(8))
            for h in 0..<4 {
                _ = try pair.a.edits.addInterval(
                    start: Self.at(9 + Double(h)), end: Self.at(9.75 + Double(h)), project: "P", note: nil, replace: false, at: Self.at(18))
            }
            try pair.b.timers.start(at: Self.at(10.5))
            try pair.b.timers.stop(at: Self.at(12.2))
            let logs = pair.logs
            // A third store reads both logs in one order, a fourth in the other.
            var exports: [String] = []
            for order in [[0, 1], [1, 0]] {
                let reader = try Tracker(
                    dataDirectory: dir.appendingPathComponent("r\(order[0])"), rules: berlin, now: Self.at(8), bootID: boot)
                try reader.sync.enable(folder: "/sync", name: "R")
                let devices = logs.keys.sorted()
                for index in order {
                    let device = devices[index]
                    // Split in two batches, to read across batch boundaries.
                    let log = logs[device]!
                    let half = log.count / 2
                    _ = try reader.sync.merge(Array(log[..<half]), peer: SyncPeerState(device: device), at: Self.at(18))
                    _ = try reader.sync.merge(Array(log[half...]), peer: SyncPeerState(device: device), at: Self.at(18))
                }
                exports.append(try reader.history.exportCSV(from: nil, to: nil, at: Self.at(18)))
            }
            #expect(exports[0] == exports[1])
            #expect(!exports[0].isEmpty)
        }
    }

    @Test func aFailedChangeWritesNoOperation() throws {
        try withTemporaryDirectory { dir in
            let pair = try SyncPair(dir, now: Self.at(8))
            _ = try pair.a.catalog.addProject(name: "P", color: "", at: Self.at(8))
            let before = pair.logs
            let rows = try pair.a.dumpForTesting()
            #expect(throws: TrackerError.self) { try pair.a.catalog.addProject(name: "p", color: "", at: Self.at(8)) }
            #expect(pair.logs.mapValues(\.count) == before.mapValues(\.count))
            #expect(try pair.a.dumpForTesting() == rows)
            // The sequence goes on from where it was, with no gap.
            _ = try pair.a.catalog.addProject(name: "Q", color: "", at: Self.at(8))
            let sequences = pair.logs[try pair.id(pair.a)]!.map(\.sequence)
            #expect(sequences == Array(1...Int64(sequences.count)))
        }
    }

    @Test func aStoreFromBeforeSyncGetsUUIDsAndJoins() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("old")
            try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
            try Tracker.makeDatabaseForTesting(
                at: path.appendingPathComponent(Tracker.databaseFileName).path, upTo: "v8-targets",
                then: """
                    INSERT INTO project (id, name, name_key, color, position) VALUES ('p1', 'Old', 'old', '#000000', 0);
                    INSERT INTO interval (start_us, end_us, project_id) VALUES (\(Self.at(9)), \(Self.at(10)), 'p1');
                    INSERT INTO interval (start_us, end_us, project_id) VALUES (\(Self.at(11)), \(Self.at(12)), NULL);
                    """)
            let old = try Tracker(dataDirectory: path, rules: berlin, now: Self.at(18), bootID: boot)
            var written: [SyncOperation] = []
            old.onSyncOperations = { written += $0 }
            try old.sync.enable(folder: "/sync", name: "Old")
            // The snapshot: the project and both intervals, each with its own UUID.
            #expect(written.map(\.entity) == [.project, .interval, .interval])
            #expect(Set(written.map(\.entityID)).count == 3)
            #expect(written.allSatisfy { UUIDText.isValid($0.entityID) })
            let fresh = try Tracker(dataDirectory: dir.appendingPathComponent("new"), rules: berlin, now: Self.at(18), bootID: boot)
            try fresh.sync.enable(folder: "/sync", name: "New")
            _ = try fresh.sync.merge(written, peer: SyncPeerState(device: written[0].clock.device), at: Self.at(18))
            #expect(try fresh.history.exportCSV(from: nil, to: nil, at: Self.at(18)) == old.history.exportCSV(from: nil, to: nil, at: Self.at(18)))
        }
    }

    /// An import is recorded like any change: its intervals, and the project it made, reach
    /// the other machine; taking it back (undo) removes them there too.
    @Test func importsAndTheirUndoTravel() throws {
        try withTemporaryDirectory { dir in
            let pair = try SyncPair(dir, now: Self.at(18))
            let items = [
                ImportedInterval(start: Self.at(8), end: Self.at(9), projectName: "Timew", entry: 1, note: "from timew"),
                ImportedInterval(start: Self.at(10), end: Self.at(11), projectName: nil, entry: 2),
            ]
            #expect(try pair.a.imports.importIntervals(items, format: .timewarrior, at: Self.at(18)).count == 2)
            try pair.exchange(at: Self.at(18))
            #expect(pair.b.projects.map(\.name) == ["Timew"])
            let csv = try pair.export(pair.b, at: Self.at(18))
            #expect(csv.contains("from timew") && csv.split(whereSeparator: \.isNewline).count == 3, "\(csv)")
            #expect(try csv == pair.export(pair.a, at: Self.at(18)))
            _ = try pair.a.edits.undo(at: Self.at(18))
            try pair.exchange(at: Self.at(18))
            #expect(try pair.export(pair.b, at: Self.at(18)).split(whereSeparator: \.isNewline).count == 1)
        }
    }

    /// A reboot ends the interval running here at the last moment the program was alive —
    /// but not one a peer started: it runs there, and its stop comes from there.
    @Test func aRebootDoesNotStopWhatAPeerRuns() throws {
        try withTemporaryDirectory { dir in
            let pair = try SyncPair(dir, now: Self.at(9))
            try pair.a.timers.start(at: Self.at(9))
            try pair.exchange(at: Self.at(9))
            #expect(pair.b.workTimer.open?.start == Self.at(9))
            let rebootedB = try Tracker(
                dataDirectory: dir.appendingPathComponent("b"), rules: berlin, now: Self.at(11), bootID: "boot-2")
            #expect(rebootedB.workTimer.open?.start == Self.at(9))
            // A's own run, after A's reboot, ends when A was last alive.
            let rebootedA = try Tracker(
                dataDirectory: dir.appendingPathComponent("a"), rules: berlin, now: Self.at(11), bootID: "boot-2")
            #expect(rebootedA.workTimer.open == nil)
        }
    }

    /// A store from before `v11` kept one row per merged field: after the migration each
    /// entity's fields keep their values and stamps (an older operation still loses, a newer
    /// one wins), and an interval that named a project not here yet gets it when it comes.
    @Test func mergedFieldsKeptOneRowPerFieldCarryOver() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v10")
            try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
            let peer = "00000000-0000-4000-8000-0000000000b0"
            let (early, late) = ("00000000-0000-4000-8000-000000000e01", "00000000-0000-4000-8000-000000000e02")
            let project = "00000000-0000-4000-8000-000000000f01"
            let stamped = Self.at(12)
            try Tracker.makeDatabaseForTesting(
                at: path.appendingPathComponent(Tracker.databaseFileName).path, upTo: "v10-sync",
                then: """
                    INSERT INTO sync_stamp (id, wall, counter, device, op) VALUES
                        (7, \(stamped), 0, '\(peer)', '019ab000-0000-7000-8000-000000000007');
                    INSERT INTO interval (start_us, end_us, project_id, note, uuid) VALUES
                        (\(Self.at(9)), \(Self.at(10)), NULL, 'early', '\(early)'),
                        (\(Self.at(10)), \(Self.at(11)), NULL, NULL, '\(late)');
                    INSERT INTO sync_field (kind, uuid, field, value, stamp) VALUES
                        ('interval', '\(early)', 'start', '\(Self.at(9))', 7),
                        ('interval', '\(early)', 'end', '\(Self.at(10))', 7),
                        ('interval', '\(early)', 'note', '"early"', 7),
                        ('interval', '\(late)', 'start', '\(Self.at(10))', 7),
                        ('interval', '\(late)', 'end', '\(Self.at(11))', 7),
                        ('interval', '\(late)', 'project', '"\(project)"', 7);
                    -- Last: while recording, the rows above would have been recorded as changes.
                    INSERT INTO sync_self (id, device, name, folder, recording) VALUES
                        (1, '00000000-0000-4000-8000-0000000000a0', 'A', '/sync', 1);
                    """)
            let tracker = try Tracker(dataDirectory: path, rules: berlin, now: Self.at(18), bootID: boot)
            var sequence: Int64 = 0
            func operation(_ wall: Micros, _ kind: SyncEntity, _ id: String, _ fields: [String: SyncValue]) -> SyncOperation {
                sequence += 1
                let op = "019ab000-0000-7000-8000-\(String(format: "%012d", 100 + sequence))"
                return SyncOperation(
                    sequence: sequence, id: op, clock: HybridTime(wall: wall, counter: 0, device: peer), entity: kind,
                    entityID: id, fields: fields)
            }
            // An older note loses against the migrated stamp; a newer one wins.
            _ = try tracker.sync.merge(
                [operation(stamped - 1, .interval, early, ["note": .string("older")])],
                peer: SyncPeerState(device: peer, sequence: 1), at: Self.at(18))
            let dump = try tracker.dumpForTesting()
            #expect(dump.contains("\"early\"") && !dump.contains("\"older\""), "\(dump)")
            _ = try tracker.sync.merge(
                [operation(stamped + 1, .interval, early, ["note": .string("newer")])],
                peer: SyncPeerState(device: peer, sequence: 2), at: Self.at(18))
            #expect(try tracker.history.exportCSV(from: nil, to: nil, at: Self.at(18)).contains("newer"))
            // The project the later interval was waiting for arrives: the interval is under it.
            _ = try tracker.sync.merge(
                [operation(stamped + 2, .project, project, ["name": .string("Client A"), "color": .string("#ff8800")])],
                peer: SyncPeerState(device: peer, sequence: 3), at: Self.at(18))
            let rows = try tracker.history.exportCSV(from: nil, to: nil, at: Self.at(18)).split(whereSeparator: \.isNewline)
            #expect(rows.contains { $0.contains("Client A") && $0.contains("T11:00:00") }, "\(rows)")
        }
    }

    @Test func targetsPresetsAndShownRemindersTravel() throws {
        try withTemporaryDirectory { dir in
            let pair = try SyncPair(dir, now: Self.at(8))
            // Monday's target set on A, then removed on B; Friday's set on both (the later wins).
            try pair.a.targets.setTargets([2: 8 * hour, 6: 6 * hour], from: Day("2026-11-16")!)
            try pair.exchange(at: Self.at(8))
            #expect(try pair.b.targets.storedTargets() == [2: 8 * hour, 6: 6 * hour])
            try pair.b.targets.setTargets([6: 5 * hour], from: Day("2026-11-23")!)
            try pair.exchange(at: Self.at(8))
            #expect(try pair.a.targets.storedTargets() == [2: 8 * hour, 6: 5 * hour])
            // With the days each value took effect: Friday 6 h from the 16th, 5 h from the 23rd.
            let friday = try pair.a.targets.storedTargetHistories()[6]
            #expect(friday?.text == "2026-11-16=\(6 * hour);2026-11-23=\(5 * hour)")
            #expect(try pair.a.targets.storedTargetHistories() == pair.b.targets.storedTargetHistories())
            // A preset made on B is on A, under a local id of A's own.
            _ = try pair.b.focus.addPreset(name: "Deep work", plan: .countdown(50 * 60 * 1_000_000), at: Self.at(8))
            try pair.exchange(at: Self.at(8))
            #expect(pair.a.focus.presets.map(\.name) == ["Deep work"])
            #expect(pair.a.focus.presets.first?.plan == pair.b.focus.presets.first?.plan)
            // A reminder shown on A is marked shown on B: B does not show it again.
            let task = try pair.a.tasks.add(title: "Call back", due: Self.at(9), remind: true, project: nil, at: Self.at(8))
            try pair.exchange(at: Self.at(8))
            #expect(pair.b.tasks.items.first?.title == "Call back")
            try pair.a.tasks.markReminded([task], at: Self.at(9))
            try pair.exchange(at: Self.at(9))
            #expect(pair.b.tasks.items.remindersDue(at: Self.at(9.1)).isEmpty)
        }
    }
}
