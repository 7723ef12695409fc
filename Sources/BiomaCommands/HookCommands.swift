import ArgumentParser
import BiomaText
import CContract
import DBusCore
import BiomaContract

// `biomatimer hooks …`: the executables the daemon runs on events (`org.biomatimer.Hooks1`),
// and `biomatimer taskwarrior`, what Taskwarrior's on-modify hook calls.

extension HookEvent: ExpressibleByArgument {
    public static var allValueStrings: [String] { listed.map(\.rawValue) }
}

struct HooksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hooks", abstract: "The hooks the daemon runs on events, and their last runs.",
        discussion: """
            A hook is an executable in $XDG_CONFIG_HOME/biomatimer/hooks/ (default \
            ~/.config/biomatimer/hooks/) whose name starts with an event's: \
            \(HookEvent.allValueStrings.joined(separator: ", ")). Every file of an event \
            runs, in name order (on-focus-start.dnd, on-focus-start.log), with one JSON object on \
            standard input: the event, its instant, what it is about and the state as \
            `status --json` prints it. Only your own executable files that no one else can write \
            run; a hook gets `hook_timeout` (10 s) before SIGTERM, then SIGKILL. `biomatimer hooks` \
            names the folder the daemon reads.
            """,
        subcommands: [HooksList.self, HooksRun.self], defaultSubcommand: HooksList.self)
}

struct HooksList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "The hooks found in the daemon's hooks folder, their events, and the run going on or the last run of each.")
    @Flag(help: "JSON for scripts.") var json = false

    /// The rows (`ListHooks`); for people, the folder they are in first (`Hooks1.Folder`).
    func run() throws {
        let daemon = try daemonClient()
        let rows = HookListing.rows(
            try daemon.call(BIOMATIMER_HOOKS1_LIST_HOOKS, [], interface: ContractNames.hooksInterface).first)
        if json { return say(Self.rowsJSON(rows).text) }
        let folder = TextEscaping.singleLine(try daemon.state(HooksStatus.self).folder)
        if rows.isEmpty { return say("No hooks. Put executables named after an event (on-start.NAME, …) in \(folder)/.") }
        say("Folder: \(folder)")
        Self.sayLines(rows)
    }

    static func rowsJSON(_ rows: [HookListing]) -> JSON {
        JSON.array(
            rows.map { row in
                .fields([
                    ("name", .string(row.name)), ("event", .string(row.event)),
                    ("problem", row.problem.isEmpty ? .null : .string(row.problem)),
                    ("running_since", row.runningSince > 0 ? .int(row.runningSince) : .null),
                    ("last_start", row.lastStart > 0 ? .int(row.lastStart) : .null),
                    ("last_duration", row.lastStart > 0 ? .int(row.lastDuration) : .null),
                    ("last_exit", row.lastStart > 0 && row.lastExit >= 0 ? .int(row.lastExit) : .null),
                    ("last_outcome", row.lastStart > 0 ? .string(row.lastOutcome) : .null),
                    ("last_stderr", row.lastStderr.isEmpty ? .null : .string(row.lastStderr)),
                ])
            })
    }

    static func sayLines(_ rows: [HookListing]) {
        let width = rows.map { TextEscaping.singleLine($0.name).count }.max() ?? 0
        let now = commandNow()
        let zone = CommandContext.current.zone
        for row in rows {
            var line = TextEscaping.singleLine(row.name).padding(toLength: width) + "  " + row.event.padding(toLength: 17) + "  "
            // A run going on, else what keeps the file from running now (unless its last
            // run said just that), else the last run.
            let lastRun =
                row.runningSince == 0 && row.lastStart > 0 && (row.problem.isEmpty || row.lastOutcome == "skipped: \(row.problem)")
            if row.runningSince > 0 {
                line += "running since \(WhenText.describe(row.runningSince, now: now, zone: zone))"
            } else if !lastRun {
                line += row.problem.isEmpty ? "not run yet" : "skipped: \(TextEscaping.singleLine(row.problem))"
            } else {
                line += "\(WhenText.describe(row.lastStart, now: now, zone: zone)), \(TextEscaping.singleLine(row.lastOutcome))"
                if !row.lastOutcome.hasPrefix("skipped") { line += ", \(Self.seconds(row.lastDuration))" }
            }
            say(line)
            if lastRun && !row.lastStderr.isEmpty && row.lastOutcome != "ok" {
                for stderrLine in row.lastStderr.split(separator: "\n") { say("    " + TextEscaping.singleLine(String(stderrLine))) }
            }
        }
    }

    /// `0.02 s`, `12.3 s`.
    static func seconds(_ micros: Int64) -> String {
        let hundredths = (micros + 5_000) / 10_000
        let tenths = (micros + 50_000) / 100_000
        return micros < 10_000_000
            ? "\(hundredths / 100).\(String(hundredths % 100).leftPadded(2)) s" : "\(tenths / 10).\(tenths % 10) s"
    }
}

struct HooksRun: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Run an event's hooks now with a sample payload, to try them by hand.",
        discussion: "The payload carries \"sample\": true. `biomatimer hooks` shows each one running, then how its run went.")
    @Argument(help: "The event: \(HookEvent.allValueStrings.joined(separator: ", ")).") var event: HookEvent

    func run() throws {
        let answer = try daemonClient().call(
            BIOMATIMER_HOOKS1_RUN_HOOKS, [.string(event.rawValue)], interface: ContractNames.hooksInterface)
        let started = (answer.first?.array ?? []).compactMap(\.string)
        guard !started.isEmpty else {
            say("No hook for \(event.rawValue).")
            return
        }
        for name in started { say("running \(TextEscaping.singleLine(name))") }
        say("See how they went: biomatimer hooks")
    }
}

extension String {
    fileprivate func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }

    fileprivate func leftPadded(_ length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
