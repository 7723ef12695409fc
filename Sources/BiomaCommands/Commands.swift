import ArgumentParser
import BiomaSystem
import BiomaText
import BiomaWidgets
import CContract
import DBusCore
import TimerControl

#if canImport(Glibc)
import Glibc
#endif

// MARK: - Root

public struct Biomatimer: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "biomatimer",
        abstract: "A work timer with named, coloured project timers, on the D-Bus session bus.",
        discussion: """
            The daemon keeps the time; every other command asks it over D-Bus (it is started on \
            demand once `biomatimer install` has run). Status bars follow it with `biomatimer watch`.

            Exit codes: 0 done, 1 the daemon refused (its reason on stderr), 2 usage error, \
            3 no session bus or no daemon.
            """,
        version: "0.1.0",
        subcommands: [
            Start.self, Stop.self, Toggle.self, Reset.self, Status.self, Watch.self, Tray.self, ProjectCommand.self, FocusCommand.self,
            TaskCommand.self, AwayCommand.self, TargetCommand.self, SyncCommand.self, HooksCommand.self, TaskwarriorCommand.self, Log.self, AddInterval.self, EditInterval.self,
            SplitInterval.self, DeleteInterval.self, Undo.self, NoteCommand.self, TagCommand.self, ClientCommand.self,
            ReportCommand.self, Export.self, Import.self, ResetHistory.self, DaemonCommand.self, Install.self, Uninstall.self,
        ])

    public init() {}
}

/// Runs one daemon method and prints nothing: the keybinding path, kept to parse + one call.
func callDaemon(_ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
    try daemonClient().call(member, arguments)
}

// MARK: - Work timer

struct Start: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start or resume work (and the project that stopped with it), or run PROJECT; +word tags the interval.",
        discussion: "`biomatimer start Website +meeting +call` runs Website with two tags on its interval.")
    @Argument(help: "A project's id or name, and +tags.", completion: .projects) var words: [String] = []
    func validate() throws { _ = try StartWords(words) }
    func run() throws { try StartWords(words).run() }
}

struct Stop: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Stop work and the running project; the session value holds.")
    func run() throws { _ = try callDaemon(BIOMATIMER_TIMER1_STOP) }
}

struct Toggle: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start work when stopped, stop it when running.")
    @Flag(help: "Print `running` or `stopped` afterwards.") var print = false
    func run() throws {
        let running = try callDaemon(BIOMATIMER_TIMER1_TOGGLE).first?.bool ?? false
        if print { say(running ? "running" : "stopped") }
    }
}

struct Reset: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Stop, and zero the work session and every project session (daily totals stay).")
    func run() throws { _ = try callDaemon(BIOMATIMER_TIMER1_RESET) }
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the work timer and the running project once.",
        discussion: "Without options: `0:05:30 (2:45:15)` and, with a project, `Client A 0:02:15 (1:30:45)`.")
    @Flag(help: "The full state as JSON.") var json = false
    @Option(help: "A bar format (\(WidgetFormats.names.joined(separator: ", "))) or a template like '{session} ({daily}) {project}'.")
    var format: String?
    @Flag(help: "ASCII marks instead of symbols, for --format.") var ascii = false

    /// A bad format is a usage error, shown with this command's usage, before any call.
    func validate() throws {
        if let format, !json { _ = try makeRenderer(format, ascii: ascii) }
    }

    func run() throws {
        let shown = json ? "json" : format
        let read = Result { () throws(ClientFailure) -> WidgetState in
            let client = try daemonClient()
            var state = WidgetState(timer: try client.workStatus())
            state.tasks = try client.tasksStatus()
            state.focus = FocusStatus.table.decode(try client.properties(of: ContractNames.focusInterface), over: FocusStatus())
            return state
        }
        if case .failure(let failure) = read, failure.exitCode == ExitCode.unavailable, let format, !json {
            // A bar polling `status --format` shows the offline line rather than nothing.
            say(try makeRenderer(format, ascii: ascii).render(.offline, now: SystemClock().now()))
        }
        let state = try read.get()
        say(try StatusText.render(state, now: SystemClock().now(), format: shown, ascii: ascii), terminator: "")
    }
}

func makeRenderer(_ format: String, ascii: Bool) throws -> any WidgetRenderer {
    do {
        return try WidgetFormats.renderer(for: format, options: RenderOptions(ascii: ascii))
    } catch {
        throw ValidationError(error.description)
    }
}

struct Watch: ParsableCommand, RunsLocally {
    static let configuration = CommandConfiguration(
        abstract: "Print a status-bar line on every change (waybar, i3blocks, polybar, tmux, island, json).",
        discussion: """
            Follows the daemon's PropertiesChanged signals; never polls. While the timer runs it \
            prints when the displayed second changes; while stopped it does not wake at all. When \
            the daemon goes away the line says offline, and it comes back by itself.
            """)
    @Option(help: "A bar format (\(WidgetFormats.names.joined(separator: ", "))) or a template.") var format = "island"
    @Flag(help: "ASCII marks instead of symbols.") var ascii = false

    func validate() throws { _ = try makeRenderer(format, ascii: ascii) }

    func run() throws { try localBodies().watch(try makeRenderer(format, ascii: ascii)) }
}

// MARK: - Projects

struct ProjectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "project", abstract: "List, add, run and edit projects.",
        discussion: "PROJECT is a project's id or its name (ignoring case).",
        subcommands: [
            ProjectList.self, ProjectAdd.self, ProjectStart.self, ProjectStop.self, ProjectToggle.self, ProjectNext.self,
            ProjectPrev.self, ProjectReset.self, ProjectEdit.self, ProjectRename.self, ProjectColor.self, ProjectMove.self,
            ProjectDelete.self,
        ])
}

struct ProjectList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List projects with today's times.")
    @Flag(help: "JSON for scripts.") var json = false
    func run() throws {
        let projects = ProjectListing.rows(try callDaemon(BIOMATIMER_TIMER1_LIST_PROJECTS).first)
        if json {
            let items = JSON.objects(projects) { p in
                [
                    "id": .string(p.id), "name": .string(p.name), "color": .string(p.color),
                    "position": .integer(p.position), "running": .bool(p.running), "session_time": .int(p.sessionTime),
                    "daily_total": .int(p.dailyTotal), "budget": p.budget > 0 ? .int(p.budget) : .null,
                    "budget_period": p.budget > 0 ? .string(p.budgetPeriod) : .null,
                    "budget_used": p.budget > 0 ? .int(p.budgetUsed) : .null,
                    "client": p.client.isEmpty ? .null : .string(p.client),
                    "client_name": p.client.isEmpty ? .null : .string(p.clientName),
                    "rate": p.rate > 0 ? .int(p.rate) : .null, "currency": p.currency.isEmpty ? .null : .string(p.currency),
                    "billable": .bool(p.billable),
                ]
            }
            say(items.text)
            return
        }
        if projects.isEmpty {
            say("No projects yet. Add one with: biomatimer project add NAME [--color #RRGGBB]")
            return
        }
        ProjectLines.say(projects, style: terminalStyle())
    }
}

struct ProjectAdd: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a project; prints its id.")
    @Argument(help: "1–64 characters, unique ignoring case.") var name: String
    @Option(help: "Colour #RRGGBB (default #007AFF).") var color = ""
    @OptionGroup var billing: ProjectBillingOptions
    func run() throws { say(try billing.addProject(name: name, color: color)) }
}

struct ProjectStart: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "start", abstract: "Run a project (starting work if needed).")
    @Argument(completion: .projects) var project: String
    @Argument(help: "+word tags for its interval.") var tags: [String] = []
    func validate() throws { _ = try checkedTags(tags) }
    func run() throws {
        _ = try callDaemon(BIOMATIMER_TIMER1_START_PROJECT, [.string(project)])
        let tags = try checkedTags(tags)
        if !tags.isEmpty { _ = try callDaemon(BIOMATIMER_TIMER1_TAG_RUNNING, [tags.dbusValue, [String]().dbusValue]) }
    }
}

struct ProjectStop: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stop", abstract: "Stop the running project; work goes on.")
    func run() throws { _ = try callDaemon(BIOMATIMER_TIMER1_STOP_PROJECT) }
}

struct ProjectToggle: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "toggle", abstract: "Start a project, or stop it if it runs.")
    @Argument(completion: .projects) var project: String
    func run() throws { _ = try callDaemon(BIOMATIMER_TIMER1_TOGGLE_PROJECT, [.string(project)]) }
}

struct ProjectNext: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "next", abstract: "Run the next project in list order.")
    func run() throws { _ = try callDaemon(BIOMATIMER_TIMER1_CYCLE_PROJECT, [.int32(1)]) }
}

struct ProjectPrev: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "prev", abstract: "Run the previous project in list order.")
    func run() throws { _ = try callDaemon(BIOMATIMER_TIMER1_CYCLE_PROJECT, [.int32(-1)]) }
}

struct ProjectReset: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "reset", abstract: "Zero a project's session (its daily total stays).")
    @Argument(completion: .projects) var project: String
    func run() throws { _ = try callDaemon(BIOMATIMER_TIMER1_RESET_PROJECT, [.string(project)]) }
}

struct ProjectEdit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit", abstract: "Rename, recolour or set a budget on a project.",
        discussion: """
            A budget is an amount of time per week, per month or in total: `--budget 20h --per week` \
            (the default period), `--budget 150h --per total`; `--budget none` removes it. At 80 % \
            and at 100 % of it the daemon shows a notification, each once per period.
            """)
    @Argument(completion: .projects) var project: String
    @Option(help: "A new name.") var name: String?
    @Option(help: "A new colour, #RRGGBB.") var color: String?
    @Option(help: "The budget: a length (20h, 7h30m, 90m) or none.") var budget: String?
    @Option(help: "The budget's period: week, month or total (default week).") var per: String?
    @OptionGroup var billing: ProjectBillingOptions

    /// The `UpdateProject` changes; a bad budget or period is a usage error naming it.
    func changes() throws -> [(String, DBusValue)] {
        var changes: [(String, DBusValue)] = []
        if let name { changes.append(("Name", .string(name))) }
        if let color { changes.append(("Color", .string(color))) }
        if let budget {
            do {
                if let (amount, period) = try BudgetText.parse(amount: budget, per: per) {
                    changes += [("Budget", .int64(amount)), ("BudgetPeriod", .string(period))]
                } else {
                    changes.append(("Budget", .int64(0)))
                }
            } catch {
                throw ValidationError(error.message)
            }
        } else if per != nil {
            throw ValidationError("--per goes with --budget.")
        }
        changes += billing.changes
        guard !changes.isEmpty else {
            throw ValidationError("Give --name, --color, --budget, --client, --rate, --currency or --billable.")
        }
        return changes
    }

    func validate() throws { _ = try changes() }

    func run() throws {
        _ = try callDaemon(BIOMATIMER_TIMER1_UPDATE_PROJECT, [.string(project), .vardict(ordered: try changes())])
    }
}

struct ProjectRename: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rename", abstract: "Rename a project.")
    @Argument(completion: .projects) var project: String
    @Argument(help: "The new name.") var name: String
    func run() throws { _ = try callDaemon(BIOMATIMER_TIMER1_UPDATE_PROJECT, [.string(project), .vardict(["Name": .string(name)])]) }
}

struct ProjectColor: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "color", abstract: "Set a project's colour.")
    @Argument(completion: .projects) var project: String
    @Argument(help: "#RRGGBB") var color: String
    func run() throws { _ = try callDaemon(BIOMATIMER_TIMER1_UPDATE_PROJECT, [.string(project), .vardict(["Color": .string(color)])]) }
}

struct ProjectMove: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "move", abstract: "Move a project to a place in the list (0 is first).")
    @Argument(completion: .projects) var project: String
    @Argument var position: UInt32
    func run() throws { _ = try callDaemon(BIOMATIMER_TIMER1_UPDATE_PROJECT, [.string(project), .vardict(["Position": .uint32(position)])]) }
}

struct ProjectDelete: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a project and its recorded time (a backup is kept).")
    @Argument(completion: .projects) var project: String
    @Flag(help: "Do not ask for confirmation.") var yes = false
    func validate() throws { try requireTerminalOrYes(yes) }

    func run() throws {
        try confirm("Delete project \(TextEscaping.singleLine(project)) and all its recorded time?", yes: yes)
        _ = try callDaemon(BIOMATIMER_TIMER1_DELETE_PROJECT, [.string(project)])
    }
}

// MARK: - History

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
    @Option(help: "A day inside the period, YYYY-MM-DD (default today).") var date: String?
    @Flag(help: "JSON for scripts.") var json = false
    @Flag(help: "Draw each day as a 24-hour strip in the projects' colours, with a legend.") var chart = false
    @Option(help: ArgumentHelp("Write the day's 24-hour ring chart as SVG to <file> (- for standard output).", valueName: "file"))
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
        if let date, !DayText.isValid(date) { throw ValidationError("--date \(date) is not a day: use YYYY-MM-DD.") }
        try validateChart()
        if (chart || svg != nil) && !extras.options.isEmpty {
            throw ValidationError("--notes and --round go with the table or --json, not with --chart or --svg.")
        }
        if !sheet.isEmpty && (json || chart || svg != nil) {
            throw ValidationError("--html and --pdf are alternatives to --json, --chart and --svg: use one.")
        }
        if sheet.grouped && (chart || svg != nil) {
            throw ValidationError("--by, --client, --project, --tag, --from and --to go with the table, --json, --html or --pdf.")
        }
    }

    func run() throws {
        if chart || svg != nil { return try runChart() }
        if !sheet.isEmpty { return try runTimesheet() }
        let options: [(String, DBusValue)] =
            (json ? [("Json", .boolean(true))] : [("Color", .boolean(terminalStyle().color))]) + extras.options + sheet.options
        let text = try callDaemon(
            BIOMATIMER_TIMER1_REPORT_TEXT, [.string(period.rawValue), .string(date ?? ""), .vardict(ordered: options)]
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
    @Option(help: "First day, YYYY-MM-DD (default: the beginning).") var from: String?
    @Option(help: "Last day, YYYY-MM-DD (default: the end).") var to: String?
    @Option(name: .shortAndLong, help: "Write to FILE instead of standard output.") var output: String?
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
        for (name, value) in [("--from", from), ("--to", to)] {
            if let value, !DayText.isValid(value) { throw ValidationError("\(name) \(value) is not a day: use YYYY-MM-DD.") }
        }
        if format == .ics && (round != nil || rounding != nil) {
            throw ValidationError("--round and --rounding are for CSV: a calendar shows the exact times.")
        }
        if round == nil && rounding != nil { throw ValidationError("--rounding goes with --round 6m|15m|30m.") }
    }
    func run() throws {
        let days: [DBusValue] = [.string(from ?? ""), .string(to ?? "")]
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

// MARK: - Daemon and installation

struct DaemonCommand: ParsableCommand, RunsLocally {
    static let configuration = CommandConfiguration(
        commandName: "daemon", abstract: "Run the daemon on the session bus (normally started by D-Bus activation).",
        discussion: """
            The daemon is its own program, biomatimerd, beside this one or in libexec/biomatimer; \
            `biomatimer daemon --help` lists its options (--data-dir, --replace, --day-start, --week-start).
            """)
    @Argument(parsing: .captureForPassthrough, help: "The daemon's options.") var options: [String] = []

    func run() throws { try localBodies().daemon(options: options) }
}

struct Install: ParsableCommand, RunsLocally {
    static let configuration = CommandConfiguration(
        abstract: "Install the programs, D-Bus activation, the systemd user unit, the manual and completions.",
        discussion: """
            For you alone by default: programs under ~/.local (bin/biomatimer, libexec/biomatimer/), \
            and under $XDG_DATA_HOME (default ~/.local/share) the activation file (dbus-1/services), \
            the units (systemd/user: the daemon's and biomatimer-tray.service), the tray's autostart \
            entry ($XDG_CONFIG_HOME/autostart, default ~/.config/autostart), the manual (man/man1) and completions for bash \
            (bash-completion/completions), zsh (zsh/site-functions: add it to fpath) and fish \
            (fish/vendor_completions.d), and the GNOME Shell top bar extension (gnome-shell/extensions, \
            enabled when GNOME runs; otherwise it says how). With --prefix, the same under PREFIX/bin, PREFIX/libexec \
            and PREFIX/share (the autostart entry under PREFIX/etc/xdg/autostart), for packagers. Running it again is harmless; `biomatimer uninstall` \
            removes it all and never the data. With --taskwarrior, also Taskwarrior's on-modify hook \
            (`task N start` tracks the task) in the folder `task` reads hooks from: rc.hooks.location, \
            else hooks/ in $TASKDATA or rc.data.location, else ~/.task/hooks.
            """)
    @Option(help: "Install under this prefix (e.g. /usr/local) instead of for the current user.") var prefix: String?
    @Flag(help: "Also install Taskwarrior's hook: `task N start` and `stop` drive the timer.") var taskwarrior = false

    func run() throws {
        let texts = GrammarTexts(
            manual: Manual.page(version: Biomatimer.configuration.version), bash: Biomatimer.completionScript(for: .bash),
            zsh: Biomatimer.completionScript(for: .zsh), fish: Biomatimer.fishCompatible(Biomatimer.completionScript(for: .fish)))
        try localBodies().install(prefix: prefix, taskwarrior: taskwarrior, texts: texts)
    }
}

struct Uninstall: ParsableCommand, RunsLocally {
    static let configuration = CommandConfiguration(
        abstract: "Remove what `biomatimer install` wrote; the data stays.",
        discussion: "Give the same --prefix as to install, if any. Recorded time and settings are never touched.")
    @Option(help: "The prefix given to install.") var prefix: String?

    func run() throws { try localBodies().uninstall(prefix: prefix) }
}

// MARK: - Helpers

/// Without a terminal to ask on, a destructive command needs `--yes`: a usage error otherwise.
func requireTerminalOrYes(_ yes: Bool) throws {
    guard yes || CommandContext.current.stdinTTY else {
        throw ValidationError("There is no terminal to ask for confirmation on: pass --yes.")
    }
}

/// Asks on the caller's terminal (`validate` has made sure there is one, or `--yes`): here in
/// the tool; in the daemon the caller asks and runs the command again with the answer.
func confirm(_ question: String, yes: Bool) throws {
    if yes { return }
    let context = CommandContext.current
    let typed: String
    if let answer = context.answer {
        typed = answer
    } else if context.direct {
        writeStandardError("\(question) [y/N] ")
        typed = readLine() ?? ""
    } else {
        throw ConfirmationNeeded(question: "\(question) [y/N] ")
    }
    let answer = String(typed.filter { !$0.isWhitespace }).lowercased()
    guard answer == "y" || answer == "yes" else { throw ClientFailure(exitCode: 1, "Nothing was changed.") }
}

extension CompletionKind {
    /// The projects' names, from the daemon, for shells completing a PROJECT (nothing when
    /// no daemon answers).
    static var projects: CompletionKind {
        .custom { _, _, prefix in
            let projects = ProjectListing.rows((try? daemonClient().call(BIOMATIMER_TIMER1_LIST_PROJECTS))?.first)
            return projects.map(\.name).filter { $0.hasPrefix(prefix) }
        }
    }
}

extension Biomatimer {
    /// The fish script with the cursor's place in the word it completes read in a way fish 3
    /// (Debian's) answers too: ArgumentParser's `commandline -o -tC` prints nothing there, so
    /// no value (a project's name) was ever completed.
    static func fishCompatible(_ text: String) -> String {
        text.replacing("(__biomatimer_tokens -tC)", with: "(string length -- \"$(commandline -ct)\")")
    }
}
