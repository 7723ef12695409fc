import ArgumentParser
import BiomaCore
import BiomaDaemon
import BiomaSystem
import Foundation

// `biomatimerd`: the daemon, on its own. Users start it as `biomatimer daemon` (which execs
// this binary) or through D-Bus activation. Only the daemon links the store; the client
// commands live in `biomatimer-tool` and the C front.
struct DaemonCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "biomatimer daemon",
        abstract: "Run the daemon on the session bus (normally started by D-Bus activation).",
        discussion: """
            Settings come from $XDG_CONFIG_HOME/biomatimer/config (default ~/.config/biomatimer/config), \
            lines such as `day_start = 04:00`, `week_start = sunday`, `data_dir = ~/timesheets`, \
            `notifications = off`; \
            the options below override them. A line that cannot be used is logged and ignored (its \
            setting keeps its default); `biomatimer config check` names each.
            """)
    @Option(help: "Where the database lives (default $XDG_DATA_HOME/biomatimer).") var dataDir: String?
    @Flag(help: "Take over from a running daemon.") var replace = false
    @Option(help: "When the day starts, HH:MM (default 00:00).") var dayStart: String?
    @Option(help: "First day of the week: monday or sunday.") var weekStart: String?
    @Option(help: "What time away does: stop, pause or keep.") var away: String?
    @Option(help: "Lock and idle absences shorter than this count as work (e.g. 10m).") var awayAfter: String?
    @Option(help: "A command's input (import -) that sends nothing this long ends it (default 30s).") var inputTimeout: String?

    func run() throws {
        // A bad line of the settings file never stops the daemon: its setting keeps its default,
        // and every command says what is wrong until the file is fixed (`config check`).
        let file = Settings.file()
        var settings = Settings.load(from: file)
        for problem in settings.problems {
            FileHandle.standardError.write(Data("biomatimer daemon: \(problem) (ignored)\n".utf8))
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
        if let away {
            guard let policy = AwayPolicy(rawValue: away) else { throw ValidationError("--away must be stop, pause or keep.") }
            settings.away.policy = policy
        }
        if let awayAfter {
            guard let threshold = DurationText.parse(awayAfter) else {
                throw ValidationError("--away-after \(awayAfter) is not a duration: use e.g. 10m, 90s, 1h.")
            }
            settings.away.threshold = threshold
        }
        if let inputTimeout {
            guard let seconds = Settings.parseInputTimeout(inputTimeout) else {
                throw ValidationError("--input-timeout \(inputTimeout) is not a duration from 1s to 24h: use e.g. 30s, 2m.")
            }
            settings.inputIdleSeconds = seconds
        }
        if let dataDir { settings.dataDirectory = URL(fileURLWithPath: dataDir, isDirectory: true) }
        var options = DaemonOptions()
        options.replace = replace
        options.settings = settings
        options.configFile = file.path
        let code = Daemon.run(options) { message in
            FileHandle.standardError.write(Data("biomatimer daemon: \(message)\n".utf8))
        }
        if code != 0 { throw ArgumentParser.ExitCode(code) }
    }
}

do {
    var command = try DaemonCommand.parseAsRoot(Array(processArguments().dropFirst()))
    try command.run()
    exit(0)
} catch {
    let code = DaemonCommand.exitCode(for: error)
    if code == .validationFailure {
        FileHandle.standardError.write(Data((DaemonCommand.fullMessage(for: error) + "\n").utf8))
        exit(2)
    }
    DaemonCommand.exit(withError: error)
}
