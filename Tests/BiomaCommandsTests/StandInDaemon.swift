import BiomaCommands
import BiomaWidgets
import DBusCore
import BiomaContract

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's methods as a test stands them in: every call is recorded (interface, member,
/// arguments), answered from `answers` by member (`GetAll` from `properties` by the interface
/// it names), or refused: every call with `refusal`, a member with `refusals[member]`.
final class StandInDaemon: DaemonAccess, @unchecked Sendable {
    struct Call: Equatable, Sendable, CustomStringConvertible {
        var interface: String
        var member: String
        var arguments: [DBusValue]
        var description: String { "\(interface).\(member)\(arguments)" }

        init(interface: String, member: String, arguments: [DBusValue]) {
            (self.interface, self.member, self.arguments) = (interface, member, arguments)
        }

        /// `GetAll(interface)` on org.freedesktop.DBus.Properties.
        static func getAll(_ interface: String) -> Call {
            Call(interface: StandardNames.properties, member: "GetAll", arguments: [.string(interface)])
        }
    }

    private(set) var calls: [Call] = []
    var answers: [String: [DBusValue]] = [:]
    var properties: [String: [String: DBusValue]] = [:]
    var refusal: ClientFailure?
    var refusals: [String: ClientFailure] = [:]

    init(
        answers: [String: [DBusValue]] = [:], properties: [String: [String: DBusValue]] = [:], refusal: ClientFailure? = nil,
        refusals: [String: ClientFailure] = [:]
    ) {
        (self.answers, self.properties, self.refusal, self.refusals) = (answers, properties, refusal, refusals)
    }

    func call(_ member: String, _ arguments: [DBusValue], interface: String) throws(ClientFailure) -> [DBusValue] {
        calls.append(Call(interface: interface, member: member, arguments: arguments))
        if let refusal = refusal ?? refusals[member] { throw refusal }
        if member == "GetAll", interface == StandardNames.properties, let named = arguments.first?.string {
            return properties[named].map { [.vardict($0)] } ?? []
        }
        return answers[member] ?? []
    }
}

/// The local commands' bodies as a test stands them in: what each was asked to do.
final class StandInLocal: LocalCommands, @unchecked Sendable {
    private(set) var done: [String] = []
    var texts: GrammarTexts?

    func watch(_ renderer: any WidgetRenderer) throws { done.append("watch \(type(of: renderer))") }
    func tray() throws { done.append("tray") }
    func install(prefix: String?, taskwarrior: Bool, texts: GrammarTexts) throws {
        done.append("install \(prefix ?? "-") \(taskwarrior)")
        self.texts = texts
    }
    func uninstall(prefix: String?) throws { done.append("uninstall \(prefix ?? "-")") }
    func daemon(options: [String]) throws { done.append("daemon \(options)") }
}

/// Files as a test stands them in: reads from a table, writes kept.
final class StandInFiles: FileAccess, @unchecked Sendable {
    var contents: [String: [UInt8]] = [:]
    private(set) var written: [String: [UInt8]] = [:]
    /// A write refused with this message, when set.
    var writeRefusal: String?

    init(contents: [String: [UInt8]] = [:]) { self.contents = contents }

    func read(_ path: String) throws(ClientFailure) -> [UInt8] {
        guard let bytes = contents[path] else { throw ClientFailure(exitCode: ExitCode.refused, "cannot read \(path): No such file or directory.") }
        return bytes
    }
    func write(_ bytes: [UInt8], to path: String) throws(ClientFailure) {
        if let writeRefusal { throw ClientFailure(exitCode: ExitCode.refused, writeRefusal) }
        written[path] = bytes
    }
}

/// A clock that stands still at `now`.
struct FixedClock: TimeSource {
    var instant: Int64
    func now() -> Int64 { instant }
}

/// A zone `offset` seconds east of UTC all year (no daylight saving): what the caller's `TZ`
/// gives the commands in these tests.
struct FixedZone: LocalZone {
    var offset: Int64

    func local(_ seconds: Int64) -> LocalTime {
        var value = time_t(seconds + offset)
        var parts = tm()
        gmtime_r(&value, &parts)
        return LocalTime(
            year: parts.tm_year + 1900, month: parts.tm_mon + 1, day: parts.tm_mday, hour: parts.tm_hour, minute: parts.tm_min)
    }

    func instant(_ local: LocalTime) -> Int64 {
        var parts = tm()
        (parts.tm_year, parts.tm_mon, parts.tm_mday) = (local.year - 1900, local.month - 1, local.day)
        (parts.tm_hour, parts.tm_min) = (local.hour, local.minute)
        return Int64(timegm(&parts)) - offset
    }
}

/// The caller's moment in these tests: Tuesday 2026-11-24 10:00 in a zone one hour east of UTC.
enum Moment {
    static let zone = FixedZone(offset: 3600)
    static let now: Int64 = 1_795_510_800_000_000
    static let hour: Int64 = 3_600_000_000
    static let minute: Int64 = 60_000_000
    static let second: Int64 = 1_000_000
    /// The instant of a local clock time on 2026-11-24 (today), `days` later or earlier.
    static func today(_ hours: Int64, _ minutes: Int64 = 0, days: Int64 = 0) -> Int64 {
        now + (hours - 10) * hour + minutes * minute + days * 24 * hour
    }
}

/// What a command line gave back: its exit code and exactly what it printed on each stream.
struct Outcome: Equatable, CustomStringConvertible {
    var code: Int32
    var out: String
    var err: String
    var description: String { "exit \(code)\nstdout: \(out.debugDescription)\nstderr: \(err.debugDescription)" }
}

/// Runs `arguments` through the command tree in this process, as the tool (`daemonSide`
/// false, with `local` bodies) or as the daemon's `Run` does, against `daemon`, at
/// `Moment.now` in `Moment.zone`.
func run(
    _ arguments: [String], daemon: StandInDaemon = StandInDaemon(), local: StandInLocal? = nil, files: StandInFiles = StandInFiles(),
    daemonSide: Bool = false, stdinTTY: Bool = false, stdoutTTY: Bool = false, stderrTTY: Bool = false, answer: String? = nil,
    cwd: String = "/home/user", passedFiles: (errors: [Int32], descriptors: [Int32])? = nil,
    arrived: [FileRequest: Result<[UInt8], InputUnread>] = [:]
) -> Outcome {
    let context = CommandContext(
        direct: false, stdinTTY: stdinTTY, stdoutTTY: stdoutTTY, stderrTTY: stderrTTY, noColor: true, term: "dumb", columns: 100,
        files: files, daemon: { () throws(ClientFailure) in daemon })
    context.local = local
    context.answer = answer
    context.cwd = cwd
    context.zone = Moment.zone
    context.passedFiles = passedFiles
    context.arrived = arrived
    let code = CommandContext.$clock.withValue(FixedClock(instant: Moment.now)) {
        CommandRunner.run(arguments, in: context, daemonSide: daemonSide)
    }
    return Outcome(code: code, out: context.out, err: context.err)
}
