import BiomaCommands
import CContract
import DBusCore
import Testing
import BiomaContract

/// `config check` (Timer1's `CheckConfig`: the daemon reads its settings file again), and the
/// settings file's problems as every other command says them.
@Suite struct ConfigCommandsTests {
    static let file = "/home/user/.config/biomatimer/config"
    static let day = "\(file):3: day_start `4am` is not a time: use HH:MM, e.g. 04:00"
    static let colour = "\(file):5: unknown setting `colour\u{1B}[2J`"

    static func check(_ line: [String], present: Bool, problems: [String] = [], out: String) -> Line {
        Line(
            line, BIOMATIMER_TIMER1_CHECK_CONFIG, answer: [.string(file), .boolean(present), .strings(problems)], out: out)
    }

    static let successes: [Line] = [
        check(["config", "check"], present: true, out: "config OK: \(file)\n"),
        check(["config"], present: false, out: "No config file at \(file): the defaults hold.\n"),
        check(
            ["config", "check", "--json"], present: true,
            out: "{\"file\":\"/home/user/.config/biomatimer/config\",\"present\":true,\"problems\":[]}\n"),
    ]

    @Test(arguments: successes) func eachLineMakesItsCallsAndPrintsExactly(_ line: Line) { expectSucceeds(line) }

    @Test(arguments: successes) func eachLineSaysTheDaemonsRefusal(_ line: Line) { expectRefusals(line) }

    /// Each problem on a line of its own (control characters made spaces), and exit 1.
    @Test func problemsAreNamedWithExitOne() {
        let line = Self.check(["config", "check"], present: true, problems: [Self.day, Self.colour], out: "")
        for daemonSide in [false, true] {
            #expect(
                run(line.line, daemon: line.daemon(), daemonSide: daemonSide)
                    == Outcome(
                        code: 1, out: "\(Self.day)\n\(Self.file):5: unknown setting `colour [2J`\n",
                        err: "biomatimer: 2 problems in the settings file: each line named is ignored, its setting keeps its default.\n"))
        }
        let json = Self.check(["config", "check", "--json"], present: true, problems: [Self.day], out: "")
        #expect(
            run(json.line, daemon: json.daemon())
                == Outcome(
                    code: 1,
                    out: "{\"file\":\"\(Self.file)\",\"present\":true,\"problems\":[\"\(Self.file):3: day_start `4am` is not a time: use HH:MM, e.g. 04:00\"]}\n",
                    err: ""))
    }

    static let usages: [Usage] = [
        Usage(["config", "check", "now"], "Unexpected argument 'now'", "config check [--json]"),
    ]

    @Test(arguments: usages) func eachUsageErrorIsExact(_ usage: Usage) { expectUsage(usage) }

    /// Runs `line` in the daemon, whose settings file has `problems`, for a caller on a terminal.
    static func runInDaemon(_ line: [String], _ daemon: StandInDaemon, problems: [String], answer: String? = nil) -> Outcome {
        let context = CommandContext(
            direct: false, stdinTTY: true, stdoutTTY: false, stderrTTY: false, noColor: true, term: "dumb", columns: 100,
            files: StandInFiles(), daemon: { () throws(ClientFailure) in daemon })
        context.configProblems = problems
        context.answer = answer
        context.zone = Moment.zone
        let code = CommandContext.$clock.withValue(FixedClock(instant: Moment.now)) {
            CommandRunner.run(line, in: context, daemonSide: true)
        }
        return Outcome(code: code, out: context.out, err: context.err)
    }

    /// While the daemon's settings file has problems, every command that ran says each on a
    /// line of standard error after its own words, done or refused; `status` and `config check`
    /// show them themselves, and a line that asks for files or an answer first, or does not
    /// parse, says nothing yet.
    @Test func everyOtherCommandWarnsOnce() {
        let problems = [Self.day, Self.colour]
        let warnings = "biomatimer: warning: \(Self.day)\nbiomatimer: warning: \(Self.file):5: unknown setting `colour [2J`\n"
        #expect(Self.runInDaemon(["start"], StandInDaemon(), problems: problems) == Outcome(code: 0, out: "", err: warnings))
        #expect(
            Self.runInDaemon(["start"], StandInDaemon(refusal: Refusals.refused), problems: problems)
                == Outcome(code: 1, out: "", err: "biomatimer: No project named or with id 'nope'.\n" + warnings))
        #expect(Self.runInDaemon(["start"], StandInDaemon(), problems: []) == Outcome(code: 0, out: "", err: ""))
        // Asking first: no warning until the line runs with its answer.
        #expect(Self.runInDaemon(["import", "-"], StandInDaemon(), problems: problems) == Outcome(code: ExitCode.files, out: "i", err: ""))
        #expect(
            Self.runInDaemon(["reset-history"], StandInDaemon(), problems: problems)
                == Outcome(code: ExitCode.confirm, out: "", err: "Delete ALL recorded time? [y/N] "))
        #expect(Self.runInDaemon(["reset-history"], StandInDaemon(), problems: problems, answer: "y") == Outcome(code: 0, out: "", err: warnings))
        // A usage error: nothing ran.
        #expect(!Self.runInDaemon(["stop", "now"], StandInDaemon(), problems: problems).err.contains("warning"))
        // `status` shows them among its lines, `status --json` as `config_problems`.
        var status = WorkStatus()
        (status.day, status.updatedAt, status.configProblems) = ("2026-11-24", Moment.now, problems)
        let properties = [
            ContractNames.interface: WorkStatus.table.values(of: status),
            ContractNames.tasksInterface: TasksStatus.table.values(of: TasksStatus()),
            ContractNames.focusInterface: FocusStatus.table.values(of: FocusStatus()),
        ]
        #expect(
            Self.runInDaemon(["status"], StandInDaemon(properties: properties), problems: problems)
                == Outcome(
                    code: 0,
                    out: "0:00:00 (0:00:00)\nWarning: \(Self.day)\nWarning: \(Self.file):5: unknown setting `colour [2J`\n", err: ""))
        let json = Self.runInDaemon(["status", "--json"], StandInDaemon(properties: properties), problems: problems)
        #expect(json.code == 0 && json.err == "")
        #expect(
            json.out.hasSuffix(
                ",\"config_problems\":[\"\(Self.day)\",\"\(Self.file):5: unknown setting `colour\\u001b[2J`\"]}\n"), "\(json.out)")
        let tooltip = Self.runInDaemon(["status", "--format", "waybar"], StandInDaemon(properties: properties), problems: problems)
        #expect(tooltip.out.contains("No project running\\nWarning: \(Self.day)\\nWarning: "), "\(tooltip.out)")
        // `config check` says what it reads now, not the problems of the start.
        let line = Self.check(["config", "check"], present: true, out: "")
        #expect(
            Self.runInDaemon(line.line, line.daemon(), problems: problems) == Outcome(code: 0, out: "config OK: \(Self.file)\n", err: ""))
    }
}
