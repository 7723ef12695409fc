import BiomaSystem
import ArgumentParser
import BiomaText
import BiomaWidgets
import CContract
import DBusCore
import BiomaContract

// Editing the past: `biomatimer log`, `add`, `edit`, `split`, `delete`, `undo` (the interval
// methods of org.biomatimer.Timer1). Times are parsed here, into instants in the local zone: a
// bad one, or one the clocks skip on a daylight-saving day, is a usage error before any call.

/// A day option (`--date`, `--from`, `--to`) as `YYYY-MM-DD`: `today`, `yesterday`,
/// `tomorrow`, a weekday (the last one, today included) or `YYYY-MM-DD`, read by the one
/// reader (`WhenText.day`) at the command's instant; nil when not given; a usage error naming
/// the option and what it takes.
func dayOption(_ value: String?, _ name: String) throws -> String? {
    guard let value else { return nil }
    guard let day = WhenText.day(value, now: commandNow(), zone: CommandContext.current.zone) else {
        throw ValidationError("\(name) '\(value)' is not a day: use \(WhenText.dayForms).")
    }
    return day
}

/// `--date D` checked: a day, or a usage error.
func checkIntervalDay(_ date: String?) throws { _ = try dayOption(date, "--date") }

/// TIME as an instant (a bare clock on `--date`, if given), or a usage error.
func intervalTime(_ text: String, option: String, day: String?) throws -> Int64 {
    do {
        return try WhenText.parse(text, now: commandNow(), day: day, zone: CommandContext.current.zone)
    } catch {
        throw ValidationError("\(option) \(error.description)")
    }
}

/// An interval id as the daemon gives them: digits.
func checkIntervalID(_ id: String) throws {
    guard !id.isEmpty, id.allSatisfy({ $0.isASCII && $0.isNumber }) else {
        throw ValidationError("'\(id)' is not an interval id: `biomatimer log` shows them (1, 2, …).")
    }
}

struct Log: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List recorded intervals with their ids (today, a day or a week).",
        discussion: "The ids are what edit, split and delete take. The running interval shows `running`; a note follows the duration.")
    @Flag(exclusivity: .exclusive) var period: Period = .day
    @Option(help: "A day inside the period: today (the default), yesterday, a weekday, YYYY-MM-DD.") var date: String?
    @Flag(help: "JSON for scripts.") var json = false

    enum Period: String, EnumerableFlag {
        case day, week
    }

    func validate() throws { try checkIntervalDay(date) }

    func run() throws {
        let client = try daemonClient()
        let date = try dayOption(self.date, "--date")
        var from = date ?? ""
        var to = date ?? ""
        if period == .week {
            // The daemon knows where weeks start (week_start, day_start).
            let days = try client.call(BIOMATIMER_TIMER1_PERIOD_DAYS, [.string("week"), .string(date ?? "")])
            (from, to) = (days.first?.string ?? "", days.dropFirst().first?.string ?? "")
        }
        let rows = IntervalListing.rows(
            try client.call(BIOMATIMER_TIMER1_LIST_INTERVALS, [.string(from), .string(to)]).first)
        let names = try client.state(WorkStatus.self).projectNames
        let now = commandNow()
        if json {
            let items = JSON.objects(rows) { r in
                [
                    "id": .string(r.id), "project": .string(r.project), "project_name": .string(names[r.project] ?? ""),
                    "start": .int(r.start), "end": r.end == 0 ? .null : .int(r.end), "running": .bool(r.end == 0),
                    "duration": .int(max(0, (r.end == 0 ? now : r.end) - r.start)),
                    "note": r.note.isEmpty ? .null : .string(r.note), "tags": .array(r.tags.map(JSON.string)),
                ]
            }
            say(items.text)
            return
        }
        if rows.isEmpty {
            say("No recorded time. Add some with: biomatimer add 09:00-12:30 [--date yesterday|YYYY-MM-DD] [--project P]")
            return
        }
        say("\(Terminal.pad("ID", 7)) \(Terminal.pad("PROJECT", 20)) \(Terminal.pad("START", 16)) \(Terminal.pad("END", 16)) DURATION")
        var total: Int64 = 0
        // Each project's name made printable once, not once a row (a week has hundreds).
        let shown = names.mapValues(TextEscaping.singleLine)
        let when = WhenText.Describer(now: now, zone: CommandContext.current.zone)
        for r in rows {
            let (start, end) = (r.start, r.end)
            let duration = max(0, (end == 0 ? now : end) - start)
            total += duration
            let project = shown[r.project] ?? "-"
            say(
                "\(Terminal.pad(r.id, 7)) \(Terminal.pad(project, 20)) "
                    + "\(Terminal.pad(when.describe(start), 16)) "
                    + "\(Terminal.pad(end == 0 ? "running" : when.describe(end), 16)) "
                    + DurationFormat.hms(duration) + r.tags.map { "  +" + $0 }.joined()
                    + (r.note.isEmpty ? "" : "  " + TextEscaping.singleLine(r.note)))
        }
        say("\(Terminal.pad("", 7)) \(Terminal.pad("total", 20)) \(Terminal.pad("", 16)) \(Terminal.pad("", 16)) \(DurationFormat.hms(total))")
    }
}

struct AddInterval: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Record work you did not time: add an interval; prints its id.",
        discussion: """
            RANGE is START-END: 09:00-12:30 (today, or on --date), yesterday 17:30-18:15, \
            2026-11-20T09:00-2026-11-20T12:30; an end clock before the start is the next day \
            (22:00-01:00). Time already recorded in the way is refused, naming it, unless --replace.
            """)
    @Argument(help: "START-END, e.g. 09:00-12:30.") var range: String
    @Argument(help: "+word tags.") var tags: [String] = []
    @Option(help: "The day of bare clock times: today (the default), yesterday, a weekday, YYYY-MM-DD.") var date: String?
    @Option(help: "A project's id or name.", completion: .projects) var project: String?
    @Flag(help: "Overwrite recorded time in the way (trimming, splitting or deleting it).") var replace = false
    @Option(help: "A note: one line, at most 500 characters.") var note: String?

    func span() throws -> (start: Int64, end: Int64) {
        let day = try dayOption(date, "--date")
        do {
            return try WhenText.parseRange(range, now: commandNow(), day: day, zone: CommandContext.current.zone)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func validate() throws {
        try checkIntervalDay(date)
        _ = try checkedTags(tags)
        let span = try span()
        if span.end <= span.start { throw ValidationError(WhenText.Failure.endsBeforeStart(range).description) }
    }

    func run() throws {
        let span = try span()
        var options: [String: DBusValue] = replace ? ["Replace": .boolean(true)] : [:]
        if let note { options["Note"] = .string(note) }
        if !tags.isEmpty { options["Tags"] = try checkedTags(tags).dbusValue }
        let reply = try callDaemon(BIOMATIMER_TIMER1_ADD_INTERVAL, [.int64(span.start), .int64(span.end), .string(project ?? ""), .vardict(options)])
        say(reply.first?.string ?? "")
    }
}

struct EditInterval: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit", abstract: "Change an interval's start, end, project or note.",
        discussion: """
            TIME is 09:00 (today, or on --date), yesterday 17:30, 2026-11-20T09:00. The running \
            interval's start can move (not after now); it has no end yet. --note "" removes the note.
            """)
    @Argument(help: "The interval's id (biomatimer log shows them).") var id: String
    @Option(parsing: .unconditional, help: "A new start (TIME, e.g. 09:00 or -20m).") var start: String?
    @Option(parsing: .unconditional, help: "A new end (TIME).") var end: String?
    @Option(help: "The day of bare clock times: today (the default), yesterday, a weekday, YYYY-MM-DD.") var date: String?
    @Option(help: "A project's id or name.", completion: .projects) var project: String?
    @Flag(help: "No project.") var noProject = false
    @Flag(help: "Overwrite recorded time in the way.") var replace = false
    @Option(help: "A new note (one line, at most 500 characters; \"\" removes it).") var note: String?
    @Option(help: "A tag to add (repeatable).") var tag: [String] = []
    @Option(help: "A tag to remove (repeatable).") var untag: [String] = []

    func validate() throws {
        try checkIntervalID(id)
        try checkIntervalDay(date)
        if let start { _ = try intervalTime(start, option: "--start", day: date) }
        if let end { _ = try intervalTime(end, option: "--end", day: date) }
        if project != nil && noProject { throw ValidationError("--project and --no-project exclude each other.") }
        for word in tag + untag { if let problem = TagText.problem(word) { throw ValidationError(problem) } }
        if start == nil && end == nil && project == nil && !noProject && note == nil && tag.isEmpty && untag.isEmpty {
            throw ValidationError("Nothing to change: give --start, --end, --project, --no-project, --note, --tag or --untag.")
        }
    }

    func run() throws {
        var changes: [String: DBusValue] = [:]
        if let start { changes["Start"] = .int64(try intervalTime(start, option: "--start", day: date)) }
        if let end { changes["End"] = .int64(try intervalTime(end, option: "--end", day: date)) }
        if let project { changes["Project"] = .string(project) }
        if noProject { changes["Project"] = .string("") }
        if let note { changes["Note"] = .string(note) }
        if replace { changes["Replace"] = .boolean(true) }
        if !tag.isEmpty { changes["AddTags"] = tag.map(TagText.word).dbusValue }
        if !untag.isEmpty { changes["RemoveTags"] = untag.map(TagText.word).dbusValue }
        _ = try callDaemon(BIOMATIMER_TIMER1_UPDATE_INTERVAL, [.string(id), .vardict(changes)])
    }
}

struct SplitInterval: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "split", abstract: "Split an interval in two at a time; prints the second part's id.")
    @Argument(help: "The interval's id.") var id: String
    @Argument(help: "Where (TIME), inside the interval.") var at: String
    @Option(help: "The day of a bare clock time: today (the default), yesterday, a weekday, YYYY-MM-DD.") var date: String?

    func validate() throws {
        try checkIntervalID(id)
        try checkIntervalDay(date)
        _ = try intervalTime(at, option: "AT", day: date)
    }

    func run() throws {
        let reply = try callDaemon(BIOMATIMER_TIMER1_SPLIT_INTERVAL, [.string(id), .int64(try intervalTime(at, option: "AT", day: date))])
        say(reply.first?.string ?? "")
    }
}

struct DeleteInterval: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a recorded interval (undo brings it back).")
    @Argument(help: "The interval's id.") var id: String
    func validate() throws { try checkIntervalID(id) }
    func run() throws { _ = try callDaemon(BIOMATIMER_TIMER1_DELETE_INTERVAL, [.string(id)]) }
}

struct Undo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Take back the last edit of recorded time (add, edit, split, delete, reset-history); again for the one before.")
    func run() throws { say(try callDaemon(BIOMATIMER_TIMER1_UNDO).first?.string ?? "") }
}

struct NoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "note", abstract: "Say what the running interval is for: set its note (--clear removes it).",
        discussion: """
            A note is one line of at most 500 characters; it belongs to the running interval (a \
            new one starts with each start, stop or project switch). `edit ID --note` changes a \
            recorded interval's note; `log` and `report --notes` show them; undo takes a note back.
            """)
    @Argument(help: "The note.") var text: String?
    @Flag(help: "Remove the running interval's note.") var clear = false

    func validate() throws {
        if clear && text != nil { throw ValidationError("Give a note or --clear, not both.") }
        if !clear && text == nil { throw ValidationError("Give the note's text (or --clear to remove it).") }
    }

    func run() throws { _ = try callDaemon(BIOMATIMER_TIMER1_SET_NOTE, [.string(clear ? "" : text ?? "")]) }
}

/// `--round` steps, `--rounding` and `--round-per` (the daemon's `Rounding` checks them again).
enum RoundStep: String, ExpressibleByArgument, CaseIterable {
    case six = "6m", fifteen = "15m", thirty = "30m"
}

enum RoundMode: String, ExpressibleByArgument, CaseIterable {
    case up, nearest
}

enum RoundPer: String, ExpressibleByArgument, CaseIterable {
    case interval, day
}

/// `report --notes`, `--round 6m|15m|30m [--rounding up|nearest] [--round-per interval|day]`.
struct ReportExtraOptions: ParsableArguments {
    @Flag(help: "List the intervals' notes per day and project.") var notes = false
    @Option(help: "Show rounded beside exact totals per project: 6m, 15m or 30m (the history is not changed).")
    var round: RoundStep?
    @Option(help: "up (the default: any started step counts) or nearest.") var rounding: RoundMode?
    @Option(name: .customLong("round-per"), help: "interval (the default) or day: what is rounded.") var roundPer: RoundPer?

    func validate() throws {
        if round == nil && (rounding != nil || roundPer != nil) {
            throw ValidationError("--rounding and --round-per go with --round 6m|15m|30m.")
        }
    }

    /// The `ReportText` options.
    var options: [(String, DBusValue)] {
        var options: [(String, DBusValue)] = notes ? [("Notes", .boolean(true))] : []
        if let round { options.append(("Round", .string(round.rawValue))) }
        if let rounding { options.append(("Rounding", .string(rounding.rawValue))) }
        if let roundPer { options.append(("RoundPer", .string(roundPer.rawValue))) }
        return options
    }
}
