import BiomaCommands
import CContract
import DBusCore
import Testing
import BiomaContract

/// `focus …` and `focus preset …`: the Focus1 calls each line makes and what it prints.
@Suite struct FocusCommandsTests {
    static let (hour, minute, second) = (Moment.hour, Moment.minute, Moment.second)

    static let work: [String: DBusValue] = {
        var status = WorkStatus()
        status.day = "2026-11-24"
        status.projects = [ProjectSummary(id: "p1", name: "Client A", color: "#112233")]
        return WorkStatus.table.values(of: status)
    }()

    static let running: [String: DBusValue] = {
        var focus = FocusStatus()
        (focus.state, focus.kind, focus.phase, focus.label) = (.running, "pomodoro", "work", "Deep work")
        (focus.round, focus.rounds, focus.phaseDuration) = (2, 4, 25 * minute)
        (focus.remaining, focus.updatedAt, focus.phaseEndsAt) = (13 * minute, Moment.now - 26 * second, Moment.now + 12 * minute + 34 * second)
        (focus.project, focus.completedToday) = ("p1", 1)
        return FocusStatus.table.values(of: focus)
    }()

    static func phase(_ phase: String, _ start: Int64, _ end: Int64, label: String = "", project: String = "", completed: Bool = true)
        -> PhaseListing
    {
        var row = PhaseListing()
        (row.kind, row.phase, row.round, row.label, row.project) = (phase == "countdown" ? "countdown" : "pomodoro", phase, 1, label, project)
        (row.start, row.end, row.planned, row.completed) = (start, end, end - start, completed)
        return row
    }

    static let history = PhaseListing.list([
        phase("work", Moment.today(8), Moment.today(8, 25), label: "Deep work", project: "p1"),
        phase("short-break", Moment.today(8, 25), Moment.today(8, 28), completed: false),
        phase("countdown", Moment.today(23, 50, days: -1), Moment.today(0, 10), label: "Tea\u{1B}[2J"),
    ])

    static let presets: DBusValue = .array(
        .array(.dictEntry(.string, .variant)),
        [
            .vardict(ordered: [
                ("Id", .string("f1")), ("Name", .string("Classic")), ("Kind", .string("pomodoro")), ("Work", .int64(25 * minute)),
                ("ShortBreak", .int64(5 * minute)), ("LongBreak", .int64(15 * minute)), ("LongBreakEvery", .uint32(4)),
                ("Cycles", .uint32(8)), ("AutoStartBreaks", .boolean(true)),
            ]),
            .vardict(ordered: [("Id", .string("f2")), ("Name", .string("Tea")), ("Kind", .string("countdown")), ("Duration", .int64(4 * minute))]),
            .vardict(ordered: [
                ("Id", .string("f3")), ("Name", .string("Gym")), ("Kind", .string("intervals")), ("Active", .int64(40 * second)),
                ("Rest", .int64(20 * second)), ("Rounds", .uint32(0)), ("Label", .string("Sets")),
            ]),
        ])

    static let focusInterface = ContractNames.focusInterface

    static let successes: [Line] = [
        Line(["focus", "pomodoro"], on: focusInterface, BIOMATIMER_FOCUS1_START_POMODORO, [.vardict([:])]),
        Line(
            [
                "focus", "pomodoro", "--work", "50m", "--short", "0:10:00", "--long", "30m", "--every", "3", "--cycles", "8",
                "--no-auto-start-breaks", "--auto-start-work", "--breaks-are-work", "--project", "p1", "--label", "Deep work",
            ],
            on: focusInterface, BIOMATIMER_FOCUS1_START_POMODORO,
            [
                .vardict([
                    "Work": .int64(50 * minute), "ShortBreak": .int64(10 * minute), "LongBreak": .int64(30 * minute),
                    "LongBreakEvery": .uint32(3), "Cycles": .uint32(8), "AutoStartBreaks": .boolean(false), "AutoStartWork": .boolean(true),
                    "BreaksAreWork": .boolean(true), "Project": .string("p1"), "Label": .string("Deep work"),
                ])
            ]),
        Line(
            ["focus", "countdown", "7:30"], on: focusInterface, BIOMATIMER_FOCUS1_START_COUNTDOWN, [.int64(7 * hour + 30 * minute), .vardict([:])]),
        Line(
            ["focus", "countdown", "25m", "--label", "Tea", "--project", "p1"], on: focusInterface, BIOMATIMER_FOCUS1_START_COUNTDOWN,
            [.int64(25 * minute), .vardict(["Label": .string("Tea"), "Project": .string("p1")])]),
        Line(
            ["focus", "intervals", "40s", "0"], on: focusInterface, BIOMATIMER_FOCUS1_START_INTERVALS,
            [.int64(40 * second), .int64(0), .uint32(0), .vardict([:])]),
        Line(
            ["focus", "intervals", "1m", "20s", "--rounds", "8", "--label", "Gym"], on: focusInterface, BIOMATIMER_FOCUS1_START_INTERVALS,
            [.int64(minute), .int64(20 * second), .uint32(8), .vardict(["Label": .string("Gym")])]),
        Line(["focus", "start", "Tea"], on: focusInterface, BIOMATIMER_FOCUS1_START_PRESET, [.string("Tea")]),
        Line(["focus", "pause"], on: focusInterface, BIOMATIMER_FOCUS1_PAUSE),
        Line(["focus", "resume"], on: focusInterface, BIOMATIMER_FOCUS1_RESUME),
        Line(["focus", "toggle"], on: focusInterface, BIOMATIMER_FOCUS1_TOGGLE_PAUSE),
        Line(["focus", "skip"], on: focusInterface, BIOMATIMER_FOCUS1_SKIP),
        Line(["focus", "extend", "5m"], on: focusInterface, BIOMATIMER_FOCUS1_EXTEND, [.int64(5 * minute)]),
        Line(["focus", "extend", "-2m"], on: focusInterface, BIOMATIMER_FOCUS1_EXTEND, [.int64(-2 * minute)]),
        Line(["focus", "confirm"], on: focusInterface, BIOMATIMER_FOCUS1_CONFIRM),
        Line(["focus", "stop"], on: focusInterface, BIOMATIMER_FOCUS1_STOP_FOCUS),
        Line(
            ["focus", "status"], calls: [.getAll(focusInterface), .getAll(ContractNames.interface)],
            properties: [focusInterface: running, ContractNames.interface: work],
            out: "Focus: Work 2/4, 12:34 left · Deep work · Client A\n"),
        Line(
            ["focus", "status"], calls: [.getAll(focusInterface), .getAll(ContractNames.interface)],
            properties: [focusInterface: FocusStatus.table.values(of: FocusStatus()), ContractNames.interface: work], out: "No focus timer\n"),
        Line(
            ["focus", "status", "--json"], calls: [.getAll(focusInterface)], properties: [focusInterface: running],
            out: "{\"completed_today\":1,\"kind\":\"pomodoro\",\"label\":\"Deep work\",\"phase\":\"work\",\"phase_duration\":1500000000,"
                + "\"phase_ends_at\":1795511554000000,\"project\":\"p1\",\"remaining\":754000000,\"round\":2,\"rounds\":4,\"state\":\"running\"}\n"),
        Line(
            ["focus", "history"],
            calls: [.getAll(ContractNames.interface), focus(BIOMATIMER_FOCUS1_FOCUS_HISTORY, [.string("2026-11-24"), .string("2026-11-24")])],
            answers: [BIOMATIMER_FOCUS1_FOCUS_HISTORY: [history]], properties: [ContractNames.interface: work],
            out: "08:00 – 08:25  Work           25:00  done  Deep work  Client A\n"
                + "08:25 – 08:28  Short break     3:00      \n"
                + "23:50 – tomorrow 00:10  Countdown      20:00  done  Tea [2J\n"),
        Line(
            ["focus", "history", "--from", "2026-11-20", "--to", "2026-11-23"],
            calls: [.getAll(ContractNames.interface), focus(BIOMATIMER_FOCUS1_FOCUS_HISTORY, [.string("2026-11-20"), .string("2026-11-23")])],
            properties: [ContractNames.interface: work], out: "No focus phases in that range.\n"),
        // Over several days each line says its day.
        Line(
            ["focus", "history", "--from", "2026-11-23", "--to", "2026-11-24"],
            calls: [.getAll(ContractNames.interface), focus(BIOMATIMER_FOCUS1_FOCUS_HISTORY, [.string("2026-11-23"), .string("2026-11-24")])],
            answers: [BIOMATIMER_FOCUS1_FOCUS_HISTORY: [history]], properties: [ContractNames.interface: work],
            out: "2026-11-24 08:00 – 08:25  Work           25:00  done  Deep work  Client A\n"
                + "2026-11-24 08:25 – 08:28  Short break     3:00      \n"
                + "2026-11-23 23:50 – tomorrow 00:10  Countdown      20:00  done  Tea [2J\n"),
        Line(
            ["focus", "history", "--to", "2026-11-22", "--json"],
            calls: [.getAll(ContractNames.interface), focus(BIOMATIMER_FOCUS1_FOCUS_HISTORY, [.string("2026-11-22"), .string("2026-11-22")])],
            answers: [BIOMATIMER_FOCUS1_FOCUS_HISTORY: [PhaseListing.list([phase("work", Moment.today(8), Moment.today(8, 25), project: "p1")])]],
            properties: [ContractNames.interface: work],
            out: "[{\"completed\":true,\"end\":1795505100000000,\"kind\":\"pomodoro\",\"label\":\"\",\"phase\":\"work\",\"planned\":1500000000,"
                + "\"project\":\"p1\",\"project_name\":\"Client A\",\"round\":1,\"start\":1795503600000000}]\n"),
        Line(
            ["focus", "preset", "add", "Tea", "countdown", "--duration", "4m"], on: focusInterface, BIOMATIMER_FOCUS1_ADD_PRESET,
            [.string("Tea"), .string("countdown"), .vardict(["Duration": .int64(4 * minute)])], answer: [.string("f2")], out: "f2\n"),
        Line(
            ["focus", "preset", "add", "Gym", "intervals", "--active", "40s", "--rest", "0", "--rounds", "8", "--project", "p1"],
            on: focusInterface, BIOMATIMER_FOCUS1_ADD_PRESET,
            [
                .string("Gym"), .string("intervals"),
                .vardict(["Active": .int64(40 * second), "Rest": .int64(0), "Rounds": .uint32(8), "Project": .string("p1")]),
            ],
            answer: [.string("f3")], out: "f3\n"),
        Line(
            ["focus", "preset", "list"], on: focusInterface, BIOMATIMER_FOCUS1_LIST_PRESETS, answer: [presets],
            out: "f1   Classic              pomodoro   25:00 work, 5:00/15:00 breaks, long every 4, 8 cycles\n"
                + "f2   Tea                  countdown  4:00\n"
                + "f3   Gym                  intervals  0:40 active, 0:20 rest, endless\n"),
        Line(
            ["focus", "preset", "list"], on: focusInterface, BIOMATIMER_FOCUS1_LIST_PRESETS, answer: [.array(.array(.dictEntry(.string, .variant)), [])],
            out: "No presets; add one with `biomatimer focus preset add`.\n"),
        Line(
            ["focus", "preset", "list", "--json"], on: focusInterface, BIOMATIMER_FOCUS1_LIST_PRESETS, answer: [presets],
            out: "[{\"auto_start_breaks\":true,\"cycles\":8,\"id\":\"f1\",\"kind\":\"pomodoro\",\"long_break\":900000000,\"long_break_every\":4,"
                + "\"name\":\"Classic\",\"short_break\":300000000,\"work\":1500000000},"
                + "{\"duration\":240000000,\"id\":\"f2\",\"kind\":\"countdown\",\"name\":\"Tea\"},"
                + "{\"active\":40000000,\"id\":\"f3\",\"kind\":\"intervals\",\"label\":\"Sets\",\"name\":\"Gym\",\"rest\":20000000,\"rounds\":0}]\n"),
        Line(
            ["focus", "preset", "edit", "Tea", "--name", "Chai", "--duration", "5m"], on: focusInterface, BIOMATIMER_FOCUS1_UPDATE_PRESET,
            [.string("Tea"), .vardict(["Name": .string("Chai"), "Duration": .int64(5 * minute)])]),
        Line(["focus", "preset", "delete", "f2"], on: focusInterface, BIOMATIMER_FOCUS1_DELETE_PRESET, [.string("f2")]),
    ]

    @Test(arguments: successes) func eachLineMakesItsCallsAndPrintsExactly(_ line: Line) { expectSucceeds(line) }

    @Test(arguments: successes) func eachLineSaysTheDaemonsRefusal(_ line: Line) { expectRefusals(line) }

    /// `focus status` names the project after reading the timer: a refusal there prints nothing.
    @Test func aRefusalOfTheProjectsPrintsNothing() {
        expectRefusal(of: "GetAll", in: Self.successes[15], calls: 1)
    }

    static let pomodoroUsage = "focus pomodoro <options>"

    static let usages: [Usage] = [
        Usage(["focus", "pomodoro", "--every", "0"], "--every must be between 1 and 100.", pomodoroUsage),
        Usage(["focus", "pomodoro", "--work", "25"], "--work `25` needs a unit: write e.g. 25h or 25m.", pomodoroUsage),
        Usage(
            ["focus", "countdown", "25:00"],
            "DURATION `25:00` is 25 h 0 min (H:MM), longer than 24:00: for minutes and seconds write 0:25:00 or e.g. 25m.",
            "focus countdown <duration> [--project <project>] [--label <label>]"),
        // A negative length is read as a length and refused, saying why (not `Missing expected argument`).
        Usage(
            ["focus", "countdown", "-5m"],
            "DURATION `-5m` is negative: use a length of 1 s or more, e.g. 25m, 1h30m, 90s, 7:30 or 1:30:00.",
            "focus countdown <duration> [--project <project>] [--label <label>]"),
        Usage(
            ["focus", "countdown", "5 minutes"], "DURATION `5 minutes` is not a length: use e.g. 25m, 1h30m, 90s, 7:30 or 1:30:00.",
            "focus countdown <duration> [--project <project>] [--label <label>]"),
        Usage(
            ["focus", "intervals", "0s", "20s"], "ACTIVE `0s` is zero: use a length of 1 s or more, e.g. 25m, 1h30m, 90s, 7:30 or 1:30:00.",
            "focus intervals <active> <rest> [--rounds <rounds>] [--project <project>] [--label <label>]"),
        Usage(
            ["focus", "intervals", "40s"], "Missing expected argument '<rest>'\nHelp:  <rest>  Rest phase length (DURATION, or 0).",
            "focus intervals <active> <rest> [--rounds <rounds>] [--project <project>] [--label <label>]"),
        Usage(["focus", "start"], "Missing expected argument '<preset>'\nHelp:  <preset>  The preset's id or name.", "focus start <preset>"),
        Usage(["focus", "pause", "now"], "Unexpected argument 'now'", "focus pause"),
        Usage(["focus", "resume", "now"], "Unexpected argument 'now'", "focus resume"),
        Usage(["focus", "toggle", "now"], "Unexpected argument 'now'", "focus toggle"),
        Usage(["focus", "skip", "now"], "Unexpected argument 'now'", "focus skip"),
        Usage(["focus", "extend"], "Give one DURATION to add, or -DURATION to remove (e.g. 5m, -2m).", "focus extend [<deltas> ...]"),
        Usage(["focus", "extend", "5m", "2m"], "Give one DURATION to add, or -DURATION to remove (e.g. 5m, -2m).", "focus extend [<deltas> ...]"),
        Usage(["focus", "confirm", "now"], "Unexpected argument 'now'", "focus confirm"),
        Usage(["focus", "stop", "now"], "Unexpected argument 'now'", "focus stop"),
        Usage(["focus", "status", "--format", "x"], "Unknown option '--format'", "focus status [--json]"),
        Usage(
            ["focus", "history", "--from", "someday"], "--from 'someday' is not a day: use today, yesterday, tomorrow, a weekday (monday or mon) or YYYY-MM-DD.",
            "focus history [--from <from>] [--to <to>] [--json]"),
        Usage(
            ["focus", "preset", "add", "Tea", "alarm"], "KIND must be pomodoro, countdown or intervals, not alarm.",
            "focus preset add [<options>] <name> <kind>"),
        Usage(["focus", "preset", "add", "Tea", "countdown"], "A countdown preset needs --duration.", "focus preset add [<options>] <name> <kind>"),
        Usage(["focus", "preset", "add", "Gym", "intervals"], "An intervals preset needs --active.", "focus preset add [<options>] <name> <kind>"),
        Usage(["focus", "preset", "list", "all"], "Unexpected argument 'all'", "focus preset list [--json]"),
        Usage(
            ["focus", "preset", "edit", "Tea"], "Give at least one change, e.g. --name or --work.",
            "focus preset edit [<options>] <preset>"),
        Usage(
            ["focus", "preset", "edit", "Tea", "--rest", "-1m"],
            "Missing value for '--rest <rest>'\nHelp:  --rest <rest>  Intervals: rest phase length (DURATION, or 0).",
            "focus preset edit [<options>] <preset>"),
        Usage(
            ["focus", "preset", "edit", "Tea", "--rest", "5"], "--rest `5` needs a unit: write e.g. 5h or 5m.",
            "focus preset edit [<options>] <preset>"),
        Usage(
            ["focus", "preset", "delete"], "Missing expected argument '<preset>'\nHelp:  <preset>  The preset's id or name.",
            "focus preset delete <preset>"),
    ]

    @Test(arguments: usages) func eachUsageErrorIsExact(_ usage: Usage) { expectUsage(usage) }
}
