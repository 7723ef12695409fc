import BiomaCommands
import CContract
import DBusCore
import Testing
import BiomaContract

/// Editing the past: `log`, `add`, `edit`, `split`, `delete`, `undo`, `note`, `tag`. Times are
/// read in the caller's zone at the caller's moment (Tuesday 2026-11-24 10:00, UTC+1) and sent
/// as instants.
@Suite struct IntervalCommandsTests {
    static let (hour, minute) = (Moment.hour, Moment.minute)

    static func interval(_ id: String, _ start: Int64, _ end: Int64, project: String = "", note: String = "", tags: [String] = [])
        -> IntervalListing
    {
        var row = IntervalListing()
        (row.id, row.start, row.end, row.project, row.note, row.tags) = (id, start, end, project, note, tags)
        return row
    }

    /// The Timer1 properties the commands that name projects read: two projects.
    static let work: [String: [String: DBusValue]] = {
        var status = WorkStatus()
        status.day = "2026-11-24"
        status.projects = [
            ProjectSummary(id: "p1", name: "Client A", color: "#112233"), ProjectSummary(id: "p2", name: "R&D\u{1B}[2J", color: "#445566"),
        ]
        return [ContractNames.interface: WorkStatus.table.values(of: status)]
    }()

    static let rows = IntervalListing.list([
        interval("1", Moment.today(8), Moment.today(9, 30), project: "p1", note: "Agenda\nand minutes", tags: ["call", "q4"]),
        interval("2", Moment.today(23, days: -1), Moment.today(23, 30, days: -1), project: "gone"),
        interval("3", Moment.today(9, 45), 0, project: "p2"),
    ])

    static let successes: [Line] = [
        Line(
            ["log"], calls: [timer(BIOMATIMER_TIMER1_LIST_INTERVALS, [.string(""), .string("")]), .getAll(ContractNames.interface)],
            answers: [BIOMATIMER_TIMER1_LIST_INTERVALS: [rows]], properties: work,
            out: "ID      PROJECT              START            END              DURATION\n"
                + "1       Client A             08:00            09:30            1:30:00  +call  +q4  Agenda and minutes\n"
                + "2       -                    yesterday 23:00  yesterday 23:30  0:30:00\n"
                + "3       R&D [2J              09:45            running          0:15:00\n"
                + "        total                                                  2:15:00\n"),
        Line(
            ["log", "--date", "2026-11-20"],
            calls: [timer(BIOMATIMER_TIMER1_LIST_INTERVALS, [.string("2026-11-20"), .string("2026-11-20")]), .getAll(ContractNames.interface)],
            properties: work, out: "No recorded time. Add some with: biomatimer add 09:00-12:30 [--date yesterday|YYYY-MM-DD] [--project P]\n"),
        Line(
            ["log", "--week", "--date", "2026-11-25"],
            calls: [
                timer(BIOMATIMER_TIMER1_PERIOD_DAYS, [.string("week"), .string("2026-11-25")]),
                timer(BIOMATIMER_TIMER1_LIST_INTERVALS, [.string("2026-11-23"), .string("2026-11-29")]), .getAll(ContractNames.interface),
            ],
            answers: [
                BIOMATIMER_TIMER1_PERIOD_DAYS: [.string("2026-11-23"), .string("2026-11-29")],
                BIOMATIMER_TIMER1_LIST_INTERVALS: [IntervalListing.list([interval("1", Moment.today(8), Moment.today(9, 30), project: "p1")])],
            ],
            properties: work,
            out: "ID      PROJECT              START            END              DURATION\n"
                + "1       Client A             08:00            09:30            1:30:00\n"
                + "        total                                                  1:30:00\n"),
        Line(
            ["log", "--json"], calls: [timer(BIOMATIMER_TIMER1_LIST_INTERVALS, [.string(""), .string("")]), .getAll(ContractNames.interface)],
            answers: [BIOMATIMER_TIMER1_LIST_INTERVALS: [rows]], properties: work,
            out: "[{\"duration\":5400000000,\"end\":1795509000000000,\"id\":\"1\",\"note\":\"Agenda\\nand minutes\",\"project\":\"p1\","
                + "\"project_name\":\"Client A\",\"running\":false,\"start\":1795503600000000,\"tags\":[\"call\",\"q4\"]},"
                + "{\"duration\":1800000000,\"end\":1795473000000000,\"id\":\"2\",\"note\":null,\"project\":\"gone\",\"project_name\":\"\","
                + "\"running\":false,\"start\":1795471200000000,\"tags\":[]},"
                + "{\"duration\":900000000,\"end\":null,\"id\":\"3\",\"note\":null,\"project\":\"p2\",\"project_name\":\"R&D\\u001b[2J\","
                + "\"running\":true,\"start\":1795509900000000,\"tags\":[]}]\n"),
        Line(
            ["add", "08:00-09:30", "+call", "--project", "p1", "--note", "Agenda"], BIOMATIMER_TIMER1_ADD_INTERVAL,
            [
                .int64(Moment.today(8)), .int64(Moment.today(9, 30)), .string("p1"),
                .vardict(["Note": .string("Agenda"), "Tags": .strings(["call"])]),
            ],
            answer: [.string("7")], out: "7\n"),
        Line(
            ["add", "22:00-01:00", "--date", "2026-11-20", "--replace"], BIOMATIMER_TIMER1_ADD_INTERVAL,
            [.int64(Moment.today(22, days: -4)), .int64(Moment.today(1, days: -3)), .string(""), .vardict(["Replace": .boolean(true)])],
            answer: [.string("8")], out: "8\n"),
        Line(
            ["add", "09:00-10:00", "--date", "yesterday"], BIOMATIMER_TIMER1_ADD_INTERVAL,
            [.int64(Moment.today(9, days: -1)), .int64(Moment.today(10, days: -1)), .string(""), .vardict([:])],
            answer: [.string("10")], out: "10\n"),
        Line(
            ["add", "friday 09:00-10:00"], BIOMATIMER_TIMER1_ADD_INTERVAL,
            [.int64(Moment.today(9, days: -4)), .int64(Moment.today(10, days: -4)), .string(""), .vardict([:])],
            answer: [.string("11")], out: "11\n"),
        Line(
            ["add", "yesterday 17:30-18:15"], BIOMATIMER_TIMER1_ADD_INTERVAL,
            [.int64(Moment.today(17, 30, days: -1)), .int64(Moment.today(18, 15, days: -1)), .string(""), .vardict([:])],
            answer: [.string("9")], out: "9\n"),
        Line(
            ["edit", "3", "--start", "08:15", "--end", "-20m", "--project", "p2", "--note", "", "--tag", "+call", "--untag", "meeting",
             "--replace"],
            BIOMATIMER_TIMER1_UPDATE_INTERVAL,
            [
                .string("3"),
                .vardict([
                    "Start": .int64(Moment.today(8, 15)), "End": .int64(Moment.now - 20 * minute), "Project": .string("p2"),
                    "Note": .string(""), "AddTags": .strings(["call"]), "RemoveTags": .strings(["meeting"]), "Replace": .boolean(true),
                ]),
            ]),
        Line(
            ["edit", "3", "--no-project", "--date", "2026-11-20", "--start", "07:00"], BIOMATIMER_TIMER1_UPDATE_INTERVAL,
            [.string("3"), .vardict(["Project": .string(""), "Start": .int64(Moment.today(7, days: -4))])]),
        Line(["split", "3", "09:00"], BIOMATIMER_TIMER1_SPLIT_INTERVAL, [.string("3"), .int64(Moment.today(9))], answer: [.string("10")], out: "10\n"),
        Line(
            ["split", "3", "12:00", "--date", "2026-11-23"], BIOMATIMER_TIMER1_SPLIT_INTERVAL, [.string("3"), .int64(Moment.today(12, days: -1))],
            answer: [.string("11")], out: "11\n"),
        Line(["delete", "3"], BIOMATIMER_TIMER1_DELETE_INTERVAL, [.string("3")]),
        Line(["undo"], BIOMATIMER_TIMER1_UNDO, answer: [.string("Took back: delete 3")], out: "Took back: delete 3\n"),
        Line(["note", "Agenda for Q4"], BIOMATIMER_TIMER1_SET_NOTE, [.string("Agenda for Q4")]),
        Line(["note", "--clear"], BIOMATIMER_TIMER1_SET_NOTE, [.string("")]),
        Line(
            ["tag", "+Call", "-meeting", "+deep"], BIOMATIMER_TIMER1_TAG_RUNNING, [.strings(["Call", "deep"]), .strings(["meeting"])],
            answer: [.strings(["call", "deep", "q4"])], out: "+call +deep +q4\n"),
        Line(["tag", "-meeting"], BIOMATIMER_TIMER1_TAG_RUNNING, [.strings([]), .strings(["meeting"])], answer: [.strings([])], out: "\n"),
        // Every day option reads what add reads: today is Tuesday 2026-11-24.
        Line(
            ["log", "--date", "yesterday"],
            calls: [timer(BIOMATIMER_TIMER1_LIST_INTERVALS, [.string("2026-11-23"), .string("2026-11-23")]), .getAll(ContractNames.interface)],
            properties: work, out: "No recorded time. Add some with: biomatimer add 09:00-12:30 [--date yesterday|YYYY-MM-DD] [--project P]\n"),
        Line(
            ["log", "--date", "Friday"],
            calls: [timer(BIOMATIMER_TIMER1_LIST_INTERVALS, [.string("2026-11-20"), .string("2026-11-20")]), .getAll(ContractNames.interface)],
            properties: work, out: "No recorded time. Add some with: biomatimer add 09:00-12:30 [--date yesterday|YYYY-MM-DD] [--project P]\n"),
        Line(
            ["log", "--date", "tue"],
            calls: [timer(BIOMATIMER_TIMER1_LIST_INTERVALS, [.string("2026-11-24"), .string("2026-11-24")]), .getAll(ContractNames.interface)],
            properties: work, out: "No recorded time. Add some with: biomatimer add 09:00-12:30 [--date yesterday|YYYY-MM-DD] [--project P]\n"),
    ]

    @Test(arguments: successes) func eachLineMakesItsCallsAndPrintsExactly(_ line: Line) { expectSucceeds(line) }

    @Test(arguments: successes) func eachLineSaysTheDaemonsRefusal(_ line: Line) { expectRefusals(line) }

    /// `log` asks for the projects' names after the intervals: a refusal there prints no table.
    @Test func aRefusalAfterTheListPrintsNothing() {
        expectRefusal(of: "GetAll", in: Self.successes[0], calls: 2)
        expectRefusal(of: BIOMATIMER_TIMER1_LIST_INTERVALS, in: Self.successes[2], calls: 2)
    }

    static let usages: [Usage] = [
        Usage(["log", "--date", "24.11.2026"], "--date '24.11.2026' is not a day: use today, yesterday, tomorrow, a weekday (monday or mon) or YYYY-MM-DD.", "log [--day] [--week] [--date <date>] [--json]"),
        Usage(
            ["log", "--day", "--week"], "Value to be set with flag '--week' had already been set with flag '--day'",
            "log [--day] [--week] [--date <date>] [--json]"),
        Usage(
            ["add", "09:00"], "'09:00' is not a time range: use START-END, e.g. 09:00-12:30 or yesterday 17:30-18:15.",
            "add <range> [<tags> ...] [--date <date>] [--project <project>] [--replace] [--note <note>]"),
        Usage(
            ["add", "2026-11-20T12:00-2026-11-20T09:00"], "'2026-11-20T12:00-2026-11-20T09:00' ends before it starts. Across midnight, an end clock before the start is the next day "
                + "for up to 12 hours (22:00-01:00); for longer, give both days (2026-11-20T12:00-2026-11-21T11:00).",
            "add <range> [<tags> ...] [--date <date>] [--project <project>] [--replace] [--note <note>]"),
        Usage(
            ["add", "12:00-11:00"], "'12:00-11:00' ends before it starts. Across midnight, an end clock before the start is the next day "
                + "for up to 12 hours (22:00-01:00); for longer, give both days (2026-11-20T12:00-2026-11-21T11:00).",
            "add <range> [<tags> ...] [--date <date>] [--project <project>] [--replace] [--note <note>]"),
        Usage(
            ["add", "08:00-09:00", "call"], "'call' is not a tag: tags are written +word.",
            "add <range> [<tags> ...] [--date <date>] [--project <project>] [--replace] [--note <note>]"),
        Usage(
            ["add", "08:00-09:00", "--date", "2026-11-31"], "--date '2026-11-31' is not a day: use today, yesterday, tomorrow, a weekday (monday or mon) or YYYY-MM-DD.",
            "add <range> [<tags> ...] [--date <date>] [--project <project>] [--replace] [--note <note>]"),
        Usage(
            ["edit", "x1", "--note", "a"], "'x1' is not an interval id: `biomatimer log` shows them (1, 2, …).",
            "edit <id> [--start <start>] [--end <end>] [--date <date>] [--project <project>] [--no-project] [--replace] [--note <note>] "
                + "[--tag <tag> ...] [--untag <untag> ...]"),
        Usage(
            ["edit", "3"], "Nothing to change: give --start, --end, --project, --no-project, --note, --tag or --untag.",
            "edit <id> [--start <start>] [--end <end>] [--date <date>] [--project <project>] [--no-project] [--replace] [--note <note>] "
                + "[--tag <tag> ...] [--untag <untag> ...]"),
        Usage(
            ["edit", "3", "--start", "25:00"], "--start '25:00' is not a time: use 15:00, tomorrow 09:00, friday 09:00, 2026-11-23 09:00 or +2h.",
            "edit <id> [--start <start>] [--end <end>] [--date <date>] [--project <project>] [--no-project] [--replace] [--note <note>] "
                + "[--tag <tag> ...] [--untag <untag> ...]"),
        Usage(
            ["edit", "3", "--project", "p1", "--no-project"], "--project and --no-project exclude each other.",
            "edit <id> [--start <start>] [--end <end>] [--date <date>] [--project <project>] [--no-project] [--replace] [--note <note>] "
                + "[--tag <tag> ...] [--untag <untag> ...]"),
        Usage(
            ["split", "3", "nine"], "AT 'nine' is not a time: use 15:00, tomorrow 09:00, friday 09:00, 2026-11-23 09:00 or +2h.",
            "split <id> <at> [--date <date>]"),
        Usage(["split", "3"], "Missing expected argument '<at>'\nHelp:  <at>  Where (TIME), inside the interval.", "split <id> <at> [--date <date>]"),
        Usage(["delete", "three"], "'three' is not an interval id: `biomatimer log` shows them (1, 2, …).", "delete <id>"),
        Usage(["undo", "3"], "Unexpected argument '3'", "undo"),
        Usage(["note"], "Give the note's text (or --clear to remove it).", "note [<text>] [--clear]"),
        Usage(["note", "Agenda", "--clear"], "Give a note or --clear, not both.", "note [<text>] [--clear]"),
        Usage(["tag", "call"], "'call' is neither +word (add) nor -word (remove).", "tag [<changes> ...]"),
        Usage(["tag"], "Give +word to add a tag or -word to remove one.", "tag [<changes> ...]"),
    ]

    @Test(arguments: usages) func eachUsageErrorIsExact(_ usage: Usage) { expectUsage(usage) }
}
