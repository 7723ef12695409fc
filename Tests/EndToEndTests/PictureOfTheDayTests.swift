import BiomaWidgets
import Foundation
import Testing

import TestSupport

/// `report --chart` and `report --svg` through the real CLI (the C front hands both to
/// biomatimer-tool) and the real daemon on a private bus, under libfaketime at
/// 2026-01-05 16:40 UTC with a known day imported.
@Suite(.ownThread, .timeLimit(.minutes(2)))
struct PictureOfTheDayTests {
    static let csv = """
        project,color,start,end,duration
        Client A,#FF0000,2026-01-05T09:00:00Z,2026-01-05T12:00:00Z,
        "R&D <b>""x""</b>",#0000FF,2026-01-05T13:00:00Z,2026-01-05T15:30:00Z,
        ,,2026-01-05T16:00:00Z,2026-01-05T16:30:00Z,
        Client A,#FF0000,2026-01-06T22:00:00Z,2026-01-07T01:00:00Z,

        """

    /// The daemon started at 16:40 on the imported day, in UTC.
    final class Setup {
        let fixture: DaemonFixture
        let daemon: ChildProcess
        var environment: [String: String]

        init() throws {
            fixture = try DaemonFixture(activation: false)
            var env = fixture.environment
            env["TZ"] = "UTC"
            env["NO_COLOR"] = nil
            environment = env
            daemon = try fixture.startDaemon(at: "2026-01-05 16:40:00", environment: env)
            guard waitUntil(timeout: 20, { (try? fixture.daemonPID()) != nil }) else {
                daemon.terminate()
                throw TestSupportError("the daemon did not start under faketime")
            }
            let file = fixture.dataDirectory.appendingPathComponent("day.csv")
            try PictureOfTheDayTests.csv.write(to: file, atomically: true, encoding: .utf8)
            let r = try cli(["import", file.path])
            guard r.status == 0 else { throw TestSupportError("import: \(r.stderr)") }
        }

        deinit { daemon.terminate() }

        func cli(_ arguments: [String]) throws -> ProcessResult {
            try runProcess(DaemonFixture.binary, arguments, environment: environment)
        }

        /// On a pseudo-terminal (`script`), as a person at a terminal runs it.
        func onTerminal(_ arguments: [String], noColor: Bool = false) throws -> ProcessResult {
            var env = environment
            env["TERM"] = "xterm-256color"
            if noColor { env["NO_COLOR"] = "1" }
            let command = ([DaemonFixture.binary] + arguments).joined(separator: " ")
            return try runProcess("/usr/bin/script", ["-qec", command, "/dev/null"], environment: env)
        }
    }

    static let strip = "Mon 2026-01-05  " + String(repeating: "·", count: 18) + String(repeating: "█", count: 6) + "··"
        + String(repeating: "▓", count: 5) + "·░" + String(repeating: "·", count: 15) + "    6:00:00"

    @Test func chartPipedIsPlain() throws {
        let s = try Setup()
        let r = try s.cli(["report", "--chart"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stdout.contains("\u{1B}"), "no escape codes when piped")
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 10, "\(r.stdout)")
        guard lines.count == 10 else { return }
        #expect(lines[0] == "2026-01-05")
        #expect(lines[1] == "                0     3     6     9     12    15    18    21")
        #expect(lines[2] == Self.strip)
        // The hand's mark under the half-hour 16:30–17:00 (the faked clock runs on from 16:40).
        #expect(lines[3].range(of: #"^ {49}▲ 16:4\d$"#, options: .regularExpression) != nil, "\(lines[3])")
        #expect(
            Array(lines[5...]) == [
                "  █ Client A                    3:00:00  12.5%",
                "  ▓ R&D <b>\"x\"</b>              2:30:00  10.4%",
                "  ░ no project                  0:30:00   2.1%",
                "  · unaccounted                18:00:00  75.0%",
                "",
            ])
        // Another day has no hand.
        let other = try s.cli(["report", "--chart", "--date", "2026-01-06"])
        #expect(!other.stdout.contains("▲"))
        #expect(other.stdout.contains("  █ Client A                    2:00:00   8.3%"), "\(other.stdout)")
    }

    @Test func chartOnATerminalIsColoured() throws {
        let s = try Setup()
        var r = try s.onTerminal(["report", "--chart", "--week"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("\u{1B}[38;2;255;0;0m██████\u{1B}[0m"), "Client A in #FF0000: \(r.stdout)")
        #expect(r.stdout.contains("\u{1B}[38;2;0;0;255m█████\u{1B}[0m"), "the second project in #0000FF")
        #expect(r.stdout.contains("\u{1B}[38;2;142;142;147m░\u{1B}[0m"), "no project in its grey")
        for label in ["Mon 2026-01-05", "Tue 2026-01-06", "Wed 2026-01-07", "Sun 2026-01-11"] {
            #expect(r.stdout.contains(label), "the week's days: \(label)")
        }
        r = try s.onTerminal(["report", "--chart"], noColor: true)
        #expect(r.status == 0)
        #expect(!r.stdout.contains("\u{1B}["), "NO_COLOR: \(r.stdout)")
        #expect(r.stdout.contains(Self.strip), "NO_COLOR: the plain glyphs")
    }

    @Test func svgFileRendersTheDay() throws {
        let s = try Setup()
        let directory = try makeTemporaryDirectory("biomatimer-svg")
        defer { try? FileManager.default.removeItem(at: directory) }
        // Today (by the daemon's clock): the hand at 16:40.
        let file = directory.appendingPathComponent("today.svg")
        var r = try s.cli(["report", "--svg", file.path])
        #expect(r.status == 0 && r.stdout.isEmpty && r.stderr.isEmpty, "\(r.stderr)")
        let today = try SVGRender(file: file, directory: directory)
        let colors = try today.colors([
            SVGRender.ring("10:30"), SVGRender.ring("03:00"), SVGRender.ring("14:00"), SVGRender.ring("16:15"),
            SVGRender.hand("16:40"), SVGRender.hand("15:40"),
        ])
        #expect(colors == ["#FF0000", "#E0E0E0", "#0000FF", "#8E8E93", "#FF0000", "#FFFFFF"])
        // A given day: no hand; across midnight from the day before.
        let other = directory.appendingPathComponent("other.svg")
        r = try s.cli(["report", "--svg", other.path, "--date", "2026-01-07"])
        #expect(r.status == 0, "\(r.stderr)")
        let render = try SVGRender(file: other, directory: directory)
        #expect(
            try render.colors([SVGRender.ring("00:30"), SVGRender.ring("01:30"), SVGRender.hand("16:40")])
                == ["#FF0000", "#E0E0E0", "#FFFFFF"])
        // To standard output with -.
        r = try s.cli(["report", "--svg", "-", "--date", "2026-01-07"])
        #expect(r.status == 0)
        #expect(r.stdout == (try String(contentsOf: other, encoding: .utf8)))
    }

    @Test func badUsesAreNamed() throws {
        let s = try Setup()
        var r = try s.cli(["report", "--svg", "/nonexistent/folder/day.svg"])
        #expect(r.status == 1)
        #expect(r.stderr == "biomatimer: cannot write /nonexistent/folder/day.svg: No such file or directory\n")
        let usage: [([String], String)] = [
            (["report", "--svg", "x.svg", "--week"], "biomatimer: --svg draws one day: use --date D, without --week."),
            (["report", "--chart", "--json"], "biomatimer: --json, --chart and --svg are alternatives: use one."),
            (["report", "--chart", "--svg", "x.svg"], "biomatimer: --json, --chart and --svg are alternatives: use one."),
            (["report", "--svg", ""], "biomatimer: --svg needs a file name (or - for standard output)."),
        ]
        for (args, message) in usage {
            r = try s.cli(args)
            #expect(r.status == 2, "\(args)")
            #expect(r.stderr.hasPrefix(message + "\n"), "\(args): \(r.stderr)")
        }
        // The daemon's side: the options exclude each other, and Svg is one day.
        r = try s.fixture.call("ReportText", ["ssa{sv}", "day", "", "2", "Chart", "b", "true", "Json", "b", "true"])
        #expect(r.status != 0 && r.stderr.contains("Json, Chart and Svg are alternatives"), "\(r.stderr)")
        r = try s.fixture.call("ReportText", ["ssa{sv}", "week", "", "1", "Svg", "b", "true"])
        #expect(r.status != 0 && r.stderr.contains("Svg draws one day"), "\(r.stderr)")
        r = try s.fixture.call("ReportText", ["ssa{sv}", "week", "2026-01-05", "1", "Chart", "b", "true"])
        #expect(r.status == 0 && r.stdout.contains("Sun 2026-01-11"), "\(r.stdout)")
    }

    @Test func helpNamesTheNewFlags() throws {
        let r = try runProcess(DaemonFixture.binary, ["report", "--help"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("--chart") && r.stdout.contains("--svg <file>"), "\(r.stdout)")
    }
}
