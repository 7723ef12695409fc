import BiomaDaemon
import Foundation
import Testing

import TestSupport

/// A typo in the settings file stops no command: the daemon the bus starts runs with the other
/// lines applied, and every command says what is wrong, with the file and the line.
@Suite(.ownThread, .timeLimit(.minutes(2)))
struct ConfigProblemsTests {
    /// A private bus that starts the daemon on demand, as after `biomatimer install`, with its
    /// settings file at `file` holding `text` (none when nil).
    final class Activated {
        let f: DaemonFixture
        let file: URL

        init(config text: String?) throws {
            f = try DaemonFixture(activation: false)
            let home = f.bus.directory.appendingPathComponent("config-home")
            file = home.appendingPathComponent("biomatimer/config")
            if let text {
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try text.write(to: file, atomically: true, encoding: .utf8)
            }
            try f.bus.installService(
                name: ContractNames.busName,
                exec: "/usr/bin/env XDG_CONFIG_HOME=\(home.path) \(DaemonFixture.binary) daemon --data-dir \(f.dataDirectory.path)")
        }

        func cli(_ arguments: [String]) throws -> ProcessResult {
            var env = f.environment
            env["TZ"] = "UTC"
            return try runProcess(DaemonFixture.binary, arguments, environment: env)
        }
    }

    static let known =
        "(known: day_start, week_start, data_dir, notifications, away, away_after, phase_end_command, export_ics, sync_dir, "
        + "input_timeout, hook_timeout, short_interval, target, target_mon … target_sun, balance_since)"

    @Test func aTypoStopsNoCommandAndEveryCommandNamesIt() throws {
        let d = try Activated(config: "# mine\nweek_start = sunday\nday_start = 4am\ncolour = red\nnotifications = off\n")
        let day = "\(d.file.path):3: day_start `4am` is not a time: use HH:MM, e.g. 04:00"
        let colour = "\(d.file.path):4: unknown setting `colour` \(Self.known)"

        // The bus starts the daemon for the first command: it runs, and says the two lines.
        let status = try d.cli(["status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout == "0:00:00 (0:00:00)\nWarning: \(day)\nWarning: \(colour)\n")
        #expect(status.stderr == "")
        #expect(try d.f.daemonPID() != nil)

        let json = try d.cli(["status", "--json"])
        #expect(json.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["config_problems"] as? [String] == [day, colour], "\(json.stdout)")
        #expect(try d.f.properties()["ConfigProblems"] == .strings([day, colour]))

        // The bars' tooltip says them too.
        let waybar = try d.cli(["status", "--format", "waybar"])
        #expect(waybar.stdout.contains("\\nWarning: \(day)\\nWarning: \(d.file.path):4: unknown setting `colour` "), "\(waybar.stdout)")

        // Every other command: its own words, then one line per problem on standard error.
        let other = try d.cli(["project", "add", "Client A"])
        #expect(other.status == 0)
        #expect(other.stderr == "biomatimer: warning: \(day)\nbiomatimer: warning: \(colour)\n")

        // The good lines apply: the week starts on Sunday.
        let week = try d.f.method("PeriodDays", [.string("week"), .string("2026-11-25")])
        #expect(week == [.string("2026-11-22"), .string("2026-11-28")])

        let check = try d.cli(["config", "check"])
        #expect(check.status == 1)
        #expect(check.stdout == "\(day)\n\(colour)\n")
        #expect(
            check.stderr == "biomatimer: 2 problems in the settings file: each line named is ignored, its setting keeps its default.\n")
        let checkJSON = try d.cli(["config", "check", "--json"])
        #expect(checkJSON.status == 1)
        let checked = try JSONSerialization.jsonObject(with: Data(checkJSON.stdout.utf8)) as? [String: Any]
        #expect(checked?["file"] as? String == d.file.path)
        #expect(checked?["problems"] as? [String] == [day, colour])

        // Fixed: `config check` reads the file again and says so; what the daemon read at start
        // holds until it starts again.
        try "week_start = sunday\nday_start = 04:00\n".write(to: d.file, atomically: true, encoding: .utf8)
        let fixed = try d.cli(["config", "check"])
        #expect(fixed.status == 0)
        #expect(fixed.stdout == "config OK: \(d.file.path)\n")
        #expect(fixed.stderr == "")
        #expect(try d.cli(["status"]).stdout.contains("Warning: \(day)"))
    }

    @Test func aGoodFileOrNoneIsOK() throws {
        let good = try Activated(config: "day_start = 04:00\nshort_interval = 0\n")
        let ok = try good.cli(["config", "check"])
        #expect(ok.status == 0)
        #expect(ok.stdout == "config OK: \(good.file.path)\n")
        #expect(ok.stderr == "")
        #expect(try good.cli(["status"]).stdout == "0:00:00 (0:00:00)\n")
        #expect(try good.cli(["project", "add", "Client A"]).stderr == "")

        let none = try Activated(config: nil)
        let defaults = try none.cli(["config", "check"])
        #expect(defaults.status == 0)
        #expect(defaults.stdout == "No config file at \(none.file.path): the defaults hold.\n")
        let json = try none.cli(["status", "--json"])
        #expect(!json.stdout.contains("config_problems"))
    }
}
