import ArgumentParser
import BiomaSystem

/// The daemon's parsed command lines, by argv. Parsing reflects over the whole command tree
/// (every command's properties, names and help) and costs more than most commands' work; the
/// value it makes depends on argv alone (what depends on the caller or the clock is checked in
/// `validate`, run again on every use). A line that does not parse is never kept: it is parsed
/// again, so help, usage errors and completions come from ArgumentParser each time.
final class ParsedCommands: @unchecked Sendable {
    static let shared = ParsedCommands()
    /// Bars and keybindings run a handful of lines over and over; past this many, start again.
    static let capacity = 64
    private var lines: [[String]: any ParsableCommand] = [:]
    private let lock = Lock()

    func parse(_ arguments: [String]) throws -> any ParsableCommand {
        if var command = lock.locked({ lines[arguments] }) {
            do {
                try command.validate()
                return command
            } catch {
                // Parsing again gives the error with its usage, as ArgumentParser words it.
            }
        }
        let command = try leafParse(arguments) ?? Biomatimer.parseAsRoot(arguments)
        lock.locked {
            if lines.count >= Self.capacity { lines.removeAll(keepingCapacity: true) }
            lines[arguments] = command
        }
        return command
    }

    /// The command a line names by its leading subcommand names, and the arguments after them.
    private static func leaf(_ arguments: [String]) -> (any ParsableCommand.Type, ArraySlice<String>)? {
        var command: any ParsableCommand.Type = Biomatimer.self
        var rest = arguments[...]
        while !command.configuration.subcommands.isEmpty {
            guard let name = rest.first,
                let next = command.configuration.subcommands.first(where: { $0._commandName == name || $0.configuration.aliases.contains(name) })
            else { return nil }
            command = next
            rest = rest.dropFirst()
        }
        return (command, rest)
    }

    /// A line parsed by the command it names alone (its arguments are all the tree's parse would
    /// give it), skipping the reflection over the rest of the tree. Nil, for the whole tree's
    /// parse to answer, when the line names no command or anything in it fails, asks for help,
    /// the version or completions: then the message and its usage are the whole tree's.
    private func leafParse(_ arguments: [String]) -> (any ParsableCommand)? {
        guard let (command, rest) = Self.leaf(arguments), !(command is any RunsLocally.Type), !rest.contains("--version")
        else { return nil }
        // A request for help parses as ArgumentParser's help command, not as `command`.
        guard let parsed = try? command.parseAsRoot(Array(rest)), type(of: parsed) == command else { return nil }
        return parsed
    }
}
