import BiomaCommands
import BiomaWidgets
import DBusCore
import TimerControl

/// The daemon's methods as a test stands them in: every call is recorded (interface, member,
/// arguments), answered from `answers` by member, or refused with `refusal`.
final class StandInDaemon: DaemonAccess, @unchecked Sendable {
    struct Call: Equatable, CustomStringConvertible {
        var interface: String
        var member: String
        var arguments: [DBusValue]
        var description: String { "\(interface).\(member)\(arguments)" }
    }

    private(set) var calls: [Call] = []
    var answers: [String: [DBusValue]] = [:]
    var refusal: ClientFailure?

    init(answers: [String: [DBusValue]] = [:], refusal: ClientFailure? = nil) {
        (self.answers, self.refusal) = (answers, refusal)
    }

    func call(_ member: String, _ arguments: [DBusValue], interface: String) throws(ClientFailure) -> [DBusValue] {
        calls.append(Call(interface: interface, member: member, arguments: arguments))
        if let refusal { throw refusal }
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
    func read(_ path: String) throws(ClientFailure) -> [UInt8] {
        guard let bytes = contents[path] else { throw ClientFailure(exitCode: ExitCode.refused, "cannot read \(path): No such file or directory.") }
        return bytes
    }
    func write(_ bytes: [UInt8], to path: String) throws(ClientFailure) { written[path] = bytes }
}

/// What a command line gave back: its exit code and exactly what it printed on each stream.
struct Outcome: Equatable, CustomStringConvertible {
    var code: Int32
    var out: String
    var err: String
    var description: String { "exit \(code)\nstdout: \(out.debugDescription)\nstderr: \(err.debugDescription)" }
}

/// Runs `arguments` through the command tree in this process, as the tool (`daemonSide`
/// false, with `local` bodies) or as the daemon's `Run` does, against `daemon`.
func run(
    _ arguments: [String], daemon: StandInDaemon = StandInDaemon(), local: StandInLocal? = nil, files: StandInFiles = StandInFiles(),
    daemonSide: Bool = false, stdinTTY: Bool = false, answer: String? = nil, cwd: String = "/home/user"
) -> Outcome {
    let context = CommandContext(
        direct: false, stdinTTY: stdinTTY, stdoutTTY: false, stderrTTY: false, noColor: true, term: "dumb", columns: 100,
        files: files, daemon: { () throws(ClientFailure) in daemon })
    context.local = local
    context.answer = answer
    context.cwd = cwd
    let code = CommandRunner.run(arguments, in: context, daemonSide: daemonSide)
    return Outcome(code: code, out: context.out, err: context.err)
}
