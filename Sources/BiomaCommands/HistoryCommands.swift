import ArgumentParser
import BiomaText
import CContract
import CSystem
import DBusCore
import BiomaContract

struct ReportCommand: ParsableCommand, UsesFiles {
    static let configuration = CommandConfiguration(
        commandName: "report", abstract: "Totals for a day, week, month or year, per project and per day.",
        discussion: """
            --chart draws each day of the period as a 24-hour strip (midnight to midnight) in the \
            projects' colours: work without a project ░, unaccounted time ·, each project its own \
            glyph without colour. --svg FILE writes the day as a 24-hour ring, midnight at the top, \
            with the current time in red for today.
            """)
    @Flag(exclusivity: .exclusive) var period: Period = .day
    @Option(help: "A day inside the period: today (the default), yesterday, a weekday, YYYY-MM-DD.") var date: String?
    @Flag(help: "JSON for scripts.") var json = false
    @Flag(help: "Draw each day as a 24-hour strip in the projects' colours, with a legend.") var chart = false
    @Option(
        help: ArgumentHelp("Write the day's 24-hour ring chart as SVG to <file> (- for standard output).", valueName: "file"),
        completion: .file())
    var svg: String?
    @OptionGroup var extras: ReportExtraOptions
    @OptionGroup var sheet: TimesheetOptions

    enum Period: String, EnumerableFlag {
        case day, week, month, year
    }

    var fileRequests: [FileRequest] {
        // A PDF is not text, and a timesheet of years can be larger than one D-Bus message:
        // for standard output either is written through the caller's own.
        if sheet.target == "-" { return [.standardOutput] }
        guard let file = svg ?? sheet.target, file != "-" else { return [] }
        return [.directory(FileRequest.split(file).directory)]
    }

    func validate() throws {
        _ = try dayOption(date, "--date")
        try validateChart()
        if (chart || svg != nil) && !extras.options.isEmpty {
            throw ValidationError("--notes and --round go with the table or --json, not with --chart or --svg.")
        }
        if !sheet.isEmpty && (json || chart || svg != nil) {
            throw ValidationError("--html and --pdf are alternatives to --json, --chart and --svg: use one.")
        }
        if (sheet.grouped || sheet.from != nil || sheet.to != nil) && (chart || svg != nil) {
            throw ValidationError("--by, --client, --project, --tag, --from and --to go with the table, --json, --html or --pdf.")
        }
    }

    func run() throws {
        if chart || svg != nil { return try runChart() }
        if !sheet.isEmpty { return try runTimesheet() }
        let options: [(String, DBusValue)] =
            (json ? [("Json", .boolean(true))] : [("Color", .boolean(terminalStyle().color))]) + extras.options + sheet.options
        let text = try callDaemon(
            BIOMATIMER_TIMER1_REPORT_TEXT, [.string(period.rawValue), .string(try dayOption(date, "--date") ?? ""), .vardict(ordered: options)]
        ).first?.string ?? ""
        say(text, terminator: "")
    }
}

struct Export: ParsableCommand, UsesFiles {
    static let configuration = CommandConfiguration(
        abstract: "Export recorded intervals as CSV or as an iCalendar file.",
        discussion: """
            Both formats leave the running interval out until it stops. --format ics writes RFC \
            5545: one event per interval, SUMMARY the project, DESCRIPTION the note, CATEGORIES the \
            tags, times in UTC, UIDs stable across exports. The CSV's last column holds the tags. \
            --round 6m|15m|30m [--rounding up|nearest] adds a `rounded` column to the CSV, each \
            interval's duration rounded; start, end and the recorded history stay exact.
            """)
    @Option(help: "First day: today, yesterday, a weekday, YYYY-MM-DD (default: the beginning).") var from: String?
    @Option(help: "Last day, as --from (default: the end).") var to: String?
    @Option(name: .shortAndLong, help: "Write to FILE instead of standard output.", completion: .file()) var output: String?
    @Option(help: "csv or ics.") var format: ExportFormat = .csv
    @Option(help: "Round each interval's duration in a `rounded` column: 6m, 15m or 30m.") var round: RoundStep?
    @Option(help: "up (the default) or nearest.") var rounding: RoundMode?
    /// The file's folder, or the caller's standard output: an export of years can be larger
    /// than one D-Bus message, so it never goes back in `Run`'s reply.
    var fileRequests: [FileRequest] {
        guard let output, output != "-" else { return [.standardOutput] }
        return [.directory(FileRequest.split(output).directory)]
    }

    enum ExportFormat: String, ExpressibleByArgument, CaseIterable {
        case csv, ics
    }

    func validate() throws {
        for (name, value) in [("--from", from), ("--to", to)] { _ = try dayOption(value, name) }
        if format == .ics && (round != nil || rounding != nil) {
            throw ValidationError("--round and --rounding are for CSV: a calendar shows the exact times.")
        }
        if round == nil && rounding != nil { throw ValidationError("--rounding goes with --round 6m|15m|30m.") }
    }
    func run() throws {
        try writeExport()
        // Years of history were held by this thread (the daemon's, when the front runs the
        // command) and written through the caller's descriptor: the memory they took is given
        // back once they are gone.
        malloc_trim(0)
    }

    private func writeExport() throws {
        let days: [DBusValue] = [.string(try dayOption(from, "--from") ?? ""), .string(try dayOption(to, "--to") ?? "")]
        let csv: String
        if format == .ics {
            csv = try callDaemon(BIOMATIMER_TIMER1_EXPORT_ICS, days).first?.string ?? ""
        } else if let round {
            var options: [(String, DBusValue)] = [("Round", .string(round.rawValue))]
            if let rounding { options.append(("Rounding", .string(rounding.rawValue))) }
            csv = try callDaemon(BIOMATIMER_TIMER1_EXPORT_CSV_ROUNDED, days + [.vardict(ordered: options)]).first?.string ?? ""
        } else {
            csv = try callDaemon(BIOMATIMER_TIMER1_EXPORT_CSV, days).first?.string ?? ""
        }
        try CommandContext.current.files.write(Array(csv.utf8), to: output ?? "-")
    }
}

struct ResetHistory: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset-history", abstract: "Delete all recorded time (a backup is kept).")
    @Flag(help: "Do not ask for confirmation.") var yes = false
    func validate() throws { try requireTerminalOrYes(yes) }

    func run() throws {
        try confirm("Delete ALL recorded time?", yes: yes)
        _ = try callDaemon(BIOMATIMER_TIMER1_RESET_HISTORY)
    }
}
