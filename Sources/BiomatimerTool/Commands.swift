import ArgumentParser
import BiomaCore
import BiomaDaemon
import BiomaWidgets
import DBusKit
import Foundation

// MARK: - Root

struct Biomatimer: ParsableCommand {
    static let configuration = CommandConfiguration(
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
            Start.self, Stop.self, Toggle.self, Reset.self, Status.self, Watch.self, ProjectCommand.self,
            ReportCommand.self, Export.self, Import.self, ResetHistory.self, DaemonCommand.self, Install.self,
        ])
}

/// Runs one daemon method and prints nothing: the keybinding path, kept to parse + one call.
func callDaemon(_ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
    try TimerClient().call(member, arguments)
}

// MARK: - Work timer

struct Start: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start or resume work (and the project that stopped with it).")
    func run() throws { _ = try callDaemon("Start") }
}

struct Stop: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Stop work and the running project; the session value holds.")
    func run() throws { _ = try callDaemon("Stop") }
}

struct Toggle: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start work when stopped, stop it when running.")
    @Flag(help: "Print `running` or `stopped` afterwards.") var print = false
    func run() throws {
        let running = try callDaemon("Toggle").first?.bool ?? false
        if print { Swift.print(running ? "running" : "stopped") }
    }
}

struct Reset: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Stop, and zero the work session and every project session (daily totals stay).")
    func run() throws { _ = try callDaemon("Reset") }
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the work timer and the running project once.",
        discussion: "Without options: `0:05:30 (2:45:15)` and, with a project, `Client A 0:02:15 (1:30:45)`.")
    @Flag(help: "The full state as JSON.") var json = false
    @Option(help: "A bar format (\(WidgetFormats.names.joined(separator: ", "))) or a template like '{session} ({daily}) {project}'.")
    var format: String?
    @Flag(help: "ASCII marks instead of symbols, for --format.") var ascii = false

    func run() throws {
        let renderer: (any WidgetRenderer)?
        if json {
            renderer = try makeRenderer("json", ascii: ascii)
        } else if let format {
            renderer = try makeRenderer(format, ascii: ascii)
        } else {
            renderer = nil
        }
        let read = Result { () throws(ClientFailure) in try TimerClient().properties() }
        if case .failure(let failure) = read, failure.exitCode == 3, let renderer, !json {
            // A bar polling `status --format` shows the offline line rather than nothing.
            print(renderer.render(.offline, now: SystemClock().now()))
        }
        let state = WidgetState(properties: try read.get())
        let now = SystemClock().now()
        if let renderer {
            print(renderer.render(state, now: now))
            return
        }
        let live = state.advanced(to: now)
        print("\(DurationFormat.hms(live.sessionTime)) (\(DurationFormat.hms(live.dailyTotal)))")
        if live.hasProject {
            print(
                "\(Terminal.singleLine(live.activeProjectName)) \(DurationFormat.hms(live.projectSessionTime)) (\(DurationFormat.hms(live.projectDailyTotal)))")
        }
    }
}

func makeRenderer(_ format: String, ascii: Bool) throws -> any WidgetRenderer {
    do {
        return try WidgetFormats.renderer(for: format, options: RenderOptions(ascii: ascii))
    } catch {
        throw ValidationError(error.description)
    }
}

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a status-bar line on every change (waybar, i3blocks, polybar, tmux, island, json).",
        discussion: """
            Follows the daemon's PropertiesChanged signals; never polls. While the timer runs it \
            prints when the displayed second changes; while stopped it does not wake at all. When \
            the daemon goes away the line says offline, and it comes back by itself.
            """)
    @Option(help: "A bar format (\(WidgetFormats.names.joined(separator: ", "))) or a template.") var format = "island"
    @Flag(help: "ASCII marks instead of symbols.") var ascii = false

    func run() throws {
        let renderer = try makeRenderer(format, ascii: ascii)
        // One write(2) per line: every line reaches the bar at once.
        let watcher = Watcher(renderer: renderer) { line in
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
        let clicks = I3blocksClicks.stdinCarriesClicks(environment: ProcessInfo.processInfo.environment)
        watcher.run(address: .session, handleClicks: clicks)
    }
}

// MARK: - Projects

struct ProjectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "project", abstract: "List, add, run and edit projects.",
        discussion: "PROJECT is a project's id or its name (ignoring case).",
        subcommands: [
            ProjectList.self, ProjectAdd.self, ProjectStart.self, ProjectStop.self, ProjectToggle.self, ProjectNext.self,
            ProjectPrev.self, ProjectReset.self, ProjectRename.self, ProjectColor.self, ProjectMove.self, ProjectDelete.self,
        ])
}

struct ProjectList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List projects with today's times.")
    @Flag(help: "JSON for scripts.") var json = false
    func run() throws {
        let projects = (try callDaemon("ListProjects").first?.array ?? []).compactMap(\.vardict)
        if json {
            let items = projects.map { p -> [String: Any] in
                [
                    "id": p["Id"]?.string ?? "", "name": p["Name"]?.string ?? "", "color": p["Color"]?.string ?? "",
                    "position": p["Position"]?.int ?? 0, "running": p["Running"]?.bool ?? false,
                    "session_time": p["SessionTime"]?.int64 ?? 0, "daily_total": p["DailyTotal"]?.int64 ?? 0,
                ]
            }
            print(try JSONText.encode(items))
            return
        }
        if projects.isEmpty {
            print("No projects yet. Add one with: biomatimer project add NAME [--color #RRGGBB]")
            return
        }
        let style = Terminal.style()
        for p in projects {
            let mark = p["Running"]?.bool == true ? "▶" : " "
            let name = Terminal.singleLine(p["Name"]?.string ?? "")
            let times = "\(DurationFormat.hms(p["SessionTime"]?.int64 ?? 0)) (\(DurationFormat.hms(p["DailyTotal"]?.int64 ?? 0)))"
            print("\(mark) \(style.swatch(p["Color"]?.string ?? "")) \(Terminal.pad(name, 28)) \(times)  [\(p["Id"]?.string ?? "")]")
        }
    }
}

struct ProjectAdd: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a project; prints its id.")
    @Argument(help: "1–64 characters, unique ignoring case.") var name: String
    @Option(help: "Colour #RRGGBB (default #007AFF).") var color = ""
    func run() throws { print(try callDaemon("AddProject", [.string(name), .string(color)]).first?.string ?? "") }
}

struct ProjectStart: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "start", abstract: "Run a project (starting work if needed).")
    @Argument var project: String
    func run() throws { _ = try callDaemon("StartProject", [.string(project)]) }
}

struct ProjectStop: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stop", abstract: "Stop the running project; work goes on.")
    func run() throws { _ = try callDaemon("StopProject") }
}

struct ProjectToggle: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "toggle", abstract: "Start a project, or stop it if it runs.")
    @Argument var project: String
    func run() throws { _ = try callDaemon("ToggleProject", [.string(project)]) }
}

struct ProjectNext: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "next", abstract: "Run the next project in list order.")
    func run() throws { _ = try callDaemon("CycleProject", [.int32(1)]) }
}

struct ProjectPrev: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "prev", abstract: "Run the previous project in list order.")
    func run() throws { _ = try callDaemon("CycleProject", [.int32(-1)]) }
}

struct ProjectReset: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "reset", abstract: "Zero a project's session (its daily total stays).")
    @Argument var project: String
    func run() throws { _ = try callDaemon("ResetProject", [.string(project)]) }
}

struct ProjectRename: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rename", abstract: "Rename a project.")
    @Argument var project: String
    @Argument(help: "The new name.") var name: String
    func run() throws { _ = try callDaemon("UpdateProject", [.string(project), .vardict(["Name": .string(name)])]) }
}

struct ProjectColor: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "color", abstract: "Set a project's colour.")
    @Argument var project: String
    @Argument(help: "#RRGGBB") var color: String
    func run() throws { _ = try callDaemon("UpdateProject", [.string(project), .vardict(["Color": .string(color)])]) }
}

struct ProjectMove: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "move", abstract: "Move a project to a place in the list (0 is first).")
    @Argument var project: String
    @Argument var position: UInt32
    func run() throws { _ = try callDaemon("UpdateProject", [.string(project), .vardict(["Position": .uint32(position)])]) }
}

struct ProjectDelete: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a project and its recorded time (a backup is kept).")
    @Argument var project: String
    @Flag(help: "Do not ask for confirmation.") var yes = false
    func run() throws {
        try confirm("Delete project \(Terminal.singleLine(project)) and all its recorded time?", yes: yes)
        _ = try callDaemon("DeleteProject", [.string(project)])
    }
}

// MARK: - History

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report", abstract: "Totals for a day, week, month or year, per project and per day.")
    @Flag(exclusivity: .exclusive) var period: Period = .day
    @Option(help: "A day inside the period, YYYY-MM-DD (default today).") var date: String?
    @Flag(help: "JSON for scripts.") var json = false

    enum Period: String, EnumerableFlag {
        case day, week, month, year
    }

    func run() throws {
        if let date, Day(date) == nil { throw ValidationError("--date \(date) is not a day: use YYYY-MM-DD.") }
        let report = try callDaemon("Report", [.string(period.rawValue), .string(date ?? "")]).first?.vardict ?? [:]
        print(json ? try ReportText.json(report) : ReportText.table(report, style: Terminal.style()), terminator: "")
    }
}

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Export recorded intervals as CSV.")
    @Option(help: "First day, YYYY-MM-DD (default: the beginning).") var from: String?
    @Option(help: "Last day, YYYY-MM-DD (default: the end).") var to: String?
    @Option(name: .shortAndLong, help: "Write to FILE instead of standard output.") var output: String?
    func validate() throws {
        for (name, value) in [("--from", from), ("--to", to)] {
            if let value, Day(value) == nil { throw ValidationError("\(name) \(value) is not a day: use YYYY-MM-DD.") }
        }
    }
    func run() throws {
        let csv = try callDaemon("ExportCSV", [.string(from ?? ""), .string(to ?? "")]).first?.string ?? ""
        if let output {
            try Data(csv.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        } else {
            FileHandle.standardOutput.write(Data(csv.utf8))
        }
    }
}

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import intervals from a CSV file made by export; all or nothing.")
    @Argument(help: "The CSV file, or - for standard input.") var file: String
    func run() throws {
        let data: Data
        do {
            data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw ClientFailure(exitCode: 1, "cannot read \(file): \(error.localizedDescription)")
        }
        guard let text = String(data: data, encoding: .utf8), !text.utf8.contains(0) else {
            throw ClientFailure(exitCode: 1, "\(file) is not UTF-8 text.")
        }
        let count = try callDaemon("ImportCSV", [.string(text)]).first?.int64 ?? 0
        print("Imported \(count) interval\(count == 1 ? "" : "s").")
    }
}

struct ResetHistory: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset-history", abstract: "Delete all recorded time (a backup is kept).")
    @Flag(help: "Do not ask for confirmation.") var yes = false
    func run() throws {
        try confirm("Delete ALL recorded time?", yes: yes)
        _ = try callDaemon("ResetHistory")
    }
}

// MARK: - Daemon and installation

struct DaemonCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daemon", abstract: "Run the daemon on the session bus (normally started by D-Bus activation).",
        discussion: """
            Settings come from $XDG_CONFIG_HOME/biomatimer/config (default ~/.config/biomatimer/config), \
            lines such as `day_start = 04:00`, `week_start = sunday`, `data_dir = ~/timesheets`; \
            the options below override them.
            """)
    @Option(help: "Where the database lives (default $XDG_DATA_HOME/biomatimer).") var dataDir: String?
    @Flag(help: "Take over from a running daemon.") var replace = false
    @Option(help: "When the day starts, HH:MM (default 00:00).") var dayStart: String?
    @Option(help: "First day of the week: monday or sunday.") var weekStart: String?

    func run() throws {
        var settings: Settings
        do {
            settings = try Settings.load(from: Settings.file())
        } catch {
            throw ClientFailure(exitCode: 2, "\(error)")
        }
        if let dayStart {
            guard let minutes = Settings.parseTime(dayStart) else {
                throw ValidationError("--day-start \(dayStart) is not a time: use HH:MM.")
            }
            settings.dayStartMinutes = minutes
        }
        if let weekStart {
            guard let weekday = Settings.parseWeekStart(weekStart) else {
                throw ValidationError("--week-start must be monday or sunday.")
            }
            settings.firstWeekday = weekday
        }
        var options = DaemonOptions()
        options.dataDirectory = dataDir.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? settings.dataDirectory
        options.replace = replace
        options.rules.dayStartMinutes = settings.dayStartMinutes
        options.rules.firstWeekday = settings.firstWeekday
        let code = Daemon.run(options) { message in
            FileHandle.standardError.write(Data("biomatimer daemon: \(message)\n".utf8))
        }
        if code != 0 { throw ExitCode(code) }
    }
}

struct Install: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Install the binary, the D-Bus activation file and the systemd user unit.")
    @Option(help: "Installation prefix.") var prefix = "~/.local"
    func run() throws {
        let expanded = (prefix as NSString).expandingTildeInPath
        let tool = Installer.currentExecutable()
        guard let front = Installer.frontExecutable(besides: tool) else {
            throw ClientFailure(exitCode: 1, "cannot find the biomatimer binary that belongs beside \(tool.path).")
        }
        let paths = try Installer.install(prefix: URL(fileURLWithPath: expanded), front: front, tool: tool)
        for path in paths { print("installed \(path.path)") }
        print("The session bus now starts the daemon on the first call (run `biomatimer status` to try).")
    }
}

// MARK: - Helpers

/// Asks on the terminal; without one, `--yes` is required.
func confirm(_ question: String, yes: Bool) throws {
    if yes { return }
    guard isatty(0) != 0 else {
        throw ValidationError("\(question) Refusing without a terminal to ask on: pass --yes.")
    }
    FileHandle.standardError.write(Data("\(question) [y/N] ".utf8))
    let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
    guard answer == "y" || answer == "yes" else { throw ClientFailure(exitCode: 1, "Nothing was changed.") }
}
