import ArgumentParser
import BiomaText
import CContract
import DBusCore
import TimerControl

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
            `status --json` prints it. Only your own files that no one else can write run; a hook \
            gets `hook_timeout` (10 s) before SIGTERM, then SIGKILL.
            """,
        subcommands: [HooksList.self, HooksRun.self], defaultSubcommand: HooksList.self)
}

struct HooksList: RowsCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "The hooks found, their events and the last run of each (time, exit, duration).")
    static let member = BIOMATIMER_HOOKS1_LIST_HOOKS
    static let interface = ContractNames.hooksInterface
    static let none = "No hooks. Put executables named after an event (on-start.NAME, …) in ~/.config/biomatimer/hooks/."
    @Flag(help: "JSON for scripts.") var json = false

    static func rowsJSON(_ rows: [HookListing]) -> JSON {
        JSON.array(
            rows.map { row in
                .fields([
                    ("name", .string(row.name)), ("event", .string(row.event)),
                    ("problem", row.problem.isEmpty ? .null : .string(row.problem)),
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
        for row in rows {
            var line = TextEscaping.singleLine(row.name).padding(toLength: width) + "  " + row.event.padding(toLength: 17) + "  "
            if row.lastStart == 0 {
                line += row.problem.isEmpty ? "not run yet" : "skipped: \(row.problem)"
            } else {
                let when = WhenText.describe(row.lastStart, now: now, zone: CommandContext.current.zone)
                line += "\(when), \(TextEscaping.singleLine(row.lastOutcome))"
                if !row.lastOutcome.hasPrefix("skipped") { line += ", \(Self.seconds(row.lastDuration))" }
            }
            say(line)
            if !row.lastStderr.isEmpty && row.lastOutcome != "ok" {
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
        discussion: "The payload carries \"sample\": true. `biomatimer hooks` shows how each run went once it has ended.")
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
