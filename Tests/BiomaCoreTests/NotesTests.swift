import BiomaCore
import Foundation
import Testing

/// The message of the `TrackerError` a call throws, nil when it does not throw.
func goalsFailure(_ body: () throws -> Any?) -> String? {
    do {
        _ = try body()
        return nil
    } catch let error as TrackerError {
        return error.message
    } catch {
        return "not a TrackerError: \(error)"
    }
}

@Suite struct NotesTests {
    @Test func validation() throws {
        #expect(try IntervalNote.validated("  call with A about invoices \t") == "call with A about invoices")
        #expect(try IntervalNote.validated("   ") == nil)
        #expect(try IntervalNote.validated("") == nil)
        let longest = String(repeating: "é", count: 500)
        #expect(try IntervalNote.validated(longest) == longest)
        let emoji = String(repeating: "👩‍💻", count: 500)
        #expect(try IntervalNote.validated(emoji) == emoji)
        #expect(goalsFailure { try IntervalNote.validated(longest + "x") }?.contains("501 characters long: at most 500") == true)
        #expect(goalsFailure { try IntervalNote.validated("two\nlines") }?.contains("a line break") == true)
        #expect(goalsFailure { try IntervalNote.validated("a\u{2028}b") }?.contains("a line break") == true)
        #expect(goalsFailure { try IntervalNote.validated("bell\u{7}") }?.contains("control character (U+0007)") == true)
        #expect(goalsFailure { try IntervalNote.validated("in\tside") }?.contains("control character (U+0009)") == true)
        #expect(goalsFailure { try IntervalNote.validated("esc \u{1B}[31m") }?.contains("U+001B") == true)
    }

    func row(_ id: Int64, _ from: String, _ to: String?, _ project: String? = nil, note: String? = nil) -> IntervalRow {
        IntervalRow(id: id, start: t(from), end: to.map(t), projectID: project, note: note)
    }

    @Test func notesThroughAddEditSplitAndUndo() throws {
        let now = t("2026-11-23T18:00:00Z")
        let running = row(3, "2026-11-23T15:00:00Z", nil, "a")
        let closed = row(2, "2026-11-23T09:00:00Z", "2026-11-23T12:00:00Z", "a", note: "invoices")
        // A note on the running interval (`biomatimer note`), then taken back.
        let noted = try IntervalEdits.update(
            id: 3, start: nil, end: nil, projectID: nil, note: .some("call with A"), replace: false,
            rows: [closed, running], now: now, nextID: 4)
        #expect(noted.changes == [RowChange(id: 3, before: running, after: row(3, "2026-11-23T15:00:00Z", nil, "a", note: "call with A"))])
        let back = try IntervalEdits.undo(
            noted.changes, current: [3: noted.changes[0].after!], others: [closed], projects: ["a"])
        #expect(back.map(\.after) == [running])
        // The timer stopped since: undo restores the note on the closed interval.
        var stopped = noted.changes[0].after!
        stopped.end = t("2026-11-23T17:00:00Z")
        let afterStop = try IntervalEdits.undo(noted.changes, current: [3: stopped], others: [closed], projects: ["a"])
        #expect(afterStop.map(\.after) == [row(3, "2026-11-23T15:00:00Z", "2026-11-23T17:00:00Z", "a")])
        // Removing a note, and a change of note only, touch one row.
        let removed = try IntervalEdits.update(
            id: 2, start: nil, end: nil, projectID: nil, note: .some(nil), replace: false, rows: [closed, running],
            now: now, nextID: 4)
        #expect(removed.changes.count == 1 && removed.changes[0].after?.note == nil && removed.changes[0].after != nil)
        let same = try IntervalEdits.update(
            id: 2, start: nil, end: nil, projectID: nil, note: "invoices", replace: false, rows: [closed, running],
            now: now, nextID: 4)
        #expect(same.isEmpty)
        // Added with a note; the parts of a split or of a replaced interval keep theirs.
        let added = try IntervalEdits.add(
            start: t("2026-11-23T10:00:00Z"), end: t("2026-11-23T11:00:00Z"), projectID: nil, note: "standup",
            replace: true, rows: [closed, running], now: now, nextID: 4)
        #expect(added.changes.compactMap(\.after).map(\.note) == ["invoices", "invoices", "standup"])
        let split = try IntervalEdits.split(id: 2, at: t("2026-11-23T10:00:00Z"), rows: [closed], now: now, nextID: 9)
        #expect(split.changes.compactMap(\.after).map(\.note) == ["invoices", "invoices"])
        // Undo of the add brings the note of the cut interval back whole.
        var current: [Int64: IntervalRow] = [:]
        for change in added.changes { current[change.id] = change.after }
        let undone = try IntervalEdits.undo(added.changes, current: current, others: [running], projects: ["a"])
        #expect(undone.compactMap(\.after) == [closed])
    }

    @Test func csvRoundTripWithHostileNotes() throws {
        let tz = zone("Europe/Berlin")
        let notes: [String?] = [
            "=HYPERLINK(\"x\")", "a, b; c \\ d \"quoted\"", nil, "👩‍💻 café", String(repeating: "x,", count: 250), "'-minus",
            // A comma, a quote or an equals sign with a combining mark is one Swift Character
            // but still a comma, a quote, a formula to a CSV reader.
            ",\u{301}", "\"\u{301}x", "=\u{301}1+1",
        ]
        let rows = notes.enumerated().map { index, note in
            IntervalCSV.Row(
                projectName: index % 2 == 0 ? "Client, A" : nil, color: index % 2 == 0 ? "#112233" : nil,
                start: t("2026-11-23T09:00:00Z") + Micros(index) * hour, end: t("2026-11-23T09:30:00Z") + Micros(index) * hour,
                note: note)
        }
        let csv = IntervalCSV.encode(rows, timeZone: tz)
        #expect(csv.hasPrefix("project,color,start,end,duration,note,tags\r\n"))
        #expect(csv.contains(",'=HYPERLINK(\"\"x\"\")\",\r\n") || csv.contains("\"'=HYPERLINK(\"\"x\"\")\",\r\n"))
        let decoded = try IntervalCSV.decode(csv)
        #expect(decoded.map(\.note) == notes)
        #expect(IntervalCSV.encode(decoded, timeZone: tz) == csv)
        // Rounded durations beside the exact ones; import reads that file too.
        let rounded = IntervalCSV.encode(rows, timeZone: tz, rounding: Rounding(minutes: 15, mode: .up, per: .interval))
        let lines = rounded.components(separatedBy: "\r\n")
        #expect(lines[0] == IntervalCSV.roundedHeader)
        #expect(lines[3].hasSuffix(",0:30:00,0:30:00,,"))
        #expect(try IntervalCSV.decode(rounded).map(\.note) == notes)
        // Old files without the column import with no notes; a bad note names its line.
        let old = IntervalCSV.headerWithoutNote + "\n,,2024-05-04T09:00:00Z,2024-05-04T10:00:00Z,1:00:00\n"
        #expect(try IntervalCSV.decode(old).map(\.note) == [nil])
        let bad = IntervalCSV.header + "\n,,2024-05-04T09:00:00Z,2024-05-04T10:00:00Z,1:00:00,\"two\nlines\",\n"
        #expect(goalsFailure { try IntervalCSV.decode(bad) }?.hasPrefix("CSV line 2: The note holds a line break") == true)
        let long = IntervalCSV.header + "\n,,2024-05-04T09:00:00Z,2024-05-04T10:00:00Z,1:00:00,\(String(repeating: "y", count: 501)),\n"
        #expect(goalsFailure { try IntervalCSV.decode(long) }?.contains("501 characters") == true)
        let short = IntervalCSV.header + "\n,,2024-05-04T09:00:00Z,2024-05-04T10:00:00Z,1:00:00\n"
        #expect(goalsFailure { try IntervalCSV.decode(short) }?.hasPrefix("CSV line 2: expected 7 cells, found 5") == true)
        // Files of the note column alone (before tags) import with no tags; tags round-trip, a
        // bad one names its line.
        let noTags = IntervalCSV.headersWithoutTags[0] + "\n,,2024-05-04T09:00:00Z,2024-05-04T10:00:00Z,1:00:00,hi\n"
        #expect(try IntervalCSV.decode(noTags).map(\.note) == ["hi"] && IntervalCSV.decode(noTags).map(\.tags) == [[]])
        let tagged = IntervalCSV.header + "\n,,2024-05-04T09:00:00Z,2024-05-04T10:00:00Z,1:00:00,,call +bug v1.2\n"
        #expect(try IntervalCSV.decode(tagged).map(\.tags) == [["call", "bug", "v1.2"]])
        #expect(try IntervalCSV.encode(IntervalCSV.decode(tagged), timeZone: TimeZone(identifier: "UTC")!).hasSuffix(",,call bug v1.2\r\n"))
        let badTag = IntervalCSV.header + "\n,,2024-05-04T09:00:00Z,2024-05-04T10:00:00Z,1:00:00,,a<b\n"
        #expect(goalsFailure { try IntervalCSV.decode(badTag) }?.hasPrefix("CSV line 2: Tag \"a<b\" is not a word") == true)
    }

    @Test func importsCarryNotes() throws {
        let timew = #"""
            [{"id":2,"start":"20240131T090000Z","end":"20240131T100000Z","tags":["acme"],"annotation":"  call, with; A  "},
             {"id":1,"start":"20240131T100000Z","end":"20240131T110000Z","tags":["acme"]}]
            """#
        #expect(try TimewarriorImport.parse(timew).map(\.note) == ["call, with; A", nil])
        let badAnnotation = #"[{"id":1,"start":"20240131T090000Z","end":"20240131T100000Z","annotation":"a\u0007b"}]"#
        #expect(
            goalsFailure { try TimewarriorImport.parse(badAnnotation) }
                == "Timewarrior entry 1 (id @1): its annotation cannot be a note (the note holds a control character (U+0007)). Nothing was imported.")
        let watson = #"""
            [[1706691600, 1706695200, "acme", "f1", ["x"], 1706695200, "wrote the report"],
             [1706695200, 1706698800, "acme", "f2", [], 1706698800, null],
             [1706698800, 1706702400, "acme", "f3"]]
            """#
        #expect(try WatsonImport.parse(watson).map(\.note) == ["wrote the report", nil, nil])
        let long = "[[1706691600, 1706695200, \"acme\", \"f1\", [], 1706695200, \"\(String(repeating: "z", count: 501))\"]]"
        #expect(goalsFailure { try WatsonImport.parse(long) }?.contains("its note cannot be a note (the note is 501 characters long") == true)
        #expect(goalsFailure { try WatsonImport.parse(#"[[1706691600, 1706695200, "acme", "f1", [], 1706695200, 7]]"#) }?.contains("the note must be a string") == true)
    }

    @Test func notesPerDayAndProject() {
        let rows = [
            row(1, "2026-11-23T09:00:00+01:00", "2026-11-23T10:00:00+01:00", "b", note: "review"),
            row(2, "2026-11-23T10:00:00+01:00", "2026-11-23T11:00:00+01:00", "a", note: "call"),
            row(3, "2026-11-23T11:00:00+01:00", "2026-11-23T12:00:00+01:00", "b", note: "review"),
            row(4, "2026-11-23T23:30:00+01:00", "2026-11-24T01:00:00+01:00", nil, note: "late fix"),
            row(5, "2026-11-24T09:00:00+01:00", "2026-11-24T10:00:00+01:00", "a"),
        ]
        #expect(NoteDigest(rows: rows, rules: berlin, projectOrder: ["a", "b"]).entries == [
            .init(day: day("2026-11-23"), projectID: "a", notes: ["call"]),
            .init(day: day("2026-11-23"), projectID: "b", notes: ["review"]),
            .init(day: day("2026-11-23"), projectID: nil, notes: ["late fix"]),
        ])
    }
}

@Suite struct RoundingTests {
    @Test func parsingAndSteps() throws {
        let up = try Rounding(round: "15m")
        #expect(up.mode == .up && up.per == .interval && up.step == 15 * minute)
        #expect(up.rounded(0) == 0)
        // Less than a second is nothing (shown as 0:00:00): it rounds to 0; a second is a step.
        #expect(up.rounded(1) == 0)
        #expect(up.rounded(microsPerSecond) == 15 * minute)
        #expect(up.rounded(15 * minute) == 15 * minute)
        #expect(up.rounded(15 * minute + 1) == 30 * minute)
        let nearest = try Rounding(round: "6m", rounding: "nearest", per: "day")
        #expect(nearest.per == .day)
        #expect(nearest.rounded(3 * minute - 1) == 0)
        #expect(nearest.rounded(3 * minute) == 6 * minute)  // half a step rounds up
        #expect(nearest.rounded(8 * minute) == 6 * minute)
        #expect(try Rounding(round: "30m", rounding: "nearest").rounded(44 * minute + 59 * microsPerSecond) == 30 * minute)
        for (round, rounding, per, words) in [
            ("10m", nil, nil, "--round `10m` is not a rounding step: use 6m, 15m or 30m"), ("15", nil, nil, "--round `15`"),
            ("15m", "down", nil, "--rounding `down` is not a rounding: use up or nearest"),
            ("15m", nil, "week", "--round-per `week` is not what to round: use interval or day"),
        ] as [(String, String?, String?, String)] {
            #expect(goalsFailure { try Rounding(round: round, rounding: rounding, per: per) }?.hasPrefix(words) == true)
        }
    }

    @Test func perIntervalAndPerDay() throws {
        let intervals = [
            Interval(start: t("2026-11-23T09:00:00+01:00"), end: t("2026-11-23T09:10:00+01:00"), projectID: "a"),
            Interval(start: t("2026-11-23T10:00:00+01:00"), end: t("2026-11-23T10:10:00+01:00"), projectID: "a"),
            Interval(start: t("2026-11-23T11:00:00+01:00"), end: t("2026-11-23T11:20:00+01:00"), projectID: nil),
            // Over midnight: one invoice line per interval, two days per day.
            Interval(start: t("2026-11-23T23:50:00+01:00"), end: t("2026-11-24T00:20:00+01:00"), projectID: "a"),
        ]
        let from = day("2026-11-23")
        let to = day("2026-11-24")
        let perInterval = RoundedTotals(
            intervals: intervals, from: from, to: to, rules: berlin, rounding: try Rounding(round: "15m"))
        #expect(perInterval.exactTotal == 70 * minute)
        #expect(perInterval.roundedTotal == 15 * minute * 2 + 30 * minute + 30 * minute)
        #expect(perInterval.total(of: "a") == (50 * minute, 60 * minute))
        #expect(perInterval.lines.map(\.day) == [from, from])
        let perDay = RoundedTotals(
            intervals: intervals, from: from, to: to, rules: berlin, rounding: try Rounding(round: "15m", per: "day"))
        #expect(perDay.exactTotal == 70 * minute)
        #expect(perDay.lines.map(\.rounded) == [30 * minute, 30 * minute, 30 * minute])  // none, a (20+10), a (20)
        #expect(perDay.lines.map(\.projectID) == [nil, "a", "a"])
        let nearestPerDay = RoundedTotals(
            intervals: intervals, from: from, to: to, rules: berlin,
            rounding: try Rounding(round: "15m", rounding: "nearest", per: "day"))
        #expect(nearestPerDay.roundedTotal == 15 * minute + 30 * minute + 15 * minute)
        // The range cuts intervals; an empty history and an empty range total nothing.
        let monday = RoundedTotals(intervals: intervals, from: from, to: from, rules: berlin, rounding: try Rounding(round: "6m"))
        #expect(monday.exactTotal == 50 * minute && monday.roundedTotal == 12 * minute + 12 * minute + 24 * minute + 12 * minute)
        #expect(RoundedTotals(intervals: [], from: from, to: to, rules: berlin, rounding: try Rounding(round: "6m")).lines.isEmpty)
        // A DST day: per day, real hours.
        let dst = [Interval(start: t("2024-03-31T00:00:00+01:00"), end: t("2024-03-31T23:59:00+02:00"), projectID: "a")]
        let spring = RoundedTotals(
            intervals: dst, from: day("2024-03-31"), to: day("2024-03-31"), rules: berlin,
            rounding: try Rounding(round: "30m", per: "day"))
        #expect(spring.exactTotal == 22 * hour + 59 * minute && spring.roundedTotal == 23 * hour)
    }
}
