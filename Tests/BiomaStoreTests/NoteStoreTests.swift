import BiomaCore
import Foundation
import Testing

@testable import BiomaStore
import StoreTestSupport

/// Interval notes in the store: set through add, edit and on the running interval, kept by
/// CSV export and import and by the Timewarrior and Watson imports, taken back exactly by undo;
/// a bad note changes nothing.
@Suite struct NoteStoreTests {
    static let day = t("2026-11-20T00:00:00+01:00")
    static func at(_ h: Double) -> Micros { day + Micros(h * Double(hour)) }
    static let now = at(18)

    func notes(_ tracker: Tracker) throws -> [String?] {
        try tracker.edits.intervals(from: Day("2026-11-20")!, to: Day("2026-11-20")!).map(\.note)
    }

    @Test func addEditRunningAndUndo() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: berlin, now: Self.now, bootID: boot)
            _ = try tracker.catalog.addProject(name: "Client A", color: "", at: Self.now)
            let id = try tracker.edits.addInterval(
                start: Self.at(9), end: Self.at(10), project: "Client A", note: "  Invoice; review, \\ 📄 ", replace: false,
                at: Self.now)
            #expect(try notes(tracker) == ["Invoice; review, \\ 📄"])
            try tracker.edits.updateInterval(id, .init(note: "Second thoughts"), at: Self.now)
            #expect(try notes(tracker) == ["Second thoughts"])
            // A change of the note alone is one journal entry, and undo takes it back exactly.
            #expect(try tracker.edits.undo(at: Self.now).hasPrefix("Undid: edit of interval 1"))
            #expect(try notes(tracker) == ["Invoice; review, \\ 📄"])
            try tracker.edits.updateInterval(id, .init(note: ""), at: Self.now)
            #expect(try notes(tracker) == [nil])
            _ = try tracker.edits.undo(at: Self.now)
            #expect(try notes(tracker) == ["Invoice; review, \\ 📄"])
            // A split keeps the note on both parts; its undo leaves one with the note.
            _ = try tracker.edits.splitInterval(id, at: Self.at(9.5), now: Self.now)
            #expect(try notes(tracker) == ["Invoice; review, \\ 📄", "Invoice; review, \\ 📄"])
            _ = try tracker.edits.undo(at: Self.now)
            #expect(try notes(tracker) == ["Invoice; review, \\ 📄"])

            // The running interval.
            #expect(throws: TrackerError.self) { try tracker.edits.setRunningNote("nothing runs", at: Self.now) }
            try tracker.timers.start(at: Self.at(13))
            let running = try tracker.edits.setRunningNote("Writing the report", at: Self.at(14))
            #expect(try notes(tracker) == ["Invoice; review, \\ 📄", "Writing the report"])
            try tracker.timers.stop(at: Self.at(15))
            // Stopping closes the interval with its note.
            let closed = try tracker.edits.intervals(from: Day("2026-11-20")!, to: Day("2026-11-20")!).last!
            #expect(String(closed.id) == running && closed.end == Self.at(15) && closed.note == "Writing the report")
            #expect(try tracker.edits.undo(at: Self.at(16)) == "Undid: note of interval \(running) (was none)")
            #expect(try notes(tracker) == ["Invoice; review, \\ 📄", nil])
        }
    }

    @Test func badNotesChangeNothing() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: berlin, now: Self.now, bootID: boot)
            let id = try tracker.edits.addInterval(start: Self.at(9), end: Self.at(10), project: nil, note: "kept", replace: false, at: Self.now)
            try tracker.timers.start(at: Self.at(11))
            let longest = String(repeating: "é", count: 500)
            let bad = [longest + "x", "line\nbreak", "tab\there", "esc\u{1B}[31m", "sep\u{2028}arator"]
            let before = try tracker.dumpForTesting()
            for note in bad {
                #expect(throws: TrackerError.self) { try tracker.edits.updateInterval(id, .init(note: note), at: Self.now) }
                #expect(throws: TrackerError.self) {
                    _ = try tracker.edits.addInterval(start: Self.at(7), end: Self.at(8), project: nil, note: note, replace: false, at: Self.now)
                }
                #expect(throws: TrackerError.self) { _ = try tracker.edits.setRunningNote(note, at: Self.now) }
                #expect(try tracker.dumpForTesting() == before)
            }
            // 500 characters are allowed.
            try tracker.edits.updateInterval(id, .init(note: longest), at: Self.now)
            #expect(try notes(tracker).first == longest)
        }
    }

    @Test func csvRoundTripAndOldFiles() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: berlin, now: Self.now, bootID: boot)
            _ = try tracker.catalog.addProject(name: "Client A", color: "#112233", at: Self.now)
            _ = try tracker.edits.addInterval(
                start: Self.at(9), end: Self.at(10), project: "Client A", note: "=SUM(A1), \"quoted\"; ok", replace: false,
                at: Self.now)
            _ = try tracker.edits.addInterval(start: Self.at(11), end: Self.at(12), project: nil, replace: false, at: Self.now)
            let csv = try tracker.history.exportCSV(from: nil, to: nil, at: Self.now)
            #expect(csv.hasPrefix(IntervalCSV.header + "\r\n"))
            try withTemporaryDirectory { other in
                let copy = try Tracker(dataDirectory: other, rules: berlin, now: Self.now, bootID: boot)
                #expect(try copy.imports.importCSV(csv, at: Self.now) == 2)
                #expect(try notes(copy) == ["=SUM(A1), \"quoted\"; ok", nil])
                #expect(try copy.history.exportCSV(from: nil, to: nil, at: Self.now) == csv)
                // The import is one edit: undo removes the rows, notes and all.
                _ = try copy.edits.undo(at: Self.now)
                #expect(try notes(copy) == [])
            }
            try withTemporaryDirectory { other in
                let copy = try Tracker(dataDirectory: other, rules: berlin, now: Self.now, bootID: boot)
                let old = IntervalCSV.headerWithoutNote + "\r\nClient A,#112233,2026-11-20T09:00:00+01:00,2026-11-20T10:00:00+01:00,1:00:00\r\n"
                #expect(try copy.imports.importCSV(old, at: Self.now) == 1)
                #expect(try notes(copy) == [nil])
            }
        }
    }

    @Test func timewarriorAndWatsonNotesAreKept() throws {
        let now = t("2024-06-01T12:00:00Z")
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: now, bootID: boot)
            let timew = """
                [{"id":1,"start":"20240502T090000Z","end":"20240502T100000Z","tags":["acme"],"annotation":"Fixed the build; twice, \\\\ really"},
                 {"id":2,"start":"20240502T110000Z","end":"20240502T120000Z","tags":["acme"]}]
                """
            _ = try tracker.imports.importIntervals(try TimewarriorImport.parse(timew), format: .timewarrior, at: now)
            let watson = """
                [[1714734000, 1714737600, "acme", "abc", [], 1714737600, "Call with 📞 Bob"],
                 [1714741200, 1714744800, "acme", "abd", [], 1714744800, null]]
                """
            _ = try tracker.imports.importIntervals(try WatsonImport.parse(watson), format: .watson, at: now)
            let rows = try tracker.edits.intervals(from: Day("2024-05-02")!, to: Day("2024-05-03")!)
            #expect(rows.map(\.note) == ["Fixed the build; twice, \\ really", nil, "Call with 📞 Bob", nil])
            // Undo of the Watson import takes its rows (and their notes) back.
            _ = try tracker.edits.undo(at: now)
            #expect(try tracker.edits.intervals(from: Day("2024-05-02")!, to: Day("2024-05-03")!).map(\.note) == ["Fixed the build; twice, \\ really", nil])
        }
    }
}
