import ArgumentParser
import BiomaContract

#if canImport(Glibc)
import Glibc
#endif

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
