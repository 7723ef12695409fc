import BiomaCommands
import CContract
import DBusCore
import Testing
import BiomaContract

#if canImport(Glibc)
import Glibc
#endif

/// `report` (the table, `--json`, `--chart`, `--svg`, `--html`, `--pdf`, `--by`), `export` and
/// `import`: the options each line sends, where its text goes, and every option error.
@Suite struct ReportCommandsTests {
    static let text = BIOMATIMER_TIMER1_REPORT_TEXT
    static func report(_ period: String, _ date: String, _ options: [(String, DBusValue)]) -> StandInDaemon.Call {
        timer(text, [.string(period), .string(date), .vardict(ordered: options)])
    }
    static let week = "Week 2026-11-23 – 2026-11-29\n  work 1:00:00\n"
    static let csv = "id,start,end,project,note,tags\n1,2026-11-24T07:00:00Z,2026-11-24T08:30:00Z,Site,,call\n"

    static let successes: [Line] = [
        Line(["report", "--week", "--date", "2026-11-23"], calls: [report("week", "2026-11-23", [("Color", .boolean(false))])], answers: [text: [.string(week)]], out: week),
        Line(["report"], calls: [report("day", "", [("Color", .boolean(false))])], answers: [text: [.string("")]], out: ""),
        Line(["report", "--date", "yesterday"], calls: [report("day", "2026-11-23", [("Color", .boolean(false))])], answers: [text: [.string("")]], out: ""),
        Line(["report", "--json", "--year"], calls: [report("year", "", [("Json", .boolean(true))])], answers: [text: [.string("{}\n")]], out: "{}\n"),
        Line(
            ["report", "--month", "--notes", "--round", "15m", "--rounding", "nearest", "--round-per", "day"],
            calls: [
                report(
                    "month", "",
                    [("Color", .boolean(false)), ("Notes", .boolean(true)), ("Round", .string("15m")), ("Rounding", .string("nearest")), ("RoundPer", .string("day"))])
            ],
            answers: [text: [.string(week)]], out: week),
        Line(
            ["report", "--by", "client", "--from", "2026-11-01", "--to", "2026-11-30", "--tag", "+Call", "--client", "acme", "--project", "Site"],
            calls: [
                report(
                    "day", "",
                    [
                        ("Color", .boolean(false)), ("By", .string("client")), ("Client", .string("acme")), ("Project", .string("Site")),
                        ("Tag", .string("Call")), ("From", .string("2026-11-01")), ("To", .string("2026-11-30")),
                    ])
            ],
            answers: [text: [.string("ACME 1:00\n")]], out: "ACME 1:00\n"),
        Line(
            ["report", "--json", "--by", "day"], calls: [report("day", "", [("Json", .boolean(true)), ("By", .string("day"))])],
            answers: [text: [.string("[]\n")]], out: "[]\n"),
        Line(
            ["report", "--chart", "--week"], calls: [report("week", "", [("Chart", .boolean(true)), ("Color", .boolean(false))])],
            answers: [text: [.string("Mon ░░··\n")]], out: "Mon ░░··\n"),
        Line(["report", "--svg", "-"], calls: [report("day", "", [("Svg", .boolean(true))])], answers: [text: [.string("<svg/>\n")]], out: "<svg/>\n"),
        Line(["report", "--svg", "charts/day.svg", "--date", "2026-11-20"], calls: [report("day", "2026-11-20", [("Svg", .boolean(true))])], answers: [text: [.string("<svg/>\n")]])
            .with(requests: "d charts", written: ["charts/day.svg": "<svg/>\n"]),
        // Through the caller's standard output (a timesheet of years can be larger than one message).
        Line(["report", "--html", "-"], calls: [report("day", "", [("Html", .boolean(true))])], answers: [text: [.string("<html>\n")]])
            .with(requests: "o", written: ["-": "<html>\n"]),
        Line(
            ["report", "--html", "/tmp/sheet.html", "--month", "--client", "acme", "--round", "6m"],
            calls: [report("month", "", [("Html", .boolean(true)), ("Client", .string("acme")), ("Round", .string("6m"))])],
            answers: [text: [.string("<html>\n")]]
        ).with(requests: "d /tmp", written: ["/tmp/sheet.html": "<html>\n"]),
        // An export goes through the caller's standard output, never in Run's reply.
        Line(["export"], calls: [timer(BIOMATIMER_TIMER1_EXPORT_CSV, [.string(""), .string("")])], answers: [BIOMATIMER_TIMER1_EXPORT_CSV: [.string(csv)]])
            .with(requests: "o", written: ["-": csv]),
        Line(["export", "--from", "monday", "--to", "today"], calls: [timer(BIOMATIMER_TIMER1_EXPORT_CSV, [.string("2026-11-23"), .string("2026-11-24")])], answers: [BIOMATIMER_TIMER1_EXPORT_CSV: [.string(csv)]])
            .with(requests: "o", written: ["-": csv]),
        Line(
            ["export", "--from", "2026-11-01", "--to", "2026-11-30", "--format", "ics"],
            calls: [timer(BIOMATIMER_TIMER1_EXPORT_ICS, [.string("2026-11-01"), .string("2026-11-30")])],
            answers: [BIOMATIMER_TIMER1_EXPORT_ICS: [.string("BEGIN:VCALENDAR\r\n")]]
        ).with(requests: "o", written: ["-": "BEGIN:VCALENDAR\r\n"]),
        Line(
            ["export", "--round", "15m", "--rounding", "nearest"],
            calls: [
                timer(
                    BIOMATIMER_TIMER1_EXPORT_CSV_ROUNDED,
                    [.string(""), .string(""), .vardict(ordered: [("Round", .string("15m")), ("Rounding", .string("nearest"))])])
            ],
            answers: [BIOMATIMER_TIMER1_EXPORT_CSV_ROUNDED: [.string(csv)]]
        ).with(requests: "o", written: ["-": csv]),
        Line(
            ["export", "--round", "6m", "-o", "-"],
            calls: [timer(BIOMATIMER_TIMER1_EXPORT_CSV_ROUNDED, [.string(""), .string(""), .vardict(ordered: [("Round", .string("6m"))])])],
            answers: [BIOMATIMER_TIMER1_EXPORT_CSV_ROUNDED: [.string(csv)]]
        ).with(requests: "o", written: ["-": csv]),
        Line(
            ["export", "-o", "week.csv", "--from", "2026-11-23"],
            calls: [timer(BIOMATIMER_TIMER1_EXPORT_CSV, [.string("2026-11-23"), .string("")])], answers: [BIOMATIMER_TIMER1_EXPORT_CSV: [.string(csv)]]
        ).with(requests: "d .", written: ["week.csv": csv]),
        Line(
            ["import", "week.csv"], calls: [timer(BIOMATIMER_TIMER1_IMPORT_CSV, [.string(csv)])], answers: [BIOMATIMER_TIMER1_IMPORT_CSV: [.int64(3)]],
            out: "Imported 3 intervals.\n"
        ).with(contents: ["week.csv": Array(csv.utf8)], requests: "r week.csv"),
        Line(
            ["import", "-"], calls: [timer(BIOMATIMER_TIMER1_IMPORT_CSV, [.string(csv)])], answers: [BIOMATIMER_TIMER1_IMPORT_CSV: [.int64(1)]],
            out: "Imported 1 interval.\n"
        ).with(contents: ["-": Array(csv.utf8)], requests: "i"),
        Line(
            ["import", "--format", "timewarrior", "--tag-map", "acme=ACME Corp", "--tag-map", "misc=", "tw.json"],
            calls: [
                timer(
                    BIOMATIMER_TIMER1_IMPORT,
                    [
                        .string("timewarrior"), .string("[]"),
                        .vardict(["TagMap": .dictionary(key: .string, value: .string, [(.string("acme"), .string("ACME Corp")), (.string("misc"), .string(""))])]),
                    ])
            ],
            answers: [BIOMATIMER_TIMER1_IMPORT: [.int64(0)]], out: "Imported 0 intervals.\n"
        ).with(contents: ["tw.json": Array("[]".utf8)], requests: "r tw.json"),
        Line(
            ["import", "--format", "watson", "/home/user/.config/watson/frames"],
            calls: [timer(BIOMATIMER_TIMER1_IMPORT, [.string("watson"), .string("[]"), .vardict([:])])],
            answers: [BIOMATIMER_TIMER1_IMPORT: [.int64(2)]], out: "Imported 2 intervals.\n"
        ).with(contents: ["/home/user/.config/watson/frames": Array("[]".utf8)], requests: "r /home/user/.config/watson/frames"),
    ]

    @Test(arguments: successes) func eachLineMakesItsCallsAndPrintsExactly(_ line: Line) { expectSucceeds(line) }

    @Test(arguments: successes) func eachLineSaysTheDaemonsRefusal(_ line: Line) { expectRefusals(line) }

    /// In the daemon, once the caller has opened the file: what arrived is imported, and a file
    /// it could not open is said as the caller's process says it.
    @Test func theDaemonImportsWhatArrived() {
        let daemon = StandInDaemon(answers: [BIOMATIMER_TIMER1_IMPORT_CSV: [.int64(1)]])
        #expect(
            run(
                ["import", "week.csv"], daemon: daemon, daemonSide: true, passedFiles: ([0], [99]),
                arrived: [.read("week.csv"): .success(Array(Self.csv.utf8))]) == Outcome(code: 0, out: "Imported 1 interval.\n", err: ""))
        #expect(daemon.calls == [timer(BIOMATIMER_TIMER1_IMPORT_CSV, [.string(Self.csv)])])
        #expect(
            run(["import", "gone.csv"], daemon: daemon, daemonSide: true, passedFiles: ([ENOENT], []))
                == Outcome(code: 1, out: "", err: "biomatimer: cannot read gone.csv: No such file or directory.\n"))
        #expect(
            run(
                ["import", "-"], daemon: daemon, daemonSide: true, passedFiles: ([0], [0]),
                arrived: [.standardInput: .failure(InputUnread("no data for 30 s"))])
                == Outcome(code: 1, out: "", err: "biomatimer: cannot read standard input: no data for 30 s\n"))
        #expect(daemon.calls.count == 1)
    }

    /// What is not UTF-8 text is refused before any call; a large import says it is under way
    /// on a terminal; a file that cannot be written is said.
    @Test func filesAreCheckedAndSaid() {
        let daemon = StandInDaemon(answers: [BIOMATIMER_TIMER1_IMPORT_CSV: [.int64(10_000)]])
        for bytes: [UInt8] in [[0xFF, 0x41], [0x41, 0x00, 0x42]] {
            #expect(
                run(["import", "x.csv"], daemon: daemon, files: StandInFiles(contents: ["x.csv": bytes]))
                    == Outcome(code: 1, out: "", err: "biomatimer: x.csv is not UTF-8 text.\n"))
        }
        #expect(daemon.calls.isEmpty)
        let big = "id,start\n" + String(repeating: "1,x\n", count: 10_000)
        let files = StandInFiles(contents: ["big.csv": Array(big.utf8)])
        #expect(
            run(["import", "big.csv"], daemon: daemon, files: files, stderrTTY: true)
                == Outcome(code: 0, out: "Imported 10000 intervals.\n", err: "Importing 10000 intervals…\n"))
        #expect(run(["import", "big.csv"], daemon: daemon, files: files) == Outcome(code: 0, out: "Imported 10000 intervals.\n", err: ""))
        let readOnly = StandInFiles()
        readOnly.writeRefusal = "cannot write /ro/week.csv: Read-only file system"
        #expect(
            run(["export", "-o", "/ro/week.csv"], daemon: StandInDaemon(answers: [BIOMATIMER_TIMER1_EXPORT_CSV: [.string(Self.csv)]]), files: readOnly)
                == Outcome(code: 1, out: "", err: "biomatimer: cannot write /ro/week.csv: Read-only file system\n"))
    }

    /// `--pdf -` writes through the caller's standard output, which must not be a terminal.
    @Test func aPDFIsNotWrittenToATerminal() {
        let daemon = StandInDaemon()
        #expect(
            run(["report", "--pdf", "-"], daemon: daemon, stdoutTTY: true)
                == Outcome(
                    code: 1, out: "",
                    err: "biomatimer: standard output is a terminal: give --pdf a file name, or redirect it (> timesheet.pdf).\n"))
        #expect(run(["report", "--pdf", "-"], daemon: daemon, daemonSide: true) == Outcome(code: ExitCode.files, out: "o", err: ""))
        #expect(run(["report", "--pdf", "out/sheet.pdf"], daemon: daemon, daemonSide: true) == Outcome(code: ExitCode.files, out: "d out", err: ""))
        #expect(daemon.calls.isEmpty)
    }

    static let reportUsage = "report <options>"
    static let exportUsage =
        "export [--from <from>] [--to <to>] [--output <output>] [--format <format>] [--round <round>] [--rounding <rounding>]"
    static let importUsage = "import [--format <format>] [--tag-map <TAG=PROJECT> ...] <file>"

    static let usages: [Usage] = [
        Usage(["report", "--date", "2026-02-30"], "--date '2026-02-30' is not a day: use today, yesterday, tomorrow, a weekday (monday or mon) or YYYY-MM-DD.", reportUsage),
        Usage(["report", "--json", "--chart"], "--json, --chart and --svg are alternatives: use one.", reportUsage),
        Usage(["report", "--svg", "day.svg", "--week"], "--svg draws one day: use --date D, without --week.", reportUsage),
        Usage(["report", "--svg", ""], "--svg needs a file name (or - for standard output).", reportUsage),
        Usage(["report", "--chart", "--notes"], "--notes and --round go with the table or --json, not with --chart or --svg.", reportUsage),
        Usage(["report", "--html", "x.html", "--json"], "--html and --pdf are alternatives to --json, --chart and --svg: use one.", reportUsage),
        Usage(["report", "--chart", "--by", "day"], "--by, --client, --project, --tag, --from and --to go with the table, --json, --html or --pdf.", reportUsage),
        Usage(["report", "--html", "a.html", "--pdf", "b.pdf"], "--html and --pdf are alternatives: use one.", reportUsage),
        Usage(["report", "--pdf", ""], "--pdf needs a file name (or - for standard output).", reportUsage),
        Usage(["report", "--by", "client", "--html", "a.html"], "--by is for the table or --json, not --html or --pdf.", reportUsage),
        Usage(
            ["report", "--by", "week"],
            "The value 'week' is invalid for '--by <by>'. Please provide one of 'client', 'project', 'tag' or 'day'.\n"
                + "Help:  --by <by>  Group the totals by client, project, tag or day (hours, rounded hours, amount).", reportUsage),
        Usage(["report", "--paper", "a4"], "--paper goes with --pdf.", reportUsage),
        Usage(["report", "--pdf", "a.pdf", "--paper", "a3"], "--paper a3 is not a paper size: use a4 or letter.", reportUsage),
        Usage(["report", "--tag", "no way"], "Tag \"no way\" is not a word: use letters, digits, '-', '_' and '.' (no spaces).", reportUsage),
        Usage(["report", "--from", "2026-11-01"], "--from and --to go together.", reportUsage),
        Usage(["report", "--from", "2026-11-30", "--to", "2026-11-01"], "The period ends (2026-11-01) before it starts (2026-11-30).", reportUsage),
        Usage(["report", "--to", "30.11.2026", "--from", "2026-11-01"], "--to '30.11.2026' is not a day: use today, yesterday, tomorrow, a weekday (monday or mon) or YYYY-MM-DD.", reportUsage),
        Usage(["report", "--rounding", "up"], "--rounding and --round-per go with --round 6m|15m|30m.", reportUsage),
        Usage(["report", "--week", "--month"], "Value to be set with flag '--month' had already been set with flag '--week'", reportUsage),
        Usage(["export", "--format", "ics", "--round", "6m"], "--round and --rounding are for CSV: a calendar shows the exact times.", exportUsage),
        Usage(["export", "--rounding", "up"], "--rounding goes with --round 6m|15m|30m.", exportUsage),
        Usage(["export", "--from", "2026/11/01"], "--from '2026/11/01' is not a day: use today, yesterday, tomorrow, a weekday (monday or mon) or YYYY-MM-DD.", exportUsage),
        Usage(
            ["export", "--format", "xml"], "The value 'xml' is invalid for '--format <format>'. Please provide one of 'csv' and 'ics'.\nHelp:  --format <format>  csv or ics.",
            exportUsage),
        Usage(["import"], "Missing expected argument '<file>'\nHelp:  <file>  The file, or - for standard input.", importUsage),
        Usage(["import", "--tag-map", "a=b", "x.csv"], "--tag-map is for --format timewarrior and --format watson: a CSV file names its projects.", importUsage),
        Usage(
            ["import", "--format", "watson", "--tag-map", "acme", "x"], "--tag-map \"acme\" is not TAG=PROJECT (e.g. --tag-map acme=\"ACME Corp\").",
            importUsage),
        Usage(["import", "--format", "watson", "--tag-map", "a=b", "--tag-map", "a=c", "x"], "--tag-map names the tag \"a\" twice.", importUsage),
        Usage(
            ["import", "--format", "toggl", "x"], "The value 'toggl' is invalid for '--format <format>'. Please provide one of 'csv', 'timewarrior' or 'watson'.\n"
                + "Help:  --format <format>  The format: csv, timewarrior (`timew export`) or watson (its frames file).",
            importUsage),
    ]

    @Test(arguments: usages) func eachUsageErrorIsExact(_ usage: Usage) { expectUsage(usage) }
}
