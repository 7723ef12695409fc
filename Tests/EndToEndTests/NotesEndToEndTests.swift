import BiomaDaemon
import DBusKit
import Foundation
import Testing

import TestSupport

/// Notes, rounding and calendars end to end: the real daemon on a private bus under libfaketime
/// (Friday 2026-11-20, 18:00 UTC), driven by the real CLI and gdbus; the calendar read by
/// python3-icalendar.
@Suite(.ownThread, .timeLimit(.minutes(2)))
struct NotesEndToEndTests {
    static let start = "2026-11-20 18:00:00"

    final class Daemon {
        let f: DaemonFixture
        let process: ChildProcess
        let env: [String: String]
        let config: URL

        /// `config`: the settings file's text (`$XDG_CONFIG_HOME/biomatimer/config`).
        init(config text: String = "") throws {
            f = try DaemonFixture(activation: false)
            config = f.bus.directory.appendingPathComponent("config-home")
            try FileManager.default.createDirectory(
                at: config.appendingPathComponent("biomatimer"), withIntermediateDirectories: true)
            try text.write(to: config.appendingPathComponent("biomatimer/config"), atomically: true, encoding: .utf8)
            var env = f.environment
            env["TZ"] = "UTC"
            env["XDG_CONFIG_HOME"] = config.path
            self.env = env
            process = try f.startDaemon(at: NotesEndToEndTests.start, environment: env)
            guard waitUntil({ (try? f.daemonPID()) != nil }) else { throw TestSupportError("the daemon did not start") }
        }

        deinit { process.terminate() }

        func cli(_ arguments: [String]) throws -> ProcessResult {
            try runProcess(DaemonFixture.binary, arguments, environment: fakeTime(env, at: NotesEndToEndTests.start))
        }

        @discardableResult
        func cliOK(_ arguments: [String]) throws -> ProcessResult {
            try cli(arguments).requireSuccess("biomatimer \(arguments.joined(separator: " "))")
        }

        /// The notes of November's intervals, by start.
        func notes() throws -> [String] {
            (try f.method("ListIntervals", [.string("2026-11-01"), .string("2026-11-30")]).first?.array ?? [])
                .compactMap { $0.vardict?["Note"]?.string }
        }

        /// Every interval and the journal's next answer is what `dumpForTesting` would compare;
        /// over the bus: the intervals with all their fields, and the CSV export.
        func state() throws -> String {
            let rows = try f.method("ListIntervals", [.string("2026-11-01"), .string("2026-11-30")]).first?.array ?? []
            let csv = try f.method("ExportCSV", [.string(""), .string("")]).first?.string ?? ""
            return "\(rows.map { $0.vardict?.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } ?? [] })\n\(csv)"
        }
    }

    @Test func notesThroughAddEditNoteLogAndUndo() throws {
        let d = try Daemon()
        try d.cliOK(["project", "add", "Client A"])
        #expect(try d.cliOK(["add", "09:00-10:00", "--project", "Client A", "--note", "Design review; API, v2"]).stdout == "1\n")
        try d.cliOK(["add", "11:00-12:00"])
        try d.cliOK(["edit", "2", "--note", "Emails \\ 📧"])
        #expect(try d.notes() == ["Design review; API, v2", "Emails \\ 📧"])
        // The running interval.
        let none = try d.cli(["note", "nothing runs"])
        #expect(none.status != 0 && none.stderr.contains("No interval is running"))
        try d.cliOK(["start"])
        try d.cliOK(["note", "Writing the report"])
        #expect(try d.notes() == ["Design review; API, v2", "Emails \\ 📧", "Writing the report"])
        // log shows them, as text and JSON.
        let log = try d.cliOK(["log"]).stdout
        #expect(log.contains("Design review; API, v2") && log.contains("Emails \\ 📧") && log.contains("Writing the report"))
        let json = try JSONSerialization.jsonObject(with: Data(try d.cliOK(["log", "--json"]).stdout.utf8)) as? [[String: Any]]
        #expect(json?.map { $0["note"] as? String } == ["Design review; API, v2", "Emails \\ 📧", "Writing the report"])
        // Bad notes: a clear error, nothing changed.
        let before = try d.state()
        for bad in [String(repeating: "x", count: 501), "two\nlines", "tab\there", "bell\u{7}"] {
            for arguments in [["edit", "1", "--note", bad], ["note", bad], ["add", "13:00-14:00", "--note", bad]] {
                let result = try d.cli(arguments)
                #expect(result.status != 0, "\(arguments)")
                #expect(result.stderr.contains("note"), "\(result.stderr)")
                #expect(try d.state() == before)
            }
        }
        #expect(try d.cli(["note"]).status == 2)
        // Undo takes each note back exactly.
        try d.cliOK(["note", "--clear"])
        #expect(try d.notes() == ["Design review; API, v2", "Emails \\ 📧", ""])
        #expect(try d.cliOK(["undo"]).stdout.contains("note of interval 3"))
        #expect(try d.notes() == ["Design review; API, v2", "Emails \\ 📧", "Writing the report"])
        try d.cliOK(["edit", "1", "--note", ""])
        #expect(try d.notes() == ["", "Emails \\ 📧", "Writing the report"])
        try d.cliOK(["undo"])
        #expect(try d.notes() == ["Design review; API, v2", "Emails \\ 📧", "Writing the report"])
        // The CSV export carries them; report --notes lists them per day and project.
        let csv = try d.cliOK(["export"]).stdout
        #expect(csv.contains("\"Design review; API, v2\"") && csv.contains("Emails \\ 📧"))
        let report = try d.cliOK(["report", "--notes"]).stdout
        #expect(report.contains("Notes\n  2026-11-20\n    Client A\n      - Design review; API, v2\n    no project\n      - Emails \\ 📧\n      - Writing the report\n"))
        let reportJSON = try JSONSerialization.jsonObject(with: Data(try d.cliOK(["report", "--notes", "--json"]).stdout.utf8)) as? [String: Any]
        let entries = reportJSON?["notes"] as? [[String: Any]]
        #expect(entries?.map { $0["notes"] as? [String] ?? [] } == [["Design review; API, v2"], ["Emails \\ 📧", "Writing the report"]])
    }

    @Test func notesOverTheBus() throws {
        let d = try Daemon()
        let start = t("2026-11-20T09:00:00Z")
        try d.f.call("AddInterval", ["xxsa{sv}", "\(start)", "\(start + 3_600_000_000)", "", "1", "Note", "s", "via busctl; ok"])
            .requireSuccess("AddInterval")
        #expect(try d.notes() == ["via busctl; ok"])
        try d.f.call("UpdateInterval", ["sa{sv}", "1", "1", "Note", "s", "changed"]).requireSuccess("UpdateInterval")
        #expect(try d.notes() == ["changed"])
        let before = try d.state()
        for (member, arguments, message) in [
            ("UpdateInterval", ["sa{sv}", "1", "1", "Note", "x", "5"], "Note must be of type s, not x."),
            (
                "UpdateInterval", ["sa{sv}", "1", "1", "Note", "s", String(repeating: "n", count: 501)],
                "The note is 501 characters long: at most 500 are allowed. Nothing was changed."
            ),
            ("SetNote", ["s", "nothing runs"], "No interval is running"),
        ] {
            let result = try d.f.call(member, arguments)
            #expect(result.status != 0 && result.stderr.contains(message), "\(result.stderr)")
            #expect(try d.state() == before)
        }
        try d.f.call("Start").requireSuccess("Start")
        let id = try d.f.call("SetNote", ["s", "running note"]).requireSuccess("SetNote").stdout
        #expect(id == "s \"2\"\n")
        #expect(try d.notes() == ["changed", "running note"])
        #expect(try d.cli(["report", "--chart", "--notes"]).status == 2)
    }

    @Test func importsKeepNotes() throws {
        let d = try Daemon()
        let dir = try makeTemporaryDirectory("notes-import")
        defer { try? FileManager.default.removeItem(at: dir) }
        let timew = dir.appendingPathComponent("timew.json")
        try """
            [{"id":1,"start":"20261119T090000Z","end":"20261119T100000Z","tags":["acme"],"annotation":"Fixed, the build; \\\\ twice"}]
            """.write(to: timew, atomically: true, encoding: .utf8)
        let watson = dir.appendingPathComponent("frames")
        try """
            [[1795086000, 1795089600, "acme", "f1", [], 1795089600, "Call with Bob ☎"]]
            """.write(to: watson, atomically: true, encoding: .utf8)
        try d.cliOK(["import", "--format", "timewarrior", timew.path])
        try d.cliOK(["import", "--format", "watson", watson.path])
        #expect(try d.notes() == ["Fixed, the build; \\ twice", "Call with Bob ☎"])
        // CSV round trip: export, reset, import, export again.
        let csv = dir.appendingPathComponent("all.csv")
        try d.cliOK(["export", "-o", csv.path])
        try d.cliOK(["reset-history", "--yes"])
        #expect(try d.notes() == [])
        try d.cliOK(["import", csv.path])
        #expect(try d.notes() == ["Fixed, the build; \\ twice", "Call with Bob ☎"])
        #expect(try d.cliOK(["export"]).stdout == (try String(contentsOf: csv, encoding: .utf8)))
        // A file written before notes existed still imports.
        let old = dir.appendingPathComponent("old.csv")
        try "project,color,start,end,duration\r\nacme,#3584e4,2026-11-18T09:00:00+00:00,2026-11-18T10:00:00+00:00,1:00:00\r\n"
            .write(to: old, atomically: true, encoding: .utf8)
        try d.cliOK(["import", old.path])
        #expect(try d.notes() == ["", "Fixed, the build; \\ twice", "Call with Bob ☎"])
    }

    @Test func roundingInReportAndExport() throws {
        let d = try Daemon()
        try d.cliOK(["project", "add", "Client A"])
        // 7 and 22 minutes of Client A on Thursday, 31 minutes without a project.
        try d.cliOK(["add", "yesterday 09:00-09:07", "--project", "Client A"])
        try d.cliOK(["add", "yesterday 10:00-10:22", "--project", "Client A"])
        try d.cliOK(["add", "yesterday 11:00-11:31"])
        func rounded(_ options: [String]) throws -> (exact: Int64, rounded: Int64, clientA: Int64) {
            let out = try d.cliOK(["report", "--date", "2026-11-19", "--json"] + options).stdout
            let json = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
            let r = try #require(json["rounding"] as? [String: Any])
            let lines = try #require(r["lines"] as? [[String: Any]])
            let a = lines.filter { $0["project"] as? String == "p1" }.reduce(Int64(0)) { $0 + ((($1["rounded"] as? NSNumber)?.int64Value) ?? 0) }
            return ((r["exact_total"] as? NSNumber)?.int64Value ?? -1, (r["rounded_total"] as? NSNumber)?.int64Value ?? -1, a)
        }
        let m: Int64 = 60_000_000
        // Per interval, up: 15 + 30 (Client A) + 45.
        #expect(try rounded(["--round", "15m"]) == (60 * m, 90 * m, 45 * m))
        // Per interval, nearest: 0 + 15, and 30.
        #expect(try rounded(["--round", "15m", "--rounding", "nearest"]) == (60 * m, 45 * m, 15 * m))
        // Per day, up: 29 → 30, 31 → 45.
        #expect(try rounded(["--round", "15m", "--round-per", "day"]) == (60 * m, 75 * m, 30 * m))
        // Per day, nearest: 29 → 30, 31 → 30.
        #expect(try rounded(["--round", "15m", "--rounding", "nearest", "--round-per", "day"]) == (60 * m, 60 * m, 30 * m))
        // 6 minutes, up, per interval: 12 + 24 + 36.
        #expect(try rounded(["--round", "6m"]) == (60 * m, 72 * m, 36 * m))
        // The text shows both.
        let text = try d.cliOK(["report", "--date", "2026-11-19", "--round", "30m"]).stdout
        #expect(text.contains("Rounded (30m up, per interval)"))
        #expect(text.contains("  total                       1:00:00    2:00:00\n"), "\(text)")
        // Export: a rounded column beside exact start and end.
        let csv = try d.cliOK(["export", "--round", "15m", "--rounding", "nearest"]).stdout
        #expect(csv.hasPrefix("project,color,start,end,duration,rounded,note,tags\r\n"))
        #expect(csv.contains(",2026-11-19T09:00:00+00:00,2026-11-19T09:07:00+00:00,0:07:00,0:00:00,"), "\(csv)")
        #expect(csv.contains(",2026-11-19T10:00:00+00:00,2026-11-19T10:22:00+00:00,0:22:00,0:15:00,"))
        #expect(csv.contains(",2026-11-19T11:00:00+00:00,2026-11-19T11:31:00+00:00,0:31:00,0:30:00,"))
        // The history is unchanged.
        #expect(try d.cliOK(["export"]).stdout.contains(",2026-11-19T09:00:00+00:00,2026-11-19T09:07:00+00:00,0:07:00,"))
        // Bad rounding: a usage error naming the value.
        for (arguments, value) in [
            (["report", "--round", "7m"], "7m"), (["report", "--round", "15m", "--rounding", "sideways"], "sideways"),
            (["report", "--round", "15m", "--round-per", "week"], "week"), (["export", "--round", "1h"], "1h"),
            (["report", "--rounding", "up"], "--round"),
        ] {
            let result = try d.cli(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains(value), "\(result.stderr)")
        }
        // Through the bus, the daemon checks again.
        let bad = try runProcess(
            "/usr/bin/gdbus",
            ["call", "--address", d.f.bus.address, "--dest", ContractNames.busName, "--object-path", ContractNames.objectPath,
             "--method", "\(ContractNames.interface).ExportCSVRounded", "", "", "{'Round': <'7m'>}"])
        #expect(bad.status != 0 && bad.stderr.contains("InvalidArgument") && bad.stderr.contains("7m"))
    }

    /// Reads an .ics file with python3-icalendar: one JSON line per event.
    func readCalendar(_ path: String) throws -> [[String: String]] {
        let script = """
            import icalendar, json, sys, datetime
            cal = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
            for e in cal.walk('VEVENT'):
                s, t = e.decoded('DTSTART'), e.decoded('DTEND')
                assert s.tzinfo is not None and s.utcoffset() == datetime.timedelta(0), s
                assert t.utcoffset() == datetime.timedelta(0), t
                print(json.dumps({'uid': str(e['UID']), 'start': s.isoformat(), 'end': t.isoformat(),
                    'summary': str(e['SUMMARY']), 'description': str(e.get('DESCRIPTION', ''))}))
            """
        let result = try runProcess("/usr/bin/python3", ["-c", script, path]).requireSuccess("python3 icalendar")
        return try result.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String])
        }
    }

    @Test func calendarExportReadByIcalendar() throws {
        let d = try Daemon()
        try d.cliOK(["project", "add", "Client, A; \\ B"])
        let long = String(repeating: "Émile wrote the long note ✍️ ", count: 16).trimmingCharacters(in: .whitespaces)
        try d.cliOK(["add", "yesterday 09:00-10:30", "--project", "Client, A; \\ B", "--note", long])
        try d.cliOK(["add", "11:00-12:00", "--note", "a,b;c\\d \"quoted\""])
        let dir = try makeTemporaryDirectory("notes-ics")
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = dir.appendingPathComponent("one.ics").path
        let second = dir.appendingPathComponent("two.ics").path
        try d.cliOK(["export", "--format", "ics", "-o", first])
        let raw = try String(contentsOfFile: first, encoding: .utf8)
        // Folded: no line longer than 75 octets, CRLF ends.
        #expect(raw.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 75 })
        #expect(raw.contains("\r\n "))
        let events = try readCalendar(first)
        #expect(events.count == 2)
        #expect(events.map { $0["start"] } == ["2026-11-19T09:00:00+00:00", "2026-11-20T11:00:00+00:00"])
        #expect(events.map { $0["end"] } == ["2026-11-19T10:30:00+00:00", "2026-11-20T12:00:00+00:00"])
        #expect(events.map { $0["summary"] } == ["Client, A; \\ B", "Work"])
        #expect(events.map { $0["description"] } == [long, "a,b;c\\d \"quoted\""])
        #expect(Set(events.compactMap { $0["uid"] }).count == 2)
        // Stable UIDs: a later export, after an edit, has the same ones.
        try d.cliOK(["edit", "2", "--note", "changed"])
        try d.cliOK(["export", "--format", "ics", "-o", second, "--from", "2026-11-01", "--to", "2026-11-30"])
        let again = try readCalendar(second)
        #expect(again.map { $0["uid"] } == events.map { $0["uid"] })
        #expect(again.last?["description"] == "changed")
        // A range: only the days asked for; standard output with -; the bus method says the same.
        let today = try d.cliOK(["export", "--format", "ics", "--from", "2026-11-20", "--to", "2026-11-20", "-o", "-"]).stdout
        #expect(today.components(separatedBy: "BEGIN:VEVENT").count == 2)
        let viaBus = try d.f.method("ExportICS", [.string("2026-11-20"), .string("2026-11-20")]).first?.string ?? ""
        #expect(viaBus.components(separatedBy: "\r\n").filter { !$0.hasPrefix("DTSTAMP") } == today.components(separatedBy: "\r\n").filter { !$0.hasPrefix("DTSTAMP") })
        #expect(try d.cli(["export", "--format", "ics", "--round", "15m"]).status == 2)
    }

    @Test func exportICSFileKeptFresh() throws {
        let dir = try makeTemporaryDirectory("notes-ics-file")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("work.ics").path
        let d = try Daemon(config: "export_ics = \(path)\n")
        // Written at start-up (no event yet).
        #expect(waitUntil(timeout: 20) { (try? String(contentsOfFile: path, encoding: .utf8))?.contains("END:VCALENDAR") == true })
        #expect(try readCalendar(path).isEmpty)
        try d.cliOK(["add", "yesterday 09:00-10:00", "--note", "fresh note"])
        // Rewritten after the change (a few seconds later): poll its content, bounded.
        #expect(waitUntil(timeout: 20) { (try? readCalendar(path))?.first?["description"] == "fresh note" })
        try d.cliOK(["edit", "1", "--note", "second note"])
        #expect(waitUntil(timeout: 20) { (try? readCalendar(path))?.first?["description"] == "second note" })
        // Only the calendar file itself in the folder: no temporary files left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["work.ics"])
    }

    /// A file that cannot be written is logged once, not at every attempt, and once it can be
    /// written again it is. The path is a directory at first: each attempt creates its
    /// temporary file beside it and removes it when the rename fails, which inotify sees.
    @Test func aFailingCalendarFileIsLoggedOnce() throws {
        let dir = try makeTemporaryDirectory("notes-ics-blocked")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("work.ics").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let watch = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        #expect(watch >= 0)
        defer { close(watch) }
        #expect(inotify_add_watch(watch, dir.path, UInt32(IN_DELETE)) >= 0)
        /// Waits (bounded) for a temporary file of an attempt to be removed.
        func attemptFailed() -> Bool {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let end = Date().addingTimeInterval(20)
            while Date() < end {
                var fds = [pollfd(fd: watch, events: Int16(POLLIN), revents: 0)]
                guard poll(&fds, 1, 1000) > 0 else { continue }
                let n = read(watch, &buffer, buffer.count)
                if n > 0 { return true }
            }
            return false
        }
        let d = try Daemon(config: "export_ics = \(path)\n")
        let stderr = Drain(d.process.stderr)
        #expect(attemptFailed())  // at start-up
        try d.cliOK(["add", "yesterday 09:00-10:00", "--note", "blocked"])
        #expect(attemptFailed())  // after the change
        try d.cliOK(["edit", "1", "--note", "still blocked"])
        #expect(attemptFailed())
        try FileManager.default.removeItem(atPath: path)
        try d.cliOK(["edit", "1", "--note", "unblocked"])
        #expect(waitUntil(timeout: 20) { (try? readCalendar(path))?.first?["description"] == "unblocked" })
        #expect(waitUntil(timeout: 20) { stderr.text.contains("is written again") })
        #expect(stderr.text.components(separatedBy: "export_ics: cannot keep").count == 2, "\(stderr.text)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["work.ics"])
    }

    @Test func unwritableCalendarFolderLeavesTimingAlone() throws {
        let dir = try makeTemporaryDirectory("notes-ics-missing")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("no/such/folder/work.ics").path
        let d = try Daemon(config: "export_ics = \(path)\n")
        try d.cliOK(["start"])
        try d.cliOK(["add", "yesterday 09:00-10:00", "--note", "still recorded"])
        #expect(try d.notes() == ["still recorded", ""])
        #expect(try d.f.properties()["Running"] == .boolean(true))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func exportICSSetting() throws {
        let settings = Settings.parse("export_ics = ~/cal/work.ics  # kept fresh", source: "config", environment: ["HOME": "/home/u"])
        #expect(settings.exportICS == "/home/u/cal/work.ics")
        #expect(Settings.parse("export_ics = /srv/w.ics", source: "config").exportICS == "/srv/w.ics")
        for bad in ["export_ics = work.ics", "export_ics = /srv/"] {
            let s = Settings.parse(bad, source: "config")
            #expect(s.exportICS == nil && s.problems.count == 1, "\(bad): \(s.problems)")
        }
    }
}
