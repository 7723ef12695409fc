import BiomaCommands
import CContract
import DBusCore
import Testing
import BiomaContract

/// The work timer: `start`, `stop`, `toggle`, `reset`, `status`, `away …`, `target …`,
/// `reset-history`.
@Suite struct WorkCommandsTests {
    static let (hour, minute, second) = (Moment.hour, Moment.minute, Moment.second)

    /// Stopped, with a project that ran and a target: nothing here moves with the clock.
    static let stopped: WorkStatus = {
        var status = WorkStatus()
        (status.running, status.updatedAt, status.day) = (false, Moment.now - 5 * minute, "2026-11-24")
        (status.sessionTime, status.dailyTotal) = (5 * minute + 30 * second, 2 * hour + 45 * minute + 15 * second)
        (status.dailyTarget, status.targetProgress, status.balance) = (8 * hour, 0.34375, -(hour + 48 * minute))
        status.projects = [ProjectSummary(id: "p1", name: "Client A", color: "#112233")]
        return status
    }()

    /// Running since 09:00 with Client A, which has run since 09:30.
    static let running: WorkStatus = {
        var status = stopped
        (status.running, status.updatedAt) = (true, Moment.now - 10 * minute)
        (status.activeProject, status.activeProjectName, status.activeProjectColor) = ("p1", "Client A", "#112233")
        (status.projectSessionTime, status.projectDailyTotal) = (20 * minute, hour + 30 * minute)
        return status
    }()

    static let all: [StandInDaemon.Call] = [
        .getAll(ContractNames.interface), .getAll(ContractNames.tasksInterface), .getAll(ContractNames.focusInterface),
    ]

    static func properties(_ status: WorkStatus) -> [String: [String: DBusValue]] {
        var tasks = TasksStatus()
        (tasks.openTasks, tasks.dueTasks) = (3, 1)
        return [
            ContractNames.interface: WorkStatus.table.values(of: status),
            ContractNames.tasksInterface: TasksStatus.table.values(of: tasks),
            ContractNames.focusInterface: FocusStatus.table.values(of: FocusStatus()),
        ]
    }

    static let targets: DBusValue = {
        var listing = TargetsListing()
        let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        listing.days = days.map { day in
            var row = TargetDayListing()
            row.day = day
            (row.target, row.source) = day == "Sat" || day == "Sun" ? (0, "none") : day == "Fri" ? (6 * hour, "store") : (8 * hour, "config")
            row.since = day == "Fri" ? "2026-11-20" : day == "Sat" || day == "Sun" ? "" : "2026-11-02"
            return row
        }
        (listing.balanceSince, listing.balanceSinceSource) = ("2026-11-02", "target-set")
        return listing.dbusValue
    }()

    static let successes: [Line] = [
        Line(["start"], BIOMATIMER_TIMER1_START),
        Line(
            ["start", "Website", "+meeting", "+Call"],
            calls: [
                timer(BIOMATIMER_TIMER1_START_PROJECT, [.string("Website")]),
                timer(BIOMATIMER_TIMER1_TAG_RUNNING, [.strings(["meeting", "Call"]), .strings([])]),
            ]),
        Line(["start", "+deep"], calls: [timer(BIOMATIMER_TIMER1_START), timer(BIOMATIMER_TIMER1_TAG_RUNNING, [.strings(["deep"]), .strings([])])]),
        Line(["stop"], BIOMATIMER_TIMER1_STOP),
        Line(["toggle"], BIOMATIMER_TIMER1_TOGGLE, answer: [.boolean(true)]),
        Line(["toggle", "--print"], BIOMATIMER_TIMER1_TOGGLE, answer: [.boolean(true)], out: "running\n"),
        Line(["toggle", "--print"], BIOMATIMER_TIMER1_TOGGLE, answer: [.boolean(false)], out: "stopped\n"),
        Line(["reset"], BIOMATIMER_TIMER1_RESET),
        Line(
            ["status"], calls: all, properties: properties(stopped),
            out: "0:05:30 (2:45:15)\nTarget: 2:45 of 8:00 (34 %), balance -1:48\n"),
        {
            var line = Line(["status", "--format", "{session} ({daily}) {target}"], calls: all, properties: properties(stopped), out: "0:05:30 (2:45:15) 8:00\n")
            line.offline = "0:00:00 (0:00:00) \n"
            return line
        }(),
        {
            var line = Line(["status", "--format", "tmux", "--ascii"], calls: all, properties: properties(stopped), out: "|| 0:05:30 (2:45/8:00) !1\n")
            line.offline = "x offline\n"
            return line
        }(),
        Line(["reset-history", "--yes"], BIOMATIMER_TIMER1_RESET_HISTORY),
        Line(["away", "lock"], BIOMATIMER_TIMER1_AWAY_BEGIN, [.string("lock"), .int64(0)]),
        Line(["away", "lock", "--since", "09:30"], BIOMATIMER_TIMER1_AWAY_BEGIN, [.string("lock"), .int64(Moment.today(9, 30))]),
        Line(["away", "idle", "--since", "-600s"], BIOMATIMER_TIMER1_AWAY_BEGIN, [.string("idle"), .int64(Moment.now - 600 * second)]),
        Line(["away", "idle"], BIOMATIMER_TIMER1_AWAY_BEGIN, [.string("idle"), .int64(0)]),
        Line(["away", "back"], BIOMATIMER_TIMER1_AWAY_END),
        Line(["away", "keep"], BIOMATIMER_TIMER1_KEEP_AWAY),
        Line(["away", "keep", "--project", "p1"], BIOMATIMER_TIMER1_KEEP_AWAY_FOR, [.string("p1")]),
        // LENGTH is for the working days, Monday to Friday; the weekend gets none.
        Line(["target", "set", "7:30"], BIOMATIMER_TIMER1_SET_TARGETS, [.vardict(ordered: week([7.5, 7.5, 7.5, 7.5, 7.5, 0, 0]))]),
        Line(["target", "set", "8h", "--days", "mon-thu"], BIOMATIMER_TIMER1_SET_TARGETS, [.vardict(ordered: week([8, 8, 8, 8, 0, 0, 0]))]),
        Line(["target", "set", "6h", "--days", "sun-wed"], BIOMATIMER_TIMER1_SET_TARGETS, [.vardict(ordered: week([6, 6, 6, 0, 0, 0, 6]))]),
        Line(
            ["target", "set", "8h", "--fri", "6h", "--sat", "0", "--mon", "7h30m"], BIOMATIMER_TIMER1_SET_TARGETS,
            [.vardict(ordered: week([7.5, 8, 8, 8, 6, 0, 0]))]),
        Line(
            ["target", "set", "--fri", "6h", "--sat", "1:30"], BIOMATIMER_TIMER1_SET_TARGETS,
            [.vardict(ordered: [("Fri", .int64(6 * hour)), ("Sat", .int64(90 * minute))])]),
        Line(
            ["target", "show"], calls: [timer(BIOMATIMER_TIMER1_LIST_TARGETS), .getAll(ContractNames.interface)],
            answers: [BIOMATIMER_TIMER1_LIST_TARGETS: [targets]], properties: properties(running),
            out: "Mon  8:00   config, from Monday 2 November 2026\nTue  8:00   config, from Monday 2 November 2026\n"
                + "Wed  8:00   config, from Monday 2 November 2026\nThu  8:00   config, from Monday 2 November 2026\n"
                + "Fri  6:00   store, from Friday 20 November 2026\nSat  —      none\nSun  —      none\n"
                + "Today 2026-11-24: 2:55 of 8:00\nBalance since Monday 2 November 2026 (the day the first target was set): -1:38\n"),
        Line(
            ["target", "show", "--json"], calls: [timer(BIOMATIMER_TIMER1_LIST_TARGETS), .getAll(ContractNames.interface)],
            answers: [BIOMATIMER_TIMER1_LIST_TARGETS: [targets]], properties: properties(stopped),
            out: "{\"days\":[{\"day\":\"Mon\",\"target\":28800000000,\"source\":\"config\",\"since\":\"2026-11-02\"},{\"day\":\"Tue\",\"target\":28800000000,\"source\":\"config\",\"since\":\"2026-11-02\"},"
                + "{\"day\":\"Wed\",\"target\":28800000000,\"source\":\"config\",\"since\":\"2026-11-02\"},{\"day\":\"Thu\",\"target\":28800000000,\"source\":\"config\",\"since\":\"2026-11-02\"},"
                + "{\"day\":\"Fri\",\"target\":21600000000,\"source\":\"store\",\"since\":\"2026-11-20\"},{\"day\":\"Sat\",\"target\":0,\"source\":\"none\",\"since\":null},"
                + "{\"day\":\"Sun\",\"target\":0,\"source\":\"none\",\"since\":null}],\"today\":\"2026-11-24\",\"daily_target\":28800000000,"
                + "\"daily_total\":9915000000,\"balance\":-6480000000,\"balance_since\":\"2026-11-02\","
                + "\"balance_since_source\":\"target-set\"}\n"),
    ]

    @Test(arguments: successes) func eachLineMakesItsCallsAndPrintsExactly(_ line: Line) { expectSucceeds(line) }

    @Test(arguments: successes) func eachLineSaysTheDaemonsRefusal(_ line: Line) { expectRefusals(line) }

    /// The tags go on after the project started: refused there, the project runs untagged and
    /// the refusal is said.
    @Test func aRefusedTagIsSaid() {
        expectRefusal(of: BIOMATIMER_TIMER1_TAG_RUNNING, in: Self.successes[1], calls: 2)
        expectRefusal(of: "GetAll", in: Self.successes.first { $0.line == ["target", "show"] }!, calls: 2)
    }

    /// `status --json`: the state as the JSON bar format gives it (its `updated_at` is the
    /// moment it was read: the command reads the wall clock).
    @Test func statusAsJSON() {
        let daemon = StandInDaemon(properties: Self.properties(Self.stopped))
        var outcome = run(["status", "--json"], daemon: daemon)
        let key = "\"updated_at\":"
        if let range = outcome.out.firstRange(of: key) {
            let digits = outcome.out[range.upperBound...].prefix { $0.isNumber }
            #expect(digits.count == 16)
            outcome.out.replaceSubrange(range.upperBound..<outcome.out.index(range.upperBound, offsetBy: digits.count), with: "T")
        }
        #expect(
            outcome
                == Outcome(
                    code: 0,
                    out: "{\"online\":true,\"state\":\"paused\",\"running\":false,\"updated_at\":T,\"day\":\"2026-11-24\",\"session_time\":330000000,"
                        + "\"daily_total\":9915000000,\"active_project\":\"\",\"active_project_name\":\"\",\"active_project_color\":\"\","
                        + "\"project_session_time\":0,\"project_daily_total\":0,\"session\":\"0:05:30\",\"daily\":\"2:45:15\","
                        + "\"project_session\":\"0:00:00\",\"project_daily\":\"0:00:00\",\"percentage\":0,\"open_tasks\":3,\"due_tasks\":1,"
                        + "\"daily_target\":28800000000,\"target_progress\":0.34375,\"balance\":-6480000000,\"target\":\"8:00\","
                        + "\"target_percent\":34,\"balance_text\":\"-1:48\"}\n",
                    err: ""))
        #expect(daemon.calls == Self.all)
    }

    /// A bar polling `status --format` gets its offline line when no daemon answers, with exit 3.
    @Test func aBarGetsItsOfflineLine() {
        let gone = StandInDaemon(refusal: Refusals.gone)
        #expect(
            run(["status", "--format", "waybar"], daemon: gone)
                == Outcome(
                    code: 3,
                    out: "{\"text\":\"⊘ offline\",\"alt\":\"offline\",\"tooltip\":\"biomatimer: the daemon is not running\",\"class\":[\"offline\"],\"percentage\":0}\n",
                    err: "biomatimer: the biomatimer daemon is not running.\n"))
        #expect(run(["status"], daemon: gone) == Outcome(code: 3, out: "", err: "biomatimer: the biomatimer daemon is not running.\n"))
    }

    /// `SetTargets`' entries for each weekday, Monday first, in hours.
    static func week(_ hours: [Double]) -> [(String, DBusValue)] {
        zip(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"], hours).map { ($0, .int64(Int64($1 * Double(hour)))) }
    }

    static let setUsage = "target set [<daily>] [--days <days>] [--mon <mon>] [--tue <tue>] [--wed <wed>] [--thu <thu>] [--fri <fri>] [--sat <sat>] [--sun <sun>]"

    static let usages: [Usage] = [
        Usage(["start", "one", "two"], "Give one project at most (tags are written +word).", "start [<words> ...]"),
        Usage(["start", "p1", "+no way"], "Tag \"no way\" is not a word: use letters, digits, '-', '_' and '.' (no spaces).", "start [<words> ...]"),
        Usage(["stop", "now"], "Unexpected argument 'now'", "stop"),
        Usage(["toggle", "--quiet"], "Unknown option '--quiet'. Did you mean '--print'?", "toggle [--print]"),
        Usage(["reset", "p1"], "Unexpected argument 'p1'", "reset"),
        Usage(
            ["status", "--format", "nope"],
            "unknown format \"nope\": use one of island, waybar, i3blocks, polybar, tmux, json, or a template such as "
                + "'{session} ({daily}) {project}'", "status [--json] [--format <format>] [--ascii]"),
        Usage(["reset-history"], "There is no terminal to ask for confirmation on: pass --yes.", "reset-history [--yes]"),
        Usage(["away", "lock", "--since", "soon"], "--since 'soon' is not a time: use 15:00, tomorrow 09:00, friday 09:00, 2026-11-23 09:00 or +2h.", "away lock [--since <since>]"),
        Usage(["away", "idle", "--since", "25:00"], "--since '25:00' is not a time: use 15:00, tomorrow 09:00, friday 09:00, 2026-11-23 09:00 or +2h.", "away idle [--since <since>]"),
        Usage(["away", "back", "now"], "Unexpected argument 'now'", "away back"),
        Usage(["away", "keep", "p1"], "Unexpected argument 'p1'", "away keep [--project <project>]"),
        Usage(
            ["target", "set", "25:00"],
            "target `25:00` is 25 h 0 min (H:MM), longer than 24:00: for minutes and seconds write 0:25:00 or e.g. 25m.", setUsage),
        Usage(["target", "set"], "Give a LENGTH for the working days, or --mon … --sun.", setUsage),
        Usage(["target", "set", "--days", "mon-thu"], "--days needs a LENGTH: e.g. `biomatimer target set 8h --days mon-thu`.", setUsage),
        Usage(
            ["target", "set", "8h", "--days", "mon-funday"],
            "--days `mon-funday`: `funday` is not a weekday: use mon, tue, wed, thu, fri, sat, sun, e.g. mon-fri or mon,wed.", setUsage),
        Usage(["target", "set", "--fri", "six"], "--fri `six` is not a length: use e.g. 8h, 7h30m, 90s, 7:30 or 0.", setUsage),
        Usage(["target", "show", "today"], "Unexpected argument 'today'", "target show [--json]"),
    ]

    @Test(arguments: usages) func eachUsageErrorIsExact(_ usage: Usage) { expectUsage(usage) }

    /// On a terminal, a command that changes what runs says what runs now in one line (the
    /// island line, as `status --format island` prints it); piped (a bar, a keybinding) it
    /// prints nothing and asks nothing more of the daemon.
    @Test(arguments: [["start"], ["stop"], ["toggle"], ["project", "start", "p1"], ["project", "next"], ["focus", "pause"]])
    func onATerminalAChangeSaysWhatRunsNow(_ line: [String]) {
        let island = run(["status", "--format", "island"], daemon: StandInDaemon(properties: Self.properties(Self.running)))
        #expect(island.code == 0 && island.out.hasPrefix("●") && island.out.split(separator: "\n").count == 1, "\(island)")
        let terminal = StandInDaemon(answers: [BIOMATIMER_TIMER1_TOGGLE: [.boolean(true)]], properties: Self.properties(Self.running))
        let shown = run(line, daemon: terminal, stdoutTTY: true)
        #expect(shown.code == 0 && shown.out == island.out && shown.err.isEmpty, "\(line): \(shown)")
        #expect(
            Array(terminal.calls.suffix(3))
                == [.getAll(ContractNames.interface), .getAll(ContractNames.tasksInterface), .getAll(ContractNames.focusInterface)],
            "\(terminal.calls)")
        let piped = StandInDaemon(answers: [BIOMATIMER_TIMER1_TOGGLE: [.boolean(true)]], properties: Self.properties(Self.running))
        #expect(run(line, daemon: piped) == Outcome(code: 0, out: "", err: ""))
        #expect(piped.calls.count == 1, "\(piped.calls)")
    }
}
