import BiomaSystem
import BiomaText
import BiomaWidgets
import BiomaContract

#if canImport(Glibc)
import Glibc
#endif

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
    /// In the daemon: the lines of its settings file it could not use when it started, each
    /// `FILE:LINE: what is wrong`; `CommandRunner` says them after any command but those that
    /// show them themselves (`status`, `config check`).
    public var configProblems: [String] = []
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
