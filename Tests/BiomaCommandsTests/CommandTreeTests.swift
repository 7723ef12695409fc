import BiomaCommands
import CContract
import DBusCore
import Testing
import TimerControl

/// The command tree run in process against a stand-in daemon: for each subcommand, the calls a
/// line makes and exactly what it prints, its usage errors and the daemon's refusals, with
/// their exit codes (0 done, 1 refused, 2 usage, 3 unavailable).
@Suite struct CommandTreeTests {
    static let timer = ContractNames.interface
    static let focus = ContractNames.focusInterface
    static let tasks = ContractNames.tasksInterface
    static let sync = ContractNames.syncInterface
    static let hooks = ContractNames.hooksInterface
    static let hour: Int64 = 3_600_000_000
    static let minute: Int64 = 60_000_000

    /// A line that succeeds: the one call it makes, the answer it gets and what it prints.
    struct Success: Sendable, CustomTestStringConvertible {
        var line: [String]
        var interface: String
        var member: String
        var arguments: [DBusValue]
        var answer: [DBusValue] = []
        var out = ""
        var testDescription: String { line.joined(separator: " ") }
    }

    static let successes: [Success] = [
        Success(line: ["start"], interface: timer, member: BIOMATIMER_TIMER1_START, arguments: []),
        Success(line: ["stop"], interface: timer, member: BIOMATIMER_TIMER1_STOP, arguments: []),
        Success(line: ["toggle"], interface: timer, member: BIOMATIMER_TIMER1_TOGGLE, arguments: [], answer: [.boolean(true)]),
        Success(
            line: ["toggle", "--print"], interface: timer, member: BIOMATIMER_TIMER1_TOGGLE, arguments: [], answer: [.boolean(false)],
            out: "stopped\n"),
        Success(line: ["reset"], interface: timer, member: BIOMATIMER_TIMER1_RESET, arguments: []),
        Success(line: ["project", "start", "Client A"], interface: timer, member: BIOMATIMER_TIMER1_START_PROJECT, arguments: [.string("Client A")]),
        Success(line: ["project", "stop"], interface: timer, member: BIOMATIMER_TIMER1_STOP_PROJECT, arguments: []),
        Success(line: ["project", "toggle", "p1"], interface: timer, member: BIOMATIMER_TIMER1_TOGGLE_PROJECT, arguments: [.string("p1")]),
        Success(line: ["project", "next"], interface: timer, member: BIOMATIMER_TIMER1_CYCLE_PROJECT, arguments: [.int32(1)]),
        Success(line: ["project", "prev"], interface: timer, member: BIOMATIMER_TIMER1_CYCLE_PROJECT, arguments: [.int32(-1)]),
        Success(line: ["project", "reset", "p1"], interface: timer, member: BIOMATIMER_TIMER1_RESET_PROJECT, arguments: [.string("p1")]),
        Success(
            line: ["project", "add", "Client A", "--color", "#112233"], interface: timer, member: BIOMATIMER_TIMER1_ADD_PROJECT,
            arguments: [.string("Client A"), .string("#112233")], answer: [.string("p7")], out: "p7\n"),
        Success(
            line: ["project", "edit", "p1", "--budget", "20h", "--per", "Month"], interface: timer,
            member: BIOMATIMER_TIMER1_UPDATE_PROJECT,
            arguments: [.string("p1"), .vardict(ordered: [("Budget", .int64(20 * hour)), ("BudgetPeriod", .string("month"))])]),
        Success(
            line: ["project", "edit", "p1", "--budget", "none"], interface: timer, member: BIOMATIMER_TIMER1_UPDATE_PROJECT,
            arguments: [.string("p1"), .vardict(ordered: [("Budget", .int64(0))])]),
        Success(
            line: ["project", "list"], interface: timer, member: BIOMATIMER_TIMER1_LIST_PROJECTS, arguments: [],
            answer: [
                ProjectListing.list([
                    listing("p1", "Client A", running: true, session: 135 * 1_000_000, daily: 5445 * 1_000_000),
                    listing("p2", "R&D\u{1B}[31m", budget: (20 * hour, "week", 12 * hour + 30 * minute)),
                ])
            ],
            out: "▶ ● Client A                     0:02:15 (1:30:45)  [p1]\n"
                + "  ● R&D [31m                     0:00:00 (0:00:00)  [p2]  budget 12:30/20:00 week\n"),
        Success(
            line: ["project", "list"], interface: timer, member: BIOMATIMER_TIMER1_LIST_PROJECTS, arguments: [],
            answer: [ProjectListing.list([])], out: "No projects yet. Add one with: biomatimer project add NAME [--color #RRGGBB]\n"),
        Success(line: ["away", "back"], interface: timer, member: BIOMATIMER_TIMER1_AWAY_END, arguments: []),
        Success(line: ["away", "keep"], interface: timer, member: BIOMATIMER_TIMER1_KEEP_AWAY, arguments: []),
        Success(
            line: ["away", "keep", "--project", "p1"], interface: timer, member: BIOMATIMER_TIMER1_KEEP_AWAY_FOR, arguments: [.string("p1")]),
        Success(line: ["away", "lock"], interface: timer, member: BIOMATIMER_TIMER1_AWAY_BEGIN, arguments: [.string("lock"), .int64(0)]),
        Success(
            line: ["target", "set", "7:30"], interface: timer, member: BIOMATIMER_TIMER1_SET_TARGETS,
            arguments: [.vardict(ordered: [("Daily", .int64(7 * hour + 30 * minute))])]),
        Success(
            line: ["target", "set", "--fri", "6h", "--sat", "0"], interface: timer, member: BIOMATIMER_TIMER1_SET_TARGETS,
            arguments: [.vardict(ordered: [("Fri", .int64(6 * hour)), ("Sat", .int64(0))])]),
        Success(
            line: ["focus", "countdown", "7:30"], interface: focus, member: BIOMATIMER_FOCUS1_START_COUNTDOWN,
            arguments: [.int64(7 * hour + 30 * minute), .vardict([:])]),
        Success(
            line: ["focus", "countdown", "25m", "--label", "Tea"], interface: focus, member: BIOMATIMER_FOCUS1_START_COUNTDOWN,
            arguments: [.int64(25 * minute), .vardict(["Label": .string("Tea")])]),
        Success(
            line: ["focus", "intervals", "40s", "0"], interface: focus, member: BIOMATIMER_FOCUS1_START_INTERVALS,
            arguments: [.int64(40_000_000), .int64(0), .uint32(0), .vardict([:])]),
        Success(line: ["focus", "start", "Tea"], interface: focus, member: BIOMATIMER_FOCUS1_START_PRESET, arguments: [.string("Tea")]),
        Success(line: ["focus", "pause"], interface: focus, member: BIOMATIMER_FOCUS1_PAUSE, arguments: []),
        Success(line: ["focus", "resume"], interface: focus, member: BIOMATIMER_FOCUS1_RESUME, arguments: []),
        Success(line: ["focus", "toggle"], interface: focus, member: BIOMATIMER_FOCUS1_TOGGLE_PAUSE, arguments: []),
        Success(line: ["focus", "skip"], interface: focus, member: BIOMATIMER_FOCUS1_SKIP, arguments: []),
        Success(line: ["focus", "extend", "5m"], interface: focus, member: BIOMATIMER_FOCUS1_EXTEND, arguments: [.int64(5 * minute)]),
        Success(line: ["focus", "extend", "-2m"], interface: focus, member: BIOMATIMER_FOCUS1_EXTEND, arguments: [.int64(-2 * minute)]),
        Success(line: ["focus", "confirm"], interface: focus, member: BIOMATIMER_FOCUS1_CONFIRM, arguments: []),
        Success(line: ["focus", "stop"], interface: focus, member: BIOMATIMER_FOCUS1_STOP_FOCUS, arguments: []),
        Success(line: ["reset-history", "--yes"], interface: timer, member: BIOMATIMER_TIMER1_RESET_HISTORY, arguments: []),
        Success(
            line: ["report", "--week", "--date", "2026-11-23"], interface: timer, member: BIOMATIMER_TIMER1_REPORT_TEXT,
            arguments: [.string("week"), .string("2026-11-23"), .vardict(ordered: [("Color", .boolean(false))])],
            answer: [.string("Week 2026-11-23 – 2026-11-29\n  work 1:00:00\n")], out: "Week 2026-11-23 – 2026-11-29\n  work 1:00:00\n"),
        Success(
            line: ["report", "--json"], interface: timer, member: BIOMATIMER_TIMER1_REPORT_TEXT,
            arguments: [.string("day"), .string(""), .vardict(ordered: [("Json", .boolean(true))])], answer: [.string("{}\n")],
            out: "{}\n"),
        Success(
            line: ["task", "add", "Call the bank", "--project", "p1"], interface: tasks, member: BIOMATIMER_TASKS1_ADD_TASK,
            arguments: [.string("Call the bank"), .vardict(["Project": .string("p1")])], answer: [.string("t3")], out: "t3\n"),
        Success(line: ["task", "done", "t3"], interface: tasks, member: BIOMATIMER_TASKS1_COMPLETE_TASK, arguments: [.string("t3")]),
        Success(line: ["task", "reopen", "t3"], interface: tasks, member: BIOMATIMER_TASKS1_REOPEN_TASK, arguments: [.string("t3")]),
        Success(line: ["task", "delete", "t3"], interface: tasks, member: BIOMATIMER_TASKS1_DELETE_TASK, arguments: [.string("t3")]),
        Success(
            line: ["task", "snooze", "t3", "1:30"], interface: tasks, member: BIOMATIMER_TASKS1_SNOOZE_TASK,
            arguments: [.string("t3"), .int64(90 * minute)]),
        Success(line: ["task", "snooze", "t3"], interface: tasks, member: BIOMATIMER_TASKS1_SNOOZE_TASK, arguments: [.string("t3"), .int64(0)]),
        Success(line: ["sync", "disable"], interface: sync, member: BIOMATIMER_SYNC1_DISABLE, arguments: [], out: "Sync off.\n"),
        Success(
            line: ["hooks", "run", "on-start"], interface: hooks, member: BIOMATIMER_HOOKS1_RUN_HOOKS, arguments: [.string("on-start")],
            answer: [.strings(["on-start.notify", "on-start.x\u{1B}[2J"])],
            out: "running on-start.notify\nrunning on-start.x [2J\nSee how they went: biomatimer hooks\n"),
        Success(
            line: ["hooks", "run", "on-stop"], interface: hooks, member: BIOMATIMER_HOOKS1_RUN_HOOKS, arguments: [.string("on-stop")],
            answer: [.strings([])], out: "No hook for on-stop.\n"),
    ]

    static func listing(
        _ id: String, _ name: String, running: Bool = false, session: Int64 = 0, daily: Int64 = 0,
        budget: (Int64, String, Int64)? = nil
    ) -> ProjectListing {
        var row = ProjectListing()
        (row.id, row.name, row.color, row.running, row.sessionTime, row.dailyTotal) = (id, name, "#007AFF", running, session, daily)
        if let (amount, period, used) = budget { (row.budget, row.budgetPeriod, row.budgetUsed) = (amount, period, used) }
        return row
    }

    @Test(arguments: successes) func eachLineMakesItsCallAndPrintsExactly(_ line: Success) {
        for daemonSide in [false, true] {
            let daemon = StandInDaemon(answers: [line.member: line.answer])
            let outcome = run(line.line, daemon: daemon, daemonSide: daemonSide)
            #expect(outcome == Outcome(code: ExitCode.done, out: line.out, err: ""), "daemon side: \(daemonSide)")
            #expect(daemon.calls == [.init(interface: line.interface, member: line.member, arguments: line.arguments)])
        }
    }

    /// The daemon's refusal is printed as it words it, on stderr, with exit 1; no daemon is exit 3.
    @Test(arguments: successes) func eachLineSaysTheDaemonsRefusal(_ line: Success) {
        let refused = StandInDaemon(refusal: ClientFailure(exitCode: ExitCode.refused, "No project named or with id 'nope'."))
        #expect(run(line.line, daemon: refused) == Outcome(code: 1, out: "", err: "biomatimer: No project named or with id 'nope'.\n"))
        #expect(refused.calls.map(\.member) == [line.member])
        let gone = StandInDaemon(refusal: ClientFailure(exitCode: ExitCode.unavailable, "the biomatimer daemon is not running."))
        #expect(run(line.line, daemon: gone) == Outcome(code: 3, out: "", err: "biomatimer: the biomatimer daemon is not running.\n"))
    }

    /// A usage error: ArgumentParser's message, the command's usage, exit 2, and no call.
    struct Usage: Sendable, CustomTestStringConvertible {
        var line: [String]
        var err: String
        var testDescription: String { line.joined(separator: " ") }
    }

    static let usages: [Usage] = [
        Usage(
            line: ["start", "one", "two"],
            err: "Error: Give one project at most (tags are written +word).\nUsage: biomatimer start [<words> ...]\n"
                + "  See 'biomatimer start --help' for more information.\n"),
        Usage(
            line: ["project", "start"],
            err: "Error: Missing expected argument '<project>'\nHelp:  <project>  \nUsage: biomatimer project start <project> [<tags> ...]\n"
                + "  See 'biomatimer project start --help' for more information.\n"),
        Usage(
            line: ["focus", "countdown", "25:00"],
            err: "Error: DURATION `25:00` is 25 h 0 min (H:MM), longer than 24:00: for minutes and seconds write 0:25:00 or e.g. 25m.\n"
                + "Usage: biomatimer focus countdown <duration> [--project <project>] [--label <label>]\n"
                + "  See 'biomatimer focus countdown --help' for more information.\n"),
        Usage(
            line: ["focus", "countdown", "5 minutes"],
            err: "Error: DURATION `5 minutes` is not a length: use e.g. 25m, 1h30m, 90s, 7:30 or 1:30:00.\n"
                + "Usage: biomatimer focus countdown <duration> [--project <project>] [--label <label>]\n"
                + "  See 'biomatimer focus countdown --help' for more information.\n"),
        Usage(
            line: ["target", "set", "25:00"],
            err: "Error: target `25:00` is 25 h 0 min (H:MM), longer than 24:00: for minutes and seconds write 0:25:00 or e.g. 25m.\n"
                + "Usage: biomatimer target set [<daily>] [--mon <mon>] [--tue <tue>] [--wed <wed>] [--thu <thu>] [--fri <fri>] "
                + "[--sat <sat>] [--sun <sun>]\n  See 'biomatimer target set --help' for more information.\n"),
        Usage(
            line: ["target", "set"],
            err: "Error: Give a LENGTH for every day, or --mon … --sun.\n"
                + "Usage: biomatimer target set [<daily>] [--mon <mon>] [--tue <tue>] [--wed <wed>] [--thu <thu>] [--fri <fri>] "
                + "[--sat <sat>] [--sun <sun>]\n  See 'biomatimer target set --help' for more information.\n"),
        Usage(
            line: ["project", "edit", "p", "--budget", "0"],
            err: "Error: --budget 0 is zero: use --budget none to remove it.\n"
                + "Usage: biomatimer project edit <project> [--name <name>] [--color <color>] [--budget <budget>] [--per <per>] "
                + "[--client <client>] [--rate <rate>] [--currency <currency>] [--billable <billable>]\n"
                + "  See 'biomatimer project edit --help' for more information.\n"),
        Usage(
            line: ["project", "edit", "p", "--budget", "5h", "--per", "fortnight"],
            err: "Error: --per fortnight is not a budget period: use week, month or total.\n"
                + "Usage: biomatimer project edit <project> [--name <name>] [--color <color>] [--budget <budget>] [--per <per>] "
                + "[--client <client>] [--rate <rate>] [--currency <currency>] [--billable <billable>]\n"
                + "  See 'biomatimer project edit --help' for more information.\n"),
        Usage(
            line: ["reset-history"],
            err: "Error: There is no terminal to ask for confirmation on: pass --yes.\n"
                + "Usage: biomatimer reset-history [--yes]\n  See 'biomatimer reset-history --help' for more information.\n"),
        Usage(
            line: ["status", "--format", "nope"],
            err: "Error: unknown format \"nope\": use one of island, waybar, i3blocks, polybar, tmux, json, or a template such as "
                + "'{session} ({daily}) {project}'\nUsage: biomatimer status [--json] [--format <format>] [--ascii]\n"
                + "  See 'biomatimer status --help' for more information.\n"),
    ]

    @Test(arguments: usages) func eachUsageErrorIsExact(_ usage: Usage) {
        for daemonSide in [false, true] {
            let daemon = StandInDaemon()
            let outcome = run(usage.line, daemon: daemon, daemonSide: daemonSide)
            #expect(outcome == Outcome(code: 2, out: "", err: usage.err), "daemon side: \(daemonSide)")
            #expect(daemon.calls.isEmpty)
        }
    }

    /// `7:30` is 7 h 30 min to both `focus countdown` and `target set`, and `--help` says so.
    @Test func sevenThirtyMeansOneThing() {
        let focus = StandInDaemon()
        #expect(run(["focus", "countdown", "7:30"], daemon: focus).code == 0)
        let target = StandInDaemon()
        #expect(run(["target", "set", "7:30"], daemon: target).code == 0)
        #expect(focus.calls.first?.arguments.first == .int64(27_000_000_000))
        #expect(target.calls.first?.arguments.first == .vardict(ordered: [("Daily", .int64(27_000_000_000))]))
        for help in [["focus", "--help"], ["target", "--help"], ["task", "snooze", "--help"]] {
            let shown = run(help)
            // Help is wrapped to the caller's width: the words are compared without the breaks.
            let words = shown.out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(shown.code == 0 && words.contains("H:MM is hours and minutes (7:30 is 7 h 30 min)"), "\(help): \(shown)")
        }
    }

    /// The local commands: refused by the daemon, run by the bodies the tool supplies, and
    /// refused where no bodies are given.
    @Test func localCommandsRunOnlyWhereTheirBodiesAre() {
        let lines: [([String], String)] = [
            (["watch", "--format", "waybar"], "watch WaybarRenderer"), (["tray"], "tray"),
            (["install", "--prefix", "/opt/b", "--taskwarrior"], "install /opt/b true"), (["uninstall"], "uninstall -"),
            (["daemon", "--replace"], "daemon [\"--replace\"]"),
        ]
        for (line, done) in lines {
            #expect(
                run(line, daemonSide: true)
                    == Outcome(
                        code: 1, out: "",
                        err: "biomatimer: `\(line[0])` runs in the caller's process: run it with the biomatimer command.\n"))
            #expect(
                run(line) == Outcome(code: 1, out: "", err: "biomatimer: this command runs in the caller's process: run it with the biomatimer command.\n"))
            let local = StandInLocal()
            #expect(run(line, local: local) == Outcome(code: 0, out: "", err: ""), "\(line)")
            #expect(local.done == [done])
            if line[0] == "install" {
                #expect(local.texts?.manual.hasPrefix(".TH BIOMATIMER 1") == true)
                #expect(local.texts?.fish.contains("string length -- \"$(commandline -ct)\"") == true)
            }
        }
        #expect(run(["watch", "--format", "nope"], local: StandInLocal()).code == 2)
    }

    /// In the daemon a question goes back to the caller (exit 5 and the question); the answer
    /// comes with the line again.
    @Test func aConfirmationIsAskedOfTheCaller() {
        let daemon = StandInDaemon()
        #expect(
            run(["reset-history"], daemon: daemon, daemonSide: true, stdinTTY: true)
                == Outcome(code: ExitCode.confirm, out: "", err: "Delete ALL recorded time? [y/N] "))
        #expect(run(["reset-history"], daemon: daemon, daemonSide: true, stdinTTY: true, answer: "n")
            == Outcome(code: 1, out: "", err: "biomatimer: Nothing was changed.\n"))
        #expect(daemon.calls.isEmpty)
        #expect(run(["reset-history"], daemon: daemon, daemonSide: true, stdinTTY: true, answer: " Y ") == Outcome(code: 0, out: "", err: ""))
        #expect(daemon.calls.map(\.member) == [BIOMATIMER_TIMER1_RESET_HISTORY])
    }

    /// In the daemon a command that reads a file first asks its caller to open it.
    @Test func aFileIsAskedOfTheCaller() {
        let daemon = StandInDaemon()
        #expect(run(["import", "week.csv"], daemon: daemon, daemonSide: true) == Outcome(code: ExitCode.files, out: "r week.csv", err: ""))
        #expect(run(["import", "-"], daemon: daemon, daemonSide: true) == Outcome(code: ExitCode.files, out: "i", err: ""))
        #expect(daemon.calls.isEmpty)
        let files = StandInFiles()
        #expect(run(["import", "missing.csv"], daemon: daemon, files: files)
            == Outcome(code: 1, out: "", err: "biomatimer: cannot read missing.csv: No such file or directory.\n"))
    }
}
