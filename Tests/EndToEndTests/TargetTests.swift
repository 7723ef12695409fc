import BiomaDaemon
import DBusKit
import Foundation
import Testing

import TestSupport

/// Daily targets end to end: the real daemon on a private bus. Its clock is libfaketime's:
/// fixed days for exact values (Friday 2026-11-20, 18:00 UTC), or the real clock plus a
/// movable offset for the notice, with python3-dbusmock's notification server beside it.
@Suite(.ownThread, .timeLimit(.minutes(2)))
struct TargetEndToEndTests {
    static let start = "2026-11-20 18:00:00"
    static func at(_ text: String) -> Int64 { t("2026-11-20T\(text):00Z") }

    final class Daemon {
        let f: DaemonFixture
        var process: ChildProcess
        var env: [String: String]

        init(config: String? = nil) throws {
            f = try DaemonFixture(activation: false)
            env = f.environment
            env["TZ"] = "UTC"
            if let config {
                let directory = f.bus.directory.appendingPathComponent("config/biomatimer")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try config.write(to: directory.appendingPathComponent("config"), atomically: true, encoding: .utf8)
                env["XDG_CONFIG_HOME"] = f.bus.directory.appendingPathComponent("config").path
            }
            process = try f.startDaemon(at: TargetEndToEndTests.start, environment: env)
            guard waitUntil({ (try? f.daemonPID()) != nil }) else { throw TestSupportError("the daemon did not start") }
        }

        deinit { process.terminate() }

        func restart() throws {
            process.terminate()
            guard waitUntil({ (try? f.daemonPID()) == nil }) else { throw TestSupportError("the daemon did not stop") }
            process = try f.startDaemon(at: TargetEndToEndTests.start, environment: env)
            guard waitUntil({ (try? f.daemonPID()) == process.pid }) else { throw TestSupportError("the daemon did not restart") }
        }

        func cli(_ arguments: [String]) throws -> ProcessResult {
            try runProcess(DaemonFixture.binary, arguments, environment: fakeTime(env, at: TargetEndToEndTests.start))
        }

        func gdbus(_ member: String, _ arguments: [String]) throws -> ProcessResult {
            try runProcess(
                "/usr/bin/gdbus",
                ["call", "--address", f.bus.address, "--dest", ContractNames.busName, "--object-path", ContractNames.objectPath,
                 "--method", "\(ContractNames.interface).\(member)"] + arguments)
        }

        /// The targets as the daemon lists them, and the published target values.
        func targets() throws -> String {
            let listed = try f.method("ListTargets").first ?? .string("")
            let p = try f.properties()
            return "\(listed) \(p["DailyTarget"] ?? .int64(-1)) \(p["TargetProgress"] ?? .double(-1)) \(p["Balance"] ?? .int64(-1))"
        }
    }

    /// Thursday 8 h of work, Friday 3 h; targets 8 h a day, 4 h on Fridays (SetTargets over
    /// busctl): today 3 of 4 h, and the balance since Thursday (the first recorded day) −1 h.
    @Test func propertiesFromSetTargetsAndTheHistory() throws {
        let d = try Daemon()
        let f = d.f
        _ = try f.method("AddInterval", [.int64(Self.at("09:00") - 24 * hour), .int64(Self.at("17:00") - 24 * hour), .string(""), .vardict([:])])
        _ = try f.method("AddInterval", [.int64(Self.at("09:00")), .int64(Self.at("12:00")), .string(""), .vardict([:])])
        var p = try f.properties()
        #expect(p["DailyTarget"] == .int64(0) && p["TargetProgress"] == .double(0) && p["Balance"] == .int64(0))
        let r = try f.call("SetTargets", ["a{sv}", "2", "Daily", "x", "\(8 * hour)", "Fri", "x", "\(4 * hour)"])
        #expect(r.status == 0, "\(r.stderr)")
        p = try f.properties()
        #expect(p["DailyTarget"] == .int64(4 * hour))
        #expect(p["TargetProgress"] == .double(0.75))
        #expect(p["Balance"] == .int64(-hour))
        // busctl reads the same values, with their D-Bus types.
        let busctl = try f.busctl([
            "get-property", ContractNames.busName, ContractNames.objectPath, ContractNames.interface, "DailyTarget", "TargetProgress", "Balance",
        ])
        #expect(busctl.stdout == "x \(4 * hour)\nd 0.75\nx \(-hour)\n", "\(busctl.stderr)")
        // A restart keeps what SetTargets stored.
        try d.restart()
        #expect(try d.f.properties()["DailyTarget"] == .int64(4 * hour))
        // status --json carries them.
        let status = try d.cli(["status", "--json"])
        #expect(status.stdout.contains(#""daily_target":14400000000,"target_progress":0.75,"balance":-3600000000,"target":"4:00","target_percent":75,"balance_text":"-1:00""#), "\(status.stdout)")
    }

    /// Bad entries are refused by name, and nothing changes (the stored targets, the published
    /// values).
    @Test func badSetTargetsChangesNothing() throws {
        let d = try Daemon()
        _ = try d.f.method("SetTargets", [.vardict(["Daily": .int64(8 * hour)])])
        let before = try d.targets()
        for (arguments, words) in [
            (["{'Mon': <int64 -1>}"], "Mon is negative"),
            (["{'Daily': <int64 3600000000>, 'Someday': <int64 1>}"], "Someday"),
            (["{'Tue': <'8h'>}"], "Tue must be of type x"),
            (["{'Wed': <int32 5>}"], "Wed must be of type x"),
            (["{'Thu': <int64 90000000000>}"], "Thu is longer than 24 hours"),
            (["@a{sv} {}"], "No targets given"),
        ] {
            let r = try d.gdbus("SetTargets", arguments)
            #expect(r.status != 0 && r.stderr.contains("org.biomatimer.Timer1.Error.InvalidArgument"), "\(arguments): \(r.stderr)")
            #expect(r.stderr.contains(words), "\(arguments): \(r.stderr)")
        }
        #expect(try d.targets() == before)
    }

    /// `target set` and `target show` through the CLI; the config file's values where the
    /// store has none, the store's beating them. `balance_since` counts the config's target
    /// from that day, though the daemon first read it today.
    @Test func targetSetAndShow() throws {
        let d = try Daemon(config: "target = 7h\nbalance_since = 2026-11-16\n")
        var show = try d.cli(["target", "show"])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.hasPrefix("Mon  7:00   config\nTue  7:00   config\n"), "\(show.stdout)")
        #expect(show.stdout.contains("Sat  —      none\n"))
        #expect(show.stdout.contains("Today 2026-11-20: 0:00 of 7:00\n"))
        // Monday to Friday owed, nothing worked.
        #expect(show.stdout.contains("Balance since Monday 16 November 2026 (balance_since in the config file): -35:00\n"), "\(show.stdout)")
        let set = try d.cli(["target", "set", "--fri", "6h", "--sat", "1:30"])
        #expect(set.status == 0 && set.stdout.isEmpty, "\(set.stderr)")
        show = try d.cli(["target", "show", "--json"])
        #expect(show.stdout.contains(#"{"day":"Fri","target":21600000000,"source":"store","since":null},{"day":"Sat","target":5400000000,"source":"store","since":null},{"day":"Sun","target":0,"source":"none","since":null}"#), "\(show.stdout)")
        #expect(show.stdout.contains(#""daily_target":21600000000"#))
        // With balance_since a weekday's first value counts from it: Monday to Thursday 7 h, today 6 h.
        #expect(show.stdout.contains(#""balance":-122400000000"#), "\(show.stdout)")
        #expect(try d.f.properties()["DailyTarget"] == .int64(6 * hour))
        // A bad length is a usage error before any call, naming the option.
        let bad = try d.cli(["target", "set", "--mon", "-1h"])
        #expect(bad.status == 2 && bad.stderr.contains("--mon `-1h` is negative"), "\(bad.stderr)")
        #expect(try d.cli(["target", "set"]).status == 2)
        #expect(try d.f.properties()["DailyTarget"] == .int64(6 * hour))
    }

    /// A first-hour user: one interval in March, then `target set 8h` today (a Friday).
    /// The balance owes today's 8 hours only, not every day since March (−1983 h when the
    /// target counted from the first recorded day); `target show` says from when, in words;
    /// the weekend has no target; a restart keeps it all.
    @Test func aTargetSetTodayCountsFromToday() throws {
        let d = try Daemon()
        _ = try d.f.method("AddInterval", [.int64(t("2026-03-10T09:00:00Z")), .int64(t("2026-03-10T10:00:00Z")), .string(""), .vardict([:])])
        _ = try d.f.method("AddInterval", [.int64(Self.at("09:00")), .int64(Self.at("12:00")), .string(""), .vardict([:])])
        let set = try d.cli(["target", "set", "8h"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try d.f.properties()["Balance"] == .int64(3 * hour - 8 * hour))
        let status = try d.cli(["status"])
        #expect(status.stdout.contains("Target: 3:00 of 8:00 (37 %), balance -5:00\n"), "\(status.stdout)")
        let show = try d.cli(["target", "show"]).stdout
        #expect(show.contains("Mon  8:00   store, from Friday 20 November 2026\n"), "\(show)")
        #expect(show.contains("Sat  —      store\nSun  —      store\n"), "\(show)")
        #expect(show.contains("Balance since Friday 20 November 2026 (the day the first target was set): -5:00\n"), "\(show)")
        // Saturday and Sunday owe nothing: a report of the week to come owes Monday to Friday.
        let week = try d.cli(["report", "--week", "--date", "2026-11-23", "--json"]).stdout
        #expect(week.contains(#""balance":-18000000000"#), "\(week)")
        try d.restart()
        #expect(try d.f.properties()["Balance"] == .int64(-5 * hour))
    }

    /// The bars' fields from the daemon: island, waybar and a template.
    @Test func barsShowTheTarget() throws {
        let d = try Daemon()
        _ = try d.f.method("AddInterval", [.int64(Self.at("09:00")), .int64(Self.at("15:12")), .string(""), .vardict([:])])
        _ = try d.f.method("SetTargets", [.vardict(["Daily": .int64(8 * hour)])])
        #expect(try d.cli(["status", "--format", "island"]).stdout == "○ 0:00:00 (6:12/8:00)\n")
        #expect(try d.cli(["status"]).stdout == "0:00:00 (6:12:00)\nTarget: 6:12 of 8:00 (77 %), balance -1:48\n")
        let waybar = try d.cli(["status", "--format", "waybar"]).stdout
        #expect(waybar.hasSuffix(#""class":["idle"],"percentage":77}"# + "\n"), "\(waybar)")
        #expect(try d.cli(["status", "--format", "{target} {target_progress} {balance}"]).stdout == "8:00 77 -1:48\n")
        _ = try d.f.method("SetTargets", [.vardict(["Fri": .int64(6 * hour)])])
        let reached = try d.cli(["status", "--format", "waybar"]).stdout
        #expect(reached.hasSuffix(#""class":["idle","target-reached"],"percentage":103}"# + "\n"), "\(reached)")
    }

    /// `report` with a target: per day target, work and difference, and the balance, from the
    /// day the target was set (today): Thursday's 9 hours, worked before it, count for neither.
    @Test func reportShowsTargets() throws {
        let d = try Daemon()
        _ = try d.f.method("AddInterval", [.int64(Self.at("09:00") - 24 * hour), .int64(Self.at("18:00") - 24 * hour), .string(""), .vardict([:])])
        _ = try d.f.method("AddInterval", [.int64(Self.at("09:00")), .int64(Self.at("12:00")), .string(""), .vardict([:])])
        _ = try d.f.method("SetTargets", [.vardict(["Daily": .int64(8 * hour)])])
        let json = try d.cli(["report", "--json", "--week"])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stdout.contains(#""balance":-18000000000"#), "\(json.stdout)")
        #expect(json.stdout.contains(#""targets":{"days":[{"day":"2026-11-20","target":28800000000,"work":10800000000,"difference":-18000000000}]"#), "\(json.stdout)")
        let text = try d.cli(["report", "--week"]).stdout
        let table = try #require(text.range(of: "Targets").map { text[$0.lowerBound...] })
        #expect(!table.contains("  2026-11-19     "), "\(text)")
        #expect(text.contains("  2026-11-20     8:00     3:00       -5:00\n"), "\(text)")
        #expect(text.contains("Balance at the end  -5:00\n"), "\(text)")
        // A range is laid out as a week is: the same week by --from/--to is the same text.
        let range = try d.cli(["report", "--from", "2026-11-16", "--to", "2026-11-22"])
        #expect(range.status == 0 && range.stdout == text, "\(range.stdout)\n\(range.stderr)")
        #expect(try d.cli(["report", "--json", "--from", "monday", "--to", "2026-11-22"]).stdout == json.stdout)
        // Next week: nothing counted yet, the balance is today's.
        let next = try d.cli(["report", "--json", "--week", "--date", "2026-11-25"]).stdout
        #expect(next.contains(#""balance":-18000000000"#), "\(next)")
        // No target: no target rows.
        _ = try d.f.method("SetTargets", [.vardict(["Daily": .int64(0)])])
        #expect(try !d.cli(["report", "--week"]).stdout.contains("Targets"))
    }
}

/// The one notice the moment the day's target is reached: the real daemon under libfaketime
/// (a movable clock that starts at noon today), python3-dbusmock's notification server beside it.
@Suite(.ownThread, .timeLimit(.minutes(2)))
struct TargetNoticeTests {
    func notices(_ server: NotificationServer) throws -> [NotificationServer.Notification] {
        try server.notifications().filter { $0.summary == "Daily target reached" }
    }

    /// Moving the clock past the instant: the next publication announces it, once; neither a
    /// later change nor a restart on the same day repeats it.
    @Test func onceWhenTheClockPassesTheInstantAndNotAfterARestart() async throws {
        let f = try DaemonFixture(movableClock: true)
        let server = try NotificationServer(busAddress: f.bus.address)
        _ = try f.method("SetTargets", [.vardict(["Daily": .int64(minute)])])
        #expect(try f.cli(["start"], environment: f.clockEnvironment).status == 0)
        #expect(try notices(server).isEmpty)
        try f.moveClock(by: 65)
        #expect(try f.cli(["project", "add", "Client A"], environment: f.clockEnvironment).status == 0)
        #expect(waitUntil(timeout: notificationWait) { (try? notices(server).count) == 1 })
        let note = try #require(try notices(server).first)
        #expect(note.body.hasSuffix("worked today, target 0:01."), "\(note.body)")
        #expect(try f.cli(["project", "add", "Client B"], environment: f.clockEnvironment).status == 0)
        let pid = try #require(try f.daemonPID())
        kill(pid, SIGTERM)
        #expect(waitUntil(timeout: 5) { kill(pid, 0) != 0 })
        #expect(try f.cli(["status"], environment: f.clockEnvironment).status == 0)
        try await Task.sleep(for: .seconds(0.5))  // a wrong second notice would come now
        #expect(try notices(server).count == 1)
    }

    /// Running on: the deadline wakes the daemon at the instant the target is reached.
    @Test func atTheInstantWhileWorkRuns() throws {
        let f = try DaemonFixture(movableClock: true)
        let server = try NotificationServer(busAddress: f.bus.address)
        _ = try f.method("SetTargets", [.vardict(["Daily": .int64(2_000_000)])])
        #expect(try f.cli(["start"], environment: f.clockEnvironment).status == 0)
        let p = try f.properties()
        let reach = try #require(p["UpdatedAt"]?.int64) + 2_000_000 - (try #require(p["DailyTotal"]?.int64))
        #expect(waitUntil(timeout: notificationWait) { (try? notices(server).count) == 1 })
        let seen = f.daemonNow
        #expect(seen >= reach, "the notice came \(reach - seen) µs before the instant")
        #expect(try f.properties()["TargetProgress"]?.double ?? 0 >= 1)
    }

    /// Stopped before the instant: no notice, however far the clock moves.
    @Test func noneWhenStoppedBefore() async throws {
        let f = try DaemonFixture(movableClock: true)
        let server = try NotificationServer(busAddress: f.bus.address)
        _ = try f.method("SetTargets", [.vardict(["Daily": .int64(minute)])])
        #expect(try f.cli(["start"], environment: f.clockEnvironment).status == 0)
        #expect(try f.cli(["stop"], environment: f.clockEnvironment).status == 0)
        try f.moveClock(by: 65)
        #expect(try f.cli(["project", "add", "Client A"], environment: f.clockEnvironment).status == 0)
        try await Task.sleep(for: .seconds(0.5))  // a wrong notice would come now
        #expect(try notices(server).isEmpty)
        #expect(try f.properties()["TargetProgress"]?.double ?? 1 < 1)
    }
}
