import ArgumentParser
import BiomaCommands
import CContract
import DBusCore
import Testing
import BiomaContract

/// The command tree run in process against a stand-in daemon: for each subcommand, the calls a
/// line makes and exactly what it prints, its usage errors and the daemon's refusals, with
/// their exit codes (0 done, 1 refused, 2 usage, 3 unavailable).
@Suite struct CommandTreeTests {
    /// Every command of the tree, by its names (`focus preset add`), as `--help` lists them.
    static let leaves: [String] = {
        func walk(_ command: any ParsableCommand.Type, _ names: [String]) -> [String] {
            let subcommands = command.configuration.subcommands
            if subcommands.isEmpty { return [names.joined(separator: " ")] }
            return subcommands.flatMap { walk($0, names + [$0._commandName]) }
        }
        return walk(Biomatimer.self, [])
    }()

    static let local = ["watch", "tray", "install", "uninstall", "daemon"]

    /// The tables of the command families' suites.
    static let successes: [Line] =
        WorkCommandsTests.successes + ProjectCommandsTests.successes + IntervalCommandsTests.successes + FocusCommandsTests.successes
        + TaskCommandsTests.successes + ReportCommandsTests.successes + SyncAndHooksTests.successes + ConfigCommandsTests.successes
        + BackupCommandsTests.successes
    static let usages: [Usage] =
        WorkCommandsTests.usages + ProjectCommandsTests.usages + IntervalCommandsTests.usages + FocusCommandsTests.usages
        + TaskCommandsTests.usages + ReportCommandsTests.usages + SyncAndHooksTests.usages + ConfigCommandsTests.usages
        + BackupCommandsTests.usages

    /// The command a line runs: its leading words that name one (`hooks` alone runs `hooks list`).
    static func command(of line: [String]) -> String {
        var names: [String] = []
        var command: any ParsableCommand.Type = Biomatimer.self
        for word in line {
            guard let next = command.configuration.subcommands.first(where: { $0._commandName == word }) else { break }
            names.append(word)
            command = next
        }
        if let fallback = command.configuration.defaultSubcommand { names.append(fallback._commandName) }
        return names.joined(separator: " ")
    }

    /// Every command is in the families' tables: a line that succeeds (the daemon's refusal and
    /// no daemon are tried on each) and a usage error; the local ones have their own test.
    @Test func everyCommandIsTried() {
        #expect(Self.leaves.count > 70)
        let succeeding = Set(Self.successes.map { Self.command(of: $0.line) })
        let misused = Set(Self.usages.map { Self.command(of: $0.line) })
        for leaf in Self.leaves where !Self.local.contains(leaf) {
            #expect(succeeding.contains(leaf), "no line succeeds with `\(leaf)`")
            #expect(misused.contains(leaf), "no usage error of `\(leaf)`")
        }
        #expect(Set(Self.leaves).isSuperset(of: succeeding.union(misused)))
    }

    /// `7:30` is 7 h 30 min to both `focus countdown` and `target set`, and `--help` says so.
    @Test func sevenThirtyMeansOneThing() {
        let focus = StandInDaemon()
        #expect(run(["focus", "countdown", "7:30"], daemon: focus).code == 0)
        let target = StandInDaemon()
        #expect(run(["target", "set", "7:30"], daemon: target).code == 0)
        #expect(focus.calls.first?.arguments.first == .int64(27_000_000_000))
        #expect(target.calls.first?.arguments.first == .vardict(ordered: WorkCommandsTests.week([7.5, 7.5, 7.5, 7.5, 7.5, 0, 0])))
        for help in [["focus", "--help"], ["target", "--help"], ["task", "snooze", "--help"]] {
            let shown = run(help)
            // Help is wrapped to the caller's width: the words are compared without the breaks.
            let words = shown.out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(shown.code == 0 && words.contains("H:MM is hours and minutes (7:30 is 7 h 30 min)"), "\(help): \(shown)")
        }
    }

    /// The local commands: refused by the daemon, run by the bodies the tool supplies, and
    /// refused where no bodies are given.
    @Test func localCommandsRunOnlyWhereTheirBodiesAre() {
        let lines: [([String], String)] = [
            (["watch", "--format", "waybar"], "watch WaybarRenderer"), (["tray"], "tray"),
            (["install", "--prefix", "/opt/b", "--taskwarrior"], "install /opt/b true"), (["uninstall"], "uninstall -"),
            (["daemon", "--replace"], "daemon [\"--replace\"]"),
        ]
        for (line, done) in lines {
            #expect(
                run(line, daemonSide: true)
                    == Outcome(
                        code: 1, out: "",
                        err: "biomatimer: `\(line[0])` runs in the caller's process: run it with the biomatimer command.\n"))
            #expect(
                run(line) == Outcome(code: 1, out: "", err: "biomatimer: this command runs in the caller's process: run it with the biomatimer command.\n"))
            let local = StandInLocal()
            #expect(run(line, local: local) == Outcome(code: 0, out: "", err: ""), "\(line)")
            #expect(local.done == [done])
            if line[0] == "install" {
                #expect(local.texts?.manual.hasPrefix(".TH BIOMATIMER 1") == true)
                #expect(local.texts?.fish.contains("string length -- \"$(commandline -ct)\"") == true)
            }
        }
        #expect(run(["watch", "--format", "nope"], local: StandInLocal()).code == 2)
    }

    /// In the daemon a question goes back to the caller (exit 5 and the question); the answer
    /// comes with the line again.
    @Test func aConfirmationIsAskedOfTheCaller() {
        let daemon = StandInDaemon()
        #expect(
            run(["reset-history"], daemon: daemon, daemonSide: true, stdinTTY: true)
                == Outcome(code: ExitCode.confirm, out: "", err: "Delete ALL recorded time? [y/N] "))
        #expect(run(["reset-history"], daemon: daemon, daemonSide: true, stdinTTY: true, answer: "n")
            == Outcome(code: 1, out: "", err: "biomatimer: Nothing was changed.\n"))
        #expect(daemon.calls.isEmpty)
        #expect(run(["reset-history"], daemon: daemon, daemonSide: true, stdinTTY: true, answer: " Y ") == Outcome(code: 0, out: "", err: ""))
        #expect(daemon.calls.map(\.member) == [BIOMATIMER_TIMER1_RESET_HISTORY])
    }

    /// In the daemon a command that reads a file first asks its caller to open it.
    @Test func aFileIsAskedOfTheCaller() {
        let daemon = StandInDaemon()
        #expect(run(["import", "week.csv"], daemon: daemon, daemonSide: true) == Outcome(code: ExitCode.files, out: "r week.csv", err: ""))
        #expect(run(["import", "-"], daemon: daemon, daemonSide: true) == Outcome(code: ExitCode.files, out: "i", err: ""))
        #expect(daemon.calls.isEmpty)
        let files = StandInFiles()
        #expect(run(["import", "missing.csv"], daemon: daemon, files: files)
            == Outcome(code: 1, out: "", err: "biomatimer: cannot read missing.csv: No such file or directory.\n"))
    }
}
