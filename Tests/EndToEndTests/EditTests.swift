import BiomaDaemon
import DBusKit
import Foundation
import Testing

import TestSupport

/// Editing the past end to end: the real daemon on a private bus under libfaketime (its clock
/// starts on Friday 2026-11-20, 18:00 UTC), driven by busctl, gdbus and the real CLI. One
/// `PropertiesChanged` per edit that changes today, none for other days; bad input gets its
/// error by name and changes nothing; times are parsed by the CLI, a bad one or one the clocks
/// skip a usage error.
@Suite(.ownThread, .timeLimit(.minutes(2)))
struct EditTests {
    static let start = "2026-11-20 18:00:00"
    static func at(_ text: String) -> Int64 { t("2026-11-20T\(text):00Z") }

    final class Daemon {
        let f: DaemonFixture
        let process: ChildProcess
        var env: [String: String]

        init() throws {
            f = try DaemonFixture(activation: false)
            env = f.environment
            env["TZ"] = "UTC"
            process = try f.startDaemon(at: EditTests.start, environment: env)
            guard waitUntil({ (try? f.daemonPID()) != nil }) else { throw TestSupportError("the daemon did not start") }
        }

        deinit { process.terminate() }

        /// The real CLI, on the daemon's day (under libfaketime too: `today` and `yesterday`
        /// are the daemon's), in zone `tz`.
        func cli(_ arguments: [String], tz: String = "UTC") throws -> ProcessResult {
            var env = env
            env["TZ"] = tz
            return try runProcess(DaemonFixture.binary, arguments, environment: fakeTime(env, at: EditTests.start))
        }

        /// `cli` as a setup step: anything but exit 0 throws, with its stderr.
        @discardableResult
        func cliOK(_ arguments: [String], tz: String = "UTC") throws -> ProcessResult {
            try cli(arguments, tz: tz).requireSuccess("biomatimer \(arguments.joined(separator: " "))")
        }

        /// gdbus calling a Timer1 method; its error names are on stderr.
        func gdbus(_ member: String, _ arguments: [String]) throws -> ProcessResult {
            try runProcess(
                "/usr/bin/gdbus",
                ["call", "--address", f.bus.address, "--dest", ContractNames.busName, "--object-path", ContractNames.objectPath,
                 "--method", "\(ContractNames.interface).\(member)"] + arguments)
        }

        /// The intervals of November with their ids.
        func intervals() throws -> [[String: DBusValue]] {
            (try f.method("ListIntervals", [.string("2026-11-01"), .string("2026-11-30")]).first?.array ?? []).compactMap(\.vardict)
        }

        /// Every interval, the journal's next answer aside, and the published state but the clock.
        func state() throws -> String {
            var p = try f.properties()
            for key in ["UpdatedAt", "SessionTime", "DailyTotal", "ProjectSessionTime", "ProjectDailyTotal"] { p[key] = nil }
            let rows = try intervals().map { $0.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } }
            return "\(p.sorted { $0.key < $1.key })\n\(rows)"
        }
    }

    func row(_ id: String, _ from: String, _ to: String?, _ project: String = "") -> [String: DBusValue] {
        [
            "Id": .string(id), "Start": .int64(Self.at(from)), "End": .int64(to.map(Self.at) ?? 0), "Project": .string(project),
            "Note": .string(""), "Tags": .array(.string, []),
        ]
    }

    @Test func editsThroughBusctlWithOneSignalEachThatChangesToday() throws {
        let d = try Daemon()
        let f = d.f
        _ = try f.method("AddProject", [.string("Client A"), .string("")])
        let listener = try Bus(.address(f.bus.address))
        defer { listener.close() }
        let seen = SignalLog()
        try listener.subscribe(
            MatchRule(
                path: ContractNames.objectPath, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                arg0: ContractNames.interface)
        ) { seen.add($0.arguments[1].vardict ?? [:]) }
        var signals = 0
        func expectSignal(dailyTotal: Int64, _ comment: Comment) {
            signals += 1
            #expect(seen.wait(count: signals), comment)
            #expect(seen.all.last?["DailyTotal"] == .int64(dailyTotal), comment)
        }

        var r = try f.call("AddInterval", ["xxsa{sv}", "\(Self.at("09:00"))", "\(Self.at("12:30"))", "client a", "0"])
        #expect(r.status == 0 && r.stdout == "s \"1\"\n", "\(r.stderr)")
        expectSignal(dailyTotal: 3 * hour + 30 * minute, "add")
        // Yesterday: today's values do not change, so no signal (checked by the next count).
        r = try f.call("AddInterval", ["xxsa{sv}", "\(Self.at("09:00") - 24 * hour)", "\(Self.at("10:00") - 24 * hour)", "", "0"])
        #expect(r.status == 0 && r.stdout == "s \"2\"\n", "\(r.stderr)")
        r = try f.call("UpdateInterval", ["sa{sv}", "1", "1", "End", "x", "\(Self.at("12:00"))"])
        #expect(r.status == 0, "\(r.stderr)")
        expectSignal(dailyTotal: 3 * hour, "update")
        r = try f.call("SplitInterval", ["sx", "1", "\(Self.at("10:00"))"])
        #expect(r.status == 0 && r.stdout == "s \"3\"\n", "\(r.stderr)")
        r = try f.call("AddInterval", ["xxsa{sv}", "\(Self.at("11:00"))", "\(Self.at("13:00"))", "", "1", "Replace", "b", "true"])
        #expect(r.status == 0 && r.stdout == "s \"4\"\n", "\(r.stderr)")
        expectSignal(dailyTotal: 4 * hour, "add with replace")
        #expect(
            try d.intervals()
                == [row("2", "09:00", "10:00").merging(["Start": .int64(Self.at("09:00") - 24 * hour), "End": .int64(Self.at("10:00") - 24 * hour)]) { $1 },
                    row("1", "09:00", "10:00", "p1"), row("3", "10:00", "11:00", "p1"), row("4", "11:00", "13:00")])
        r = try f.call("DeleteInterval", ["s", "3"])
        #expect(r.status == 0, "\(r.stderr)")
        expectSignal(dailyTotal: 3 * hour, "delete")
        // The running interval: its start moves back (one signal: the session and totals).
        _ = try f.method("Start")
        expectSignal(dailyTotal: 3 * hour, "start")
        let running = try #require(try d.intervals().last?["Id"]?.string)
        r = try f.call("UpdateInterval", ["sa{sv}", running, "1", "Start", "x", "\(Self.at("17:00"))"])
        #expect(r.status == 0, "\(r.stderr)")
        signals += 1
        #expect(seen.wait(count: signals))
        let moved = try #require(seen.all.last)
        #expect((moved["SessionTime"]?.int64 ?? 0) >= hour && (moved["DailyTotal"]?.int64 ?? 0) >= 4 * hour, "\(moved)")
        _ = try f.method("Stop")
        signals += 1
        #expect(seen.wait(count: signals))
        // Undo, one edit at a time, each with its signal and its words.
        let undone = try (0..<3).map { _ in try f.method("Undo").first?.string ?? "" }
        #expect(undone.first?.hasPrefix("Undid: edit of interval 5 (was 18:00") == true, "\(undone)")
        #expect(undone.dropFirst().first == "Undid: delete of interval 3 (10:00–11:00 (Client A) on 2026-11-20)", "\(undone)")
        #expect(undone.last == "Undid: add 11:00–13:00 on 2026-11-20", "\(undone)")
        signals += 3
        #expect(seen.wait(count: signals))
        #expect(seen.all.last?["DailyTotal"]?.int64.map { $0 >= 3 * hour && $0 < 3 * hour + 10 * minute } == true, "\(seen.all.last ?? [:])")
        #expect(seen.all.count == signals, "\(seen.all)")
    }

    @Test func badInputByNameChangesNothing() throws {
        let d = try Daemon()
        let f = d.f
        _ = try f.method("AddProject", [.string("Client A"), .string("")])
        #expect(try d.gdbus("Undo", []).stderr.contains("GDBus.Error:\(ContractNames.errorPrefix)NothingToUndo: "))
        _ = try f.method("AddInterval", [.int64(Self.at("09:00")), .int64(Self.at("10:00")), .string(""), .vardict([:])])
        _ = try f.method("Start")
        let before = try d.state()
        let nine = "\(Self.at("09:00"))"
        let ten = "\(Self.at("10:00"))"
        let cases: [(String, [String], String)] = [
            ("AddInterval", ["\(Self.at("09:30"))", "\(Self.at("10:30"))", "''", "{}"], "Overlap"),
            ("AddInterval", [ten, nine, "''", "{}"], "InvalidArgument"),
            ("AddInterval", [ten, ten, "''", "{}"], "InvalidArgument"),
            ("AddInterval", [ten, "\(Self.at("23:00"))", "''", "{'Replace': <true>}"], "InvalidArgument"),
            ("AddInterval", ["\(Self.at("07:00"))", "\(Self.at("08:00"))", "'Nope'", "{}"], "NoSuchProject"),
            ("AddInterval", ["\(Self.at("07:00"))", "\(Self.at("08:00"))", "''", "{'Overwrite': <true>}"], "InvalidArgument"),
            ("AddInterval", ["\(Self.at("07:00"))", "\(Self.at("08:00"))", "''", "{'Replace': <'yes'>}"], "InvalidArgument"),
            ("UpdateInterval", ["'99'", "{'Start': <int64 \(nine)>}"], "NoSuchInterval"),
            ("UpdateInterval", ["'one'", "{'Start': <int64 \(nine)>}"], "NoSuchInterval"),
            ("UpdateInterval", ["'1'", "{}"], "InvalidArgument"),
            ("UpdateInterval", ["'1'", "{'Start': <'09:00'>}"], "InvalidArgument"),
            ("UpdateInterval", ["'1'", "{'Project': <'Nope'>}"], "NoSuchProject"),
            ("UpdateInterval", ["'1'", "{'End': <int64 \(Self.at("18:30"))>}"], "InvalidArgument"),
            ("UpdateInterval", ["'2'", "{'End': <int64 \(Self.at("18:30"))>}"], "InvalidArgument"),
            ("UpdateInterval", ["'2'", "{'Start': <int64 \(Self.at("09:30"))>}"], "Overlap"),
            ("DeleteInterval", ["'2'"], "InvalidArgument"),
            ("DeleteInterval", ["'7'"], "NoSuchInterval"),
            ("SplitInterval", ["'1'", nine], "InvalidArgument"),
            ("SplitInterval", ["'8'", nine], "NoSuchInterval"),
            ("ListIntervals", ["'2026-11-30'", "'2026-11-01'"], "InvalidArgument"),
            ("ListIntervals", ["'yesterday'", "''"], "InvalidArgument"),
        ]
        for (member, arguments, error) in cases {
            let r = try d.gdbus(member, arguments)
            #expect(r.stderr.contains("GDBus.Error:\(ContractNames.errorPrefix)\(error): "), "\(member) \(arguments): \(r.stderr)")
        }
        let overlap = try d.gdbus("AddInterval", ["\(Self.at("09:30"))", "\(Self.at("17:00"))", "''", "{}"])
        #expect(
            overlap.stderr.contains(
                ": 09:30–17:00 on 2026-11-20 overlaps interval 1 (09:00–10:00 on 2026-11-20). Nothing was changed;"
            ), "\(overlap.stderr)")
        let after = try d.state()
        #expect(after == before, "\(before)\n---\n\(after)")
        // The one Undo left takes back the add, not any refused call.
        #expect(try f.method("Undo").first?.string == "Undid: add 09:00–10:00 on 2026-11-20")
    }

    @Test func theCommandLine() throws {
        let d = try Daemon()
        #expect(try d.cli(["project", "add", "Client A"]).status == 0)
        var r = try d.cli(["add", "09:00-12:30", "--date", "2026-11-20", "--project", "client a"])
        #expect(r.status == 0 && r.stdout == "1\n", "\(r.stderr)")
        r = try d.cli(["add", "2026-11-20T12:00-13:00"])
        #expect(r.status == 1, "\(r.stdout)")
        #expect(r.stderr.hasPrefix("biomatimer: 12:00–13:00 on 2026-11-20 overlaps interval 1 (09:00–12:30 (Client A) on 2026-11-20)."), "\(r.stderr)")
        r = try d.cli(["add", "2026-11-20T12:00-13:00", "--replace"])
        #expect(r.status == 0 && r.stdout == "2\n", "\(r.stderr)")
        r = try d.cli(["split", "1", "10:00", "--date", "2026-11-20"])
        #expect(r.status == 0 && r.stdout == "3\n", "\(r.stderr)")
        r = try d.cli(["edit", "3", "--start", "2026-11-20T10:30", "--no-project"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try d.cli(["log", "--date", "2026-11-20"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stdout == """
                ID      PROJECT              START            END              DURATION
                1       Client A             09:00            10:00            1:00:00
                3       -                    10:30            12:00            1:30:00
                2       -                    12:00            13:00            1:00:00
                        total                                                  3:30:00

                """, "\(r.stdout)")
        r = try d.cli(["log", "--week", "--date", "2026-11-20", "--json"])
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]
        #expect(json?.map { $0["id"] as? String } == ["1", "3", "2"], "\(r.stdout)")
        #expect(json?.first?["project_name"] as? String == "Client A" && json?.first?["duration"] as? Int == 3_600_000_000)
        r = try d.cli(["delete", "2"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try d.cli(["undo"])
        #expect(r.status == 0 && r.stdout == "Undid: delete of interval 2 (12:00–13:00 on 2026-11-20)\n", "\(r.stdout) \(r.stderr)")
        // Usage errors (exit 2) before any call: a bad time, a range backwards, a bad id, a
        // time the clocks skip (02:30 on the spring-forward day in Berlin).
        let before = try d.state()
        let usage: [([String], String, String)] = [
            (["add", "9-5"], "UTC", "biomatimer: '9-5' is not a time range: use START-END"),
            (["add", "12:00-11:00", "--date", "2026-11-20T"], "UTC", "biomatimer: --date '2026-11-20T' is not a day: use today, yesterday, tomorrow, a weekday (monday or mon) or YYYY-MM-DD."),
            (["edit", "1", "--start", "noon"], "UTC", "biomatimer: --start 'noon' is not a time"),
            (["edit", "x1", "--start", "09:00"], "UTC", "biomatimer: 'x1' is not an interval id"),
            (["edit", "1"], "UTC", "biomatimer: Nothing to change"),
            (["split", "1", "25:00"], "UTC", "biomatimer: AT '25:00' is not a time"),
            (["add", "02:30-03:30", "--date", "2026-03-29"], "Europe/Berlin", "biomatimer: '2026-03-29 02:30' does not exist in this time zone"),
            (["edit", "1", "--end", "2026-03-29T02:15"], "Europe/Berlin", "biomatimer: --end '2026-03-29T02:15' does not exist in this time zone"),
        ]
        for (arguments, tz, message) in usage {
            let r = try d.cli(arguments, tz: tz)
            #expect(r.status == 2 && r.stderr.hasPrefix(message), "\(arguments): \(r.status) \(r.stderr)")
        }
        // The same range in Berlin on an ordinary day is fine (and the daemon refuses its future).
        r = try d.cli(["add", "02:30-03:30", "--date", "2026-03-30"], tz: "Europe/Berlin")
        #expect(r.status == 0, "\(r.stderr)")
        try d.cliOK(["undo"])
        #expect(try d.state() == before)
        // The daemon's refusals: its message, exit 1.
        r = try d.cli(["delete", "99"])
        #expect(r.status == 1 && r.stderr == "biomatimer: No interval with id '99' (`biomatimer log` shows them).\n", "\(r.stderr)")
        for _ in 0..<4 { try d.cliOK(["undo"]) }
        r = try d.cli(["undo"])
        #expect(r.status == 1 && r.stderr == "biomatimer: Nothing to undo: no edit of recorded time is left in the journal.\n", "\(r.stderr)")
        r = try d.cli(["log", "--date", "2026-11-20"])
        #expect(r.stdout.hasPrefix("No recorded time."), "\(r.stdout)")
    }
}
