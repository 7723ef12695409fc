import BiomaCore
import Foundation
import PropertyBased
import Testing

@testable import BiomaStore
import StoreTestSupport

/// Editing the past through the store: one transaction per edit, refusals change nothing,
/// totals follow at once, the running stopwatch follows its interval, and undo restores rows
/// exactly, from the journal, also across a restart.
@Suite struct EditStoreTests {
    static let day = t("2026-11-20T00:00:00+01:00")
    static func at(_ h: Double) -> Micros { day + Micros(h * Double(hour)) }
    static let now = at(18)

    /// Client A (p1), Client B (p2); 09–10 Client A (id 1), 11–12 (id 2).
    func fixture(_ dir: URL) throws -> Tracker {
        let tracker = try Tracker(dataDirectory: dir, rules: berlin, now: Self.now, bootID: boot)
        _ = try tracker.catalog.addProject(name: "Client A", color: "", at: Self.now)
        _ = try tracker.catalog.addProject(name: "Client B", color: "", at: Self.now)
        #expect(try tracker.edits.addInterval(start: Self.at(9), end: Self.at(10), project: "client a", replace: false, at: Self.now) == "1")
        #expect(try tracker.edits.addInterval(start: Self.at(11), end: Self.at(12), project: nil, replace: false, at: Self.now) == "2")
        return tracker
    }

    func row(_ id: Int64, _ from: Double, _ to: Double?, _ project: String? = nil) -> IntervalRow {
        IntervalRow(id: id, start: Self.at(from), end: to.map(Self.at), projectID: project)
    }

    @Test func refusalsChangeNothing() throws {
        try withTemporaryDirectory { dir in
            let tracker = try fixture(dir)
            try tracker.timers.start(at: Self.at(13))
            let before = try fingerprint(tracker, at: Self.now)
            let refusals: [(TrackerError, () throws -> Void)] = [
                (
                    .overlap(
                        "09:30–11:30 on 2026-11-20 overlaps interval 1 (09:00–10:00 (Client A) on 2026-11-20) and interval 2 (11:00–12:00 on 2026-11-20). Nothing was changed; to overwrite that time, give --replace."
                    ),
                    { _ = try tracker.edits.addInterval(start: Self.at(9.5), end: Self.at(11.5), project: nil, replace: false, at: Self.now) }
                ),
                (.noSuchProject("Nope"), { _ = try tracker.edits.addInterval(start: Self.at(7), end: Self.at(8), project: "Nope", replace: true, at: Self.now) }),
                (.invalidArgument("The end must be after the start."), { _ = try tracker.edits.addInterval(start: Self.at(8), end: Self.at(8), project: nil, replace: false, at: Self.now) }),
                (.invalidArgument("An interval cannot end in the future (after now)."), { _ = try tracker.edits.addInterval(start: Self.at(7), end: Self.at(19), project: nil, replace: true, at: Self.now) }),
                (.noSuchInterval("99"), { try tracker.edits.updateInterval("99", .init(start: Self.at(1)), at: Self.now) }),
                (
                    .overlap(
                        "Interval 2 at 09:30–12:00 on 2026-11-20 overlaps interval 1 (09:00–10:00 (Client A) on 2026-11-20). Nothing was changed; to overwrite that time, give --replace."
                    ),
                    { try tracker.edits.updateInterval("2", .init(start: Self.at(9.5)), at: Self.now) }
                ),
                (.noSuchInterval("x1"), { try tracker.edits.deleteInterval("x1", at: Self.now) }),
                (.noSuchInterval(""), { _ = try tracker.edits.splitInterval("", at: Self.at(9.5), now: Self.now) }),
                (.noSuchProject("Nope"), { try tracker.edits.updateInterval("1", .init(project: .some("Nope")), at: Self.now) }),
                (
                    .invalidArgument("Interval 3 is running: it has no end to change (stop the timer first, or change its start)."),
                    { try tracker.edits.updateInterval("3", .init(end: Self.at(14)), at: Self.now) }
                ),
                (.invalidArgument("Interval 3 is running: stop the timer first (or move its start)."), { try tracker.edits.deleteInterval("3", at: Self.now) }),
                (.invalidArgument("The split instant must be strictly inside the interval."), { _ = try tracker.edits.splitInterval("1", at: Self.at(10), now: Self.now) }),
            ]
            for (expected, call) in refusals {
                #expect(throws: expected) { try call() }
                #expect(try fingerprint(tracker, at: Self.now) == before)
            }
        }
    }

    @Test func totalsFollowAtOnceAndEachEditIsJournaled() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: berlin, now: Self.now, bootID: boot)
            _ = try tracker.catalog.addProject(name: "Client A", color: "", at: Self.now)
            #expect(try tracker.history.snapshot(at: Self.now).dailyTotal == 0)
            let id = try tracker.edits.addInterval(start: Self.at(9), end: Self.at(12.5), project: "p1", replace: false, at: Self.now)
            var snapshot = try tracker.history.snapshot(at: Self.now)
            #expect(snapshot.dailyTotal == Micros(3.5 * Double(hour)))
            #expect(snapshot.projectTimes["p1"]?.dailyTotal == Micros(3.5 * Double(hour)))
            try tracker.edits.updateInterval(id, .init(end: Self.at(10)), at: Self.now)
            #expect(try tracker.history.snapshot(at: Self.now).dailyTotal == hour)
            let second = try tracker.edits.splitInterval(id, at: Self.at(9.5), now: Self.now)
            try tracker.edits.updateInterval(second, .init(project: .some(nil)), at: Self.now)
            snapshot = try tracker.history.snapshot(at: Self.now)
            #expect(snapshot.dailyTotal == hour && snapshot.projectTimes["p1"]?.dailyTotal == 30 * minute)
            #expect(try tracker.history.report(.day, containing: nil, at: Self.now).noProjectTotal == 30 * minute)
            try tracker.edits.deleteInterval(id, at: Self.now)
            #expect(try tracker.history.snapshot(at: Self.now).dailyTotal == 30 * minute)
            #expect(try tracker.edits.undo(at: Self.now) == "Undid: delete of interval 1 (09:00–09:30 (Client A) on 2026-11-20)")
            #expect(try tracker.edits.undo(at: Self.now) == "Undid: edit of interval 2 (was 09:30–10:00 (Client A) on 2026-11-20)")
            #expect(try tracker.edits.undo(at: Self.now) == "Undid: split of interval 1 at 09:30 (09:00–10:00 (Client A) on 2026-11-20)")
            #expect(try tracker.edits.undo(at: Self.now) == "Undid: edit of interval 1 (was 09:00–12:30 (Client A) on 2026-11-20)")
            #expect(try tracker.history.snapshot(at: Self.now).dailyTotal == Micros(3.5 * Double(hour)))
            #expect(try tracker.edits.undo(at: Self.now) == "Undid: add 09:00–12:30 (Client A) on 2026-11-20")
            #expect(try tracker.history.snapshot(at: Self.now).dailyTotal == 0)
            #expect(throws: TrackerError.nothingToUndo("Nothing to undo: no edit of recorded time is left in the journal.")) {
                try tracker.edits.undo(at: Self.now)
            }
            // A change that changes nothing journals nothing.
            let again = try tracker.edits.addInterval(start: Self.at(9), end: Self.at(10), project: nil, replace: false, at: Self.now)
            try tracker.edits.updateInterval(again, .init(start: Self.at(9)), at: Self.now)
            #expect(try tracker.edits.undo(at: Self.now).hasPrefix("Undid: add "))
            // Ids are never given twice, even after the newest row was deleted.
            #expect(try tracker.edits.addInterval(start: Self.at(9), end: Self.at(10), project: nil, replace: false, at: Self.now) == "4")
        }
    }

    @Test func theRunningIntervalsStartMovesTheStopwatchAndUndoPutsItBack() throws {
        try withTemporaryDirectory { dir in
            var tracker: Tracker! = try fixture(dir)
            try tracker.timers.startProject("Client B", at: Self.at(13.25))
            let state = tracker.workTimer
            try tracker.edits.updateInterval("3", .init(start: Self.at(13)), at: Self.at(14))
            var snapshot = try tracker.history.snapshot(at: Self.at(14))
            #expect(snapshot.sessionTime == hour)
            #expect(snapshot.projectTimes["p2"]?.session == hour)
            #expect(snapshot.dailyTotal == 3 * hour)
            // Persisted in the same transaction: a restart sees the same state.
            let moved = tracker.workTimer
            tracker = nil
            tracker = try Tracker(dataDirectory: dir, rules: berlin, now: Self.at(14), bootID: boot)
            #expect(tracker.workTimer == moved)
            #expect(try tracker.edits.undo(at: Self.at(14)).hasPrefix("Undid: edit of interval 3"))
            #expect(tracker.workTimer.open == state.open)
            #expect(tracker.workTimer.workRunStart == state.workRunStart)
            #expect(tracker.workTimer.projectRunStart == state.projectRunStart)
            snapshot = try tracker.history.snapshot(at: Self.at(14))
            #expect(snapshot.sessionTime == 45 * minute && snapshot.dailyTotal == 2 * hour + 45 * minute)
            // Split of the running interval: the second part runs on; the stopwatch goes on.
            let second = try tracker.edits.splitInterval("3", at: Self.at(13.5), now: Self.at(14))
            #expect(second == "4")
            #expect(tracker.workTimer.open == OpenSegment(start: Self.at(13.5), projectID: "p2"))
            #expect(try tracker.history.snapshot(at: Self.at(14)).sessionTime == 45 * minute)
            try tracker.timers.stop(at: Self.at(15))
            #expect(try tracker.edits.intervals(from: Day("2026-11-20")!, to: Day("2026-11-20")!).suffix(2) == [row(3, 13.25, 13.5, "p2"), row(4, 13.5, 15, "p2")])
            // Undone after the timer stopped: one interval again, ending where the run ended.
            _ = try tracker.edits.undo(at: Self.at(15))
            #expect(try tracker.edits.intervals(from: Day("2026-11-20")!, to: Day("2026-11-20")!).last == row(3, 13.25, 15, "p2"))
            #expect(!tracker.workTimer.running)
        }
    }

    @Test func theRunningIntervalsProjectChangesWhatRuns() throws {
        try withTemporaryDirectory { dir in
            let tracker = try fixture(dir)
            try tracker.timers.startProject("Client A", at: Self.at(13))
            try tracker.edits.updateInterval("3", .init(project: .some("Client B")), at: Self.at(14))
            var snapshot = try tracker.history.snapshot(at: Self.at(14))
            #expect(snapshot.activeProject?.id == "p2" && snapshot.projectTimes["p2"]?.dailyTotal == hour)
            #expect(snapshot.projectTimes["p2"]?.session == hour && snapshot.projectTimes["p1"]?.dailyTotal == hour)
            try tracker.edits.updateInterval("3", .init(project: .some(nil)), at: Self.at(14))
            #expect(try tracker.history.snapshot(at: Self.at(14)).activeProject == nil && tracker.workTimer.projectRunStart == nil)
            _ = try tracker.edits.undo(at: Self.at(14))
            _ = try tracker.edits.undo(at: Self.at(14))
            snapshot = try tracker.history.snapshot(at: Self.at(14))
            #expect(snapshot.activeProject?.id == "p1" && snapshot.projectTimes["p1"]?.dailyTotal == 2 * hour)
            #expect(tracker.workTimer.projectRunStart == Self.at(13))
        }
    }

    @Test func trimmingTheRunningIntervalFromAnotherLeavesTheRunAlone() throws {
        try withTemporaryDirectory { dir in
            let tracker = try fixture(dir)
            try tracker.timers.start(at: Self.at(12))
            let state = tracker.workTimer
            // Interval 2 (11–12) extended to 13 over the running one's start: its head goes.
            try tracker.edits.updateInterval("2", .init(end: Self.at(13), replace: true), at: Self.at(14))
            #expect(tracker.workTimer.open == OpenSegment(start: Self.at(13), projectID: nil))
            #expect(tracker.workTimer.workRunStart == state.workRunStart)
            #expect(try tracker.history.snapshot(at: Self.at(14)).sessionTime == 2 * hour)
            #expect(try tracker.history.snapshot(at: Self.at(14)).dailyTotal == 4 * hour)
            _ = try tracker.edits.undo(at: Self.at(14))
            var back = tracker.workTimer
            back.lastChange = state.lastChange  // the last change only ever moves forward
            #expect(back == state)
        }
    }

    // 20,000 rows written, reset and undone: seconds of synchronous work, on a thread of its own.
    @Test(.ownThread) func resetHistoryIsUndoneExactly() throws {
        try withTemporaryDirectory { dir in
            let tracker = try fixture(dir)
            let count = 20_000
            let old = (0..<count).map { i in
                Interval(start: Self.at(-1000) - Micros(count - i) * hour, end: Self.at(-1000) - Micros(count - i) * hour + 30 * minute, projectID: i % 3 == 0 ? "p1" : nil)
            }
            #expect(try tracker.history.append(old, at: Self.now) == count)
            try tracker.timers.startProject("p2", at: Self.at(13))
            let before = try tracker.historyForTesting()
            try tracker.history.reset(at: Self.at(14))
            #expect(try tracker.historyForTesting().rows == [IntervalRow(id: Int64(count) + 4, start: Self.at(14), end: nil, projectID: "p2")])
            #expect(try tracker.edits.undo(at: Self.at(15)) == "Undid: reset-history (\(count + 3) intervals deleted)")
            let after = try tracker.historyForTesting()
            #expect(after.rows == before.rows)
            #expect(after.open == before.open && after.runs == before.runs)
        }
    }

    /// What an import uses: the rows it inserted journaled as one edit, by ids or from an id on.
    @Test func addedRowsAreOneUndo() throws {
        try withTemporaryDirectory { dir in
            let tracker = try fixture(dir)
            let before = try tracker.historyForTesting()
            var first: Int64 = 0
            try tracker.writeOrThrow { db in
                first = try IntervalRows.nextID(db)
                for hour in [1.0, 2, 3] {
                    try db.execute(
                        sql: "INSERT INTO interval (start_us, end_us, project_id) VALUES (?, ?, 'p2')",
                        arguments: [Self.at(hour), Self.at(hour + 0.5)])
                }
                try EditJournal.journalAdded(EditJournal.addedRows(from: first, db), what: "import of 3 intervals", at: Self.now, db)
                try db.execute(
                    sql: "INSERT INTO interval (start_us, end_us, project_id) VALUES (?, ?, NULL)",
                    arguments: [Self.at(4), Self.at(4.5)])
                try EditJournal.journalAdded(ids: [db.lastInsertedRowID], what: "import of 1 interval", at: Self.now, db)
            }
            #expect(try tracker.historyForTesting().rows.count == 6)
            #expect(try tracker.edits.undo(at: Self.now) == "Undid: import of 1 interval")
            #expect(try tracker.historyForTesting().rows.count == 5)
            #expect(try tracker.edits.undo(at: Self.now) == "Undid: import of 3 intervals")
            #expect(try tracker.historyForTesting().rows == before.rows)
            #expect(first == 3)
        }
    }

    @Test func editsReadBoundedIndexRanges() throws {
        try withTemporaryDirectory { dir in
            let tracker = try fixture(dir)
            let plans = try tracker.editQueryPlansForTesting()
            #expect(plans.count == 5)
            for plan in plans {
                #expect(plan.contains("SEARCH"), "\(plan)")
                #expect(!plan.contains("SCAN"), "\(plan)")
            }
        }
    }

    @Test func aV3StoreKeepsItsIntervalsAndIds() throws {
        try withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let file = dir.appendingPathComponent(Tracker.databaseFileName)
            try Tracker.makeDatabaseForTesting(
                at: file.path, upTo: "v3",
                then: """
                    INSERT INTO interval (id, start_us, end_us, project_id) VALUES (5, \(Self.at(9)), \(Self.at(10)), NULL);
                    INSERT INTO interval (id, start_us, end_us, project_id) VALUES (7, \(Self.at(11)), \(Self.at(12)), NULL);
                    """)
            let tracker = try Tracker(dataDirectory: dir, rules: berlin, now: Self.now, bootID: boot)
            #expect(try tracker.historyForTesting().rows == [row(5, 9, 10), row(7, 11, 12)])
            try tracker.edits.deleteInterval("7", at: Self.now)
            #expect(try tracker.edits.addInterval(start: Self.at(13), end: Self.at(14), project: nil, replace: false, at: Self.now) == "8")
            _ = try tracker.edits.undo(at: Self.now)
            _ = try tracker.edits.undo(at: Self.now)
            #expect(try tracker.historyForTesting().rows == [row(5, 9, 10), row(7, 11, 12)])
        }
    }

    /// A new store has pages of `Tracker.pageSize` bytes; a store made before keeps its own
    /// size and works as before. Both copy their log into the file at 4 MB.
    @Test func aNewStoreHasItsPageSizeAndAnOldOneKeepsItsOwn() throws {
        try withTemporaryDirectory { dir in
            let new = try Tracker(dataDirectory: dir.appendingPathComponent("new"), rules: berlin, now: Self.now, bootID: boot)
            #expect(try new.queryStringsForTesting("PRAGMA page_size") == ["\(Tracker.pageSize)"])
            // The log is copied into the file at the same size in bytes as with 4 KiB pages.
            #expect(try new.queryStringsForTesting("PRAGMA wal_autocheckpoint") == ["\(Tracker.checkpointBytes / Tracker.pageSize)"])
            let old = dir.appendingPathComponent("old")
            try FileManager.default.createDirectory(at: old, withIntermediateDirectories: true)
            try Tracker.makeDatabaseForTesting(
                at: old.appendingPathComponent(Tracker.databaseFileName).path, upTo: "v3",
                then: "INSERT INTO interval (id, start_us, end_us, project_id) VALUES (5, \(Self.at(9)), \(Self.at(10)), NULL)")
            let tracker = try Tracker(dataDirectory: old, rules: berlin, now: Self.now, bootID: boot)
            #expect(try tracker.queryStringsForTesting("PRAGMA page_size") == ["4096"])
            #expect(try tracker.queryStringsForTesting("PRAGMA wal_autocheckpoint") == ["1000"])
            #expect(try tracker.edits.addInterval(start: Self.at(11), end: Self.at(12), project: nil, replace: false, at: Self.now) == "6")
            #expect(try tracker.historyForTesting().rows == [row(5, 9, 10), row(6, 11, 12)])
        }
    }

    @Test func theJournalKeepsTheNewestEdits() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: Self.now, bootID: boot)
            for i in 0..<(EditJournal.journalKept + 5) {
                _ = try tracker.edits.addInterval(start: Micros(i) * hour, end: Micros(i) * hour + minute, project: nil, replace: false, at: Self.now)
            }
            for _ in 0..<EditJournal.journalKept { _ = try tracker.edits.undo(at: Self.now) }
            #expect(throws: TrackerError.self) { try tracker.edits.undo(at: Self.now) }
            #expect(try tracker.historyForTesting().rows.count == 5)
        }
    }

    /// Random edits through the store — adds, moves, project changes, splits, deletes, with
    /// and without replace, of the running interval too, and history resets — then undone
    /// newest first, across a restart: every row comes back exactly, and the stopwatch.
    // Seconds of synchronous SQLite work: on a thread of its own, so that it does not hold
    // one of the cooperative pool's threads (one per core) from the tests that await.
    @Test(.ownThread) func undoOfAnySequenceRestoresTheStoreExactly() async throws {
        await propertyCheck(count: 25, input: Gen.int(in: 0...10_000_000).array(of: 1...25)) { codes in
            withTemporaryDirectory { dir in
                do {
                    var tracker: Tracker! = try fixture(dir)
                    try tracker.timers.startProject("p1", at: Self.at(15))
                    let initial = try tracker.historyForTesting()
                    var journaled = 0
                    for code in codes {
                        let rows = try tracker.historyForTesting().rows
                        let id = rows.isEmpty ? "1" : String(rows[code / 11 % rows.count].id)
                        let a = Self.at(8) + Micros(code / 7 % 44) * 15 * minute
                        let b = a + Micros(code / 700 % 12 + 1) * 15 * minute
                        let replace = code / 8400 % 2 == 0
                        let project: String? = [nil, "p1", "Client B"][code / 16800 % 3]
                        let before = try tracker.dumpForTesting()
                        do {
                            switch code % 8 {
                            case 0, 1: _ = try tracker.edits.addInterval(start: a, end: b, project: project, replace: replace, at: Self.now)
                            case 2: try tracker.edits.updateInterval(id, .init(start: a, replace: replace), at: Self.now)
                            case 3: try tracker.edits.updateInterval(id, .init(end: b, replace: replace), at: Self.now)
                            case 4: try tracker.edits.updateInterval(id, .init(project: .some(project)), at: Self.now)
                            case 5: _ = try tracker.edits.splitInterval(id, at: a, now: Self.now)
                            case 6: try tracker.edits.deleteInterval(id, at: Self.now)
                            default: try tracker.history.reset(at: Self.now)
                            }
                        } catch let error as TrackerError {
                            if case .storage = error { Issue.record("\(error) at code \(code) of \(codes)") }
                            #expect(try tracker.dumpForTesting() == before, "a refused edit changed the store")
                            continue
                        }
                        // Every edit that changes rows is journaled (and only those).
                        if try tracker.historyForTesting().rows != rows { journaled += 1 }
                        let now = try tracker.historyForTesting().rows.sorted { $0.start < $1.start }
                        for (x, y) in zip(now, now.dropFirst()) { #expect(x.end != nil && x.end! <= y.start) }
                        #expect(tracker.workTimer.open?.start == now.last(where: \.running)?.start)
                    }
                    tracker = nil
                    tracker = try Tracker(dataDirectory: dir, rules: berlin, now: Self.now, bootID: boot)
                    for _ in 0..<journaled { _ = try tracker.edits.undo(at: Self.now) }
                    let restored = try tracker.historyForTesting()
                    #expect(restored.rows == initial.rows)
                    #expect(restored.open == initial.open && restored.runs == initial.runs)
                    _ = try? tracker.edits.undo(at: Self.now)  // the fixture's two adds remain
                } catch {
                    Issue.record("unexpected error \(error)")
                }
            }
        }
    }
}
