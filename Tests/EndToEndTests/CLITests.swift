import BiomaClient
import BiomaDaemon
import Foundation
import Testing

import TestSupport

/// The `biomatimer` command's output and exit codes are a contract for scripts:
/// 0 done, 1 refused, 2 usage, 3 no bus or no daemon.
@Suite(.ownThread, .timeLimit(.minutes(3)))
struct CLITests {
    @Test func statusProjectsAndJSON() throws {
        let f = try DaemonFixture()
        var r = try f.cli(["status"])
        #expect(r.status == 0)
        #expect(r.stdout == "0:00:00 (0:00:00)\n")
        #expect(r.stderr == "")

        r = try f.cli(["project", "add", "Client A", "--color", "#ff8800"])
        #expect(r.stdout == "p1\n")
        r = try f.cli(["project", "add", "Internal"])
        #expect(r.stdout == "p2\n")
        #expect(try f.cli(["project", "start", "client a"]).status == 0)
        r = try f.cli(["status"])
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines.first?.range(of: #"^0:00:0\d \(0:00:0\d\)$"#, options: .regularExpression) != nil, "\(r.stdout)")
        #expect(lines.last?.range(of: #"^Client A 0:00:0\d \(0:00:0\d\)$"#, options: .regularExpression) != nil, "\(r.stdout)")

        r = try f.cli(["status", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(json["running"] as? Bool == true)
        #expect(json["active_project_name"] as? String == "Client A")
        #expect(json["active_project_color"] as? String == "#FF8800")

        r = try f.cli(["project", "list", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        #expect(list.map { $0["name"] as? String } == ["Client A", "Internal"])
        #expect(list.map { $0["running"] as? Bool } == [true, false])

        #expect(try f.cli(["project", "next"]).status == 0)
        #expect(try f.properties()["ActiveProjectName"]?.string == "Internal")
        #expect(try f.cli(["project", "prev"]).status == 0)
        #expect(try f.properties()["ActiveProjectName"]?.string == "Client A")
        #expect(try f.cli(["toggle", "--print"]).stdout == "stopped\n")
        #expect(try f.cli(["toggle", "--print"]).stdout == "running\n")
        #expect(try f.cli(["project", "rename", "p2", "Ops"]).status == 0)
        #expect(try f.cli(["project", "color", "Ops", "#00aa00"]).status == 0)
        #expect(try f.cli(["project", "move", "Ops", "0"]).status == 0)
        let moved = try f.properties()["Projects"]?.array?.compactMap { $0.fields?.compactMap(\.string) }
        #expect(moved == [["p2", "Ops", "#00AA00"], ["p1", "Client A", "#FF8800"]])
        #expect(try f.cli(["stop"]).status == 0)
        #expect(try f.properties()["Running"]?.bool == false)
        #expect(try f.cli(["reset"]).status == 0)
        #expect(try f.properties()["SessionTime"]?.int64 == 0)
    }

    @Test func reportExportImport() throws {
        let f = try DaemonFixture()
        try f.cliOK(["project", "add", "Client A"])
        try f.cliOK(["project", "start", "Client A"])
        Thread.sleep(forTimeInterval: 0.05)
        try f.cliOK(["stop"])
        var r = try f.cli(["report", "--week", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect((report["days"] as? [Any])?.count == 7)
        #expect(((report["projects"] as? [[String: Any]])?.first?["percent"] as? Double) == 100)
        // Piped, without colour: plain text with the bar.
        r = try f.cli(["report", "--day"])
        #expect(r.stdout.contains("Client A"))
        #expect(r.stdout.contains("100.0%"))
        #expect(!r.stdout.contains("\u{1B}["), "no colour when piped")

        let file = f.dataDirectory.appendingPathComponent("out.csv")
        #expect(try f.cli(["export", "-o", file.path]).status == 0)
        let csv = try String(contentsOf: file, encoding: .utf8)
        #expect(csv.hasPrefix("project,color,start,end,duration"))
        #expect(try f.cli(["export"]).stdout == csv)

        let g = try DaemonFixture()
        r = try g.cli(["import", file.path])
        #expect(r.status == 0)
        #expect(r.stdout == "Imported 1 interval.\n")
        #expect(try g.cli(["export"]).stdout == csv)
        // All or nothing: a bad file changes nothing and says which line.
        let bad = f.dataDirectory.appendingPathComponent("bad.csv")
        try (csv + "Client A,#007AFF,garbage,,\r\n").write(to: bad, atomically: true, encoding: .utf8)
        r = try g.cli(["import", bad.path])
        #expect(r.status == 1)
        #expect(r.stderr.contains("line 3"), "\(r.stderr)")
        #expect(try g.cli(["export"]).stdout == csv)
    }

    /// On a terminal the report paints each project in its own colour (24-bit); NO_COLOR
    /// turns that off. `script` gives the command a real pseudo-terminal.
    @Test func reportColoursOnATerminalOnly() throws {
        let f = try DaemonFixture()
        try f.cliOK(["project", "add", "Client A", "--color", "#FF8800"])
        try f.cliOK(["project", "start", "Client A"])
        try f.cliOK(["stop"])
        let command = "\(DaemonFixture.binary) report --day"
        var env = f.environment
        env["TERM"] = "xterm-256color"
        env["NO_COLOR"] = nil
        var r = try runProcess("/usr/bin/script", ["-qec", command, "/dev/null"], environment: env)
        #expect(r.status == 0)
        #expect(r.stdout.contains("\u{1B}[38;2;255;136;0m●\u{1B}[0m"), "the project's dot in #FF8800: \(r.stdout)")
        env["NO_COLOR"] = "1"
        r = try runProcess("/usr/bin/script", ["-qec", command, "/dev/null"], environment: env)
        #expect(r.stdout.contains("Client A"))
        #expect(!r.stdout.contains("\u{1B}[38;2;"), "NO_COLOR: \(r.stdout)")
    }

    /// On a terminal, destructive commands ask first; only "y" goes ahead.
    @Test func destructiveCommandsAskOnATerminal() throws {
        let f = try DaemonFixture()
        try f.cliOK(["project", "add", "Keep"])
        let command = "\(DaemonFixture.binary) project delete Keep"
        var r = try runProcess("/usr/bin/script", ["-qec", command, "/dev/null"], environment: f.environment, input: "n\n")
        #expect(r.stdout.contains("Delete project Keep and all its recorded time? [y/N]"), "\(r.stdout)")
        #expect(r.stdout.contains("Nothing was changed."))
        #expect(try f.properties()["Projects"]?.array?.count == 1)
        r = try runProcess("/usr/bin/script", ["-qec", command, "/dev/null"], environment: f.environment, input: "y\n")
        #expect(try f.properties()["Projects"]?.array?.count == 0, "\(r.stdout)")
    }

    @Test func refusalsAndUsageErrors() throws {
        let f = try DaemonFixture()
        try f.cliOK(["project", "add", "Client A"])
        let cases: [([String], Int32, String)] = [
            (["project", "start", "nope"], 1, "biomatimer: No project named or with id 'nope'."),
            (["project", "add", ""], 1, "biomatimer: "),
            (["project", "add", "client a"], 1, "biomatimer: "),
            (["project", "add", String(repeating: "n", count: 65)], 1, "biomatimer: "),
            (["project", "add", "tab\there"], 1, "biomatimer: "),
            (["project", "add", "p1"], 1,
             "biomatimer: A project's name cannot look like an id (p1 is how projects are named on the command line): choose another name.\n"),
            (["project", "rename", "Client A", "P2"], 1, "biomatimer: A project's name cannot look like an id (p2 is how projects"),
            (["client", "add", "c1"], 1, "biomatimer: A client's name cannot look like an id (c1 is how clients"),
            // A bad value is a usage error whichever process would find it.
            (["project", "color", "Client A", "red"], 2, "biomatimer: COLOR: Colour 'red' is not of the form #RRGGBB"),
            (["project", "add", "Beta", "--color", "red"], 2, "biomatimer: --color: Colour 'red'"),
            (["client", "add", "ACME", "--rate", "abc", "--currency", "EUR"], 2, "biomatimer: --rate: Rate 'abc' is not an amount"),
            (["client", "add", "ACME", "--rate", "90", "--currency", "XYZ"], 2, "biomatimer: --currency: Currency 'XYZ' is not an ISO 4217 code"),
            (["client", "add", "ACME", "--rate", "-5", "--currency", "EUR"], 2, "biomatimer: --rate: A rate cannot be negative: '-5'."),
            (["focus", "countdown", "-5m"], 2, "biomatimer: DURATION `-5m` is negative"),
            (["import", "--from", "timewarrior", "x"], 2, "biomatimer: Unknown option '--from'"),
            (["report", "--date", "2026-13-01"], 2, "is not a day"),
            (["report", "--day", "--week"], 2, ""),
            (["export", "--from", "someday"], 2, "is not a day"),
            (["project", "move", "Client A", "first"], 2, ""),
            (["frobnicate"], 2, ""),
            (["project"], 0, ""),  // lists subcommands
            (["reset-history"], 2, "pass --yes"),  // no terminal to ask on
            (["project", "delete", "Client A"], 2, "pass --yes"),
            (["import", "/nonexistent/file.csv"], 1, "cannot read /nonexistent/file.csv"),
            (["watch", "--format", "nonsense"], 2, "nonsense"),
            (["status", "--format", "{bogus}"], 2, "bogus"),
        ]
        let before = try f.durableState()
        for (args, code, text) in cases {
            let r = try f.cli(args)
            #expect(r.status == code, "\(args): \(r.status) \(r.stderr)")
            if !text.isEmpty { #expect(r.stderr.contains(text), "\(args): \(r.stderr)") }
            if code == 2 { #expect(r.stderr.contains("biomatimer: ") || r.stderr.contains("Usage"), "\(args): \(r.stderr)") }
            if code == 1 { #expect(r.stderr.hasPrefix("biomatimer: ") && r.stderr.count > 20, "\(args): \(r.stderr)") }
        }
        // A name or note that is not UTF-8 is refused (exit 2, the argument shown as a person
        // reads it), not stored with U+FFFD where its bytes were; a control character in a name
        // is shown as ^G, not as a Swift escape.
        for (line, words) in [
            ("project add \"$(printf 'bad\\377name')\"", "argument 3 (\"bad\u{FFFD}name\") is not UTF-8 text"),
            ("note \"$(printf 'caf\\351')\"", "argument 2 (\"caf\u{FFFD}\") is not UTF-8 text"),
        ] {
            let r = try runProcess("/bin/sh", ["-c", "exec \"$0\" " + line, DaemonFixture.binary], environment: f.environment)
            #expect(r.status == 2 && r.stderr.contains(words), "\(line): \(r.stderr)")
        }
        let bell = try f.cli(["project", "add", "bad\u{07}bell"])
        #expect(bell.status == 1 && bell.stderr.contains(#"control characters (tabs, line breaks, …): "bad^Gbell"."#), "\(bell.stderr)")
        #expect(try f.durableState() == before, "refused commands change nothing")
        // Confirmed with --yes, the destructive ones work.
        #expect(try f.cli(["project", "delete", "Client A", "--yes"]).status == 0)
        #expect(try f.cli(["reset-history", "--yes"]).status == 0)
        // Backups were taken first.
        let backups = try FileManager.default.contentsOfDirectory(atPath: f.dataDirectory.appendingPathComponent("backups").path)
        #expect(backups.count >= 2, "\(backups)")
    }

    @Test func noBusAndNoDaemonSayHowToGetOne() throws {
        // No bus at all.
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = nil
        env["XDG_RUNTIME_DIR"] = "/nonexistent"
        var r = try runProcess(DaemonFixture.binary, ["status"], environment: env)
        #expect(r.status == 3)
        #expect(r.stdout == "")
        #expect(
            r.stderr
                == "biomatimer: cannot reach the D-Bus session bus: no session bus: DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus. Is a desktop session running? (Outside one, `dbus-run-session -- $SHELL` starts a shell with a bus of its own.)\n"
        )
        // `watch` shows the bar offline and says why on standard error, once while it waits.
        let watch = try runProcess("/usr/bin/timeout", ["2", DaemonFixture.binary, "watch"], environment: env)
        #expect(watch.stdout.hasPrefix("⊘ offline\n"), "\(watch.stdout)")
        #expect(
            watch.stderr
                == "biomatimer: cannot connect to the bus: no session bus: DBUS_SESSION_BUS_ADDRESS is not set and there is no "
                + "$XDG_RUNTIME_DIR/bus; showing offline and trying again every 5 s\n", "\(watch.stderr)")
        env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/bus"
        r = try runProcess(DaemonFixture.binary, ["toggle"], environment: env)
        #expect(r.status == 3)
        #expect(r.stderr.hasPrefix("biomatimer: cannot reach the D-Bus session bus: "))

        // A bus, but no daemon and no activation file.
        let f = try DaemonFixture(activation: false)
        // A bar polling `status --format` still gets its offline line (and the exit code).
        r = try f.cli(["status", "--format", "waybar"])
        #expect(r.status == 3)
        #expect(r.stdout.contains("\"class\":[\"offline\"]"), "\(r.stdout)")
        r = try f.cli(["start"])
        #expect(r.status == 3)
        #expect(
            r.stderr
                == "biomatimer: the biomatimer daemon is not running. Start it with `biomatimer daemon`, or run `biomatimer install` once so the bus starts it on demand.\n"
        )
        // And the daemon itself, without a bus.
        r = try runProcess(DaemonFixture.binary, ["daemon", "--data-dir", f.dataDirectory.path], environment: env)
        #expect(r.status == 3)
        #expect(r.stderr.hasPrefix("biomatimer daemon: cannot connect to the bus"))
    }

    /// The daemon runs the front's command lines (`Run`) with the command tree
    /// `biomatimer-tool` runs in its own process: both must say exactly the same.
    @Test func theDaemonAndTheToolSayTheSame() throws {
        let f = try DaemonFixture()
        let tool = productsDirectory.appendingPathComponent("biomatimer-tool").path
        try f.cliOK(["project", "add", "Client A"])
        try f.cliOK(["project", "add", "Internal"])
        let sequence: [[String]] = [
            ["project", "start", "client a"], ["project", "next"],
            ["project", "prev"], ["project", "toggle", "Internal"], ["project", "stop"], ["project", "reset", "p1"],
            ["project", "start", "nope"], ["project", "toggle", "nope"], ["project", "reset", "nope"], ["stop"], ["start"],
            ["reset"],
        ]
        for args in sequence {
            let quick = try f.cli(args)
            let full = try runProcess(tool, args, environment: f.environment)
            #expect(quick.status == full.status, "\(args)")
            #expect(quick.stdout == full.stdout, "\(args)")
            #expect(quick.stderr == full.stderr, "\(args)")
        }
        // Toggling alternates, whichever binary does it.
        #expect(try f.cli(["toggle", "--print"]).stdout == "running\n")
        #expect(try runProcess(tool, ["toggle", "--print"], environment: f.environment).stdout == "stopped\n")
        #expect(try f.cli(["toggle", "--print"]).stdout == "running\n")
        // What bars and scripts poll, run by the daemon for the front and by the tool itself:
        // the same text (the timer is stopped, so no second passes between the two).
        try f.cliOK(["stop"])
        for args in [
            ["status"], ["status", "--format", "tmux"], ["status", "--format=waybar", "--ascii"], ["status", "--ascii", "--format", "{session} {project}"],
            ["report"], ["report", "--week"], ["report", "--month", "--json"], ["report", "--date", "2026-01-05", "--year"],
            // Refused or malformed: the same message and usage.
            ["status", "--format", "{nope}"], ["report", "--date", "2026-02-30"], ["report", "--week", "--day"],
        ] {
            let quick = try f.cli(args)
            let full = try runProcess(tool, args, environment: f.environment)
            #expect(quick.status == full.status, "\(args)")
            #expect(quick.stdout == full.stdout, "\(args)")
            #expect(quick.stderr == full.stderr, "\(args)")
            #expect(!quick.stdout.isEmpty || quick.status != 0, "\(args)")
        }
        // Every failure is compared in ClientFailureParityTests.
    }

    @Test func helpVersionAndCompletions() throws {
        var r = try runProcess(DaemonFixture.binary, ["--help"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("Exit codes: 0 done, 1 the daemon refused"))
        for command in ["start", "toggle", "status", "watch", "project", "report", "export", "import", "reset-history", "daemon", "install", "hooks"] {
            #expect(r.stdout.contains("  \(command)"), "--help lists \(command)")
        }
        r = try runProcess(DaemonFixture.binary, ["--version"])
        #expect(r.status == 0)
        // The daemon is its own program; `biomatimer daemon` runs it, through the front and
        // through the tool alike.
        for program in [DaemonFixture.binary, productsDirectory.appendingPathComponent("biomatimer-tool").path] {
            r = try runProcess(program, ["daemon", "--help"])
            #expect(r.status == 0, "\(program): \(r.stderr)")
            #expect(r.stdout.contains("USAGE: biomatimer daemon") && r.stdout.contains("--data-dir"), "\(r.stdout)")
        }
        for shell in ["bash", "zsh", "fish"] {
            r = try runProcess(DaemonFixture.binary, ["--generate-completion-script", shell])
            #expect(r.status == 0)
            #expect(r.stdout.contains("reset-history"), "\(shell) completion covers the commands")
            #expect(r.stdout.contains("on-focus-start"), "\(shell) completion covers the hooks' events")
        }
    }

    /// A usage error names what was wrong and shows the usage of the command that was
    /// misused, not the top-level one.
    @Test func usageErrorsShowTheMisusedCommandsUsage() throws {
        let f = try DaemonFixture()
        let cases: [([String], String)] = [
            (
                ["reset-history"],
                """
                biomatimer: There is no terminal to ask for confirmation on: pass --yes.
                Usage: biomatimer reset-history [--yes]
                  See 'biomatimer reset-history --help' for more information.

                """
            ),
            (
                ["project", "delete", "Client A"],
                """
                biomatimer: There is no terminal to ask for confirmation on: pass --yes.
                Usage: biomatimer project delete <project> [--yes]
                  See 'biomatimer project delete --help' for more information.

                """
            ),
            (
                ["status", "--format", "{nope}"],
                """
                biomatimer: unknown field {nope} in the format template; fields are {session} {daily} {project} {project_id} {color} {project_session} {project_daily} {percentage} {day} {state} {mark} {due_tasks} {open_tasks} {focus} {focus_mark} {focus_state} {focus_kind} {focus_phase} {focus_phase_name} {focus_remaining} {focus_round} {focus_rounds} {focus_round_text} {focus_label} {focus_progress} {focus_completed} {target} {target_progress} {balance} {project_budget} {client}
                Usage: biomatimer status [--json] [--format <format>] [--ascii]
                  See 'biomatimer status --help' for more information.

                """
            ),
            (
                ["report", "--date", "2026-02-30"],
                """
                biomatimer: --date '2026-02-30' is not a day: use today, yesterday, tomorrow, a weekday (monday or mon) or YYYY-MM-DD.
                Usage: biomatimer report <options>
                  See 'biomatimer report --help' for more information.

                """
            ),
        ]
        for (args, message) in cases {
            let r = try f.cli(args)
            #expect(r.status == 2, "\(args)")
            #expect(r.stdout == "", "\(args)")
            #expect(r.stderr == message, "\(args)")
        }
    }
}
