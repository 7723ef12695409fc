import BiomaDaemon
import Foundation
import Testing

import TestSupport

@Suite(.ownThread)
struct SettingsTests {
    @Test func parsesTheConfigFile() throws {
        let s = Settings.parse(
            "# biomatimer\nday_start = 04:30   # late nights\n\nweek_start = Sunday\ndata_dir = ~/times\n",
            source: "config", environment: ["HOME": "/home/u"])
        #expect(s.dayStartMinutes == 270)
        #expect(s.firstWeekday == 1)
        #expect(s.dataDirectory?.path == "/home/u/times")
        #expect(Settings.parse("", source: "config") == Settings())
        #expect(s.problems.isEmpty)
    }

    @Test(arguments: [
        ("day_start = 25:00", "config:1: day_start `25:00` is not a time"),
        // The one clock reader's rules: digits only, as on the command line.
        ("day_start = +7:00", "config:1: day_start `+7:00` is not a time"),
        ("day_start = 4:0", "config:1: day_start `4:0` is not a time"),
        ("day_start 04:00", "config:1: expected `key = value`"),
        ("\nweek_start = friday", "config:2: week_start must be monday or sunday"),
        ("colour = red", "config:1: unknown setting `colour`"),
        ("data_dir = relative/path", "config:1: data_dir must be an absolute path"),
        ("target = -1h", "config:1: target `-1h` is negative"),
        ("\ntarget_xyz = 8h", "config:2: unknown setting `target_xyz`"),
        ("target_mon = 25h", "config:1: target_mon `25h` is longer than 24:00"),
        ("target = 8", "config:1: target `8` needs a unit"),
        ("balance_since = 2026-13-01", "config:1: balance_since `2026-13-01` is not a date"),
        ("balance_since = yesterday", "config:1: balance_since `yesterday` is not a date"),
    ])
    func badLinesAreNamed(_ text: String, _ message: String) {
        let s = Settings.parse(text, source: "config")
        #expect(s.problems.count == 1, "\(s.problems)")
        #expect(s.problems.first?.hasPrefix(message) == true, "\(s.problems)")
        // The line changes nothing: every setting keeps its default.
        var settings = s
        settings.problems = []
        #expect(settings == Settings())
    }

    /// A bad line leaves its setting at its default, or at what an earlier line gave it, and
    /// names the file and line; every good line before and after it applies.
    @Test func aBadLineKeepsTheDefaultAndTheRestApplies() {
        let s = Settings.parse(
            "week_start = sunday\nday_start = 4am\ncolour = red\nhook_timeout = 90s\nday_start 05:00\n"
                + "away_after = 5m\naway_after = soon\nnotifications = off\n",
            source: "/home/u/.config/biomatimer/config")
        #expect(
            s.problems == [
                "/home/u/.config/biomatimer/config:2: day_start `4am` is not a time: use HH:MM, e.g. 04:00",
                "/home/u/.config/biomatimer/config:3: unknown setting `colour` (known: day_start, week_start, data_dir, notifications, away, "
                    + "away_after, phase_end_command, export_ics, sync_dir, input_timeout, hook_timeout, short_interval, target, "
                    + "target_mon … target_sun, balance_since)",
                "/home/u/.config/biomatimer/config:5: expected `key = value`, got `day_start 05:00`",
                "/home/u/.config/biomatimer/config:7: away_after `soon` is not a duration: use e.g. 10m, 90s, 1h",
            ])
        #expect(s.dayStartMinutes == 0)
        #expect(s.firstWeekday == 1)
        #expect(s.hookSeconds == 90)
        // The earlier good line's value holds.
        #expect(s.away.threshold == 5 * 60_000_000)
        #expect(s.notifications == false)
    }

    @Test func parsesTheShortInterval() {
        #expect(Settings().shortInterval == 5_000_000)
        #expect(Settings.parse("short_interval = 0\n", source: "config").shortInterval == 0)
        #expect(Settings.parse("short_interval = 30s\n", source: "config").shortInterval == 30_000_000)
        #expect(Settings.parse("short_interval = 10m\n", source: "config").shortInterval == 600_000_000)
        for bad in ["11m", "10m1s", "-5s", "soon", "5"] {
            let s = Settings.parse("short_interval = 30s\nshort_interval = \(bad)\n", source: "config")
            // The earlier line's value holds.
            #expect(s.shortInterval == 30_000_000)
            #expect(
                s.problems == ["config:2: short_interval `\(bad)` is not a duration from 0s to 10m: use e.g. 5s, 30s, 0"], "\(s.problems)")
        }
    }

    @Test func parsesTargets() throws {
        let s = Settings.parse(
            "target = 8h\ntarget_fri = 6h  # short Fridays\ntarget_sat = 0\ntarget_sun = 0\nbalance_since = 2026-01-05\n",
            source: "config")
        let hour: Int64 = 3_600_000_000
        // Sunday first: Sun, Mon … Sat.
        #expect(s.targets.byWeekday == [0, 8 * hour, 8 * hour, 8 * hour, 8 * hour, 6 * hour, 0])
        #expect(s.balanceSince?.description == "2026-01-05")
        // A weekday line before `target` is overridden by it: later lines win. `target` is the
        // working days, Monday to Friday; a weekend line after it adds that day.
        let t = Settings.parse("target_mon = 7:30\ntarget = 4h\ntarget_sat = 2h\n", source: "config")
        #expect(t.targets.byWeekday == [0, 4 * hour, 4 * hour, 4 * hour, 4 * hour, 4 * hour, 2 * hour])
        #expect(Settings.parse("", source: "config").targets.isSet == false)
    }

    @Test func parsesTheHookTimeout() throws {
        #expect(Settings.parse("", source: "config").hookSeconds == 10)
        #expect(Settings.parse("hook_timeout = 90s\n", source: "config").hookSeconds == 90)
        #expect(Settings.parse("hook_timeout = 2m\n", source: "config").hookSeconds == 120)
        for bad in ["hook_timeout = 0s", "hook_timeout = 2h", "hook_timeout = soon"] {
            let s = Settings.parse(bad, source: "config")
            #expect(s.hookSeconds == 10 && s.problems.count == 1, "\(bad): \(s.problems)")
        }
        #expect(Settings.hooksDirectory(environment: ["XDG_CONFIG_HOME": "/x"]) == "/x/biomatimer/hooks")
        #expect(Settings.hooksDirectory(environment: ["HOME": "/h"]) == "/h/.config/biomatimer/hooks")
    }

    @Test func missingFileMeansDefaults() throws {
        #expect(Settings.load(from: URL(fileURLWithPath: "/nonexistent/config")) == Settings())
        #expect(Settings.file(environment: ["XDG_CONFIG_HOME": "/x"]).path == "/x/biomatimer/config")
        #expect(Settings.file(environment: ["HOME": "/h"]).path == "/h/.config/biomatimer/config")
    }

    /// An activated daemon reads the user's day start: at 03:00 with a 04:00 day start it is
    /// still yesterday.
    @Test func daemonUsesTheConfiguredDayStart() throws {
        let config = try makeTemporaryDirectory("biomatimer-config")
        defer { try? FileManager.default.removeItem(at: config) }
        try FileManager.default.createDirectory(at: config.appendingPathComponent("biomatimer"), withIntermediateDirectories: true)
        try "day_start = 04:00\n".write(to: config.appendingPathComponent("biomatimer/config"), atomically: true, encoding: .utf8)
        let f = try DaemonFixture(activation: false)
        var env = f.environment
        env["TZ"] = "UTC"
        env["XDG_CONFIG_HOME"] = config.path
        let daemon = try f.startDaemon(at: "2026-11-23 03:00:00", environment: env)
        defer { daemon.terminate() }
        #expect(waitUntil { (try? f.daemonPID()) != nil })
        #expect(try f.properties()["Day"] == .string("2026-11-22"))

        // A bad line does not stop the daemon: its setting keeps its default (the day begins at
        // midnight again), and Timer1 names the file and line.
        daemon.terminate()
        #expect(waitUntil { (try? f.daemonPID()) == nil })
        let file = config.appendingPathComponent("biomatimer/config")
        try "day_start = noon\n".write(to: file, atomically: true, encoding: .utf8)
        let again = try f.startDaemon(at: "2026-11-23 03:00:00", environment: env)
        defer { again.terminate() }
        #expect(waitUntil { (try? f.daemonPID()) != nil })
        let properties = try f.properties()
        #expect(properties["Day"] == .string("2026-11-23"))
        #expect(properties["ConfigProblems"] == .strings(["\(file.path):1: day_start `noon` is not a time: use HH:MM, e.g. 04:00"]))
    }
}
