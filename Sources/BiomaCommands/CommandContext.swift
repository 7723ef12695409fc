import BiomaText
import BiomaSystem
import ArgumentParser
import BiomaWidgets
import DBusCore
import TimerControl

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's methods as a command calls them: over the bus (`biomatimer-tool`) or in the
/// daemon's own process, to the very handlers the bus dispatches to (`Run`).
public protocol DaemonAccess: AnyObject {
    func call(_ member: String, _ arguments: [DBusValue], interface: String) throws(ClientFailure) -> [DBusValue]
}

extension DaemonAccess {
    func call(_ member: String, _ arguments: [DBusValue] = []) throws(ClientFailure) -> [DBusValue] {
        try call(member, arguments, interface: ContractNames.interface)
    }

    func properties(of interface: String = ContractNames.interface) throws(ClientFailure) -> [String: DBusValue] {
        try call("GetAll", [.string(interface)], interface: ContractNames.propertiesInterface).first?.vardict ?? [:]
    }

    func workStatus() throws(ClientFailure) -> WorkStatus {
        WorkStatus.table.decode(try properties(), over: WorkStatus())
    }

    func tasksStatus() throws(ClientFailure) -> TasksStatus {
        TasksStatus.table.decode(try properties(of: ContractNames.tasksInterface), over: TasksStatus())
    }
}

extension DaemonClient: DaemonAccess {}

/// A file a command needs, opened by its caller (the daemon never opens a path itself): read
/// a file, standard input, or the directory a file is written into (the daemon writes a
/// temporary file there and renames it into place).
public enum FileRequest: Equatable, Sendable {
    case read(String)
    case standardInput
    case directory(String)
    /// The caller's standard output, for bytes that are not text (`report --pdf -`).
    case standardOutput

    /// One line of `Run`'s answer when it needs the files: `r PATH`, `i`, `d DIRECTORY`, `o`.
    public var line: String {
        switch self {
        case .read(let path): return "r " + path
        case .standardInput: return "i"
        case .directory(let path): return "d " + path
        case .standardOutput: return "o"
        }
    }

    /// The directory a path is written into, and the name in it.
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }
}

/// A command whose files its caller opens.
protocol UsesFiles {
    var fileRequests: [FileRequest] { get }
}

/// A command that can tell from the start of its input that it will refuse it, whatever
/// follows: the daemon then stops reading there and runs it on what arrived, which gives the
/// same refusal without keeping the rest (`yes | biomatimer import -`).
protocol RefusesEarly {
    /// Whether input (all that arrived, and the range of the bytes just come) is already refused.
    var refusesAlready: @Sendable ([UInt8], Range<Int>) -> Bool { get }
}

/// Reads and writes a command's files: by path in `biomatimer-tool`, through descriptors its
/// caller opened in the daemon.
public protocol FileAccess: AnyObject {
    func read(_ path: String) throws(ClientFailure) -> [UInt8]
    func write(_ bytes: [UInt8], to path: String) throws(ClientFailure)
}

/// Files by path, as the caller (this process) opens them.
final class LocalFiles: FileAccess {
    func read(_ path: String) throws(ClientFailure) -> [UInt8] {
        do {
            return try path == "-" ? readAll(from: 0) : readWholeFile(path)
        } catch {
            throw Self.readFailure(path, error)
        }
    }

    /// Why `path` (`-`: standard input) could not be read: one message wherever it is read.
    static func readFailure(_ path: String, _ error: any Error) -> ClientFailure {
        if path == "-" { return ClientFailure(exitCode: TimerControl.ExitCode.refused, "cannot read standard input: \(error)") }
        return ClientFailure(exitCode: TimerControl.ExitCode.refused, "cannot read \(path): \(error).")
    }

    func write(_ bytes: [UInt8], to path: String) throws(ClientFailure) {
        if path == "-" {
            if let code = writeAll(bytes, to: 1) {
                throw ClientFailure(exitCode: TimerControl.ExitCode.refused, "cannot write standard output: \(SystemError(code: code))")
            }
            return
        }
        do {
            try AtomicFile.write(bytes, to: path)
        } catch {
            throw ClientFailure(exitCode: TimerControl.ExitCode.refused, error.description)
        }
    }
}

/// The descriptors a caller opened for a command's `FileRequest`s, or the errno of each it
/// could not open; the messages are those `LocalFiles` gives.
public final class PassedFiles: FileAccess {
    let opened: [FileRequest: Result<Int32, SystemError>]
    /// What the daemon read from the caller's descriptors before the command ran (through its
    /// event loop, never inside a command), by request.
    let arrived: [FileRequest: Result<[UInt8], InputUnread>]

    /// `descriptors` holds one per request whose error is 0, in order.
    public init(
        _ requests: [FileRequest], errors: [Int32], descriptors: [Int32], arrived: [FileRequest: Result<[UInt8], InputUnread>] = [:]
    ) {
        self.arrived = arrived
        var opened: [FileRequest: Result<Int32, SystemError>] = [:]
        var next = descriptors.makeIterator()
        for (index, request) in requests.enumerated() {
            let code = index < errors.count ? errors[index] : EBADF
            if code != 0 {
                opened[request] = .failure(SystemError(code: code))
            } else if let fd = next.next() {
                opened[request] = .success(fd)
            } else {
                opened[request] = .failure(SystemError(code: EBADF))
            }
        }
        self.opened = opened
    }

    public func read(_ path: String) throws(ClientFailure) -> [UInt8] {
        let request: FileRequest = path == "-" ? .standardInput : .read(path)
        do {
            if let input = arrived[request] { return try input.get() }
            // Only a request the caller could not open comes here: its errno is the message.
            _ = try (opened[request] ?? .failure(SystemError(code: EBADF))).get()
            throw SystemError(code: EBADF)
        } catch {
            throw LocalFiles.readFailure(path, error)
        }
    }

    /// The descriptors to read before a command runs: each `read` or `standardInput` request
    /// the caller opened, with its descriptor.
    var toRead: [(FileRequest, Int32)] {
        opened.compactMap { request, result in
            switch (request, result) {
            case (.read, .success(let fd)), (.standardInput, .success(let fd)): return (request, fd)
            default: return nil
            }
        }
    }

    public func write(_ bytes: [UInt8], to path: String) throws(ClientFailure) {
        if path == "-" {
            // The caller's standard output: written piece by piece as it takes them, and given
            // up after 30 s of not taking any (a pipe nobody reads holds no thread for ever).
            let fd: Int32
            do { fd = try (opened[.standardOutput] ?? .failure(SystemError(code: EBADF))).get() } catch {
                throw ClientFailure(exitCode: TimerControl.ExitCode.refused, "cannot write standard output: \(error)")
            }
            if let code = writeAll(bytes, toCallers: fd, idleSeconds: 30) {
                throw ClientFailure(exitCode: TimerControl.ExitCode.refused, "cannot write standard output: \(SystemError(code: code))")
            }
            return
        }
        let (directory, name) = FileRequest.split(path)
        do {
            let fd = try (opened[.directory(directory)] ?? .failure(SystemError(code: EBADF))).get()
            try AtomicFile.write(bytes, directory: fd, name: name)
        } catch {
            throw ClientFailure(exitCode: TimerControl.ExitCode.refused, "cannot write \(path): \(error)")
        }
    }
}

extension FileRequest: Hashable {}

/// Why a caller's input was not read (the event loop's words: "no data for 30 s", "it is a
/// socket, not a file, a pipe or a terminal"); the command says `cannot read FILE: …`.
public struct InputUnread: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Who runs a command and where: the caller's terminals, colour and width, time zone, answer
/// to a question, files, and its way to the daemon. Commands read it as `current`.
public final class CommandContext: @unchecked Sendable {
    /// Whether text is written at once to this process's standard output and error (the
    /// tool), or collected for the reply (the daemon).
    public let direct: Bool
    public private(set) var out = ""
    public private(set) var err = ""
    public var stdinTTY: Bool
    public var stdoutTTY: Bool
    public var stderrTTY: Bool
    public var noColor: Bool
    public var term: String?
    /// The caller's width for help and usage (its `COLUMNS`, else its terminal's), if known.
    public var columns: Int?
    /// The answer typed to a confirmation question, when the caller asked it.
    public var answer: String?
    /// The caller's working directory (relative paths the daemon keeps are resolved in it).
    public var cwd: String?
    /// The zone the times the caller types and reads are in: its `TZ`, as a value (the
    /// daemon's process zone never changes for a caller).
    public var zone: any LocalZone = ProcessZone()
    /// In the daemon, once the caller has opened the files a command asked for: the errno of
    /// each request (0 when opened) and the descriptors opened, in order.
    public var passedFiles: (errors: [Int32], descriptors: [Int32])?
    /// In the daemon, what was read from the caller's descriptors before the command ran.
    public var arrived: [FileRequest: Result<[UInt8], InputUnread>] = [:]
    public var files: any FileAccess
    /// The bodies of `watch`, `tray`, `install`, `uninstall` and `daemon`, where the caller
    /// runs them (`biomatimer-tool`); nil in the daemon.
    public var local: (any LocalCommands)?
    let connect: () throws(ClientFailure) -> any DaemonAccess
    private var connected: (any DaemonAccess)?

    public init(
        direct: Bool, stdinTTY: Bool, stdoutTTY: Bool, stderrTTY: Bool, noColor: Bool, term: String?, columns: Int?,
        files: any FileAccess, daemon connect: @escaping () throws(ClientFailure) -> any DaemonAccess
    ) {
        (self.direct, self.stdinTTY, self.stdoutTTY) = (direct, stdinTTY, stdoutTTY)
        (self.stderrTTY, self.noColor, self.term) = (stderrTTY, noColor, term)
        (self.columns, self.files, self.connect) = (columns, files, connect)
    }

    /// This process as the caller: its own terminals and environment, the session bus.
    public static func process() -> CommandContext {
        let environment = processEnvironment()
        return CommandContext(
            direct: true, stdinTTY: isatty(0) != 0, stdoutTTY: isatty(1) != 0, stderrTTY: isatty(2) != 0,
            noColor: environment["NO_COLOR"].map { !$0.isEmpty } ?? false, term: environment["TERM"], columns: nil,
            files: LocalFiles(), daemon: { () throws(ClientFailure) in try DaemonClient() })
    }

    @TaskLocal public static var current = CommandContext.process()

    /// `path` made absolute in the caller's working directory.
    func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        let here = getcwd(&buffer, buffer.count) != nil ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "/"
        let base = cwd ?? here
        return base.hasSuffix("/") ? base + path : base + "/" + path
    }

    public func output(_ text: String) {
        if direct { writeAll(text, to: 1) } else { out += text }
    }

    public func error(_ text: String) {
        if direct { writeAll(text, to: 2) } else { err += text }
    }

    /// One connection (or in-process access) for the whole command, made on first use.
    func daemon() throws(ClientFailure) -> any DaemonAccess {
        if let connected { return connected }
        let made = try connect()
        connected = made
        return made
    }

    var terminal: Terminal { Terminal(color: stdoutTTY && !noColor && term != "dumb") }
}

struct FilesNeeded: Error {
    var requests: [FileRequest]
}

struct ConfirmationNeeded: Error {
    var question: String
}

/// A command that runs in the caller's own process (`watch`, `install`, …), never in the daemon.
protocol RunsLocally {}

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
            guard let command = try? ParsedCommands.shared.parse(arguments), !(command is RunsLocally),
                let requests = (command as? UsesFiles)?.fileRequests
            else { return ([], nil) }
            let reads = PassedFiles(requests, errors: passed.errors, descriptors: passed.descriptors).toRead
            return (reads, (command as? any RefusesEarly)?.refusesAlready)
        }
    }

    /// Runs `arguments` (without the program's name) and returns the exit code. `daemonSide`
    /// refuses the commands that run in the caller's process and asks for files first.
    public static func run(_ arguments: [String], in context: CommandContext, daemonSide: Bool = false) -> Int32 {
        CommandContext.$current.withValue(context) {
            do {
                var command = try daemonSide ? ParsedCommands.shared.parse(arguments) : Biomatimer.parseAsRoot(arguments)
                if daemonSide {
                    if command is RunsLocally {
                        throw ClientFailure(
                            exitCode: TimerControl.ExitCode.refused,
                            "`\(arguments.first ?? "")` runs in the caller's process: run it with the biomatimer command.")
                    }
                    if let requests = (command as? UsesFiles)?.fileRequests, !requests.isEmpty {
                        guard let passed = context.passedFiles else { throw FilesNeeded(requests: requests) }
                        context.files = PassedFiles(
                            requests, errors: passed.errors, descriptors: passed.descriptors, arrived: context.arrived)
                    }
                }
                try command.run()
                return TimerControl.ExitCode.done
            } catch let failure as ClientFailure {
                context.error("biomatimer: \(failure.description)\n")
                return failure.exitCode
            } catch let needed as FilesNeeded {
                context.output(needed.requests.map(\.line).joined(separator: "\n"))
                return TimerControl.ExitCode.files
            } catch let asking as ConfirmationNeeded {
                context.error(asking.question)
                return TimerControl.ExitCode.confirm
            } catch {
                // Exit codes are a contract for scripts: ArgumentParser's usage code (64) is 2.
                let code = Biomatimer.exitCode(for: error)
                let message = Biomatimer.fullMessage(for: error, columns: context.columns)
                if code == .success {
                    if !message.isEmpty { context.output(Biomatimer.fishCompatible(message) + "\n") }
                    return TimerControl.ExitCode.done
                }
                if !message.isEmpty { context.error(message + "\n") }
                return code == .validationFailure ? TimerControl.ExitCode.usage : code.rawValue
            }
        }
    }
}
