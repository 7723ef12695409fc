import BiomaCore
import Foundation
import Testing

@Suite struct ICalendarTests {
    @Test func escapingAndFolding() {
        #expect(ICalendar.escape("a\\b;c,d\ne\r\nf") == "a\\\\b\\;c\\,d\\ne\\nf")
        #expect(ICalendar.escape("tab\there\u{7}") == "tab here")
        #expect(ICalendar.fold("short") == "short")
        for text in [
            String(repeating: "a", count: 200), String(repeating: "é", count: 100), String(repeating: "👩‍💻", count: 40),
            "DESCRIPTION:" + String(repeating: "€x", count: 90),
            // One character of 1 + 60 × 2 octets: broken between its scalars.
            "SUMMARY:a" + String(repeating: "\u{301}", count: 60) + "b",
        ] {
            let folded = ICalendar.fold(text)
            // Lines as octets: a cut UTF-8 sequence would show here, and not in Swift strings.
            let lines = Array(folded.utf8).split(separator: 13, omittingEmptySubsequences: false).enumerated().map {
                $0.offset == 0 ? Array($0.element) : Array($0.element.dropFirst())  // the LF after each CR
            }
            #expect(lines.count > 1)
            #expect(lines.allSatisfy { $0.count <= 75 && String(validating: $0, as: UTF8.self) != nil })
            #expect(lines.dropFirst().allSatisfy { $0.first == 0x20 })
            #expect(!folded.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
            // Unfolding gives the line back.
            #expect(String(decoding: lines[0] + lines.dropFirst().flatMap { $0.dropFirst() }, as: UTF8.self) == text)
        }
        // Emoji stay whole on their lines.
        let emoji = ICalendar.fold(String(repeating: "👩‍💻", count: 40)).components(separatedBy: "\r\n ")
        #expect(emoji.allSatisfy { $0.allSatisfy { $0 == "👩‍💻" } })
        #expect(ICalendar.utc(t("2026-11-23T09:00:00.999999+01:00")) == "20261123T080000Z")
    }

    /// Hostile names and notes, a running interval closed at now, an interval over a DST change.
    static func events() -> [ICalendar.Event] {
        let rows: [(IntervalRow, Micros, String?)] = [
            (IntervalRow(id: 1, start: t("2024-10-27T01:30:00+02:00"), end: t("2024-10-27T02:30:00+01:00"), projectID: "a",
                note: "over the change, back; again \\ done"), t("2024-10-27T02:30:00+01:00"), "Client, A; \\ B"),
            (IntervalRow(id: 2, start: t("2026-11-23T09:00:00.5+01:00"), end: t("2026-11-23T09:00:00.7+01:00"), projectID: nil,
                note: nil), t("2026-11-23T09:00:00.7+01:00"), nil),
            (IntervalRow(id: 3, start: t("2026-11-23T10:00:00+01:00"), end: t("2026-11-23T12:00:00+01:00"), projectID: "b",
                note: String(repeating: "👩‍💻,;\\", count: 125)), t("2026-11-23T12:00:00+01:00"), "Café ☕ \"quoted\""),
            (IntervalRow(id: 4, start: t("2026-11-23T13:00:00+01:00"), end: t("2026-11-23T14:00:00+01:00"), projectID: "c",
                note: String(repeating: "x", count: 500)), t("2026-11-23T14:00:00+01:00"), String(repeating: "N", count: 64)),
            (IntervalRow(id: 5, start: t("2026-11-23T15:00:00+01:00"), end: nil, projectID: "a", note: "line one\nline two"),
                t("2026-11-23T15:45:00+01:00"), "Client, A; \\ B"),
        ]
        return rows.map { ICalendar.Event(row: $0.0, end: $0.1, projectName: $0.2) }
    }

    /// python3-icalendar, an independent reader, parses the file and prints every event.
    static let reader = #"""
        import icalendar, json, sys, datetime
        cal = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
        out = []
        for ev in cal.walk('VEVENT'):
            s, e = ev.decoded('DTSTART'), ev.decoded('DTEND')
            for d in (s, e, ev.decoded('DTSTAMP')):
                assert d.tzinfo is not None and d.utcoffset() == datetime.timedelta(0), d
            out.append({'uid': str(ev['UID']), 'summary': str(ev['SUMMARY']),
                        'description': str(ev['DESCRIPTION']) if 'DESCRIPTION' in ev else None,
                        'start': int(s.timestamp()), 'end': int(e.timestamp())})
        print(json.dumps({'version': str(cal['VERSION']), 'events': out}))
        """#

    struct Parsed: Decodable, Equatable {
        struct Event: Decodable, Equatable {
            var uid: String
            var summary: String
            var description: String?
            var start: Int64
            var end: Int64
        }
        var version: String
        var events: [Event]
    }

    static func read(_ ics: String) throws -> Parsed {
        let directory = try makeTemporaryDirectory("biomatimer-ics")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("week.ics")
        try Data(ics.utf8).write(to: file)
        let result = try runProcess("/usr/bin/python3", ["-c", reader, file.path])
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONDecoder().decode(Parsed.self, from: Data(result.stdout.utf8))
    }

    @Test func anIndependentReaderReadsEveryIntervalOnce() throws {
        let events = Self.events()
        let stamp = t("2026-11-23T16:00:00Z")
        let ics = ICalendar.encode(events, stamp: stamp, name: "Work, biomatimer")
        let lines = ics.components(separatedBy: "\r\n")
        #expect(lines.last == "" && !ics.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        #expect(lines.allSatisfy { $0.utf8.count <= 75 })
        #expect(lines.contains { $0.hasPrefix(" ") })  // long notes were folded
        let parsed = try Self.read(ics)
        #expect(parsed.version == "2.0")
        #expect(parsed.events.count == events.count)
        #expect(Set(parsed.events.map(\.uid)).count == events.count)
        let expected = events.map { event in
            Parsed.Event(
                uid: event.uid, summary: event.summary, description: event.description,
                start: event.start / microsPerSecond, end: (event.end + microsPerSecond - 1) / microsPerSecond)
        }
        // Interval 2 lasts a fraction of a second inside one second: it keeps one second.
        var adjusted = expected
        adjusted[1].end = adjusted[1].start + 1
        #expect(parsed.events == adjusted)
        #expect(parsed.events[0].end - parsed.events[0].start == 2 * 3600)  // 01:30 CEST to 02:30 CET
        #expect(parsed.events[0].summary == "Client, A; \\ B")
        #expect(parsed.events[1].summary == "Work" && parsed.events[1].description == nil)
        #expect(parsed.events[4].description == "line one\nline two")
    }

    @Test func uidsStayAcrossExports() throws {
        let first = try Self.read(ICalendar.encode(Self.events(), stamp: t("2026-11-23T16:00:00Z")))
        // Later: the running interval is longer, interval 3 has another project and note, one
        // more interval exists.
        var rows = Self.events()
        rows[4].end = t("2026-11-23T17:00:00+01:00")
        rows[2].summary = "Other"
        rows[2].description = "changed"
        rows.append(
            ICalendar.Event(
                row: IntervalRow(id: 6, start: t("2026-11-23T18:00:00+01:00"), end: t("2026-11-23T19:00:00+01:00"), projectID: nil),
                end: t("2026-11-23T19:00:00+01:00"), projectName: nil))
        let second = try Self.read(ICalendar.encode(rows, stamp: t("2026-11-23T18:00:00Z")))
        #expect(Array(second.events.prefix(5).map(\.uid)) == first.events.map(\.uid))
        #expect(second.events[2].summary == "Other" && second.events[4].end == t("2026-11-23T17:00:00+01:00") / microsPerSecond)
        #expect(!first.events.map(\.uid).contains(second.events[5].uid))
        #expect(ICalendar.uid(id: 42, start: 1_732_611_600_000_000) == "42-1732611600000000@biomatimer")
        // From the store's rows: in start order, the running one closed at now, one that
        // starts now left out, names looked up.
        let now = t("2026-11-23T16:00:00Z")
        let stored = [
            IntervalRow(id: 9, start: t("2026-11-23T15:00:00Z"), end: nil, projectID: "a", note: "call"),
            IntervalRow(id: 8, start: t("2026-11-23T09:00:00Z"), end: t("2026-11-23T10:00:00Z"), projectID: "gone"),
            IntervalRow(id: 7, start: now, end: nil, projectID: nil),
        ]
        let fromRows = ICalendar.events(rows: stored, projectName: { $0 == "a" ? "Client A" : nil }, now: now)
        #expect(fromRows == [
            ICalendar.Event(uid: ICalendar.uid(id: 8, start: stored[1].start), start: stored[1].start, end: stored[1].end!, summary: "Work", description: nil),
            ICalendar.Event(uid: ICalendar.uid(id: 9, start: stored[0].start), start: stored[0].start, end: now, summary: "Client A", description: "call"),
        ])
        // An empty history is a valid, empty calendar.
        #expect(try Self.read(ICalendar.encode([], stamp: 0)).events.isEmpty)
    }
}
