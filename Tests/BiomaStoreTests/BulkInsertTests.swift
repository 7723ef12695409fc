import BiomaCore
import Foundation
import Testing

@testable import BiomaStore
import StoreTestSupport

/// Many intervals inserted at once (an import) are inserted with the connection's triggers and
/// foreign-key checks off (`BulkIntervals`): what they record must be exactly what the trigger
/// records row by row — every row its uuid, with sync on every creation an operation with the
/// same fields — and the checks must be back afterwards, whether the import was kept or refused.
@Suite struct BulkInsertTests {
    static let first = t("2026-01-05T08:00:00+01:00")

    /// `count` half-hour intervals, one an hour, alternating two projects, with notes.
    static func items(_ count: Int, from start: Micros = first) -> [ImportedInterval] {
        (0..<count).map { n in
            let begin = start + Micros(n) * hour
            return ImportedInterval(
                start: begin, end: begin + hour / 2, projectName: n % 2 == 0 ? "Client A" : "Internal", entry: n + 1,
                note: n % 3 == 0 ? "note \(n)" : nil)
        }
    }

    /// The operations a store handed over, as fields alone (ids and uuids differ between stores).
    static func fields(_ operations: [SyncOperation]) -> [String] {
        operations.filter { $0.entity == .interval }.map { "\($0.fields.sorted { $0.key < $1.key }.filter { $0.key != "project" })" }
    }

    /// A bulk row's uuid is written in Swift (`SyncTable.newUUID`) in the layout the insert
    /// trigger writes in SQL: the time's 12 digits, the version 7, the row's place around the
    /// variant 8, then the random digits.
    @Test func aBulkRowsUUIDIsTheTriggersLayout() throws {
        #expect(
            SyncTable.newUUID(millis: 0x0123_4567_89AB, number: 0x0C_DEF0_1234, random: 0x89AB_CDEF)
                == "01234567-89ab-70cd-8ef0-123489abcdef")
        #expect(SyncTable.newUUID(millis: 0, number: 1, random: 0) == "00000000-0000-7000-8000-000100000000")
        // A row the trigger numbered: its place digits are those of its rowid, where newUUID puts them.
        try withTemporaryDirectory { dir in
            let now = t("2026-11-20T12:00:00+01:00")
            let tracker = try Tracker(dataDirectory: dir, rules: berlin, now: now, bootID: boot)
            for hourIndex in 0..<3 {
                let start = t("2026-11-19T09:00:00+01:00") + Micros(hourIndex) * hour
                _ = try tracker.edits.addInterval(start: start, end: start + hour / 2, project: nil, note: nil, replace: false, at: now)
            }
            let ids = try tracker.queryStringsForTesting("SELECT id FROM interval ORDER BY id").compactMap { Int64($0) }
            let uuids = try tracker.queryStringsForTesting("SELECT uuid FROM interval ORDER BY id")
            #expect(ids.count == 3 && uuids.count == 3)
            for (id, uuid) in zip(ids, uuids) {
                let made = SyncTable.newUUID(millis: 0, number: id, random: 0)
                #expect(Array(uuid)[13..<28] == Array(made)[13..<28], "\(uuid) vs \(made)")
            }
        }
    }

    @Test func aBulkImportRecordsWhatTheTriggerRecordsRowByRow() throws {
        let count = StoreHistory.bulkRows * 2 + 7
        try withTemporaryDirectory { dir in
            let now = t("2026-11-20T12:00:00+01:00")
            var handed: [String: [SyncOperation]] = [:]
            func store(_ name: String) throws -> Tracker {
                let tracker = try Tracker(dataDirectory: dir.appendingPathComponent(name), rules: berlin, now: now, bootID: boot)
                tracker.onSyncOperations = { handed[name, default: []] += $0 }
                try tracker.sync.enable(folder: "/sync", name: name)
                return tracker
            }
            // One import of them all (bulk), and the same in pieces below the bulk size (the trigger).
            let bulk = try store("bulk")
            let pieces = try store("pieces")
            let all = Self.items(count)
            #expect(try bulk.imports.importIntervals(all, format: .timewarrior, at: now).count == count)
            try Self.drainBacklog(of: bulk)
            for start in stride(from: 0, to: count, by: StoreHistory.bulkRows - 1) {
                let piece = Array(all[start..<min(count, start + StoreHistory.bulkRows - 1)])
                _ = try pieces.imports.importIntervals(piece, format: .timewarrior, at: now)
                try Self.drainBacklog(of: pieces)
            }
            #expect(Self.fields(handed["bulk"] ?? []).count == count)
            #expect(Self.fields(handed["bulk"] ?? []) == Self.fields(handed["pieces"] ?? []))
            // Every row has a uuid, all different, in the trigger's layout (version 7's form).
            let uuids = try bulk.queryStringsForTesting("SELECT uuid FROM interval ORDER BY id")
            #expect(uuids.count == count && Set(uuids).count == count)
            #expect(uuids.allSatisfy { UUIDText.isValid($0) && Array($0)[14] == "7" && Array($0)[19] == "8" })
            #expect(uuids == uuids.sorted())
            // The operations name the rows by those uuids.
            let named = Set((handed["bulk"] ?? []).filter { $0.entity == .interval }.map(\.entityID))
            #expect(named == Set(uuids))
            // The checks are back: a single interval added later is recorded by the trigger.
            #expect(try bulk.connectionChecksForTesting() == (true, true))
            let before = handed["bulk"]?.count ?? 0
            _ = try bulk.edits.addInterval(start: t("2026-11-19T09:00:00+01:00"), end: t("2026-11-19T10:00:00+01:00"), project: nil, note: nil, replace: false, at: now)
            #expect((handed["bulk"]?.count ?? 0) == before + 1)
            #expect(try bulk.queryStringsForTesting("SELECT count(*) FROM interval WHERE uuid IS NULL") == ["0"])
        }
    }

    /// A history reset deletes every row without the per-row delete trigger: with sync on each
    /// deletion is still an operation, one per row's uuid, and the trigger is back.
    @Test func aResetRecordsEveryDeletion() throws {
        try withTemporaryDirectory { dir in
            let now = t("2026-11-20T12:00:00+01:00")
            var handed: [SyncOperation] = []
            let tracker = try Tracker(dataDirectory: dir, rules: berlin, now: now, bootID: boot)
            tracker.onSyncOperations = { handed += $0 }
            try tracker.sync.enable(folder: "/sync", name: "A")
            _ = try tracker.imports.importIntervals(Self.items(StoreHistory.bulkRows + 10), format: .timewarrior, at: now)
            let uuids = try tracker.queryStringsForTesting("SELECT uuid FROM interval ORDER BY id")
            try Self.drainBacklog(of: tracker)
            handed = []
            try tracker.history.reset(at: now)
            try Self.drainBacklog(of: tracker)
            let deleted = handed.filter { $0.entity == .interval && $0.fields["deleted"] == .bool(true) }
            #expect(deleted.map(\.entityID) == uuids)
            #expect(try tracker.queryStringsForTesting("SELECT count(*) FROM interval") == ["0"])
            #expect(try tracker.connectionChecksForTesting() == (true, true))
            // Undo brings the rows back (as new entities, each with a uuid).
            _ = try tracker.edits.undo(at: now)
            #expect(try tracker.queryStringsForTesting("SELECT count(*) FROM interval WHERE uuid IS NOT NULL") == ["\(uuids.count)"])
        }
    }

    /// Stamps what a bulk change left, a slice at a time, as the daemon's loop does.
    static func drainBacklog(of tracker: Tracker) throws {
        var slices = 0
        while tracker.sync.hasBacklog {
            try tracker.sync.drainBacklog()
            slices += 1
            #expect(slices < 10_000, "the backlog does not shrink")
            if slices >= 10_000 { return }
        }
    }

    /// A bulk change records every creation at once, but one write makes at most
    /// `drainSlice` of them into operations: the rest wait, in order, across writes and a
    /// restart. A later change is stamped after them; a merge and turning sync off stamp
    /// whatever waits first. Sequence numbers run on without a gap or a repeat.
    @Test func aBulkChangesOperationsAreMadeASliceAtATimeInOrder() throws {
        let count = StoreSync.drainSlice * 3 + 11
        try withTemporaryDirectory { dir in
            let now = t("2026-11-20T12:00:00+01:00")
            var handed: [SyncOperation] = []
            var tracker: Tracker? = try Tracker(dataDirectory: dir, rules: berlin, now: now, bootID: boot)
            tracker!.onSyncOperations = { handed += $0 }
            try tracker!.sync.enable(folder: "/sync", name: "A")
            handed = []
            _ = try tracker!.imports.importIntervals(Self.items(count), format: .timewarrior, at: now)
            let uuids = try tracker!.queryStringsForTesting("SELECT uuid FROM interval ORDER BY id")
            // The import's own write: its projects' creations and the first intervals' only.
            #expect(handed.count == StoreSync.drainSlice)
            #expect(tracker!.sync.hasBacklog)
            // One slice more, then the store is closed and opened again: the backlog is kept.
            try tracker!.sync.drainBacklog()
            #expect(handed.count == StoreSync.drainSlice * 2)
            tracker = nil
            let reopened = try Tracker(dataDirectory: dir, rules: berlin, now: now, bootID: boot)
            reopened.onSyncOperations = { handed += $0 }
            #expect(reopened.sync.hasBacklog)
            // A slice whose time is up after its first operation makes that one only.
            try reopened.sync.drainBacklog { true }
            #expect(handed.count == StoreSync.drainSlice * 2 + 1)
            // A slice with time to spare is not held to `drainSlice`: it makes them all.
            try reopened.sync.drainBacklog { false }
            #expect(handed.filter { $0.entity == .interval }.count == uuids.count)
            #expect(!reopened.sync.hasBacklog)
            // A change made now is stamped after everything recorded before it.
            _ = try reopened.edits.addInterval(
                start: t("2026-11-19T09:00:00+01:00"), end: t("2026-11-19T10:00:00+01:00"), project: nil, note: "later",
                replace: false, at: now)
            try Self.drainBacklog(of: reopened)
            let intervals = handed.filter { $0.entity == .interval }
            #expect(intervals.map(\.entityID).dropLast() == uuids[...])
            #expect(intervals.last?.fields["note"] == .string("later"))
            #expect(handed.map(\.sequence) == Array(handed.first!.sequence...(handed.first!.sequence + Int64(handed.count) - 1)))
            #expect(try reopened.queryStringsForTesting("SELECT count(*) FROM sync_change") == ["0"])
            // A merge stamps whatever waits before it weighs a peer's fields.
            _ = try reopened.imports.importIntervals(Self.items(StoreSync.drainSlice + 2, from: t("2026-10-01T08:00:00+02:00")), format: .timewarrior, at: now)
            #expect(reopened.sync.hasBacklog)
            _ = try reopened.sync.merge([], peer: SyncPeerState(device: "0190a2d4-0000-7000-8000-000000000001"), at: now)
            #expect(!reopened.sync.hasBacklog)
            // A reset's deletions wait the same way, also while sync is off, until it is on again.
            handed = []
            try reopened.history.reset(at: now)
            #expect(reopened.sync.hasBacklog)
            try reopened.sync.disable()
            #expect(!reopened.sync.hasBacklog)
            #expect(try reopened.queryStringsForTesting("SELECT count(*) FROM sync_change") != ["0"])
            try reopened.sync.enable(folder: "/sync", name: "A")
            try Self.drainBacklog(of: reopened)
            #expect(try reopened.queryStringsForTesting("SELECT count(*) FROM sync_change") == ["0"])
            #expect(handed.filter { $0.fields["deleted"] == .bool(true) }.count == uuids.count + 1 + StoreSync.drainSlice + 2)
            let outbox = try reopened.queryStringsForTesting("SELECT count(*) FROM sync_outbox WHERE line LIKE '%\"deleted\":true%'")
            #expect(outbox == ["\(uuids.count + 1 + StoreSync.drainSlice + 2)"])
        }
    }

    /// A write made while a backlog waits (a toggle between two of the daemon's slices)
    /// stamps none of it, nor its own change: it hands over nothing, which tells the daemon to
    /// stamp on, and its change is stamped after everything recorded before it.
    @Test func aWriteWhileABacklogWaitsStampsNothingAndComesAfterIt() throws {
        try withTemporaryDirectory { dir in
            let now = t("2026-11-20T12:00:00+01:00")
            var handed: [[SyncOperation]] = []
            let tracker = try Tracker(dataDirectory: dir, rules: berlin, now: now, bootID: boot)
            tracker.onSyncOperations = { handed.append($0) }
            try tracker.sync.enable(folder: "/sync", name: "A")
            let count = StoreSync.drainSlice * 2 + 5
            handed = []
            _ = try tracker.imports.importIntervals(Self.items(count), format: .timewarrior, at: now)
            #expect(tracker.sync.hasBacklog)
            let waiting = try tracker.queryStringsForTesting("SELECT count(*) FROM sync_change").compactMap { Int($0) }
            let before = handed.count
            _ = try tracker.edits.addInterval(
                start: t("2026-11-19T09:00:00+01:00"), end: t("2026-11-19T10:00:00+01:00"), project: nil, note: "meanwhile",
                replace: false, at: now)
            #expect(handed.count == before + 1 && handed.last?.isEmpty == true)
            #expect(try tracker.queryStringsForTesting("SELECT count(*) FROM sync_change").compactMap { Int($0) } == waiting.map { $0 + 1 })
            #expect(tracker.sync.hasBacklog)
            try Self.drainBacklog(of: tracker)
            let intervals = handed.joined().filter { $0.entity == .interval }
            #expect(intervals.count == count + 1)
            #expect(intervals.last?.fields["note"] == .string("meanwhile"))
            #expect(!tracker.sync.hasBacklog)
            // With no backlog left, a write stamps its own change at once.
            handed = []
            _ = try tracker.edits.addInterval(
                start: t("2026-11-19T11:00:00+01:00"), end: t("2026-11-19T12:00:00+01:00"), project: nil, note: "after",
                replace: false, at: now)
            #expect(handed.count == 1 && handed.first?.first?.fields["note"] == .string("after"))
        }
    }

    /// Rows go in groups per statement (`insertRows`): the ids handed back are the rows'
    /// own, in start order, with rows equal to recorded time skipped between groups.
    @Test func theIdsHandedBackAreTheInsertedRows() throws {
        try withTemporaryDirectory { dir in
            let now = t("2026-11-20T12:00:00+01:00")
            let tracker = try Tracker(dataDirectory: dir, rules: berlin, now: now, bootID: boot)
            let all = Self.items(StoreHistory.insertRows * 3 + 5)
            // Every seventh already recorded: skipped by the second import.
            _ = try tracker.imports.importIntervals(stride(from: 0, to: all.count, by: 7).map { all[$0] }, format: .timewarrior, at: now)
            let result = try tracker.imports.importIntervals(all.reversed(), format: .timewarrior, at: now)
            #expect(result.count == all.count - (all.count + 6) / 7)
            let rows = try tracker.queryStringsForTesting(
                "SELECT id || ' ' || start_us FROM interval WHERE id >= \(result.addedIDs.min() ?? 0) ORDER BY start_us")
            #expect(rows == zip(result.addedIDs, all.enumerated().filter { $0.offset % 7 != 0 }.map(\.element.start)).map { "\($0) \($1)" })
        }
    }

    @Test func aRefusedBulkImportLeavesTheTriggerAndNothingElse() throws {
        try withTemporaryDirectory { dir in
            let now = t("2026-11-20T12:00:00+01:00")
            let tracker = try Tracker(dataDirectory: dir, rules: berlin, now: now, bootID: boot)
            let before = try tracker.dumpForTesting()
            // The last entry overlaps the one before it: refused after most rows were inserted.
            var items = Self.items(StoreHistory.bulkRows + 50)
            items.append(
                ImportedInterval(start: items.last!.start + 60_000_000, end: items.last!.end + hour, projectName: nil, entry: items.count + 1))
            #expect(throws: TrackerError.self) { try tracker.imports.importIntervals(items, format: .timewarrior, at: now) }
            #expect(try tracker.dumpForTesting() == before)
            #expect(try tracker.connectionChecksForTesting() == (true, true))
            // Without sync, a bulk import still gives every row its uuid (for a later `sync enable`).
            #expect(try tracker.imports.importIntervals(Self.items(StoreHistory.bulkRows), format: .timewarrior, at: now).count == StoreHistory.bulkRows)
            #expect(try tracker.queryStringsForTesting("SELECT count(*) FROM interval WHERE uuid IS NULL") == ["0"])
        }
    }

    /// A bulk insert that fails part way through a statement (here a constraint a test adds:
    /// two rows with one note) changes nothing: SQLite keeps no journal of the statement there
    /// (`INSERT OR FAIL` with the checks off), and the rows it had written go with the
    /// transaction. The connection's checks are back on after, and the next import works.
    @Test func aBulkInsertFailingInsideAStatementChangesNothing() throws {
        try withTemporaryDirectory { dir in
            let now = t("2026-11-20T12:00:00+01:00")
            let tracker = try Tracker(dataDirectory: dir, rules: berlin, now: now, bootID: boot)
            try tracker.executeForTesting("CREATE UNIQUE INDEX test_one_note ON interval(note)")
            let before = try tracker.dumpForTesting()
            var items = Self.items(StoreHistory.bulkRows + 50)
            // Entry 301 (the 45th row of its statement of 64) repeats entry 4's note.
            items[300].note = items[3].note
            #expect(throws: TrackerError.self) { try tracker.imports.importIntervals(items, format: .timewarrior, at: now) }
            #expect(try tracker.dumpForTesting() == before)
            #expect(try tracker.connectionChecksForTesting() == (true, true))
            items[300].note = nil
            #expect(try tracker.imports.importIntervals(items, format: .timewarrior, at: now).count == items.count)
            // A project that does not exist is still refused outside a bulk insert.
            #expect(throws: (any Error).self) {
                try tracker.executeForTesting("INSERT INTO interval (start_us, end_us, project_id) VALUES (1, 2, 'no such project')")
            }
        }
    }

    /// An import's journal entry keeps a digest of each row it added, made from the values as
    /// they were bound: they are the digests of the rows read back (what undo compares them
    /// with), for a bulk import and a small one, notes and tags included.
    @Test func anImportsDigestsAreThoseOfItsRowsReadBack() throws {
        try withTemporaryDirectory { dir in
            let now = t("2026-11-20T12:00:00+01:00")
            let tracker = try Tracker(dataDirectory: dir, rules: berlin, now: now, bootID: boot)
            for (count, from) in [(StoreHistory.bulkRows + 3, Self.first), (7, t("2025-06-02T08:00:00+02:00"))] {
                var items = Self.items(count, from: from)
                items[1].tags = ["billable", "é ü"]
                items[2].projectName = nil
                _ = try tracker.imports.importIntervals(items, format: .timewarrior, at: now)
                let digests = try tracker.addedDigestsForTesting()
                #expect(digests.kept.count == count * 8)
                #expect(digests.kept == digests.readBack)
            }
            // Undo compares them with the rows: it takes both imports back.
            #expect(try tracker.edits.undo(at: now).hasPrefix("Undid: import of 7 intervals"))
            #expect(try tracker.edits.undo(at: now).hasPrefix("Undid: import of \(StoreHistory.bulkRows + 3) intervals"))
            #expect(try tracker.queryStringsForTesting("SELECT count(*) FROM interval") == ["0"])
        }
    }
}
