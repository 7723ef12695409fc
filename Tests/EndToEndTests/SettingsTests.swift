import BiomaDaemon
import Foundation
import Testing

import TestSupport

@Suite(.ownThread)
struct SettingsTests {
    @Test func parsesTheConfigFile() throws {
        let s = try Settings.parse(
            "# biomatimer\nday_start = 04:30   # late nights\n\nweek_start = Sunday\ndata_dir = ~/times\n",
            source: "config", environment: ["HOME": "/home/u"])
        #expect(s.dayStartMinutes == 270)
        #expect(s.firstWeekday == 1)
        #expect(s.dataDirectory?.path == "/home/u/times")
        #expect(try Settings.parse("", source: "config") == Settings())
    }

    @Test(arguments: [
        ("day_start = 25:00", "config:1: day_start `25:00` is not a time"),
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
        do {
            _ = try Settings.parse(text, source: "config")
            Issue.record("accepted \(text)")
        } catch {
            #expect("\(error)".hasPrefix(message), "\(error)")
        }
    }

    @Test func parsesTargets() throws {
        let s = try Settings.parse(
            "target = 8h\ntarget_fri = 6h  # short Fridays\ntarget_sat = 0\ntarget_sun = 0\nbalance_since = 2026-01-05\n",
            source: "config")
        let hour: Int64 = 3_600_000_000
        // Sunday first: Sun, Mon … Sat.
        #expect(s.targets.byWeekday == [0, 8 * hour, 8 * hour, 8 * hour, 8 * hour, 6 * hour, 0])
        #expect(s.balanceSince?.description == "2026-01-05")
        // A weekday line before `target` is overridden by it: later lines win.
        let t = try Settings.parse("target_mon = 7:30\ntarget = 4h\n", source: "config")
        #expect(t.targets.byWeekday == Array(repeating: 4 * hour, count: 7))
        #expect(try Settings.parse("", source: "config").targets.isSet == false)
    }

    @Test func parsesTheHookTimeout() throws {
        #expect(try Settings.parse("", source: "config").hookSeconds == 10)
        #expect(try Settings.parse("hook_timeout = 90s\n", source: "config").hookSeconds == 90)
        #expect(try Settings.parse("hook_timeout = 2m\n", source: "config").hookSeconds == 120)
        for bad in ["hook_timeout = 0s", "hook_timeout = 2h", "hook_timeout = soon"] {
            #expect(throws: SettingsError.self) { try Settings.parse(bad, source: "config") }
        }
        #expect(Settings.hooksDirectory(environment: ["XDG_CONFIG_HOME": "/x"]) == "/x/biomatimer/hooks")
        #expect(Settings.hooksDirectory(environment: ["HOME": "/h"]) == "/h/.config/biomatimer/hooks")
    }

    @Test func missingFileMeansDefaults() throws {
        #expect(try Settings.load(from: URL(fileURLWithPath: "/nonexistent/config")) == Settings())
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

        // A bad file stops the daemon with the file and line.
        try "day_start = noon\n".write(to: config.appendingPathComponent("biomatimer/config"), atomically: true, encoding: .utf8)
        let r = try runProcess(DaemonFixture.binary, ["daemon", "--data-dir", f.dataDirectory.path], environment: env)
        #expect(r.status == 2)
        #expect(r.stderr.contains("biomatimer/config:1: day_start `noon` is not a time"), "\(r.stderr)")
    }
}
