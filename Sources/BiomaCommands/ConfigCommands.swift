import ArgumentParser
import BiomaText
import CContract
import BiomaContract

/// `config …`: the daemon's settings file.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "The settings file the daemon reads when it starts.",
        discussion: """
            The daemon reads $XDG_CONFIG_HOME/biomatimer/config (default ~/.config/biomatimer/config) \
            when it starts. A line it cannot use (a bad value, an unknown key, a line that is not \
            `key = value`) leaves its setting at its default, or at what an earlier line gave it; \
            every other line applies, and every command names the line on standard error until \
            the file is fixed and the daemon started again.
            """,
        subcommands: [ConfigCheck.self], defaultSubcommand: ConfigCheck.self)
}

struct ConfigCheck: ParsableCommand, ShowsConfigProblems {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Read the settings file again and name each line the daemon cannot use (exit 1 when there is one).")
    @Flag(help: "JSON for scripts: file, present, problems.") var json = false

    func run() throws {
        let answer = try daemonClient().call(BIOMATIMER_TIMER1_CHECK_CONFIG)
        let file = answer.first?.string ?? ""
        let present = answer.count > 1 ? answer[1].bool ?? false : false
        let problems = answer.count > 2 ? answer[2].array?.compactMap(\.string) ?? [] : []
        if json {
            say(JSON.fields([("file", .string(file)), ("present", .bool(present)), ("problems", .array(problems.map(JSON.string)))]).text)
            if !problems.isEmpty { throw ExitCode(BiomaContract.ExitCode.refused) }
            return
        }
        if !present {
            say("No config file at \(file): the defaults hold.")
        } else if problems.isEmpty {
            say("config OK: \(file)")
        }
        for problem in problems { say(TextEscaping.singleLine(problem)) }
        guard problems.isEmpty else {
            let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
            throw ClientFailure(
                exitCode: BiomaContract.ExitCode.refused,
                "\(count) in the settings file: each line named is ignored, its setting keeps its default.")
        }
    }
}
