import CContract
import BiomaText
import BiomaSystem
import ArgumentParser
import DBusCore
import BiomaContract

// `biomatimer away …`: time away from the computer, for the idle daemon's hooks.

struct AwayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "away", abstract: "Tell the daemon you are away (locked, idle) or back.",
        discussion: """
            For the idle daemon's hooks, e.g. in the sway config:
              exec swayidle timeout 600 'biomatimer away idle --since -600s' resume 'biomatimer away back' \
            lock 'biomatimer away lock' unlock 'biomatimer away back'
            An absence longer than away_after (default 10m) is removed from work from its start; a shorter \
            one counts. Settings: away = stop|pause|keep, away_after = 10m.
            """,
        subcommands: [AwayLock.self, AwayIdle.self, AwayBack.self, AwayKeep.self])
}

/// `AwayBegin(reason, since)`, with WHEN (`-600s`, `09:30`) or now.
func awayBegin(_ reason: String, since: String?) throws {
    let instant = try since.map { try when($0, option: "--since") } ?? 0
    _ = try daemonClient().call(BIOMATIMER_TIMER1_AWAY_BEGIN, [.string(reason), .int64(instant)])
}

struct AwayLock: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lock", abstract: "The screen is locked.")
    @Option(parsing: .unconditional, help: "When it began (WHEN, e.g. -60s); default now.") var since: String?
    func validate() throws { if let since { _ = try when(since, option: "--since") } }
    func run() throws { try awayBegin("lock", since: since) }
}

struct AwayIdle: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "idle", abstract: "The session has been idle.")
    @Option(parsing: .unconditional, help: "When it began (WHEN, e.g. -600s); default now.") var since: String?
    func validate() throws { if let since { _ = try when(since, option: "--since") } }
    func run() throws { try awayBegin("idle", since: since) }
}

struct AwayBack: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "back", abstract: "You are back.")
    func run() throws { _ = try daemonClient().call(BIOMATIMER_TIMER1_AWAY_END) }
}

struct AwayKeep: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keep", abstract: "Count the last away time that was removed as work after all.",
        discussion: "With --project, count it as work on that project (a meeting away from the desk was work on it).")
    @Option(help: "The project to count it for (id or name).", completion: .projects) var project: String?
    func run() throws {
        if let project {
            _ = try daemonClient().call(BIOMATIMER_TIMER1_KEEP_AWAY_FOR, [.string(project)])
        } else {
            _ = try daemonClient().call(BIOMATIMER_TIMER1_KEEP_AWAY)
        }
    }
}
