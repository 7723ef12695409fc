import ArgumentParser
import BiomaText
import BiomaContract

/// A command's answer before it runs: the files its caller is to open (exit 65).
struct FilesNeeded: Error {
    var requests: [FileRequest]
}

/// A command's answer before it changes anything: the question its caller is to ask (exit 64).
struct ConfirmationNeeded: Error {
    var question: String
}

/// A command that shows the settings file's problems itself (`status`, `config check`): the
/// runner's warning lines are not added to its words.
protocol ShowsConfigProblems {}

/// Parses and runs one command line for a caller; what it prints goes to the context.
public enum CommandRunner {
    /// The most a command reads from one of its caller's files: what one D-Bus message
    /// carries, which is all an import can hand on anyway.
    public static let maximumInput = Import.messageLimit

    /// In the daemon: the caller's descriptors that `arguments`' command reads, to be read
    /// through the event loop before `run` (whose `PassedFiles` then hands out what arrived),
    /// and, when the command can tell early that it refuses its input (`RefusesEarly`), the
    /// test to stop reading by. No reads when the command reads nothing, has no files yet, or
    /// does not parse (`run` says why).
    public static func inputs(
        _ arguments: [String], in context: CommandContext
    ) -> (reads: [(FileRequest, Int32)], refusal: (@Sendable ([UInt8], Range<Int>) -> Bool)?) {
        guard let passed = context.passedFiles else { return ([], nil) }
        return CommandContext.$current.withValue(context) {
            guard let command = try? parse(arguments, daemonSide: true), !(command is RunsLocally),
                let requests = (command as? UsesFiles)?.fileRequests
            else { return ([], nil) }
            let reads = PassedFiles(requests, errors: passed.errors, descriptors: passed.descriptors).toRead
            return (reads, (command as? any RefusesEarly)?.refusesAlready)
        }
    }

    /// A line parsed: by its leading names in the daemon (`ParsedCommands`), by the whole tree
    /// in the caller's process. A line that does not parse and holds a negative value is parsed
    /// again with it separated (`negativeValuesSeparated`), and that parse answers.
    static func parse(_ arguments: [String], daemonSide: Bool) throws -> any ParsableCommand {
        func parsed(_ line: [String]) throws -> any ParsableCommand {
            try daemonSide ? ParsedCommands.shared.parse(line) : Biomatimer.parseAsRoot(line)
        }
        do {
            return try parsed(arguments)
        } catch {
            let separated = negativeValuesSeparated(arguments)
            if separated == arguments { throw error }
            return try parsed(separated)
        }
    }

    /// ArgumentParser reads `-5m` as options: a negative number or length (`-` and a digit; no
    /// option here starts with a digit) standing where a command's argument is (`focus
    /// countdown -5m`) gets `--` before it, so that it is read as the value it is and its
    /// command refuses it saying why; an option's value (`--rate -5`) is read by the option
    /// itself (`parsing: .unconditional`). Lines with `--` already are left as they are.
    static func negativeValuesSeparated(_ arguments: [String]) -> [String] {
        func negative(_ word: String) -> Bool {
            let scalars = Array(word.unicodeScalars)
            return scalars.count >= 2 && scalars[0] == "-" && ("0"..."9").contains(scalars[1])
        }
        guard let index = arguments.firstIndex(where: negative), !arguments[..<index].contains("--") else { return arguments }
        // After an option it is that option's value.
        if index > 0, arguments[index - 1].hasPrefix("-") { return arguments }
        return Array(arguments[..<index]) + ["--"] + arguments[index...]
    }

    /// Every error line begins `biomatimer: `, ArgumentParser's usage errors (`Error: `) too.
    static func oneErrorPrefix(_ message: String) -> String {
        message.hasPrefix("Error: ") ? "biomatimer: " + message.dropFirst("Error: ".count) : message
    }

    /// Runs `arguments` (without the program's name) and returns the exit code. `daemonSide`
    /// refuses the commands that run in the caller's process and asks for files first.
    public static func run(_ arguments: [String], in context: CommandContext, daemonSide: Bool = false) -> Int32 {
        CommandContext.$current.withValue(context) {
            // Once a parsed command has run (done or refused, not asking for files or an answer
            // first), one line on standard error per problem of the daemon's settings file.
            var warns = false
            func warn(_ code: Int32) -> Int32 {
                if warns { for problem in context.configProblems { context.error("biomatimer: warning: \(TextEscaping.singleLine(problem))\n") } }
                return code
            }
            do {
                var command = try parse(arguments, daemonSide: daemonSide)
                warns = !(command is ShowsConfigProblems)
                if daemonSide {
                    if command is RunsLocally {
                        throw ClientFailure(
                            exitCode: BiomaContract.ExitCode.refused,
                            "`\(arguments.first ?? "")` runs in the caller's process: run it with the biomatimer command.")
                    }
                    if let requests = (command as? UsesFiles)?.fileRequests, !requests.isEmpty {
                        guard let passed = context.passedFiles else { throw FilesNeeded(requests: requests) }
                        context.files = PassedFiles(
                            requests, errors: passed.errors, descriptors: passed.descriptors, arrived: context.arrived)
                    }
                }
                try command.run()
                return warn(BiomaContract.ExitCode.done)
            } catch let failure as ClientFailure {
                context.error("biomatimer: \(failure.description)\n")
                return warn(failure.exitCode)
            } catch let needed as FilesNeeded {
                context.output(needed.requests.map(\.line).joined(separator: "\n"))
                return BiomaContract.ExitCode.files
            } catch let asking as ConfirmationNeeded {
                context.error(asking.question)
                return BiomaContract.ExitCode.confirm
            } catch {
                // Exit codes are a contract for scripts: ArgumentParser's usage code (64) is 2.
                let code = Biomatimer.exitCode(for: error)
                let message = Biomatimer.fullMessage(for: error, columns: context.columns)
                if code == .success {
                    if !message.isEmpty { context.output(Biomatimer.fishCompatible(message) + "\n") }
                    return BiomaContract.ExitCode.done
                }
                if !message.isEmpty { context.error(oneErrorPrefix(message) + "\n") }
                return warn(code == .validationFailure ? BiomaContract.ExitCode.usage : code.rawValue)
            }
        }
    }
}
