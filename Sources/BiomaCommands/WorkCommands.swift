import ArgumentParser
import BiomaSystem
import BiomaWidgets
import CContract
import BiomaContract

struct Start: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start or resume work (and the project that stopped with it), or run PROJECT; +word tags the interval.",
        discussion: "`biomatimer start Website +meeting +call` runs Website with two tags on its interval.")
    @Argument(help: "A project's id or name, and +tags.", completion: .projects) var words: [String] = []
    func validate() throws { _ = try StartWords(words) }
    func run() throws {
        try StartWords(words).run()
        try sayWhatRunsNow()
    }
}

/// After a command that changes what runs: on a terminal, one short line saying what runs now
/// (the island line the bars show: `● Client A 0:02:15 (1:30:45)`, `○ 0:05:30 (2:45:15)`);
/// nothing when the output is not a terminal (a bar's click, a keybinding, a script), which
/// then costs no call.
func sayWhatRunsNow() throws {
    guard CommandContext.current.stdoutTTY else { return }
    let client = try daemonClient()
    var state = WidgetState(timer: try client.state(WorkStatus.self))
    state.tasks = try client.state(TasksStatus.self)
    state.focus = try client.state(FocusStatus.self)
    say(try StatusText.render(state, now: commandNow(), format: "island", ascii: false), terminator: "")
}

struct Stop: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Stop work and the running project; the session value holds.")
    func run() throws {
        _ = try callDaemon(BIOMATIMER_TIMER1_STOP)
        try sayWhatRunsNow()
    }
}

struct Toggle: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start work when stopped, stop it when running.")
    @Flag(help: "Print `running` or `stopped` afterwards, also when not on a terminal.") var print = false
    func run() throws {
        let running = try callDaemon(BIOMATIMER_TIMER1_TOGGLE).first?.bool ?? false
        if print { return say(running ? "running" : "stopped") }
        try sayWhatRunsNow()
    }
}

struct Reset: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Stop, and zero the work session and every project session (daily totals stay).")
    func run() throws { _ = try callDaemon(BIOMATIMER_TIMER1_RESET) }
}

struct Status: ParsableCommand, ShowsConfigProblems {
    static let configuration = CommandConfiguration(
        abstract: "Print the work timer and the running project once.",
        discussion: "Without options: `0:05:30 (2:45:15)` and, with a project, `Client A 0:02:15 (1:30:45)`.")
    @Flag(help: "The full state as JSON.") var json = false
    @Option(
        help: "A bar format (\(WidgetFormats.names.joined(separator: ", "))) or a template like '{session} ({daily}) {project}'.",
        completion: .formats)
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
            var state = WidgetState(timer: try client.state(WorkStatus.self))
            state.tasks = try client.state(TasksStatus.self)
            state.focus = try client.state(FocusStatus.self)
            return state
        }
        if case .failure(let failure) = read, failure.exitCode == ExitCode.unavailable, let format, !json {
            // A bar polling `status --format` shows the offline line rather than nothing.
            say(try makeRenderer(format, ascii: ascii).render(.offline, now: commandNow()))
        }
        let state = try read.get()
        say(try StatusText.render(state, now: commandNow(), format: shown, ascii: ascii), terminator: "")
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
    @Option(help: "A bar format (\(WidgetFormats.names.joined(separator: ", "))) or a template.", completion: .formats) var format = "island"
    @Flag(help: "ASCII marks instead of symbols.") var ascii = false

    func validate() throws { _ = try makeRenderer(format, ascii: ascii) }

    func run() throws { try localBodies().watch(try makeRenderer(format, ascii: ascii)) }
}
