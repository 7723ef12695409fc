import BiomaCore
import Foundation
import GRDB
import Testing

@testable import BiomaStore
import StoreTestSupport

@Suite struct ImportStoreTests {
    let now = t("2024-06-01T12:00:00Z")

    func item(_ start: String, _ end: String, _ project: String?, _ entry: Int, _ id: String? = nil) -> ImportedInterval {
        ImportedInterval(start: t(start), end: t(end), projectName: project, entry: entry, entryID: id)
    }

    @Test func recordsAllInOneTransactionAndTwiceAddsNothing() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: now, bootID: boot)
            let existing = try tracker.catalog.addProject(name: "ACME", color: "#112233", at: now)
            let items = [
                item("2024-05-02T09:00:00Z", "2024-05-02T10:30:00Z", "acme", 1, "@3"),
                item("2024-05-02T11:00:00Z", "2024-05-02T12:00:00Z", "Café ☕", 2, "@2"),
                item("2024-05-03T09:00:00Z", "2024-05-03T09:45:00Z", nil, 3, "@1"),
                item("2024-05-03T10:00:00Z", "2024-05-03T11:00:00Z", "café ☕", 4),
            ]
            let result = try tracker.imports.importIntervals(items, format: .timewarrior, at: now)
            #expect(result.count == 4)
            // The rowids returned are the rows added, in time order.
            let rows = try tracker.database.read { db in
                try Row.fetchAll(db, sql: "SELECT id, start_us, project_id FROM interval ORDER BY start_us")
            }
            #expect(result.addedIDs == rows.map { $0[0] as Int64 })
            #expect(rows.map { $0[1] as Int64 } == items.map(\.start))
            // Projects matched by name ignoring case, or created once with the default colour.
            #expect(tracker.projects.map(\.name) == ["ACME", "Café ☕"])
            #expect(tracker.projects.map(\.color) == ["#112233", Project.defaultColor])
            #expect(rows.map { $0[2] as String? } == [existing, "p2", nil, "p2"])
            let report = try tracker.history.report(from: Day("2024-05-01")!, to: Day("2024-05-31")!, at: now)
            #expect(report.workTotal == 4 * hour + 15 * minute)
            #expect(report.noProjectTotal == 45 * minute)
            #expect(Dictionary(uniqueKeysWithValues: report.projects.map { ($0.name, $0.total) }) == ["ACME": 90 * minute, "Café ☕": 2 * hour])
            // The same data again: nothing added, nothing changed.
            let before = try fingerprint(tracker, at: now)
            let again = try tracker.imports.importIntervals(items, format: .timewarrior, at: now)
            #expect(again.count == 0 && again.addedIDs.isEmpty)
            #expect(try fingerprint(tracker, at: now) == before)
            // An empty import is fine too.
            #expect(try tracker.imports.importIntervals([], format: .watson, at: now).count == 0)
        }
    }

    /// Undo takes a whole import back, and a CSV import too; what was recorded before stays.
    @Test func undoTakesAnImportBack() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: now, bootID: boot)
            _ = try tracker.history.append(
                [Interval(start: t("2024-05-01T09:00:00Z"), end: t("2024-05-01T10:00:00Z"), projectID: nil)], at: now)
            let items = [
                item("2024-05-02T09:00:00Z", "2024-05-02T10:30:00Z", "acme", 1),
                item("2024-05-03T09:00:00Z", "2024-05-03T09:45:00Z", nil, 2),
            ]
            _ = try tracker.imports.importIntervals(items, format: .timewarrior, at: now)
            #expect(try tracker.edits.undo(at: now) == "Undid: import of 2 intervals (timewarrior)")
            let rows = try tracker.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM interval") }
            #expect(rows == 1)
            let csv = "project,color,start,end,duration\n,,2024-05-04T09:00:00Z,2024-05-04T10:00:00Z,1:00:00\n"
            #expect(try tracker.imports.importCSV(csv, at: now) == 1)
            #expect(try tracker.edits.undo(at: now) == "Undid: import of 1 interval (csv)")
            let after = try tracker.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM interval") }
            #expect(after == 1)
        }
    }

    /// An import's journal entry is its first id and a digest of each row it added, not a
    /// copy of the rows; undo deletes them only while each is as the import left it, and
    /// names the first that is not (a change that left no entry of its own: a project deleted
    /// with its time, a peer's edit), changing nothing.
    @Test func undoOfAnImportNamesAnIntervalChangedOrDeletedSince() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: now, bootID: boot)
            let items = (0..<5).map { day in
                item("2024-05-0\(day + 1)T09:00:00Z", "2024-05-0\(day + 1)T10:00:00Z", day == 3 ? "Gone" : "Kept", day + 1)
            }
            let added = try tracker.imports.importIntervals(items, format: .timewarrior, at: now).addedIDs
            #expect(try tracker.queryStringsForTesting("SELECT count(*) FROM edit_journal_row") == ["0"])
            #expect(try tracker.queryStringsForTesting("SELECT added_first FROM edit_journal") == ["\(added[0])"])
            #expect(try tracker.queryStringsForTesting("SELECT length(added_digests) FROM edit_journal") == ["40"])
            // A peer's edit of the second: named, nothing changed.
            try tracker.executeForTesting("UPDATE interval SET note = 'from a peer' WHERE id = \(added[1])")
            let edited = try tracker.dumpForTesting()
            #expect(throws: TrackerError.invalidArgument(
                "Cannot undo the import of 5 intervals (timewarrior): interval \(added[1]) has changed since. Nothing was changed (the journal keeps it).")
            ) { try tracker.edits.undo(at: now) }
            #expect(try tracker.dumpForTesting() == edited)
            // Put back as it was: the digest matches again. Then the fourth's project deleted with its time.
            try tracker.executeForTesting("UPDATE interval SET note = NULL WHERE id = \(added[1])")
            try tracker.catalog.deleteProject("Gone", at: now)
            #expect(throws: TrackerError.invalidArgument(
                "Cannot undo the import of 5 intervals (timewarrior): interval \(added[3]) has been deleted since. Nothing was changed (the journal keeps it).")
            ) { try tracker.edits.undo(at: now) }
            // The last one deleted too: still named by the first missing.
            try tracker.executeForTesting("DELETE FROM interval WHERE id = \(added[4])")
            #expect(throws: TrackerError.invalidArgument(
                "Cannot undo the import of 5 intervals (timewarrior): interval \(added[3]) has been deleted since. Nothing was changed (the journal keeps it).")
            ) { try tracker.edits.undo(at: now) }
        }
    }

    /// Undo of a whole import, as it left them: every interval it added goes, and only those.
    @Test func undoOfAnImportDeletesExactlyWhatItAdded() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: now, bootID: boot)
            _ = try tracker.history.append(
                [Interval(start: t("2024-04-01T09:00:00Z"), end: t("2024-04-01T10:00:00Z"), projectID: nil)], at: now)
            let before = try tracker.queryStringsForTesting("SELECT id FROM interval")
            let csv = "project,color,start,end,duration,note,tags\n"
                + "A,#112233,2024-05-04T09:00:00Z,2024-05-04T10:00:00Z,1:00:00,\"a note, with a comma\",call q4\n"
                + ",,2024-05-05T09:00:00Z,2024-05-05T10:00:00Z,1:00:00,,\n"
            #expect(try tracker.imports.importCSV(csv, at: now) == 2)
            try tracker.timers.start(at: now)
            try tracker.timers.stop(at: now + minute)
            #expect(try tracker.edits.undo(at: now + minute) == "Undid: import of 2 intervals (csv)")
            #expect(try tracker.queryStringsForTesting("SELECT id FROM interval") == before + [try #require(before.last.map { "\(Int($0)! + 3)" })])
        }
    }

    @Test func refusalsNameTheEntryAndChangeNothing() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: now, bootID: boot)
            _ = try tracker.imports.importIntervals(
                [item("2024-05-02T09:00:00Z", "2024-05-02T10:00:00Z", "A", 1)], format: .timewarrior, at: now)
            try tracker.timers.start(at: now - hour)
            let before = try fingerprint(tracker, at: now)
            let cases: [([ImportedInterval], ImportFormat, String)] = [
                (
                    [
                        item("2024-05-01T09:00:00Z", "2024-05-01T10:00:00Z", "New", 1, "@9"),
                        item("2024-05-02T09:30:00Z", "2024-05-02T11:00:00Z", "New", 2, "@8"),
                    ], .timewarrior,
                    "Timewarrior entry 2 (id @8) (2024-05-02T09:30:00+00:00 – 2024-05-02T11:00:00+00:00) overlaps recorded time 2024-05-02T09:00:00+00:00 – 2024-05-02T10:00:00+00:00. Nothing was imported."
                ),
                (
                    // Equal times but another project is not the same time recorded twice.
                    [item("2024-05-02T09:00:00Z", "2024-05-02T10:00:00Z", "B", 1, "abc")], .watson,
                    "Watson frame 1 (id abc) (2024-05-02T09:00:00+00:00 – 2024-05-02T10:00:00+00:00) overlaps recorded time 2024-05-02T09:00:00+00:00 – 2024-05-02T10:00:00+00:00. Nothing was imported."
                ),
                (
                    [item("2024-06-01T10:30:00Z", "2024-06-01T11:15:00Z", "New", 3, "@1")], .timewarrior,
                    "Timewarrior entry 3 (id @1) (2024-06-01T10:30:00+00:00 – 2024-06-01T11:15:00+00:00) overlaps the running interval (started 2024-06-01T11:00:00+00:00). Nothing was imported."
                ),
                (
                    [item("2024-06-01T12:00:00Z", "2024-06-01T12:00:01Z", nil, 7, "f00")], .watson,
                    "Watson frame 7 (id f00) ends in the future (2024-06-01T12:00:01+00:00). Nothing was imported."
                ),
            ]
            for (items, format, message) in cases {
                do {
                    let result = try tracker.imports.importIntervals(items, format: format, at: now)
                    Issue.record("imported \(result)")
                } catch let error as TrackerError {
                    #expect(error == .invalidImport(message))
                }
                #expect(try fingerprint(tracker, at: now) == before, "\(message)")
                #expect(!tracker.projects.contains { $0.name == "New" })
            }
        }
    }
}
